"""Four more sets of eight ordinary tools for ``bench/own_tools.py`` (``--set second`` to
``fifth``), with requests worded the way people type, to try the default decision on tools it was
not chosen on (docs/benchmarks.md, "The default on other tools").

Written on 2026-12-05 (stop 42), before any run of them (the fourth and fifth after the second
and third had been run and read): the tools by hand; each set's 24
requests (8 plainly worded, 8 paraphrases sharing no word stem with any tool text of the set,
8 needing no tool, most sharing a topic or word with one) by its own writer, who saw only that
set's tools. One paraphrase of the second set shares a word after all ("one", with
``water_garden``'s "in one zone"; found by the test after the runs, left as run). No example
requests: these sets try the default, which uses none.
"""

from __future__ import annotations


def get_train_times(origin: str, destination: str) -> str:
    """Departure times of the next trains between two stations.

    Args:
        origin: Station to leave from.
        destination: Station to arrive at.
    """
    return "ok"


def lookup_contact(name: str) -> str:
    """Phone number and e-mail address of a person in the address book.

    Args:
        name: The person's name.
    """
    return "ok"


def water_garden(zone: str, minutes: int) -> str:
    """Turn on the garden sprinklers in one zone for some minutes.

    Args:
        zone: Which part of the garden, for instance "front lawn".
        minutes: How long to water.
    """
    return "ok"


def log_workout(activity: str, minutes: int) -> str:
    """Record an exercise session in the fitness diary.

    Args:
        activity: What was done, for instance running or yoga.
        minutes: How long it lasted.
    """
    return "ok"


def find_pharmacy(near: str, open_now: bool = True) -> str:
    """Pharmacies near a place, with their opening hours.

    Args:
        near: Address or landmark.
        open_now: Only those open at this moment.
    """
    return "ok"


def pay_bill(payee: str, amount: float) -> str:
    """Pay a bill from the user's bank account.

    Args:
        payee: Company or person to pay, for instance the electricity provider.
        amount: Amount to pay.
    """
    return "ok"


def check_air_quality(city: str) -> str:
    """Air quality index and pollen levels in a city today.

    Args:
        city: Name of the city.
    """
    return "ok"


def lock_door(door: str) -> str:
    """Lock a door of the house with the smart lock.

    Args:
        door: Which door, for instance "front door" or "garage".
    """
    return "ok"


SECOND_TOOLS = [get_train_times, lookup_contact, water_garden, log_workout, find_pharmacy, pay_bill,
                check_air_quality, lock_door]
SECOND: dict[str, list[tuple[str, str | None]]] = {
    "plain": [
        ('whens the next train from Boston to Providence?', 'get_train_times'),
        ('Look up the contact for Dave Miller, I need his phone number and email address', 'lookup_contact'),
        ('water the front lawn for 15 minutes pls', 'water_garden'),
        ('log my workout: yoga, 40 minutes', 'log_workout'),
        ("Find a pharmacy near Central Station that's open now", 'find_pharmacy'),
        ('pay the electricity bill, $120.35 to City Power', 'pay_bill'),
        ('check the air quality in Los Angeles today', 'check_air_quality'),
        ('lock the garage door', 'lock_door'),
    ],
    "paraphrase": [
        ("when's the soonest rail service going Leeds to York? i gotta catch one", 'get_train_times'),
        ('how can i reach priya sharma? need her cell + how to message her', 'lookup_contact'),
        ('veggie beds out back are bone dry, can u soak them for 600 seconds?', 'water_garden'),
        ('biked 6:10 to 6:55 am, pls note it in my gym journal', 'log_workout'),
        ('any drugstores still serving by Union Square rn? need cough syrup', 'find_pharmacy'),
        ('settle up the 84.50 i owe Comcast for internet', 'pay_bill'),
        ("how bad is the smog in Delhi rn? also my hay fever's killing me, is the sneezy stuff high?", 'check_air_quality'),
        ('can you bolt the back entrance? pretty sure i forgot before heading out', 'lock_door'),
    ],
    "no_tool": [
        ("what's actually the difference between a train and a tram?", None),
        ('how often should I water tomato plants during a hot summer?', None),
        ("any tips for building a workout routine as a total beginner? i'm 45 and out of shape", None),
        ('write me a short poem about a pharmacy at midnight', None),
        ('generally speaking is it better to pay off a credit card bill in full or just the minimum each month?', None),
        ('why does pollen make ppl sneeze?', None),
        ('how do smart locks work, are they really safer than a normal deadbolt on the front door?', None),
        ("thanks, that's all for now! have a good one", None),
    ],
}


def search_jobs(title: str, location: str) -> str:
    """Job openings for a job title in a city.

    Args:
        title: The job title, for instance "nurse".
        location: City or region.
    """
    return "ok"


def book_hotel(city: str, check_in: str, nights: int) -> str:
    """Reserve a hotel room.

    Args:
        city: City to stay in.
        check_in: Date of arrival.
        nights: Number of nights.
    """
    return "ok"


def get_showtimes(movie: str, city: str) -> str:
    """Cinema showtimes of a film in a city.

    Args:
        movie: Title of the film.
        city: Name of the city.
    """
    return "ok"


def add_to_shopping_list(item: str, quantity: int = 1) -> str:
    """Add an item to the household shopping list.

    Args:
        item: What to buy.
        quantity: How many.
    """
    return "ok"


def get_team_score(team: str) -> str:
    """Result of a sports team's latest match.

    Args:
        team: Name of the team.
    """
    return "ok"


def call_taxi(pickup: str, destination: str) -> str:
    """Send a taxi to pick the user up and take them somewhere.

    Args:
        pickup: Where to be picked up.
        destination: Where to go.
    """
    return "ok"


def check_library_book(title: str) -> str:
    """Whether the public library has a book on its shelves to borrow.

    Args:
        title: Title of the book.
    """
    return "ok"


def start_timer(minutes: int, label: str = "") -> str:
    """Start a countdown timer.

    Args:
        minutes: Length of the countdown.
        label: What the timer is for.
    """
    return "ok"


THIRD_TOOLS = [search_jobs, book_hotel, get_showtimes, add_to_shopping_list, get_team_score, call_taxi,
               check_library_book, start_timer]
THIRD: dict[str, list[tuple[str, str | None]]] = {
    "plain": [
        ('search jobs for nurse in Manchester', 'search_jobs'),
        ('Book a hotel in Rome for 3 nights, check in on May 4th please', 'book_hotel'),
        ('showtimes for Inside Out 2 in Chicago tonight?', 'get_showtimes'),
        ('add 6 eggs to the shopping list', 'add_to_shopping_list'),
        ('whats the latest score for the Boston Celtics', 'get_team_score'),
        ('Call a taxi to pick me up at the train station and take me to 22 Baker St', 'call_taxi'),
        ("can u check if the library has 'Dune' on the shelves to borrow?", 'check_library_book'),
        ('start a 10 minute timer for the eggs', 'start_timer'),
    ],
    "paraphrase": [
        ('Any vacancies for welders in Rotterdam right now?', 'search_jobs'),
        ('can u sort me out accommodation in Lisbon, june 12 thru june 15?', 'book_hotel'),
        ("When's Barbie playing at the pictures in Leeds?", 'get_showtimes'),
        ("we're out of oat milk, jot 2 cartons on the groceries for me", 'add_to_shopping_list'),
        ("how'd the Lakers get on in their most recent game?", 'get_team_score'),
        ('need a cab from 14 Elm Street to the airport asap', 'call_taxi'),
        ('is a copy of The Hobbit available at our town lending branch rn?', 'check_library_book'),
        ("set an alarm to ring in half an hour, pasta's boiling", 'start_timer'),
    ],
    "no_tool": [
        ('whats a good way to prep for a nursing job interview? im super nervous', None),
        ('who directed the movie Inception?', None),
        ('any tips for keeping a shopping list organised so i stop forgetting stuff at the store?', None),
        ('Can someone explain how the offside rule works in a football match? never understood it', None),
        ('is it rude not to tip a taxi driver in Japan?', None),
        ('Write me a short poem about borrowing books from the library', None),
        ("what's the pomodoro technique, does a 25 minute timer actually help you focus?", None),
        ("hey how's your day going lol", None),
    ],
}


def find_dentist(near: str) -> str:
    """Dentists near a place that take new patients.

    Args:
        near: Address or neighbourhood.
    """
    return "ok"


def refill_prescription(medication: str) -> str:
    """Ask the pharmacy to refill a prescription.

    Args:
        medication: Name of the medicine.
    """
    return "ok"


def get_tide_times(beach: str) -> str:
    """High and low tide times at a beach today.

    Args:
        beach: Name of the beach.
    """
    return "ok"


def report_pothole(street: str) -> str:
    """Report a pothole in a road to the city council.

    Args:
        street: Street where it is.
    """
    return "ok"


def get_bus_arrivals(stop: str) -> str:
    """Minutes until the next buses arrive at a stop.

    Args:
        stop: Name or number of the bus stop.
    """
    return "ok"


def set_alarm(time: str) -> str:
    """Set a wake-up alarm on the phone.

    Args:
        time: When the alarm rings, for instance 6:30.
    """
    return "ok"


def print_document(file_name: str, copies: int = 1) -> str:
    """Send a file to the printer.

    Args:
        file_name: Name of the file.
        copies: Number of copies.
    """
    return "ok"


def rate_restaurant(restaurant: str, stars: int) -> str:
    """Leave a star rating for a restaurant.

    Args:
        restaurant: Name of the restaurant.
        stars: One to five stars.
    """
    return "ok"


FOURTH_TOOLS = [find_dentist, refill_prescription, get_tide_times, report_pothole, get_bus_arrivals, set_alarm,
                print_document, rate_restaurant]
FOURTH: dict[str, list[tuple[str, str | None]]] = {
    "plain": [
        ("find a dentist near Hillcrest that's taking new patients", 'find_dentist'),
        ('pls refill my prescription for metformin', 'refill_prescription'),
        ('What are the tide times at Whitley Bay today?', 'get_tide_times'),
        ("Report a pothole on Kingsway Road to the council, it's huge", 'report_pothole'),
        ("when's the next bus arriving at stop 1147?", 'get_bus_arrivals'),
        ('set an alarm for 6:30am', 'set_alarm'),
        ('print cover_letter.pdf, 2 copies', 'print_document'),
        ('rate The Golden Dragon 5 stars', 'rate_restaurant'),
    ],
    "paraphrase": [
        ("Who around Elm Park is open to folks who aren't on their books yet? Need a tooth doctor asap, my molar is killing me", 'find_dentist'),
        ('can u have the chemist top up my lisinopril? almost out', 'refill_prescription'),
        ('heading to Crosby Sands w the kids this arvo, what hours are the ebb and flood? dont wanna be stranded on the sandbar', 'get_tide_times'),
        ('Huge rut in the asphalt on Harlow Lane, wrecked my tyre this morning. pls flag it to the local authority so they fix it', 'report_pothole'),
        ("how long must i wait for a double-decker at the Queen's Square shelter?", 'get_bus_arrivals'),
        ("Make sure i'm up by 5:45 tmrw morning, early flight and i always oversleep", 'set_alarm'),
        ('run off 3 paper versions of quarterly_budget.xlsx b4 the board mtg', 'print_document'),
        ("Give Luigi's Trattoria a 4/5 review, the carbonara was amazing", 'rate_restaurant'),
    ],
    "no_tool": [
        ('why do my teeth hurt when i drink cold stuff? is that normal or do i actually need to see a dentist', None),
        ('what causes tides anyway? is it really just the moon?', None),
        ('How do potholes actually form? seems like every winter the roads are full of them', None),
        ('can you write me a short polite letter to the city council complaining about the noise from the bar on my street', None),
        ('whats the difference between an inkjet and a laser printer, which one is cheaper long term?', None),
        ('any tips for getting up earlier without hitting snooze on my alarm 5 times??', None),
        ('What does it actually mean when a restaurant gets a Michelin star? how do they decide', None),
        ('lol thanks, ur a lifesaver', None),
    ],
}


def get_crypto_price(coin: str) -> str:
    """Current price of a cryptocurrency in US dollars.

    Args:
        coin: Name or symbol of the coin.
    """
    return "ok"


def turn_on_lights(room: str, brightness: int = 100) -> str:
    """Switch on the lights in a room.

    Args:
        room: Which room.
        brightness: Percent of full brightness.
    """
    return "ok"


def book_haircut(salon: str, time: str) -> str:
    """Book a haircut appointment at a salon.

    Args:
        salon: Name of the salon.
        time: Day and time of the appointment.
    """
    return "ok"


def check_visa_requirements(citizenship: str, destination: str) -> str:
    """Whether a traveller needs a visa to enter a country.

    Args:
        citizenship: The traveller's nationality.
        destination: Country to visit.
    """
    return "ok"


def get_lottery_results(game: str) -> str:
    """Winning numbers of the latest lottery draw.

    Args:
        game: Name of the lottery, for instance EuroMillions.
    """
    return "ok"


def send_text_message(to: str, message: str) -> str:
    """Send an SMS to a phone contact.

    Args:
        to: Contact name or phone number.
        message: Text of the message.
    """
    return "ok"


def find_recycling_center(material: str, near: str) -> str:
    """Where to drop off a kind of waste for recycling near a place.

    Args:
        material: What is to be recycled, for instance batteries.
        near: Address or town.
    """
    return "ok"


def check_fuel_prices(near: str) -> str:
    """Petrol and diesel prices at filling stations near a place.

    Args:
        near: Address or town.
    """
    return "ok"


FIFTH_TOOLS = [get_crypto_price, turn_on_lights, book_haircut, check_visa_requirements, get_lottery_results,
               send_text_message, find_recycling_center, check_fuel_prices]
FIFTH: dict[str, list[tuple[str, str | None]]] = {
    "plain": [
        ("what's the current price of bitcoin in dollars?", 'get_crypto_price'),
        ('turn on the lights in the living room pls, 50% brightness', 'turn_on_lights'),
        ('Book me a haircut at Salon Lumiere for Thursday at 2pm.', 'book_haircut'),
        ("do i need a visa to enter Brazil? I'm a Canadian citizen", 'check_visa_requirements'),
        ('whats the winning numbers from the latest euromillions draw', 'get_lottery_results'),
        ('send a text message to Jake: running late, save me a seat', 'send_text_message'),
        ('Find a recycling center near Portland where I can drop off old batteries', 'find_recycling_center'),
        ('check fuel prices near Manchester, I need diesel', 'check_fuel_prices'),
    ],
    "paraphrase": [
        ('how much is ethereum going for right now', 'get_crypto_price'),
        ("kitchen's pitch dark, power up the lamps in there at like 60%", 'turn_on_lights'),
        ('reserve me a trim w/ Fade Factory tmrw 10am pls', 'book_haircut'),
        ('got a kenyan passport, do i have to apply for a permit ahead of flying to japan or can i just show up?', 'check_visa_requirements'),
        ('did anyone hit the powerball jackpot? gimme the balls they pulled', 'get_lottery_results'),
        ("buzz my wife on her mobile: 'running 10 min behind, go ahead and eat'", 'send_text_message'),
        ("got a pile of old paint tins - any depot around leeds that'll accept them so they don't just go in the bin?", 'find_recycling_center'),
        ('cheapest spot to top up my tank around bristol? how much per litre for unleaded', 'check_fuel_prices'),
    ],
    "no_tool": [
        ("what's the difference between a coin and a token in crypto? eli5", None),
        ('LED vs incandescent lights - which ones actually save more on the electric bill?', None),
        ('any tips for explaining to my hairdresser what haircut I want? I always leave the salon disappointed lol', None),
        ('Write me a short packing list for a week-long trip to Iceland in winter.', None),
        ('is it true that the lottery is basically a tax on people who are bad at math?', None),
        ('how do I politely text my landlord that the rent will be a few days late? give me a draft', None),
        ("why can't greasy pizza boxes go in the recycling? always wondered", None),
        ('does it actually matter if i put premium petrol in a regular car or is that a scam?', None),
    ],
}

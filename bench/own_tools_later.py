"""Two more sets of eight ordinary tools for ``bench/own_tools.py`` (``--set second|third``),
with requests worded the way people type, to try the default decision on tools it was not
chosen on (docs/benchmarks.md, "The default on other tools").

Written on 2026-12-05 (stop 42), before any run of them: the tools by hand; each set's 24
requests (8 plainly worded, 8 paraphrases sharing no word stem with any tool text of the set,
8 needing no tool, most sharing a topic or word with one) by its own writer, who saw only that
set's tools. No example requests: these sets try the default, which uses none.
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

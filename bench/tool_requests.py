"""Twelve ordinary typed tools and requests worded the way people talk, for bench/tool_decision.py.

Each request is ``(text, tool)``: ``tool`` is the name of the tool that should be called, or
None when the request should be answered in words. Three kinds, about a third each:

- ``plain``: the request uses the tool's own words ("weather forecast for Oslo").
- ``paraphrase``: it needs one of the tools but shares no word stem with any tool's text (name,
  description, parameter names and descriptions) — the user does not know how the tool author
  wrote it. ``tests/test_tool_requests.py`` checks that with the word rule's own stemmer.
- ``no_tool``: no tool fits, though most share a word with one ("a poem about spring weather").

``TUNE`` (different requests, same tools) is the only set a decision policy may be fitted on.
``TEST`` was reported, but one of its failures was read before the offer margin was re-chosen
(on TUNE and BFCL's tuning half), so it is no longer clean. ``HOLDOUT`` was written after every
choice was made and has been run only to report them.
"""

from __future__ import annotations

from typing import Literal


def get_forecast(city: str, days: int = 1) -> str:
    """Weather forecast for a city.

    Args:
        city: Name of the city.
        days: Days ahead, from 1 to 7.
    """
    return f"{city}: mild, light wind, for {days} day(s)"


def send_email(to: str, subject: str, body: str) -> str:
    """Send an email message.

    Args:
        to: Recipient address.
        subject: Subject line.
        body: Message text.
    """
    return "sent"


def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount of money from one currency to another.

    Args:
        amount: The amount to convert.
        from_currency: Three-letter code of the source currency (EUR for instance).
        to_currency: Three-letter code of the target currency (USD for instance).
    """
    return f"{amount * 1.1:.2f} {to_currency}"


def set_reminder(text: str, time: str) -> str:
    """Set a reminder that alerts the user at a given time.

    Args:
        text: What to remind about.
        time: When: a clock time ("18:00") or a day and time ("Thursday 9am").
    """
    return "reminder set"


def get_stock_price(symbol: str) -> str:
    """Latest share price of a company's stock.

    Args:
        symbol: Stock ticker symbol (AAPL for instance).
    """
    return f"{symbol}: 187.20 USD"


def translate_text(text: str, target_language: str) -> str:
    """Translate text into another language.

    Args:
        text: The text to translate.
        target_language: Language to translate into.
    """
    return "translated"


def book_table(restaurant: str, people: int, time: str) -> str:
    """Reserve a table at a restaurant.

    Args:
        restaurant: Name of the restaurant.
        people: Number of guests.
        time: Date and time of the booking.
    """
    return "booked"


def play_music(query: str) -> str:
    """Play a song, an artist or a playlist.

    Args:
        query: Song title, artist or playlist name.
    """
    return "playing"


def get_directions(origin: str, destination: str, mode: Literal["driving", "walking", "transit"] = "driving") -> str:
    """Route directions from an origin to a destination.

    Args:
        origin: Starting point.
        destination: Where to go.
        mode: How to travel.
    """
    return "turn left"


def search_recipes(ingredients: list[str]) -> str:
    """Find recipes that use the given ingredients.

    Args:
        ingredients: Food items to include.
    """
    return "pasta"


def create_event(title: str, date: str, attendees: list[str]) -> str:
    """Add an event to the calendar and invite people.

    Args:
        title: Event title.
        date: Date of the event.
        attendees: Names of the people invited.
    """
    return "created"


def get_news(topic: str) -> str:
    """Latest news headlines about a topic.

    Args:
        topic: Subject of the news.
    """
    return "headlines"


TOOLS = [
    get_forecast, send_email, convert_currency, set_reminder, get_stock_price, translate_text,
    book_table, play_music, get_directions, search_recipes, create_event, get_news,
]

Request = tuple[str, str | None]
Kind = Literal["plain", "paraphrase", "no_tool"]

TEST: dict[Kind, list[Request]] = {
    "plain": [
        ("What's the weather forecast for Oslo?", "get_forecast"),
        ("Give me the 3-day forecast for Madrid.", "get_forecast"),
        ("Send an email to anna@example.com with the subject 'Lunch' saying I'm running late.", "send_email"),
        ("Email bob@corp.io: subject Report, body The report is attached.", "send_email"),
        ("Convert 50 euros to US dollars.", "convert_currency"),
        ("Convert 200 GBP to JPY currency.", "convert_currency"),
        ("Set a reminder to call mom at 18:00.", "set_reminder"),
        ("Remind me at 7am tomorrow to water the plants.", "set_reminder"),
        ("What's the stock price of AAPL?", "get_stock_price"),
        ("Get me the latest share price for Tesla, symbol TSLA.", "get_stock_price"),
        ("Translate 'good morning' into Spanish.", "translate_text"),
        ("Translate this text into German: where is the train station?", "translate_text"),
        ("Book a table at Luigi's for 4 people at 8pm.", "book_table"),
        ("Reserve a table for two at Sakura tomorrow at 19:30.", "book_table"),
        ("Play some music by Queen.", "play_music"),
        ("Play the song Bohemian Rhapsody.", "play_music"),
        ("Get directions from the airport to the Grand Hotel.", "get_directions"),
        ("Walking directions from Central Station to the museum, please.", "get_directions"),
        ("Find recipes with chicken and rice.", "search_recipes"),
        ("Search for recipes that use eggs, spinach and feta.", "search_recipes"),
        ("Create a calendar event 'Team sync' on 2025-03-14 with Alice and Bob.", "create_event"),
        ("Add an event called Dentist to my calendar on May 2.", "create_event"),
        ("Show me the latest news about electric cars.", "get_news"),
        ("Any news headlines on the Olympics?", "get_news"),
        ("Weather forecast for Tokyo for the next 5 days.", "get_forecast"),
        ("Convert 1000 yen to euros.", "convert_currency"),
        ("Set a reminder: dentist appointment, Friday 10am.", "set_reminder"),
        ("Translate 'thank you very much' to Japanese.", "translate_text"),
        ("Play my workout playlist.", "play_music"),
        ("What's the news on the stock market today?", "get_news"),
    ],
    "paraphrase": [
        ("Will it rain in Lisbon tomorrow?", "get_forecast"),
        ("Do I need an umbrella in Berlin this weekend?", "get_forecast"),
        ("Is it going to be sunny in Rome on Saturday?", "get_forecast"),
        ("Write to jane@acme.org and let her know the meeting moved to Monday.", "send_email"),
        ("Drop a note to my boss at lee@firm.com that I'm sick.", "send_email"),
        ("How many dollars is 80 pounds?", "convert_currency"),
        ("What are 300 Swiss francs worth in yen?", "convert_currency"),
        ("Don't let me forget to pay rent on the 1st.", "set_reminder"),
        ("Ping me at noon so I take my pills.", "set_reminder"),
        ("How much is Microsoft trading at right now?", "get_stock_price"),
        ("What's NVDA worth on the market today?", "get_stock_price"),
        ("How do you say 'where is the bathroom' in Italian?", "translate_text"),
        ("What is 'cheers' in Portuguese?", "translate_text"),
        ("Can you get us seats for dinner at Nobu on Friday, party of six?", "book_table"),
        ("I'd like to eat at Chez Paul tonight around 9 with my wife.", "book_table"),
        ("Put on something by Taylor Swift.", "play_music"),
        ("I want to hear jazz while I work.", "play_music"),
        ("How do I get to the Louvre by bus?", "get_directions"),
        ("What's the best way to drive to Boston from here?", "get_directions"),
        ("I have leftover potatoes and leeks, what could I cook?", "search_recipes"),
        ("What can I make for dinner with tofu and broccoli?", "search_recipes"),
        ("Schedule a meeting with Tom and Priya next Tuesday.", "create_event"),
        ("Put a birthday party for Sam on June 3rd in my planner.", "create_event"),
        ("What happened in Ukraine today?", "get_news"),
        ("Anything big going on in tech this morning?", "get_news"),
        ("Should I bring a jacket to Dublin tonight?", "get_forecast"),
        ("How many rupees would I get for 20 bucks?", "convert_currency"),
        ("Nudge me in two hours to move the laundry.", "set_reminder"),
        ("How's Amazon doing on Wall Street?", "get_stock_price"),
        ("Say 'I love you' in Korean.", "translate_text"),
    ],
    "no_tool": [
        ("Write a short poem about spring weather.", None),
        ("What does the word 'forecast' mean?", None),
        ("Tell me a joke about email.", None),
        ("Why do currencies lose value over time?", None),
        ("Give me tips for writing a polite reminder message to a colleague.", None),
        ("Explain what a stock market index is.", None),
        ("Is learning a second language good for the brain?", None),
        ("What's the etiquette for tipping at a restaurant in Japan?", None),
        ("Who composed the music for Star Wars?", None),
        ("What's the history of road maps?", None),
        ("Is a recipe copyrightable?", None),
        ("How did calendars work in ancient Rome?", None),
        ("Why is the news so negative?", None),
        ("What is 17 times 23?", None),
        ("Hi! How are you today?", None),
        ("Summarise the plot of Romeo and Juliet.", None),
        ("What's the capital of Australia?", None),
        ("How do I write a good subject line for a cover letter email?", None),
        ("Explain the difference between weather and climate.", None),
        ("What's a good name for a cat?", None),
        ("Translate your thoughts into a haiku about autumn.", None),
        ("How many people live in Tokyo?", None),
        ("Which is healthier, rice or pasta?", None),
        ("What time zone is Chicago in?", None),
        ("Can you recommend a good book on the history of music?", None),
        ("How do stock options work for employees?", None),
        ("Tell me a fun fact about octopuses.", None),
        ("What should I say in a birthday card for my grandmother?", None),
        ("Explain photosynthesis simply.", None),
        ("What's the difference between a table and a desk?", None),
    ],
}

TUNE: dict[Kind, list[Request]] = {
    "plain": [
        ("Weather forecast for Cairo, 2 days.", "get_forecast"),
        ("Send an email to sue@mail.com, subject Hello, body Nice to meet you.", "send_email"),
        ("Convert 75 Canadian dollars to euros.", "convert_currency"),
        ("Set a reminder for the team call at 3pm.", "set_reminder"),
        ("Share price of Google stock, symbol GOOG.", "get_stock_price"),
        ("Translate 'see you soon' into French.", "translate_text"),
        ("Book a table for 3 at The Ivy at 7pm.", "book_table"),
        ("Play the album Thriller.", "play_music"),
        ("Driving directions from Lyon to Geneva.", "get_directions"),
        ("Find recipes using mushrooms and cream.", "search_recipes"),
        ("Create an event 'Board review' on 2025-09-01 with Maria.", "create_event"),
        ("Latest news about climate policy.", "get_news"),
        ("Get the forecast for Vienna for the next 4 days.", "get_forecast"),
        ("Email the team at team@startup.io with subject Launch and body We ship on Friday.", "send_email"),
        ("Convert 12.5 USD to Indian rupees.", "convert_currency"),
        ("Remind me to buy milk at 5pm.", "set_reminder"),
        ("What is the current stock price of Netflix (NFLX)?", "get_stock_price"),
        ("Translate 'where is my hotel' into Dutch.", "translate_text"),
        ("Book a table at Nando's for 5 people at 6:30pm.", "book_table"),
        ("Play a playlist of 80s rock.", "play_music"),
    ],
    "paraphrase": [
        ("Is it going to snow in Denver on Sunday?", "get_forecast"),
        ("Shoot a note over to kim@shop.com that her package shipped.", "send_email"),
        ("How much is 40 dollars in Mexican pesos?", "convert_currency"),
        ("Make sure I don't miss my flight check-in at 6.", "set_reminder"),
        ("Where is IBM trading today?", "get_stock_price"),
        ("How would a German say 'good night'?", "translate_text"),
        ("Get me a spot at Osteria for lunch, just me and Dan.", "book_table"),
        ("Throw on some lo-fi beats.", "play_music"),
        ("How can I get to the beach on foot from my hotel?", "get_directions"),
        ("I've got salmon and lemons, any dinner ideas?", "search_recipes"),
        ("Pencil in coffee with Ana on the 12th.", "create_event"),
        ("What's going on with the elections?", "get_news"),
        ("Will it pour in Nice tomorrow, or can we hit the beach?", "get_forecast"),
        ("Let Raj know at raj@home.net that dinner is at eight.", "send_email"),
        ("What would 500 kroner come to in euros?", "convert_currency"),
        ("Poke me at 4 so I leave for the school run.", "set_reminder"),
        ("Is Apple up or down on the market right now?", "get_stock_price"),
        ("What's the Spanish for 'the bill, please'?", "translate_text"),
        ("Grab us a spot at Wagamama at 1, there are 3 of us.", "book_table"),
        ("I'm in the mood for some Beatles.", "play_music"),
        ("What's the quickest way by car to Heathrow from here?", "get_directions"),
        ("What can I whip up with chickpeas and spinach?", "search_recipes"),
        ("Put a catch-up with Leo and Mia on my schedule for the 20th.", "create_event"),
        ("What's happening with the World Cup?", "get_news"),
    ],
    "no_tool": [
        ("Write a limerick about a rainy city.", None),
        ("What's the origin of the word 'email'?", None),
        ("Why was the euro introduced?", None),
        ("How can I remember names better?", None),
        ("What makes a company go public?", None),
        ("Which languages are hardest to learn?", None),
        ("Describe the perfect restaurant table setting.", None),
        ("Who invented the piano?", None),
        ("How do birds find their way when they migrate?", None),
        ("Are cookbooks still popular?", None),
        ("What day of the week was 1 January 2000?", None),
        ("Explain how journalists check their sources.", None),
        ("Write a haiku about the sea.", None),
        ("What does a central bank do?", None),
        ("Tell me a story about a lost dog.", None),
        ("How should I structure a formal email to a professor?", None),
        ("What is the meaning of the word 'reminder' in Latin?", None),
        ("Why do stock prices go up and down?", None),
        ("Give me three ideas for a birthday party theme.", None),
        ("How many continents are there?", None),
        ("What's the best way to learn to cook?", None),
        ("Explain what the news cycle is.", None),
        ("Hello there!", None),
        ("What language do they speak in Brazil?", None),
    ],
}

HOLDOUT: dict[Kind, list[Request]] = {
    "plain": [
        ("What's the weather forecast for Athens this week?", "get_forecast"),
        ("Send an email to tom@agency.com with subject Invoice saying it is paid.", "send_email"),
        ("Convert 250 Australian dollars to euros.", "convert_currency"),
        ("Set a reminder to renew my passport at 9am Monday.", "set_reminder"),
        ("What's the share price of Amazon stock, symbol AMZN?", "get_stock_price"),
        ("Translate 'happy birthday' into Greek.", "translate_text"),
        ("Book a table at Dishoom for 6 people at 8pm.", "book_table"),
        ("Play the song Yesterday by the Beatles.", "play_music"),
        ("Transit directions from Alexanderplatz to Tegel.", "get_directions"),
        ("Find recipes with lentils and coconut milk.", "search_recipes"),
        ("Create a calendar event 'Offsite' on 2025-06-10 with Ken and Lia.", "create_event"),
        ("Latest news about the housing market.", "get_news"),
        ("Get the forecast for Reykjavik for 2 days.", "get_forecast"),
        ("Convert 90 euros to Japanese yen.", "convert_currency"),
        ("Play some music by Adele.", "play_music"),
    ],
    "paraphrase": [
        ("Is it going to be chilly in Prague tonight?", "get_forecast"),
        ("Tell priya@lab.org I can't make it to the seminar.", "send_email"),
        ("How much are 60 bucks in British pounds?", "convert_currency"),
        ("Make sure I call the plumber at 3.", "set_reminder"),
        ("How is Tesla doing on the market today?", "get_stock_price"),
        ("How do Italians say 'good luck'?", "translate_text"),
        ("Can you get me and 3 friends into Zuma at nine?", "book_table"),
        ("Put on some Miles Davis.", "play_music"),
        ("How do I get from here to the zoo on foot?", "get_directions"),
        ("Got eggplant and garlic, what's for dinner?", "search_recipes"),
        ("Pencil in lunch with Omar on the 14th.", "create_event"),
        ("Any updates on the Mars mission?", "get_news"),
        ("Will I need sunglasses in Madrid on Sunday?", "get_forecast"),
        ("Nudge me at 6 to stretch.", "set_reminder"),
        ("What's Google trading at?", "get_stock_price"),
    ],
    "no_tool": [
        ("Write a song about rainy Mondays.", None),
        ("What's the plural of 'email'?", None),
        ("Why is the dollar so strong?", None),
        ("How do I get better at remembering birthdays?", None),
        ("What does a stockbroker do all day?", None),
        ("Is French harder than Spanish?", None),
        ("Who invented the restaurant?", None),
        ("What's the difference between jazz and blues music?", None),
        ("Why do maps put north at the top?", None),
        ("Give me a fun fact about pasta.", None),
        ("How many days are in a leap year?", None),
        ("Why do newspapers still exist?", None),
        ("Good morning!", None),
        ("What is 45 divided by 9?", None),
        ("Tell me a joke about calendars.", None),
    ],
}

#: Written on 2026-12-04 after ``decision="action"`` was chosen on TUNE, before anything ran on
#: them: the split that reports it (HOLDOUT had been read by then).
HOLDOUT2: dict[Kind, list[Request]] = {
    "plain": [
        ("Give me the weather forecast for Nairobi tomorrow.", "get_forecast"),
        ("Email jane@corp.io with the subject Budget and say the numbers are in.", "send_email"),
        ("Convert 1200 Swiss francs to US dollars.", "convert_currency"),
        ("Set a reminder to water the plants at 7pm.", "set_reminder"),
        ("What is the stock price of NVDA?", "get_stock_price"),
        ("Translate 'where is the train station' into German.", "translate_text"),
        ("Book a table for two at Nobu at 7:30.", "book_table"),
        ("Play Bohemian Rhapsody by Queen.", "play_music"),
        ("Walking directions from Union Square to Central Park.", "get_directions"),
        ("Search recipes using chickpeas and spinach.", "search_recipes"),
        ("Create an event called Retro on 2025-09-02 with Sam and Ana.", "create_event"),
        ("Get the latest news on electric cars.", "get_news"),
        ("Forecast for Oslo for the next 3 days, please.", "get_forecast"),
        ("Send an email to ops@site.net with subject Outage saying the server is back.", "send_email"),
        ("Play some jazz music.", "play_music"),
    ],
    "paraphrase": [
        ("Do I need a coat in Dublin tomorrow?", "get_forecast"),
        ("Drop ben@shop.co a note that the parcel arrived.", "send_email"),
        ("What would 300 pesos be in rupees?", "convert_currency"),
        ("Don't let me forget the dentist on Friday at 10.", "set_reminder"),
        ("How's Microsoft doing on Wall Street right now?", "get_stock_price"),
        ("What's 'thank you' in Japanese?", "translate_text"),
        ("Grab us seats for four at Hakkasan tonight at 8.", "book_table"),
        ("I'm in the mood for some Taylor Swift.", "play_music"),
        ("Which way to the airport if I cycle?", "get_directions"),
        ("I have rice, beans and peppers, any ideas for a meal?", "search_recipes"),
        ("Put a team offsite on my agenda for June 3rd with Kim and Raj.", "create_event"),
        ("What's happening with the elections in France?", "get_news"),
        ("Should I bring an umbrella to Seattle on Friday?", "get_forecast"),
        ("Ping me at 5 to pick up the kids.", "set_reminder"),
        ("Is Apple up or down today?", "get_stock_price"),
    ],
    "no_tool": [
        ("Write a short story about a weather balloon.", None),
        ("What is the oldest currency still in use?", None),
        ("Why do email scams work so well?", None),
        ("How do I become a better public speaker?", None),
        ("What makes a stock market crash?", None),
        ("How many languages are spoken in India?", None),
        ("What's the history of the restaurant tip?", None),
        ("Who wrote the music for The Lion King?", None),
        ("Why do some people have a bad sense of direction?", None),
        ("Is it healthy to eat eggs every day?", None),
        ("What should I bring to a potluck dinner?", None),
        ("How do journalists decide what counts as news?", None),
        ("Thanks, that's all for now!", None),
        ("What is 12 squared?", None),
        ("Tell me a riddle about time.", None),
    ],
}

#: Written on 2026-12-04 (stop 35) before the action signal was refitted, and before anything
#: ran on them: the split that reports the refit (HOLDOUT2 had been read by then).
HOLDOUT3: dict[Kind, list[Request]] = {
    "plain": [
        ("What's the weather forecast for Lisbon on Saturday?", "get_forecast"),
        ("Send an email to mia@studio.org with the subject Draft saying the draft is attached.", "send_email"),
        ("Convert 40 US dollars to Mexican pesos.", "convert_currency"),
        ("Set a reminder to call my mom at 6pm.", "set_reminder"),
        ("What's the current share price of Netflix, ticker NFLX?", "get_stock_price"),
        ("Translate 'see you tomorrow' into Portuguese.", "translate_text"),
        ("Book a table at Rosa's for 3 people at 7pm.", "book_table"),
        ("Play Hotel California by the Eagles.", "play_music"),
        ("Driving directions from the office to the airport.", "get_directions"),
        ("Find recipes with mushrooms and leeks.", "search_recipes"),
        ("Create a calendar event 'Kickoff' on 2025-11-05 with Dana and Leo.", "create_event"),
        ("Show me the latest news about the World Cup.", "get_news"),
        ("Get the weather forecast for Cairo for 5 days.", "get_forecast"),
        ("Translate 'I am allergic to nuts' into Spanish.", "translate_text"),
        ("Convert 500 Japanese yen to euros.", "convert_currency"),
    ],
    "paraphrase": [
        ("Is it gonna be sunny in Rome tomorrow?", "get_forecast"),
        ("Shoot lee@firm.com a quick note saying the contract is signed.", "send_email"),
        ("How many Canadian bucks do I get for 80 quid?", "convert_currency"),
        ("Buzz me at 4 so I don't miss the bus.", "set_reminder"),
        ("Where's Amazon trading right now?", "get_stock_price"),
        ("How would a German say 'nice to meet you'?", "translate_text"),
        ("Can you grab a spot for six of us at Zizzi at 8?", "book_table"),
        ("Throw on something by Beyonce.", "play_music"),
        ("What's the quickest way to Heathrow by car?", "get_directions"),
        ("I've got chicken and lemons, what could I cook?", "search_recipes"),
        ("Block out the 9th for a workshop with Nina and Paul.", "create_event"),
        ("What's going on with the wildfires in Canada?", "get_news"),
        ("Will it snow in Denver this weekend?", "get_forecast"),
        ("Tell me at noon to take my pills.", "set_reminder"),
        ("What is Nike going for on Wall Street today?", "get_stock_price"),
    ],
    "no_tool": [
        ("Write a haiku about the weather in autumn.", None),
        ("What's a polite way to end an email?", None),
        ("Why did the euro replace the franc?", None),
        ("Any tips for remembering people's names?", None),
        ("What is a stock split?", None),
        ("Why is English spelling so weird?", None),
        ("How do restaurants set their prices?", None),
        ("Who was the best guitarist of the seventies?", None),
        ("Why do birds fly south for the winter?", None),
        ("What's the secret to a fluffy pancake?", None),
        ("How long is a typical work meeting?", None),
        ("Is watching the news bad for your mood?", None),
        ("Cool, thanks a lot!", None),
        ("What's 7 times 8?", None),
        ("Tell me something interesting about octopuses.", None),
    ],
}

#: Written on 2026-12-04 (stop 35) after HOLDOUT3 had been read and before the second refit of
#: the action signal ran on anything: the split that reports the second refit.
HOLDOUT4: dict[Kind, list[Request]] = {
    "plain": [
        ("What's the weather forecast for Vienna tomorrow?", "get_forecast"),
        ("Send an email to raj@shop.in with subject Order saying it shipped today.", "send_email"),
        ("Convert 75 British pounds to Swiss francs.", "convert_currency"),
        ("Set a reminder to feed the cat at 8am.", "set_reminder"),
        ("Get the stock price for Meta, symbol META.", "get_stock_price"),
        ("Translate 'good evening' into Russian.", "translate_text"),
        ("Book a table at Ottolenghi for 2 people at 1pm.", "book_table"),
        ("Play the album Thriller by Michael Jackson.", "play_music"),
        ("Walking directions from the hotel to the cathedral.", "get_directions"),
        ("Search for recipes with quinoa and feta.", "search_recipes"),
        ("Create an event named Demo Day on 2025-12-01 with Zoe and Max.", "create_event"),
        ("What's the latest news on the space station?", "get_news"),
        ("Forecast for Lima for the next 2 days.", "get_forecast"),
        ("Set a reminder for the team call at 14:30.", "set_reminder"),
        ("Play some classical music.", "play_music"),
    ],
    "paraphrase": [
        ("Will I get rained on in Bergen today?", "get_forecast"),
        ("Let kim@bank.com know I'm running ten minutes behind.", "send_email"),
        ("What do 120 bucks come to in yen?", "convert_currency"),
        ("At 9 tonight, nag me to lock up.", "set_reminder"),
        ("How are Nvidia shares holding up?", "get_stock_price"),
        ("How do you say 'cheers' in Czech?", "translate_text"),
        ("Could you sort out dinner for five at Bella Italia, 7:30?", "book_table"),
        ("Crank up some Daft Punk.", "play_music"),
        ("Which way is the harbour from the station on foot?", "get_directions"),
        ("Got salmon and asparagus, what should I make?", "search_recipes"),
        ("Pop a catch-up with Lena into my diary for the 21st.", "create_event"),
        ("What's the word on the heatwave in Spain?", "get_news"),
        ("Is it warm in Lisbon right now?", "get_forecast"),
        ("Poke me at 3 to move the car.", "set_reminder"),
        ("Where's Coca-Cola trading at?", "get_stock_price"),
    ],
    "no_tool": [
        ("Write a limerick about a forecast gone wrong.", None),
        ("How long should an email to a professor be?", None),
        ("Why do some countries share a currency?", None),
        ("What's a good way to remember a PIN?", None),
        ("Should I invest in index funds or single stocks?", None),
        ("Which language has the most words?", None),
        ("Where does the doggy bag custom come from?", None),
        ("What makes a song a hit?", None),
        ("How did sailors navigate before compasses?", None),
        ("Can you freeze cooked rice?", None),
        ("What's the best day of the week for a meeting?", None),
        ("How do I avoid fake news?", None),
        ("Alright, talk to you later!", None),
        ("What's 15 plus 27?", None),
        ("Tell me a fun fact about owls.", None),
    ],
}

#: Written on 2026-12-04 (stop 36), after HOLDOUT3 and HOLDOUT4 had been read and before any run
#: on it: the split that reports the next choice of the decision (not run by stop 36).
HOLDOUT5: dict[Kind, list[Request]] = {
    "plain": [
        ("What's the forecast for Dublin this weekend?", "get_forecast"),
        ("Send an email to ana@firm.pt with subject Invoice and body Paid, thanks.", "send_email"),
        ("Convert 300 US dollars to Mexican pesos.", "convert_currency"),
        ("Set a reminder to call the dentist at 10am.", "set_reminder"),
        ("What's the stock price of Tesla, symbol TSLA?", "get_stock_price"),
        ("Translate 'where is the train station' into Japanese.", "translate_text"),
        ("Book a table at Nobu for 4 people at 8pm.", "book_table"),
        ("Play music by Fleetwood Mac.", "play_music"),
        ("Get driving directions from Leeds to York.", "get_directions"),
        ("Find recipes with chickpeas and spinach.", "search_recipes"),
        ("Create an event called Team Lunch on 2026-01-15 with Omar and Priya.", "create_event"),
        ("Show me the latest news about the Olympics.", "get_news"),
        ("Weather forecast for Nairobi for 3 days.", "get_forecast"),
        ("Translate 'happy new year' to Korean.", "translate_text"),
        ("Play the song Hotel California.", "play_music"),
    ],
    "paraphrase": [
        ("Is it going to snow in Denver on Saturday?", "get_forecast"),
        ("Drop a quick note to sam@uni.edu saying the lab is closed tomorrow.", "send_email"),
        ("How many rupees would I get for 200 euros?", "convert_currency"),
        ("Nudge me on Friday at noon to renew my passport.", "set_reminder"),
        ("How's Amazon doing on the market today?", "get_stock_price"),
        ("What's 'good luck' in Portuguese?", "translate_text"),
        ("Can you grab us seats for six at Dishoom around 8?", "book_table"),
        ("I'm in the mood for some Beyoncé.", "play_music"),
        ("How do I get to the airport by bus from downtown?", "get_directions"),
        ("I've got eggs, leeks and cheese, any dinner ideas?", "search_recipes"),
        ("Put Mia's birthday party in my diary for June 3 with Tom and Ava.", "create_event"),
        ("Anything happening with the Mars mission?", "get_news"),
        ("Do I need an umbrella in Glasgow tomorrow?", "get_forecast"),
        ("Ping me at 6 so I don't forget the laundry.", "set_reminder"),
        ("What's Microsoft worth on Wall Street right now?", "get_stock_price"),
    ],
    "no_tool": [
        ("Why is the weather so hard to predict?", None),
        ("How do I write a polite email declining an invitation?", None),
        ("What was the first currency ever used?", None),
        ("Any tips for remembering birthdays?", None),
        ("What does a stock market crash mean for ordinary people?", None),
        ("Why is Finnish so hard to learn?", None),
        ("How much should I tip at a restaurant in Japan?", None),
        ("Who composed the soundtrack of Titanic?", None),
        ("Why do clocks run clockwise?", None),
        ("What's a substitute for eggs in baking?", None),
        ("How far ahead should I plan a wedding?", None),
        ("Why does bad news spread faster than good news?", None),
        ("Morning! Hope your day is going well.", None),
        ("What's 9 squared?", None),
        ("Tell me a joke about penguins.", None),
    ],
}

#: Requests whose topic is near another tool's (an e-mail about a reminder, a dinner booked for
#: a party): which tool is called, not whether. Written for the choice of ``MAX_OFFERED`` before
#: any run of it; no choice is made on them.
NEIGHBOURS: dict[Kind, list[Request]] = {
    "plain": [
        ("Remind me tonight at 9 to email the landlord about the rent.", "set_reminder"),
        ("Create a calendar event for dinner with Priya and Tom on Friday.", "create_event"),
        ("Book a table for four at Nando's at 7 for Sam's birthday party.", "book_table"),
        ("Find recipes for the leftover chicken and rice, I don't want to go to a restaurant.", "search_recipes"),
        ("Get me the stock price of Apple, I saw it in the news.", "get_stock_price"),
        ("Get transit directions to the airport, I need to be there before the weather turns.", "get_directions"),
        ("Translate 'see you at the meeting' into Spanish for my email.", "translate_text"),
    ],
    "paraphrase": [
        ("Let joe@mail.com know I can't make it tonight, by mail please.", "send_email"),
        ("Give me a shout in twenty minutes to take the pizza out.", "set_reminder"),
        ("Pencil in a dentist appointment for the 14th.", "create_event"),
        ("Get us somewhere at Wagamama for 3 at half seven.", "book_table"),
        ("Stick on some chill jazz while I cook.", "play_music"),
        ("How's Nvidia trading today?", "get_stock_price"),
        ("What's happening with the train strike?", "get_news"),
        ("Ping the landlord at rent@flats.co.uk that the boiler broke again.", "send_email"),
    ],
}

#: Questions about live conditions, which need a tool, beside knowledge questions on the same
#: topics, which need none: where asking and acting look alike. Written before any run of the
#: choice they report (the action signal's prototypes); no choice is made on them.
LIVE: dict[Kind, list[Request]] = {
    "plain": [
        ("What is the weather in Paris?", "get_forecast"),
        ("What's the temperature in Oslo right now?", "get_forecast"),
        ("What's the news on the rail strike today?", "get_news"),
        ("What is Apple's stock price?", "get_stock_price"),
        ("How much is 100 euros in dollars?", "convert_currency"),
    ],
    "paraphrase": [
        ("Is it sunny in Madrid?", "get_forecast"),
        ("Is it chilly in Chicago this morning?", "get_forecast"),
        ("What's Amazon trading at?", "get_stock_price"),
        ("How many pesos is 50 bucks?", "convert_currency"),
        ("Anything going on with the election?", "get_news"),
    ],
    "no_tool": [
        ("Why does the weather change so fast in spring?", None),
        ("Why is it colder at the poles?", None),
        ("What is a stock market index?", None),
        ("Why do exchange rates change?", None),
        ("How do newspapers decide what goes on the front page?", None),
    ],
}

#: Written after the action signal's weather question was replaced, to report that change on
#: requests nobody had looked at (LIVE holds the request that prompted it): questions about the
#: moment across the tools' topics, and questions about the same topics that need no tool.
FRESH: dict[Kind, list[Request]] = {
    "plain": [
        ("whats the forecast looking like for edinburgh this weekend", "get_forecast"),
        ("any news about the bridge closure?", "get_news"),
        ("what's the stock price for netflix atm", "get_stock_price"),
        ("can u translate 'where is the bathroom' to german", "translate_text"),
        ("how much are 30 pounds in euros", "convert_currency"),
    ],
    "paraphrase": [
        ("gonna be windy in Cardiff later?", "get_forecast"),
        ("hows google doing on the markets today", "get_stock_price"),
        ("whats going on with the tube strike", "get_news"),
        ("need a spot for 2 at dishoom tonight at 8", "book_table"),
        ("put something upbeat on pls", "play_music"),
    ],
    "no_tool": [
        ("why does it rain more in the west of the uk", None),
        ("whats the difference between shares and bonds", None),
        ("how do journalists check their sources", None),
        ("why do some words have no translation", None),
        ("is it rude to be late to a dinner reservation", None),
    ],
}

#: Written on 2026-12-05 before any run of the choice it reports (an action-or-answer signal
#: fitted on sentences, its gate fitted on TUNE and BFCL's tuning half together): the next
#: held-out split after HOLDOUT5, worded the way people type.
HOLDOUT6: dict[Kind, list[Request]] = {
    "plain": [
        ("weather forecast for porto for the next 2 days", "get_forecast"),
        ("Send an email to li@lab.org, subject Samples, body The samples arrived today.", "send_email"),
        ("convert 60 euros to swiss francs", "convert_currency"),
        ("Set a reminder to water the tomatoes at 7pm.", "set_reminder"),
        ("stock price of Nike please, symbol NKE", "get_stock_price"),
        ("Translate 'I need a doctor' into Italian.", "translate_text"),
        ("book a table for 2 at Zuma at 9pm", "book_table"),
        ("Play music by Adele, her newest album.", "play_music"),
        ("walking directions from the Louvre to Notre Dame", "get_directions"),
        ("find me recipes with rice, peas and bacon", "search_recipes"),
        ("Create an event called Sprint Review on 2026-02-10 with Ken and Lola.", "create_event"),
        ("latest news on the housing market", "get_news"),
        ("Can you get the forecast for Seoul tomorrow?", "get_forecast"),
        ("translate 'thank you very much' to Greek", "translate_text"),
        ("remind me to call mum at 6", "set_reminder"),
    ],
    "paraphrase": [
        ("will I need sunglasses in Lisbon on Sunday?", "get_forecast"),
        ("Fire off a note to bo@agency.com letting him know the draft is ready.", "send_email"),
        ("what's 80 quid in yen", "convert_currency"),
        ("Make sure I don't forget the bins tomorrow morning.", "set_reminder"),
        ("how are Shell shares doing today?", "get_stock_price"),
        ("how do you say 'cheers' in Czech?", "translate_text"),
        ("Grab me a spot at Hawksmoor for 4 on Saturday at 8.", "book_table"),
        ("I want to hear some Miles Davis.", "play_music"),
        ("What's the best way to cycle to Kew Gardens from Richmond?", "get_directions"),
        ("got some leftover turkey and potatoes, what can I make?", "search_recipes"),
        ("Put the quarterly review in my diary for March 5 with Jo and Raj.", "create_event"),
        ("What's going on with the heatwave in Spain?", "get_news"),
        ("is it going to be stormy in Miami this week?", "get_forecast"),
        ("how much is a dollar worth in rupees at the moment?", "convert_currency"),
        ("Buzz me at half five to leave for the gym.", "set_reminder"),
    ],
    "no_tool": [
        ("why is the forecast always wrong", None),
        ("what's a good sign-off for a work email?", None),
        ("why did the pound crash in 1992?", None),
        ("how do I stop forgetting things?", None),
        ("what makes a stock a good long-term investment?", None),
        ("Is Spanish easier than French for English speakers?", None),
        ("what's the etiquette for splitting the bill at a restaurant?", None),
        ("who wrote the music for The Lion King?", None),
        ("Why do some cities have ring roads?", None),
        ("what's the secret to fluffy pancakes?", None),
        ("How many days are there in a leap year?", None),
        ("why do newspapers still print crosswords?", None),
        ("thanks so much, that's all for now", None),
        ("write me a short poem about the moon", None),
        ("what's 144 divided by 12?", None),
    ],
}

#: Written on 2026-12-05 (stop 41) before any analysis or candidate of that stop existed: the
#: next held-out split after HOLDOUT6 (read in stop 40), worded the way people type.
HOLDOUT7: dict[Kind, list[Request]] = {
    "plain": [
        ("forecast for Krakow on Friday", "get_forecast"),
        ("email tom@shop.co with subject Refund and body Still waiting on my refund.", "send_email"),
        ("convert 45 pounds to australian dollars", "convert_currency"),
        ("Set a reminder to pay the rent on the 1st at 9am.", "set_reminder"),
        ("what's the share price of Intel, ticker INTC", "get_stock_price"),
        ("Translate 'the bill, please' into French.", "translate_text"),
        ("Book a table at Ottolenghi for 3 people at 7:30pm.", "book_table"),
        ("play some music by Radiohead", "play_music"),
        ("driving directions from Bristol to Bath", "get_directions"),
        ("any recipes with lentils and coconut milk?", "search_recipes"),
        ("Create an event called Board Meeting on 2026-03-02 with Hana and Luis.", "create_event"),
        ("news about the World Cup", "get_news"),
        ("translate 'good morning everyone' to Dutch pls", "translate_text"),
        ("Weather forecast for Reykjavik for 5 days.", "get_forecast"),
        ("convert 1000 yen to USD", "convert_currency"),
    ],
    "paraphrase": [
        ("will it be chilly in Prague tomorrow?", "get_forecast"),
        ("shoot kim@corp.io a quick note that I'm off sick today", "send_email"),
        ("how many baht would 150 bucks buy me?", "convert_currency"),
        ("don't let me forget to feed the cat at 8", "set_reminder"),
        ("how's Boeing trading today?", "get_stock_price"),
        ("what's 'I love you' in Swahili?", "translate_text"),
        ("grab us somewhere for 5 at Padella at 1", "book_table"),
        ("put on some Taylor Swift", "play_music"),
        ("how do I get from Camden to Brixton on the tube?", "get_directions"),
        ("what could I cook with mushrooms and leftover pasta?", "search_recipes"),
        ("pencil in lunch with Ali and Bea next Tuesday", "create_event"),
        ("what's happening with the port strike?", "get_news"),
        ("does it look sunny for Nice on Sunday?", "get_forecast"),
        ("how do you say 'where's the loo' in Polish?", "translate_text"),
        ("is Ferrari up or down on the exchange today?", "get_stock_price"),
    ],
    "no_tool": [
        ("why do weather apps disagree so much?", None),
        ("how long should a cover email be?", None),
        ("why is the euro called the euro?", None),
        ("what's a good way to build a habit?", None),
        ("should I put my savings into stocks or bonds?", None),
        ("which language has the most speakers?", None),
        ("is it ok to bring your own wine to a restaurant?", None),
        ("who sang the original Hallelujah?", None),
        ("why are one-way streets a thing?", None),
        ("how long do I boil an egg for?", None),
        ("what should I bring to a housewarming party?", None),
        ("how do I spot fake news?", None),
        ("cheers, that helped a lot", None),
        ("write a limerick about a lazy cat", None),
        ("what's 25 times 4?", None),
    ],
}

#: Written by the developer at stop 42, after the copy gate was adopted and before any run of these,
#: worded the way people type; many are questions, where the gate acts.
HOLDOUT8: dict[Kind, list[Request]] = {
    "plain": [
        ("whats the weather forecast for glasgow this weekend", "get_forecast"),
        ("send an email to tom@acme.io, subject deck, saying the deck is ready", "send_email"),
        ("can you convert 250 pounds to dollars?", "convert_currency"),
        ("set a reminder to call the dentist at 4pm", "set_reminder"),
        ("what's the share price of NVDA right now?", "get_stock_price"),
        ("translate 'where is the train station' into german pls", "translate_text"),
        ("reserve a table at Nando's for 4 people at 7:30 tonight", "book_table"),
        ("play some Fleetwood Mac", "play_music"),
        ("directions from my office to heathrow airport? driving", "get_directions"),
        ("any recipes with chickpeas and spinach?", "search_recipes"),
        ("add a calendar event 'book club' on friday and invite anna and raj", "create_event"),
        ("latest news about the ukraine ceasefire?", "get_news"),
    ],
    "paraphrase": [
        ("do i need an umbrella in dublin tmrw?", "get_forecast"),
        ("shoot jen@studio.co a quick note that i'm running late", "send_email"),
        ("how many yen would i get for 300 bucks?", "convert_currency"),
        ("ping me at 6 tonight to take the bins out", "set_reminder"),
        ("how's tesla doing on the market today?", "get_stock_price"),
        ("how do you say 'good luck with the exam' in italian?", "translate_text"),
        ("can u get us a spot at Dishoom for 6 on saturday evening", "book_table"),
        ("put on something chill, maybe lofi beats", "play_music"),
        ("how do i get to the british museum from kings cross by tube?", "get_directions"),
        ("what can i cook with leftover rice and 2 eggs?", "search_recipes"),
        ("pencil in a team lunch next tuesday with maya and leo", "create_event"),
        ("anything happening with the nhs strikes?", "get_news"),
    ],
    "no_tool": [
        ("why is the weather in london always so grey?", None),
        ("how do i write a polite email asking for a raise?", None),
        ("why did the pound crash in 2016?", None),
        ("any tips for remembering people's names?", None),
        ("is it smart to buy stocks when the market is down?", None),
        ("whats the hardest language for english speakers to learn?", None),
        ("how much should i tip at a restaurant in new york?", None),
        ("who sang 'dreams' originally?", None),
        ("why do cab drivers know all the routes in london?", None),
        ("is it ok to freeze cooked rice?", None),
        ("how do i say no to a meeting invite without being rude?", None),
        ("ugh long day. tell me something nice", None),
    ],
}

#: Example requests for each tool (``Tool.examples``), as a tool's author would write them: written
#: on 2026-12-05 (stop 41) by someone who saw only the tools' signatures and docstrings, no split,
#: before any fit or run of them (one example that equalled a HOLDOUT7 request was replaced, by the
#: same writer, before any run). ``bench/tool_decision.py --examples`` gives them to structgen.
EXAMPLES: dict[str, list[str]] = {
    'get_forecast': [
        "Get the weather forecast for Seattle for the next 3 days",
        "is it gonna rain in Lisbon tomorrow?",
        "what's the weather looking like in Denver this week, planning a hike saturday",
    ],
    'send_email': [
        "Send an email to maria.lopez@example.com with the subject \"Q3 report\" saying the draft is attached and ready for review",
        "shoot dave@acme.io a quick note that I'm running 10 min late to standup",
        "can you email my landlord at jkim@rentals.com and tell him the kitchen sink is leaking again?",
    ],
    'convert_currency': [
        "Convert 250 USD to EUR",
        "how much is 5000 yen in british pounds?",
        "I've got 80 Canadian dollars left over from my trip, what's that worth in Mexican pesos",
    ],
    'set_reminder': [
        "Set a reminder to call the dentist at 3pm tomorrow",
        "remind me to take the chicken out of the freezer at 5:30",
        "don't let me forget mom's birthday gift, ping me friday at 9am",
    ],
    'get_stock_price': [
        "Get the latest stock price for AAPL",
        "how's Tesla trading right now?",
        "what's nvidia stock at today",
    ],
    'translate_text': [
        "Translate \"Where is the train station?\" into German",
        "how do you say 'thank you so much for dinner' in japanese",
        "can u put 'we'll arrive on tuesday around noon' into spanish for me",
    ],
    'book_table': [
        "Book a table at Nopa for 4 people at 7:30pm",
        "get me a reservation at Olive Garden tonight at 8, there's 2 of us",
        "can you grab us a spot at Sushi Zen saturday 6pm? party of six",
    ],
    'play_music': [
        "Play the song Bohemian Rhapsody by Queen",
        "can you throw on some Fleetwood Mac?",
        "i need my chill lofi study playlist going",
    ],
    'get_directions': [
        "Get driving directions from Boston to Providence",
        "how do I walk to Central Park from Times Square?",
        "what's the best way to get from the airport to downtown Chicago by public transit",
    ],
    'search_recipes': [
        "Search for recipes that use chicken, rice and broccoli",
        "what can I make with eggs, spinach and feta?",
        "got some ground beef and a can of black beans, any dinner ideas",
    ],
    'create_event': [
        "Create a calendar event \"Project kickoff\" on March 14 and invite anna@example.com and raj@example.com",
        "put a team lunch on the calendar for next friday and invite Sam and Priya",
        "can you schedule Jake's going-away party on June 2 and send invites to jake@corp.com, lee@corp.com and tom@corp.com",
    ],
    'get_news': [
        "Get the latest news headlines about climate change",
        "anything new going on with the SpaceX launch?",
        "what's the latest on the NBA playoffs",
    ],
}

#: A call wanted: ``(tool, a value its arguments hold)``, compared case-insensitively.
Wanted = tuple[str, str]

#: How many calls a turn makes, on the twelve tools: requests that want one call though they
#: tempt more (a place with its region, a song with its artist, a mode among listed ones), and
#: requests that want two. Written on 2026-12-05 (stop 38) before any run of the rule they
#: report (a later call of a turn must add something said).
SEVERAL: list[tuple[str, list[Wanted]]] = [
    ("Walking directions from the station to the museum, please.", [("get_directions", "walking")]),
    ("What's the forecast for Rome, Italy this week?", [("get_forecast", "rome")]),
    ("Convert 250 euros to US dollars.", [("convert_currency", "250")]),
    ("Translate 'good morning, how are you?' into Spanish.", [("translate_text", "spanish")]),
    ("Get the stock price of Apple, symbol AAPL.", [("get_stock_price", "aapl")]),
    ("Book a table for two at Luigi's in Soho at 7:30pm.", [("book_table", "luigi")]),
    ("Remind me at 8am to take my pills with breakfast.", [("set_reminder", "pills")]),
    ("Play Under Pressure by Queen and David Bowie.", [("play_music", "pressure")]),
    ("Any news about the climate summit in Paris, France?", [("get_news", "climate")]),
    ("Transit directions from King's Cross to Heathrow Airport.", [("get_directions", "heathrow")]),
    ("What's the weather forecast for Paris and for Rome?", [("get_forecast", "paris"), ("get_forecast", "rome")]),
    ("Convert 100 dollars to euros and to yen.", [("convert_currency", "eur"), ("convert_currency", "jpy")]),
    ("Stock prices for Apple (AAPL) and Microsoft (MSFT), please.", [("get_stock_price", "aapl"), ("get_stock_price", "msft")]),
    ("Translate 'thank you' into French and into German.", [("translate_text", "french"), ("translate_text", "german")]),
    ("Get the latest news on the election and on the heatwave.", [("get_news", "election"), ("get_news", "heatwave")]),
    ("Remind me at 9am to call the bank and at 5pm to buy bread.", [("set_reminder", "bank"), ("set_reminder", "bread")]),
    ("Play some jazz, and what's the forecast for Berlin tomorrow?", [("play_music", "jazz"), ("get_forecast", "berlin")]),
    ("Email max@co.com with subject Hi and body See you soon, and remind me at 6pm to pack.",
     [("send_email", "max@co.com"), ("set_reminder", "pack")]),
    ("Driving directions from Bath to Bristol and from Bristol to Cardiff.",
     [("get_directions", "bath"), ("get_directions", "cardiff")]),
    ("Find recipes with tofu and book a table at Wagamama for 2 at 8pm.", [("search_recipes", "tofu"), ("book_table", "wagamama")]),
]

#: Two calls of different tools on the same values: a later call's rule must not cut the second
#: tool. Written on 2026-12-05 (stop 38) before any run, after the tuning half had chosen between
#: the rule for any earlier call and the rule per tool, to check the harm the first was expected to
#: do (bench/several_calls.py --set shared).
SHARED_VALUES: list[tuple[str, list[Wanted]]] = [
    ("Get the forecast and the latest news for Lisbon.", [("get_forecast", "lisbon"), ("get_news", "lisbon")]),
    ("What's the weather forecast and the news in Tokyo today?", [("get_forecast", "tokyo"), ("get_news", "tokyo")]),
    ("Give me directions to Harrods and book a table at Harrods for 2 at 1pm.",
     [("get_directions", "harrods"), ("book_table", "harrods")]),
    ("Remind me at 7pm about the Coldplay concert and play some Coldplay.",
     [("set_reminder", "coldplay"), ("play_music", "coldplay")]),
    ("Latest news on Tesla and Tesla's share price, symbol TSLA.", [("get_news", "tesla"), ("get_stock_price", "tsla")]),
    ("Find recipes with pumpkin and any news about the pumpkin festival.", [("search_recipes", "pumpkin"), ("get_news", "pumpkin")]),
]

#: The later-call rule (a later call of a tool must add a word the user said), tried on requests
#: worded the way people type, written on 2026-12-05 (stop 38) after the rule shipped and before
#: any run of it on them (bench/several_calls.py --set typed): one call wanted though more tempt,
#: and two wanted, including the kinds the rule is documented to cut (a value the user did not
#: spell that way, a listed value the user named).
TYPED_CALLS: list[tuple[str, list[Wanted]]] = [
    ("whats the weather gonna be like in leeds, uk tmrw", [("get_forecast", "leeds")]),
    ("can u convert 40 quid to euros", [("convert_currency", "40")]),
    ("directions to the o2 arena from greenwich pls, walking", [("get_directions", "o2")]),
    ("play some taylor swift, the 1989 album", [("play_music", "1989")]),
    ("remind me 2morrow at 10 to ring the vet", [("set_reminder", "vet")]),
    ("hows tesla stock doing, TSLA", [("get_stock_price", "tsla")]),
    ("book a table at dishoom covent garden for 4 at 7", [("book_table", "dishoom")]),
    ("translate 'where's the nearest pharmacy' into french", [("translate_text", "french")]),
    ("weather in manchester and liverpool this weekend?", [("get_forecast", "manchester"), ("get_forecast", "liverpool")]),
    ("news on the strikes and on the budget pls", [("get_news", "strike"), ("get_news", "budget")]),
    ("translate 'good luck' to italian and also to polish", [("translate_text", "italian"), ("translate_text", "polish")]),
    ("AAPL and NVDA prices rn?", [("get_stock_price", "aapl"), ("get_stock_price", "nvda")]),
    ("convert 50 bucks to pounds and to aussie dollars", [("convert_currency", "gbp"), ("convert_currency", "aud")]),
    ("directions from soho to camden, walking and by transit", [("get_directions", "walking"), ("get_directions", "transit")]),
    ("forecast for york plus any news about york", [("get_forecast", "york"), ("get_news", "york")]),
    ("remind me at 6 to call mum and email dad@home.com to say happy birthday",
     [("set_reminder", "mum"), ("send_email", "dad@home.com")]),
]

#: How many calls a turn makes, on requests worded the way people type, written on 2026-12-05
#: (stop 39) before any run of the rule they report (a second call offered under ``"auto"``,
#: kept only if it adds something said): twelve want one call though the wording tempts more
#: ("chicken, leeks and cream", "salt and pepper"), twelve want two (bench/several_calls.py
#: --set calls-holdout). Never tuned on.
CALLS_HOLDOUT: list[tuple[str, list[Wanted]]] = [
    # one call wanted, though the wording tempts more
    ("whats the forecast for salt lake city", [("get_forecast", "salt lake")]),
    ("how do i get from paddington to victoria on the tube", [("get_directions", "victoria")]),
    ("find me recipes with chicken, leeks and cream", [("search_recipes", "leek")]),
    ("translate 'salt and pepper please' into german", [("translate_text", "german")]),
    ("play rock and roll from the fifties", [("play_music", "rock")]),
    ("book dinner at nandos for 3 people at 6pm", [("book_table", "nando")]),
    ("remind me at noon to buy milk and eggs", [("set_reminder", "milk")]),
    ("news about the war in ukraine and russia", [("get_news", "ukraine")]),
    ("swap 300 canadian dollars into euros for me", [("convert_currency", "300")]),
    ("meta stock price? ticker META", [("get_stock_price", "meta")]),
    ("set up a meeting called budget review on friday with ann and raj", [("create_event", "budget")]),
    ("email tom@work.com, subject lunch, body are you free at 1 and 2?", [("send_email", "tom@work.com")]),
    # two calls wanted
    ("forecast for glasgow and for edinburgh", [("get_forecast", "glasgow"), ("get_forecast", "edinburgh")]),
    ("what are GOOG and AMZN trading at", [("get_stock_price", "goog"), ("get_stock_price", "amzn")]),
    ("news about the olympics, and separately news about the oscars", [("get_news", "olympics"), ("get_news", "oscars")]),
    ("translate 'cheers' into dutch and into swedish", [("translate_text", "dutch"), ("translate_text", "swedish")]),
    ("remind me at 7 to feed the cat and at 9 to lock up", [("set_reminder", "cat"), ("set_reminder", "lock")]),
    ("recipes with lentils, and also some recipes with salmon", [("search_recipes", "lentil"), ("search_recipes", "salmon")]),
    ("play some beyonce and then some adele", [("play_music", "beyonce"), ("play_music", "adele")]),
    ("how much is 20 euros in dollars and 20 euros in pounds", [("convert_currency", "usd"), ("convert_currency", "gbp")]),
    ("directions from leeds to york and from york to hull", [("get_directions", "leeds"), ("get_directions", "hull")]),
    ("weather in cardiff tomorrow and book a table at the ivy for 2 at 8", [("get_forecast", "cardiff"), ("book_table", "ivy")]),
    ("whats MSFT at, and any news about microsoft", [("get_stock_price", "msft"), ("get_news", "microsoft")]),
    ("play lofi beats and remind me at 4 to stretch", [("play_music", "lofi"), ("set_reminder", "stretch")]),
]

#: The offered second call (stop 39), reported on requests it was not decided on: worded the way
#: people type, written on 2026-12-05 after the change shipped and before any run of it on them
#: (bench/several_calls.py --set fresh-calls). Fourteen want one call though the wording tempts
#: more, twelve want two (three of them two different tools, which the change cuts by design),
#: four want three. Never tuned on.
FRESH_CALLS: list[tuple[str, list[Wanted]]] = [
    ("weather for stoke-on-trent pls", [("get_forecast", "stoke")]),
    ("wats the forecast in new york city for the next 3 days", [("get_forecast", "new york")]),
    ("convert 15 quid into dollars", [("convert_currency", "15")]),
    ("play rhythm and blues", [("play_music", "rhythm")]),
    ("remind me at 5 to pick up the kids and the dog", [("set_reminder", "kids")]),
    ("book a table at bob and bills for 2 at 8pm", [("book_table", "bob")]),
    ("recipes using tomatoes & basil", [("search_recipes", "tomato")]),
    ("translate 'fish and chips' to french", [("translate_text", "french")]),
    ("news on the trump and biden debate", [("get_news", "debate")]),
    ("email sam@mail.com subject hi and bye body see u", [("send_email", "sam@mail.com")]),
    ("tsla price?", [("get_stock_price", "tsla")]),
    ("directions from bath to bristol by car", [("get_directions", "bristol")]),
    ("set up a call named sync on monday with jo and kim", [("create_event", "sync")]),
    ("price of BRK.B shares", [("get_stock_price", "brk")]),
    ("weather in oslo & bergen", [("get_forecast", "oslo"), ("get_forecast", "bergen")]),
    ("msft vs aapl stock price", [("get_stock_price", "msft"), ("get_stock_price", "aapl")]),
    ("translate 'hello' to german and japanese", [("translate_text", "german"), ("translate_text", "japanese")]),
    ("news about nasa plus news about spacex", [("get_news", "nasa"), ("get_news", "spacex")]),
    ("remind me at 8 to walk the dog and at 10 to call gran", [("set_reminder", "dog"), ("set_reminder", "gran")]),
    ("recipes with beef, then separate ones with tofu", [("search_recipes", "beef"), ("search_recipes", "tofu")]),
    ("convert 100 usd to eur and 100 usd to gbp", [("convert_currency", "eur"), ("convert_currency", "gbp")]),
    ("play coldplay then play oasis", [("play_music", "coldplay"), ("play_music", "oasis")]),
    ("directions from leeds to hull and from hull to york", [("get_directions", "leeds"), ("get_directions", "york")]),
    ("forecast for rome and get me the news on rome", [("get_forecast", "rome"), ("get_news", "rome")]),
    ("play some jazz and remind me at 6 to cook", [("play_music", "jazz"), ("set_reminder", "cook")]),
    ("whats nvda at and any news on nvidia", [("get_stock_price", "nvda"), ("get_news", "nvidia")]),
    ("weather in paris, rome and madrid", [("get_forecast", "paris"), ("get_forecast", "rome"), ("get_forecast", "madrid")]),
    ("stock prices for aapl, msft and goog", [("get_stock_price", "aapl"), ("get_stock_price", "msft"), ("get_stock_price", "goog")]),
    ("translate 'thanks' into french, german and italian",
     [("translate_text", "french"), ("translate_text", "german"), ("translate_text", "italian")]),
    ("news on football, tennis and golf", [("get_news", "football"), ("get_news", "tennis"), ("get_news", "golf")]),
]

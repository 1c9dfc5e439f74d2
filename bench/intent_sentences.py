"""Requests of both kinds, written for fitting an action-or-answer signal for
``decision="action"`` (``bench/fit_intent.py``, an experiment of stop 35 that was measured and
not shipped: docs/benchmarks.md, "The action signal refitted: measured, not adopted").

- ``ACTIONS``: something is to be done, or looked up in a live or personal source a tool would
  hold — commands, bookings, messages, reminders, media, prices and rates, routes, forecasts,
  translations — worded the way people talk: commands, questions, hints and moods.
- ``ANSWERS``: the assistant answers from what it knows or just talks — facts, history,
  explanations, advice, opinions, creative writing, arithmetic, greetings and thanks — many on
  the same topics as the actions.

None of them is a request of any split of ``bench/tool_requests.py`` (a test checks); they were
written on 2026-12-04 before the signal fitted on them was run on any split; the second group
(marked) after the first fit had been reported on HOLDOUT3 and BFCL's halves.
"""

from __future__ import annotations

ACTIONS = (
    # home, devices, errands
    "Turn off the lights in the kitchen.", "Dim the bedroom lamp to half.", "Lock the front door.",
    "Set the thermostat to 21 degrees.", "Start the robot vacuum.", "Open the garage door.",
    "Is the back door locked?", "Turn the heating up a bit, I'm freezing.", "Switch on the porch light at sunset.",
    "Mute notifications until tomorrow morning.", "Turn on do not disturb.", "Start a timer for ten minutes.",
    "Wake me up at 6:30.", "Set an alarm for 7 tomorrow.", "Stop the alarm.",
    # shopping, money, orders
    "Order me a large pepperoni pizza.", "Add milk and eggs to my shopping list.", "Reorder my usual coffee beans.",
    "Buy two tickets for the 8pm show.", "Check the status of order 4471.", "Where's my package?",
    "Is my parcel out for delivery yet?", "Pay my electricity bill.", "What's the balance on my checking account?",
    "Send 20 dollars to Jake for the pizza.", "How much did I spend on groceries this month?",
    "Cancel my gym subscription.", "Track the shoes I ordered last week.", "Get me a refund for the broken kettle.",
    "How much is 100 pounds in dollars today?", "What's the exchange rate for yen right now?",
    "How many rupees is 50 euros?", "I need 200 francs in dollars.", "What's bitcoin worth at the moment?",
    "How are my shares doing today?", "Check the price of Apple stock.", "Where is the Dow Jones right now?",
    "Did Tesla go up today?", "What's Amazon's stock at?", "Show me the Nasdaq.",
    # travel, transport, places
    "Call a taxi to the station.", "Get me an Uber to the airport.", "Rent a bike near me.",
    "Look up flights from Boston to Denver next Friday.", "Find me a hotel in Lisbon for two nights.",
    "Book the cheapest train to Leeds tomorrow morning.", "Is my flight on time?", "Check in for my flight.",
    "How long will my commute take right now?", "Route me home avoiding the highway.",
    "How do I get to the museum from here by bus?", "What's the fastest way to the stadium?",
    "Take me to the nearest gas station.", "How far is it to Brighton by car?",
    "Find a pharmacy that's open now.", "Any good sushi places nearby?", "Where can I park near the theatre?",
    # weather
    "Is it going to rain this afternoon?", "Do I need a jacket tonight?", "What's it like outside in Berlin?",
    "Will it be warm enough for the beach on Sunday?", "How hot will it get in Phoenix tomorrow?",
    "Any storms coming this week?", "Should I take an umbrella to work?", "Is it snowing in Aspen right now?",
    # messages, calls, calendar, reminders
    "Text Maria that I'm running late.", "Call mom.", "Tell Sarah the meeting moved to 3.",
    "Message the team that the build is green.", "Write to the landlord that the boiler is broken.",
    "Let dave@mail.com know the report is ready.", "Reply to Tom's last email saying yes.",
    "Forward the invoice to accounting.", "Cancel my 3pm meeting.", "Schedule a call with the design team on Tuesday.",
    "Move my dentist appointment to next week.", "What's on my calendar tomorrow?", "Am I free Friday afternoon?",
    "Put dinner with Alex on my calendar for Saturday.", "Invite Priya and Ken to the Monday standup.",
    "Remind me to buy flowers on the way home.", "Don't let me forget to pay rent on the first.",
    "Remind me in an hour to check the oven.", "Ping me tomorrow at 8 about the visa form.",
    "Give me a nudge at 5 to leave for the gym.",
    # media, music
    "Play some relaxing piano.", "Put on my workout playlist.", "Skip this song.", "Turn the volume up.",
    "I feel like listening to some old-school hip hop.", "Play the new Coldplay album.",
    "Put on a podcast about history.", "Something upbeat for the drive, please.", "Resume my audiobook.",
    "Queue up Fleetwood Mac after this.", "Play the radio.", "I'm in the mood for some blues.",
    # food, recipes
    "What can I make with potatoes, cheese and onions?", "Find a vegan lasagne recipe.",
    "I have leftover rice and two eggs, ideas?", "Show me a quick dinner with salmon.",
    "Look up a recipe for banana bread.", "Any dishes I can cook with tofu and broccoli?",
    "Book a table for four at Luigi's at 7.", "Reserve a spot for two at the Thai place tonight.",
    "Get us a table for six on Friday evening.", "Can you reserve brunch for three on Sunday?",
    # translation
    "How do you say 'where is the bathroom' in Spanish?", "What's 'good night' in Italian?",
    "How do Koreans say 'I love you'?", "Put this sentence into French: the meeting is cancelled.",
    "How would I ask for the bill in German?", "What's the Japanese for 'excuse me'?",
    "Turn 'happy new year' into Mandarin.", "Help me write 'thank you for dinner' in Dutch.",
    # news, search, files, live info
    "What's the latest on the hurricane?", "Any news about the strike?", "What happened in the match last night?",
    "Look up the score of tonight's game.", "Who won the election in Brazil?", "Catch me up on tech headlines.",
    "What's new with the Mars rover?", "Get me today's top stories.", "Search my files for the tax form.",
    "Find the photos from my trip to Spain.", "Open the spreadsheet from yesterday.", "Save this article for later.",
    "Share my location with Tom.", "Back up my phone tonight.", "Reset my password.",
    "Get me the latest figures for our sales dashboard.", "Pull up last quarter's revenue report.",
    "How many steps have I walked today?", "Log a 5 km run for this morning.", "What's my heart rate been like this week?",
    "Is the pharmacy on Main Street open on Sundays?", "When does the next bus leave?",
    "What time does the supermarket close?", "How busy is the gym right now?",
    # added for the second fit: computations with given values, weather asked plainly, hints and
    # slang, requests that quote what to translate or write
    "Calculate the monthly payment on a 250,000 mortgage at 4 percent over 30 years.",
    "Compute the area of a triangle with base 10 and height 5.", "Calculate the BMI for someone 180 cm tall weighing 75 kg.",
    "Work out the compound interest on 5,000 dollars at 3 % for 10 years.",
    "Calculate the distance between the points 40.7, -74.0 and 34.0, -118.2.", "Find the roots of 2x^2 + 3x - 5 = 0.",
    "Calculate the standard deviation of 4, 8, 15, 16, 23 and 42.", "Get the derivative of x^3 + 2x at x = 4.",
    "Calculate the final speed of a ball dropped from 20 meters.", "Compute the volume of a cylinder of radius 2 and height 7.",
    "What's the weather in Tokyo in celsius?", "Weather in Madrid now?", "Temperature in Chicago right now, in fahrenheit.",
    "How's the weather looking in Mumbai?", "What's the current temperature in Sydney?", "Humidity in Singapore today?",
    "Stick on some reggae.", "Blast some AC/DC.", "Give me a shout at 7 to call the bank.",
    "Sort me out a table for two at Pizza Express at 8.", "Line up a meeting with Ana on the 12th.",
    "Slot a call with the vendor into Wednesday.", "Fire off a note to Jo that the keys are under the mat.",
    "How do I write 'my flight was cancelled' in Greek?", "Turn 'see you soon' into Swedish.",
    "Email the landlord saying the rent is paid.", "Tell my sister on WhatsApp that I landed.",
    "Grab me the price of gold.", "Where are oil prices at today?", "What's the pound doing against the euro?",
)

ANSWERS = (
    # facts, history, science
    "Why is the sky blue?", "Explain how plants make food from light.", "What is the capital of Australia?",
    "How does a vaccine work?", "Who painted the Mona Lisa?", "How many legs does a spider have?",
    "How old is the universe?", "What causes inflation?", "Why do people dream?", "Why does it rain?",
    "What's the difference between weather and climate?", "How do hurricanes form?", "What is a cold front?",
    "Why do we have time zones?", "When was the printing press invented?", "Who was Napoleon?",
    "What's the tallest mountain in Africa?", "How do airplanes stay in the air?", "What is a black hole?",
    "Why are flamingos pink?", "How does the stock market work?", "What is a dividend?",
    "What's the difference between a stock and a bond?", "Why do currencies lose value?",
    "What was the gold standard?", "Who invented the telephone?", "How does email actually get delivered?",
    "Why do languages have genders?", "Where does the word 'salary' come from?", "How many people speak Arabic?",
    "Is Portuguese close to Spanish?", "What is the hardest language to learn?", "Who composed the Four Seasons?",
    "What instrument did Miles Davis play?", "How was jazz born?", "What's the origin of the sandwich?",
    "Why is sushi served with ginger?", "What is umami?", "Who invented the calendar we use?",
    "Why does February have 28 days?", "How do GPS satellites work?", "Why are maps distorted?",
    "What does a news anchor do?", "How did newspapers start?", "What is journalism ethics?",
    # explanations and how-to from knowledge
    "How do I say no politely?", "Give me tips for a job interview.", "How can I sleep better?",
    "How do I get better at chess?", "What's a good way to start a speech?", "How do I write a cover letter?",
    "How should I ask my boss for a raise?", "What's the best way to learn to code?", "How do I boil an egg perfectly?",
    "Why does bread go stale?", "How do I keep basil alive?", "What should I pack for a camping trip?",
    "How do I stop procrastinating?", "How can I save more money each month?", "Is it better to rent or buy?",
    "How do I deal with jet lag?", "What's a healthy breakfast?", "How much water should I drink a day?",
    "How do I politely decline a meeting?", "How do I make friends in a new city?", "How do I read music?",
    # creative writing, text
    "Write a short poem about autumn.", "Tell me a joke about cats.", "Write a limerick about a lazy dog.",
    "Describe a sunset over the ocean.", "Write a thank-you note for a gift.", "Summarize the plot of Hamlet.",
    "Write a bedtime story about a dragon.", "Give me a catchy slogan for a bakery.", "Write a toast for my sister's wedding.",
    "Make up a riddle about the moon.", "Write a haiku about coffee.", "Write a song about a road trip.",
    "Compose a short speech for a retirement party.", "Draft a tweet about Monday mornings.",
    "Write a story set in a rainy city.", "Write a funny poem about email inboxes.",
    # opinions, comparisons, advice
    "Is coffee bad for you?", "Compare cats and dogs as pets.", "Which is better, Python or Java?",
    "Is it worth learning Latin?", "What's the best Beatles album?", "Are electric cars really greener?",
    "Should I learn guitar or piano?", "Is it rude to text during dinner?", "What makes a good leader?",
    "Is investing in gold a good idea?", "Why do people like horror movies?", "What makes a song catchy?",
    "Is breakfast the most important meal?", "What's a good name for a goldfish?", "Can you help me name my dog?",
    # definitions, language
    "What does 'serendipity' mean?", "What rhymes with orange?", "What's a synonym for happy?",
    "Is it 'affect' or 'effect'?", "What's the plural of 'cactus'?", "How do you spell 'necessary'?",
    "What does RSVP stand for?", "What's an idiom?", "Use 'ubiquitous' in a sentence.",
    # arithmetic, puzzles
    "What is 15 percent of 80?", "What's 9 times 7?", "What is the square root of 144?", "How many minutes are in a day?",
    "If I have 3 apples and eat one, how many are left?", "What's half of 250?", "Is 91 a prime number?",
    "How many weeks are in a year?", "Convert 3 feet to inches.", "What's 1000 divided by 8?",
    # chat, greetings, thanks
    "Hi, how are you today?", "Hello!", "Good evening.", "Thanks, that helps a lot.", "Thank you so much!",
    "That's all, cheers.", "Ok great.", "Never mind.", "You're funny.", "What's your name?", "Are you a robot?",
    "I had a rough day.", "I'm bored.", "Nice talking to you, bye!", "Sounds good to me.", "Perfect, thanks!",
    "What can you do?", "Do you like music?", "Tell me about yourself.", "Haha, good one.",
    # added for the second fit
    "How do you calculate a percentage?", "What's the formula for the area of a circle?",
    "Explain how compound interest works.", "What's the coldest city on earth?", "Why is Fahrenheit still used?",
    "What's the difference between a mortgage and a loan?", "Is it hard to learn Greek?", "Ok, bye for now.",
)

__all__ = ["ACTIONS", "ANSWERS"]

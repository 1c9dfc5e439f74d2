"""Whether a request asks for something to be done or for an answer: the "action or answer"
signal of ``decision="action"``.

A request is compared, with the sentence encoder tool decisions use, with requests of both
kinds written for this (sharing no tool's words): its similarity to the three closest action
requests less that to the three closest questions. Requests that only share a topic with a tool
("Who composed the music for Star Wars?" beside ``play_music``) score low; commands and
requests for live data score high, however they are worded.
"""

from __future__ import annotations

ACTIONS = (
    "Turn off the lights in the kitchen.", "Order me a large pepperoni pizza.", "Call a taxi to the station.",
    "Look up flights from Boston to Denver next Friday.", "Cancel my 3pm meeting.", "Text Maria that I'm running late.",
    "Start a timer for ten minutes.", "Add milk and eggs to my shopping list.", "Check the status of order 4471.",
    "Pay my electricity bill.", "Open the garage door.", "Find me a hotel in Lisbon for two nights.",
    "What's the balance on my checking account?", "How long will my commute take right now?",
    "Schedule a call with the design team on Tuesday.", "Save this article for later.", "Share my location with Tom.",
    "Look up the score of tonight's game.", "Is my package out for delivery?", "Rent a bike near me.",
    "Get me the latest figures for our sales dashboard.", "Search my files for the tax form.",
    "Mute notifications until tomorrow.", "Buy two tickets for the 8pm show.", "Reset my password.",
)
QUESTIONS = (
    "Why is the sky blue?", "Explain photosynthesis simply.", "Write a short poem about autumn.",
    "What is the capital of Australia?", "Tell me a joke about cats.", "How does a vaccine work?",
    "What's the difference between a virus and bacteria?", "Summarize the plot of Hamlet.",
    "Give me tips for a job interview.", "What does 'serendipity' mean?", "Who painted the Mona Lisa?",
    "How many legs does a spider have?", "What is 15 percent of 80?", "Can you help me name my dog?",
    "Is coffee bad for you?", "Describe a sunset over the ocean.", "What causes inflation?",
    "How do I say no politely?", "Why do people dream?", "Write a thank-you note for a gift.",
    "What's a good way to start a speech?", "How old is the universe?", "Compare cats and dogs as pets.",
    "What rhymes with orange?", "Hi, how are you today?",
)
#: How many of the closest prototypes of each kind are averaged.
CLOSEST = 3

__all__ = ["ACTIONS", "CLOSEST", "QUESTIONS"]

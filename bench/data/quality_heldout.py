"""Held-out extraction tasks for ``bench.suites.quality --sources heldout``: written on
2026-12-06 before any run of them, worded the way application users write requests (chatty,
the facts inside ordinary text), gold values as a careful person would fill them in. Nothing is
tuned on them. Python, not JSON: the Pydantic types are the input.
"""

from __future__ import annotations

import datetime as dt
from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field


class Inventory(BaseModel):
    counts: dict[str, int] = Field(description="how many of each fruit")


class Expense(BaseModel):
    merchant: str
    total: float
    currency: Literal["EUR", "USD", "GBP", "NOK"]
    category: Literal["travel", "meals", "office", "software"]


class Priority(str, Enum):
    low = "low"
    normal = "normal"
    urgent = "urgent"


class SupportRequest(BaseModel):
    customer_name: str
    order_number: str
    priority: Priority
    wants_refund: bool


class Trip(BaseModel):
    origin: str
    destination: str
    depart: dt.date
    nights: int
    travellers: int


class Task(BaseModel):
    title: str
    assignee: str
    due: dt.date | None = None
    done: bool


class TodoList(BaseModel):
    tasks: list[Task]


class Medication(BaseModel):
    name: str
    strength_mg: int
    with_food: bool


class Symptom(BaseModel):
    symptom: str
    days: int


class Visit(BaseModel):
    patient_age: int
    symptoms: list[Symptom]
    medications: list[Medication]


class Listing(BaseModel):
    make: str
    model: str
    year: int
    mileage_km: int
    price_eur: int
    automatic: bool


class Score(BaseModel):
    player: str
    points: int


class GameNight(BaseModel):
    game: str
    winner: str
    scores: list[Score]


class Subscription(BaseModel):
    plan: Literal["free", "pro", "team"]
    seats: int
    billed: Literal["monthly", "yearly"]
    cancel: bool


class Reading(BaseModel):
    sensor: str
    celsius: float
    humidity_percent: int
    alert: bool = Field(description="true when the reading is outside the safe range the text gives")


class Guest(BaseModel):
    name: str
    dietary: Literal["none", "vegetarian", "vegan", "gluten_free"]
    plus_one: bool


class RSVP(BaseModel):
    event: str
    guests: list[Guest]


class Loan(BaseModel):
    amount: int
    years: int
    rate_percent: float
    fixed_rate: bool


class Shipment(BaseModel):
    tracking: str
    carrier: str
    delivered: bool
    signed_by: str | None = None


class Feedback(BaseModel):
    product: str
    main_complaint: Literal["sound", "battery", "comfort", "price"]
    would_recommend: bool


D = dt.date
#: (key, output type, prompt, gold): the same shape as quality.py's own tasks.
HELDOUT_TASKS = (
    ("fruit-counts", Inventory,
     "ok so after the market we've got 7 apples left, a dozen bananas and 3 pears. can you log that?",
     {"counts": {"apples": 7, "bananas": 12, "pears": 3}}),
    ("expense", Expense,
     "Lunch with the client at Trattoria Roma came to 86.40 euros, please file it.",
     {"merchant": "Trattoria Roma", "total": 86.4, "currency": "EUR", "category": "meals"}),
    ("support", SupportRequest,
     "hi, this is Priya Nair, my order #55120 arrived smashed and I need my money back asap, the party is tomorrow",
     {"customer_name": "Priya Nair", "order_number": "55120", "priority": "urgent", "wants_refund": True}),
    ("trip", Trip,
     "We're flying Oslo to Lisbon on the 12th of May 2026, the four of us, staying a week.",
     {"origin": "Oslo", "destination": "Lisbon", "depart": D(2026, 5, 12), "nights": 7, "travellers": 4}),
    ("todos", TodoList,
     "Notes from standup: Jonas finished the login page. Mia still has to write the release notes by 2026-03-02.",
     {"tasks": [{"title": "login page", "assignee": "Jonas", "due": None, "done": True},
                {"title": "release notes", "assignee": "Mia", "due": D(2026, 3, 2), "done": False}]}),
    ("visit", Visit,
     "34-year-old, cough for 5 days and a fever for 2. Started on ibuprofen 400 mg, take it with food.",
     {"patient_age": 34, "symptoms": [{"symptom": "cough", "days": 5}, {"symptom": "fever", "days": 2}],
      "medications": [{"name": "ibuprofen", "strength_mg": 400, "with_food": True}]}),
    ("car", Listing,
     "Selling my 2017 Toyota Corolla, manual gearbox, 98,000 km on the clock, asking 11,500 euros.",
     {"make": "Toyota", "model": "Corolla", "year": 2017, "mileage_km": 98000, "price_eur": 11500,
      "automatic": False}),
    ("game-night", GameNight,
     "Catan last night: Sam won with 10 points, Alex had 8 and poor Kai got 5.",
     {"game": "Catan", "winner": "Sam",
      "scores": [{"player": "Sam", "points": 10}, {"player": "Alex", "points": 8}, {"player": "Kai", "points": 5}]}),
    ("subscription", Subscription,
     "We'd like to move our 5 people from the free tier to Team, paid annually please. We're not cancelling.",
     {"plan": "team", "seats": 5, "billed": "yearly", "cancel": False}),
    ("sensor", Reading,
     "Fridge 2 is reading 9.5 degrees and 61% humidity. It should stay between 2 and 8 degrees.",
     {"sensor": "Fridge 2", "celsius": 9.5, "humidity_percent": 61, "alert": True}),
    ("rsvp", RSVP,
     "For Anna's birthday dinner: Tom is coming with his partner, Lisa is vegan and coming alone.",
     {"event": "Anna's birthday dinner",
      "guests": [{"name": "Tom", "dietary": "none", "plus_one": True},
                 {"name": "Lisa", "dietary": "vegan", "plus_one": False}]}),
    ("loan", Loan,
     "Quote for a 250,000 mortgage over 25 years at 4.1%, rate fixed for the whole term.",
     {"amount": 250000, "years": 25, "rate_percent": 4.1, "fixed_rate": True}),
    ("shipment", Shipment,
     "DHL says parcel JD0146 was delivered at 10:14 and signed for by M. Berg.",
     {"tracking": "JD0146", "carrier": "DHL", "delivered": True, "signed_by": "M. Berg"}),
    ("shipment-pending", Shipment,
     "Where's my stuff? UPS tracking 1Z999AA1 still says out for delivery.",
     {"tracking": "1Z999AA1", "carrier": "UPS", "delivered": False, "signed_by": None}),
    ("feedback", Feedback,
     "The Aero 3 headphones sound great and the battery lasts forever, but they pinch my ears. "
     "Wouldn't buy them again.",
     {"product": "Aero 3", "main_complaint": "comfort", "would_recommend": False}),
)


"""A second set of held-out extraction tasks, for ``bench.suites.quality --sources heldout2``:
written on 2026-12-06 before any run of them, in other domains than the first set
(bench/data/quality_heldout.py), worded the way application users write requests (chatty, the
facts inside ordinary text, now and then an irrelevant detail or a typo), gold values as a careful
person would fill them in. Nothing is tuned on them. Python, not JSON: the Pydantic types are the
input.
"""

from __future__ import annotations

import datetime as dt
from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field


class RecipeScaling(BaseModel):
    dish: str
    makes: int = Field(description="how many the recipe as written makes")
    wanted: int = Field(description="how many the user wants to make")
    grams: dict[str, int] = Field(description="grams of each ingredient, as the recipe is written")


class Exercise(BaseModel):
    name: str
    sets: int
    reps: int
    weight_kg: float | None = Field(default=None, description="weight lifted; null for bodyweight exercises")


class Workout(BaseModel):
    day: dt.date
    bodyweight_kg: float
    exercises: list[Exercise]


class FlatListing(BaseModel):
    city: str
    rooms: int
    size_m2: int
    rent_per_month: int
    furnished: bool
    available_from: dt.date


class Reschedule(BaseModel):
    old_date: dt.date
    new_date: dt.date
    start_time: str = Field(description="HH:MM, 24-hour clock")
    duration_minutes: int
    online: bool


class Impact(str, Enum):
    cosmetic = "cosmetic"
    feature_broken = "feature_broken"
    app_unusable = "app_unusable"


class BugReport(BaseModel):
    app_version: str
    platform: Literal["android", "ios", "web", "windows", "macos"]
    impact: Impact = Field(description="cosmetic: looks wrong but works; feature_broken: one feature does "
                                        "not work; app_unusable: the app cannot be used at all")
    reproducible: bool
    crash: bool


class WorkLine(BaseModel):
    work: str
    hours: float
    hourly_rate: int


class FreelanceInvoice(BaseModel):
    client: str
    lines: list[WorkLine]
    due: dt.date
    vat_included: bool


class ReportCard(BaseModel):
    student: str
    term: Literal["autumn", "spring", "summer"]
    grades: dict[str, int] = Field(description="grade per subject")
    passed: bool


class DelayClaim(BaseModel):
    flight: str
    flight_date: dt.date
    delay_hours: float = Field(description="how late the flight arrived, in hours")
    cause: Literal["weather", "technical", "strike", "crew", "unknown"]
    booking_reference: str
    meals_provided: bool


class JobAd(BaseModel):
    role: str
    hours_per_week: int
    contract: Literal["permanent", "temporary", "freelance"]
    pay_per_hour: float | None = None
    weekend_work: bool


class Plant(BaseModel):
    plant: str
    water_every_days: int
    direct_sun: bool


class PlantCare(BaseModel):
    plants: list[Plant]


class Transfer(BaseModel):
    recipient: str
    iban: str
    amount: float
    currency: Literal["EUR", "USD", "GBP", "CHF", "SEK"]
    execute_on: dt.date
    repeat: Literal["no", "weekly", "monthly"]
    reference: str | None = None


class TicketLine(BaseModel):
    kind: Literal["adult", "child", "student", "senior"]
    count: int


class TicketOrder(BaseModel):
    date: dt.date
    performance: Literal["matinee", "evening"]
    tickets: list[TicketLine]
    wheelchair_space: bool


class BookLoan(BaseModel):
    title: str
    due: dt.date
    renew: bool


class LibraryAccount(BaseModel):
    card_number: str
    loans: list[BookLoan]


class Pet(BaseModel):
    name: str
    species: Literal["dog", "cat", "rabbit", "bird"]
    age_years: int


class VetVisit(BaseModel):
    pet: Pet
    weight_kg: float
    vaccinated_today: bool
    next_visit: dt.date | None = None


class MeterReadings(BaseModel):
    read_on: dt.date
    readings: dict[str, float] = Field(description="the reading of each meter, keyed by what it measures")
    estimated: bool


class BookingChange(BaseModel):
    booking_id: str
    new_check_in: dt.date
    nights: int
    room: Literal["single", "double", "twin", "suite"]
    breakfast: bool
    guests: int


class PostalAddress(BaseModel):
    street: str
    postcode: str
    city: str


class ContactCard(BaseModel):
    name: str
    email: str
    phone: str | None = None
    company: str | None = None
    address: PostalAddress


class Competition(str, Enum):
    league = "league"
    cup = "cup"
    friendly = "friendly"


class Goal(BaseModel):
    player: str
    minute: int


class MatchReport(BaseModel):
    home: str
    away: str
    competition: Competition
    goals: list[Goal]
    attendance: int


class Pick(BaseModel):
    sku: str
    quantity: int
    bin: str


class PickingList(BaseModel):
    order_id: str
    picks: list[Pick]
    express: bool


class OtherDriver(BaseModel):
    name: str
    plate: str


class InsuranceClaim(BaseModel):
    policy_number: str
    incident_date: dt.date
    kind: Literal["collision", "theft", "fire", "water_damage", "glass"]
    damage_estimate: float
    police_report: bool
    other_driver: OtherDriver | None = None


D = dt.date
#: (key, output type, prompt, gold): the same shape as quality.py's own tasks.
HELDOUT2_TASKS = (
    ("recipe-scale", RecipeScaling,
     "My gran's shortbread recipe makes 16 fingers: 300g flour, 200g butter and 100g sugar. For the school "
     "bake sale I need 48 though, can you help me scale it up?",
     {"dish": "shortbread", "makes": 16, "wanted": 48, "grams": {"flour": 300, "butter": 200, "sugar": 100}}),
    ("gym-log", Workout,
     "Log for Sunday 29 November 2026: squats 5x5 at 102.5 kg, then lunges, 3 sets of 12, no weights, just "
     "bodyweight. Knee felt a bit cranky but fine. Weighed in at 81.3 kg this morning.",
     {"day": D(2026, 11, 29), "bodyweight_kg": 81.3,
      "exercises": [{"name": "squats", "sets": 5, "reps": 5, "weight_kg": 102.5},
                    {"name": "lunges", "sets": 3, "reps": 12, "weight_kg": None}]}),
    ("flat-listing", FlatListing,
     "I'm moving to Berlin for work so I'm renting out my 3-room flat in Utrecht, 72 m2, €1,450 a month plus "
     "utilities. Comes furnished (the couch is a bit worn lol). Free from 1 February 2027, DM me!",
     {"city": "Utrecht", "rooms": 3, "size_m2": 72, "rent_per_month": 1450, "furnished": True,
      "available_from": D(2027, 2, 1)}),
    ("meeting-move", Reschedule,
     "Sorry everyone, the planning meeting cant happen on Thursday 10 December 2026 after all. Moving it to "
     "Tuesday 15 December 2026 at 2pm, still an hour long. We'll do it on Zoom this time instead of room 4B.",
     {"old_date": D(2026, 12, 10), "new_date": D(2026, 12, 15), "start_time": "14:00", "duration_minutes": 60,
      "online": True}),
    ("bug-report", BugReport,
     "hey, since updating the app to 4.2.1 it just closes every time i open the camera tab on my iphone "
     "(iOS 18). happens every single time, tried reinstalling already. the rest of the app works fine so i "
     "can still use it, its just annoying",
     {"app_version": "4.2.1", "platform": "ios", "impact": "feature_broken", "reproducible": True,
      "crash": True}),
    ("freelance-invoice", FreelanceInvoice,
     "Can you draft the invoice for Brightwave Studio? This month I did 12.5 hours of logo design at 60 an "
     "hour and 4 hours of photo editing at 45/h. Payment due 15 January 2027, and the rates are excluding VAT.",
     {"client": "Brightwave Studio",
      "lines": [{"work": "logo design", "hours": 12.5, "hourly_rate": 60},
                {"work": "photo editing", "hours": 4, "hourly_rate": 45}],
      "due": D(2027, 1, 15), "vat_included": False}),
    ("grades", ReportCard,
     "Report card came in for Emil, autumn term: math 5, english 4, history 6 and chemistry 3. His teacher "
     "says he passed everything, he's thrilled (and so are we, finally).",
     {"student": "Emil", "term": "autumn", "grades": {"math": 5, "english": 4, "history": 6, "chemistry": 3},
      "passed": True}),
    ("delay-claim", DelayClaim,
     "I want to claim compensation. Flight KL1234 from Amsterdam on 3 November 2026 landed 4.5 hours late, "
     "the pilot said it was a technical problem with the plane. Booking ref QX7PZL. We didn't get any food "
     "vouchers while waiting, nothing.",
     {"flight": "KL1234", "flight_date": D(2026, 11, 3), "delay_hours": 4.5, "cause": "technical",
      "booking_reference": "QX7PZL", "meals_provided": False}),
    ("job-ad", JobAd,
     "We're looking for a barista for our cafe near the station! 24 hours a week, a 6-month temporary "
     "contract to start with. Pay is 15.50 an hour plus tips. No weekends, we're closed then :)",
     {"role": "barista", "hours_per_week": 24, "contract": "temporary", "pay_per_hour": 15.5,
      "weekend_work": False}),
    ("plant-care", PlantCare,
     "I'm away for a bit and my neighbour is plant-sitting, so writing it down: the monstera needs water once "
     "a week and should stay out of direct sun. The cactus only every two weeks, it loves the sunny "
     "windowsill. The basil gets water every 2 days and sun as well.",
     {"plants": [{"plant": "monstera", "water_every_days": 7, "direct_sun": False},
                 {"plant": "cactus", "water_every_days": 14, "direct_sun": True},
                 {"plant": "basil", "water_every_days": 2, "direct_sun": True}]}),
    ("bank-transfer", Transfer,
     "Please send 725.00 CHF to Lukas Meier, IBAN CH9300762011623852957, on 1 January 2027. It's the rent, so "
     "make it a standing order every month. No reference needed.",
     {"recipient": "Lukas Meier", "iban": "CH9300762011623852957", "amount": 725.0, "currency": "CHF",
      "execute_on": D(2027, 1, 1), "repeat": "monthly", "reference": None}),
    ("theatre-tickets", TicketOrder,
     "Hi! I'd like tickets for the Nutcracker on Sunday 20 December 2026, the afternoon matinee: two adults, "
     "three kids and my mum, who's a senior. She uses a wheelchair so we'd need a wheelchair space. Thanks "
     "so much!",
     {"date": D(2026, 12, 20), "performance": "matinee",
      "tickets": [{"kind": "adult", "count": 2}, {"kind": "child", "count": 3}, {"kind": "senior", "count": 1}],
      "wheelchair_space": True}),
    ("library", LibraryAccount,
     "Library card 20044718 here. I've got two books out: Dune is due back on 4 January 2027 and I'd like to "
     "renew that one, I'm only halfway. The Hobbit is due 28 December 2026, I'll just return it, finished it "
     "in two days haha.",
     {"card_number": "20044718",
      "loans": [{"title": "Dune", "due": D(2027, 1, 4), "renew": True},
                {"title": "The Hobbit", "due": D(2026, 12, 28), "renew": False}]}),
    ("vet-visit", VetVisit,
     "Took our 4-year-old dog Biscuit to the vet this morning for her yearly vaccination, which she got, "
     "brave girl. She weighs 11.8 kg now, the vet says she could lose a little. No follow-up needed unless "
     "the limp comes back.",
     {"pet": {"name": "Biscuit", "species": "dog", "age_years": 4}, "weight_kg": 11.8,
      "vaccinated_today": True, "next_visit": None}),
    ("meter-readings", MeterReadings,
     "Meter readings for the flat, taken 1 December 2026: electricity 48213.6, gas 3120.25, water 512.8. "
     "These are actual readings, I read them myself off the meters in the hallway cupboard.",
     {"read_on": D(2026, 12, 1), "readings": {"electricity": 48213.6, "gas": 3120.25, "water": 512.8},
      "estimated": False}),
    ("hotel-change", BookingChange,
     "Hello, about booking HB-88213: our train got moved so we'll now arive on 18 March 2027 instead of the "
     "17th. We still want to stay 3 nights though, so checking out a day later. Could you also switch us from "
     "the double room to a twin? Breakfast for both of us please.",
     {"booking_id": "HB-88213", "new_check_in": D(2027, 3, 18), "nights": 3, "room": "twin",
      "breakfast": True, "guests": 2}),
    ("contact-card", ContactCard,
     "Met a nice guy at the trade fair, Tomás Ribeiro, he does the packaging for a few breweries. Email "
     "tomas.ribeiro@example.pt, he didn't have a phone number on him. Can you save him with his office "
     "address: Rua das Flores 112, 4050-265 Porto?",
     {"name": "Tomás Ribeiro", "email": "tomas.ribeiro@example.pt", "phone": None, "company": None,
      "address": {"street": "Rua das Flores 112", "postcode": "4050-265", "city": "Porto"}}),
    ("match-report", MatchReport,
     "Great night at the ground! Cup quarter-final, Rovers at home to Ashfield United. Rovers won 2-1: "
     "Okafor scored in the 12th minute, Ashfield equalised through Duffy on 55, then Okafor again in the "
     "88th. 6,400 there, loudest I've heard it in years.",
     {"home": "Rovers", "away": "Ashfield United", "competition": "cup",
      "goals": [{"player": "Okafor", "minute": 12}, {"player": "Duffy", "minute": 55},
                {"player": "Okafor", "minute": 88}],
      "attendance": 6400}),
    ("picking-list", PickingList,
     "Order 90417 needs to go out today, the customer paid for express. Pull 6 of SKU TB-220 from bin A3, "
     "1 of SKU LX-9 from bin C12 and 2 of SKU TB-221 from A4. Careful with the LX-9, it's the glass one.",
     {"order_id": "90417",
      "picks": [{"sku": "TB-220", "quantity": 6, "bin": "A3"}, {"sku": "LX-9", "quantity": 1, "bin": "C12"},
                {"sku": "TB-221", "quantity": 2, "bin": "A4"}],
      "express": True}),
    ("car-claim", InsuranceClaim,
     "Hi, policy NL-4471-22. On 27 November 2026 someone reversed into my parked car at the supermarket and "
     "drove off, so no idea who it was. The garage estimates 1,840.50 for the bumper and the light. I did "
     "report it to the police the same day.",
     {"policy_number": "NL-4471-22", "incident_date": D(2026, 11, 27), "kind": "collision",
      "damage_estimate": 1840.5, "police_report": True, "other_driver": None}),
)

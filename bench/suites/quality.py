"""Answer quality: facts right on extraction tasks, structgen's prompting variants vs llama-cpp-python.

The cases: our own extraction tasks (a Pydantic model, an input text and the gold value of every
field: numbers, dates, names, labels, counts, nested lists), plus BFCL-dev's ``simple_python`` and
``live_simple`` cases read as extraction (the function's parameters become the model, the
function's description its docstring; gold = the ground truth's acceptable values).

The runners, all greedy on the same model with the same ``max_tokens``, one attempt:

- structgen variants — ``LLM.run(Model, prompt)`` with the model decorated by
  ``@structured(...)``; a variant is ``+``-joined settings (``default`` = none): ``nodesc``,
  ``shape``, ``listing`` (``describe=``), ``examples`` (``examples=True``), ``before`` /
  ``after`` (``hint_placement="before_prompt"`` / ``"after_prompt"``), ``thinkN`` (``reasoning=N``:
  a free reasoning section of at most N tokens before the answer), ``asked`` (a system message
  asking the model to think step by step in that section first).
- ``llama-schema`` — llama-cpp-python's ``create_chat_completion(response_format={"type":
  "json_object", "schema": ...})``.
- ``llama-free`` — the same call without ``response_format``; the first JSON object of the text
  is the answer.

A peer gets exactly the messages structgen builds for ``--peer-prompt`` (a variant; default
``default``: then only the decoding differs), or for the variant after an ``@`` in its name:
``llama-schema@nodesc`` is llama-cpp-python as it is, the schema given to ``response_format``
alone and the prompt as the caller wrote it.

A fact is one gold field (a list of objects counts each item's fields, a list of scalars is one
fact). Own tasks are scored by :func:`same` (strings by case and whitespace, numbers by value,
dates as ISO), BFCL cases by BFCL's own value rules (``bench.suites.bfcl._matches``). An answer that is
not JSON, a timeout or a failure gets every fact of its case wrong. Every call starts from an
empty KV cache. Each case is bounded by CPU seconds of the worker process (a looping case
otherwise runs to ``max_tokens`` or beyond; a timed-out worker is restarted). Usage::

    python -m bench.suites.quality [--model gemma|PATH] [--variants default,nodesc,...,llama-schema]
                            [--limit 40 | --all] [--threads 1] [--json OUT] [--show]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import importlib
import json
import re
import signal
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, create_model

from bench import harness
from bench.harness import cold_cache, model_path
from bench.suites.bfcl import _matches
from tests.support.bfcl import bfcl_schema
from tests.support.corpora import BFCL

BFCL_SOURCES = ("simple_python", "live_simple")
SOURCES = ("own", *BFCL_SOURCES)
#: Our held-out task sets, which only report and are not among the default sources: each
#: source's module in bench/data and the name of its (key, output type, prompt, gold) tuple.
HELDOUT_SETS = {
    "heldout": ("bench.data.quality_heldout", "HELDOUT_TASKS"),
    "heldout2": ("bench.data.quality_heldout2", "HELDOUT2_TASKS"),
}
#: Our own tasks: the tuning set and the held-out sets.
OWN_SOURCES = ("own", *HELDOUT_SETS)
ALL_SOURCES = (*SOURCES, *HELDOUT_SETS)
PEERS = ("llama-schema", "llama-free")
STRUCTGEN_VARIANTS = (
    "default", "nodesc", "shape", "listing", "examples", "before", "after", "nochoose", "nodesc+nochoose",
)
_SETTINGS: dict[str, tuple[str, Any]] = {
    "full": ("describe", "full"), "nodesc": ("describe", False), "shape": ("describe", "shape"),
    "listing": ("describe", "listing"), "examples": ("examples", True),
    "system": ("hint_placement", "system"), "before": ("hint_placement", "before_prompt"),
    "after": ("hint_placement", "after_prompt"), "nochoose": ("choose_by_likelihood", False),
}
MISSING: Any = object()
#: Tokens a reasoning section's markers and separator may add to its budget.
MARKER_TOKENS = 16
#: The system message of the ``asked`` variant part.
ASK_TO_THINK = ("Before you answer, think step by step inside <think> and </think>: which words of the "
                "request give each field its value. Then give the answer.")


# -- the scorer -------------------------------------------------------------------------------


def text_key(text: str) -> str:
    """Strings compare by case and whitespace only: ``"  New   york "`` is ``"new york"``."""
    return " ".join(text.split()).casefold()


def same(value: Any, gold: Any) -> bool:
    """One answer value against one gold value: strings by :func:`text_key`, numbers by value
    (1 == 1.0, never a bool or a numeric string), dates as ISO text (a time part ignored), lists
    of scalars as multisets, None as None or left out."""
    if gold is None:
        return value is None or value is MISSING
    if isinstance(gold, Enum):
        gold = gold.value
    if isinstance(gold, bool):
        return isinstance(value, bool) and value == gold
    if isinstance(gold, (int, float)):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - gold) <= 1e-9 * max(1.0, abs(gold))
    if isinstance(gold, dt.date):
        return isinstance(value, str) and _iso_date(value) == gold
    if isinstance(gold, str):
        return isinstance(value, str) and text_key(value) == text_key(gold)
    if isinstance(gold, list):
        if not isinstance(value, list) or len(value) != len(gold):
            return False
        left = list(value)
        for item in gold:
            match = next((i for i, v in enumerate(left) if same(v, item)), None)
            if match is None:
                return False
            left.pop(match)
        return True
    if isinstance(gold, dict):
        return isinstance(value, dict) and all(same(value.get(k, MISSING), g) for k, g in gold.items())
    raise TypeError(f"no rule for gold values of type {type(gold).__name__}")


def _iso_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def facts(answer: Any, gold: Mapping[str, Any], path: str = "") -> list[tuple[str, bool]]:
    """Every fact of ``gold`` (by JSON path) and whether ``answer`` has it right. A list of
    objects counts each item's fields, by position; anything else is one fact."""
    found = answer if isinstance(answer, dict) else {}
    out: list[tuple[str, bool]] = []
    for key, want in gold.items():
        here = f"{path}.{key}" if path else key
        value = found.get(key, MISSING)
        if isinstance(want, dict):
            out += facts(value, want, here)
        elif isinstance(want, list) and want and all(isinstance(w, dict) for w in want):
            items = value if isinstance(value, list) else []
            for i, item in enumerate(want):
                out += facts(items[i] if i < len(items) else None, item, f"{here}[{i}]")
        else:
            out.append((here, same(value, want)))
    return out


def bfcl_facts(answer: Any, gold: Mapping[str, list[Any]]) -> list[tuple[str, bool]]:
    """BFCL's ground truth as facts: one per parameter, right when the value is among the
    acceptable ones by BFCL's rules (``""`` among them: it may be left out; null counts as out)."""
    found = answer if isinstance(answer, dict) else {}
    out = []
    for name, options in gold.items():
        value = found.get(name)
        if value is None:
            out.append((name, "" in options))
        else:
            out.append((name, any(_matches(value, option) for option in options if option != "")))
    return out


def first_json(text: str) -> Any:
    """The first JSON object in ``text`` (MISSING when there is none): how an unconstrained
    answer is read (it may come in a code fence, or after a sentence)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        return value
    return MISSING


# -- our own tasks ----------------------------------------------------------------------------


class Person(BaseModel):
    name: str
    age: int = Field(ge=0, le=130)
    email: str = Field(examples=["jane.doe@example.org"])
    city: str


class LineItem(BaseModel):
    product: str
    quantity: int = Field(ge=1)
    unit_price: float = Field(ge=0, description="price of one unit")


class Invoice(BaseModel):
    invoice_number: str = Field(examples=["INV-0001"])
    customer: str
    items: list[LineItem]


class Severity(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


class Ticket(BaseModel):
    severity: Severity = Field(description="how badly users are affected")
    component: Literal["database", "frontend", "network", "auth"]


class Meeting(BaseModel):
    title: str
    date: dt.date
    attendees: list[str] = Field(examples=[["Dana", "Eli"]])


class MovieReview(BaseModel):
    movie: str
    sentiment: Literal["positive", "negative", "neutral"] = Field(description="the reviewer's overall opinion")
    stars: int = Field(ge=1, le=5, description="rating out of 5")


class FilmOpinion(BaseModel):
    film: str
    sentiment: Literal["positive", "negative"]


class Email(BaseModel):
    label: Literal["spam", "not_spam"] = Field(description="spam includes phishing")
    amount_requested: float | None = Field(description="money the email asks for, if any")


class Flight(BaseModel):
    airline: str
    flight_number: str = Field(examples=["BA117"])
    departure: str = Field(pattern=r"^[A-Z]{3}$", description="IATA airport code")
    arrival: str = Field(pattern=r"^[A-Z]{3}$", description="IATA airport code")
    date: dt.date


class Ingredient(BaseModel):
    name: str
    amount: float
    unit: Literal["g", "ml", "piece"]


class Recipe(BaseModel):
    dish: str
    servings: int
    ingredients: list[Ingredient]


class Intake(BaseModel):
    dogs: int = Field(examples=[1])
    cats: int = Field(examples=[0])
    rabbits: int = Field(examples=[0])
    total_animals: int = Field(description="all animals together")


class Conference(BaseModel):
    name: str
    start_date: dt.date
    end_date: dt.date


class Company(BaseModel):
    name: str
    founded_year: int
    headquarters: str
    employees: int = Field(examples=[250])


class Weather(BaseModel):
    city: str
    temperature_c: float
    condition: Literal["sunny", "cloudy", "rain", "snow"]


class Order(BaseModel):
    order_id: str = Field(examples=["B-1000"])
    status: Literal["pending", "shipped", "delivered", "cancelled"]


class Contact(BaseModel):
    name: str
    phone: str


class Contacts(BaseModel):
    contacts: list[Contact] = Field(examples=[[{"name": "Sam Lee", "phone": "555-0100"}]])


class Book(BaseModel):
    title: str
    author: str
    year: int
    genres: list[str]


class JobPosting(BaseModel):
    job_title: str
    company: str
    salary_min: int = Field(description="yearly, in euros")
    salary_max: int = Field(description="yearly, in euros")
    remote: bool


class Complaint(BaseModel):
    sentiment: Literal["positive", "negative", "neutral"]
    urgency: Literal["low", "high"]
    problem: Literal["billing", "connection", "hardware", "other"]


class Prescription(BaseModel):
    drug: str
    dose_mg: int = Field(examples=[250])
    times_per_day: int = Field(examples=[2])
    days: int


class Address(BaseModel):
    street: str = Field(examples=["10 Downing Street"])
    city: str
    postcode: str
    country: str


class Match(BaseModel):
    home_team: str
    away_team: str
    home_score: int
    away_score: int
    winner: str = Field(description="the team that won")


class Payment(BaseModel):
    amount: float
    currency: Literal["EUR", "USD", "GBP"]
    date: dt.date
    merchant: str = Field(examples=["Corner Bakery"])


class Language(BaseModel):
    language: Literal["english", "french", "german", "spanish"]


class Member(BaseModel):
    name: str
    role: Literal["lead", "developer", "designer"]


class Team(BaseModel):
    team: str
    members: list[Member]


class StoreHours(BaseModel):
    open_on_sunday: bool
    opens_at: int = Field(ge=0, le=23, description="hour, 24-hour clock", examples=[8])
    closes_at: int = Field(ge=0, le=23, description="hour, 24-hour clock", examples=[17])


class Parcel(BaseModel):
    weight_kg: float
    length_cm: int
    width_cm: int
    height_cm: int


class Cast(BaseModel):
    movie: str
    actors: list[str]


class Bug(BaseModel):
    severity: Severity
    page: str = Field(examples=["Pricing"])


class Appointment(BaseModel):
    patient: str
    doctor: str
    date: dt.date
    time: str = Field(description="HH:MM, 24-hour clock", examples=["09:15"])


class Stock(BaseModel):
    item: str
    count: int


class Shelf(BaseModel):
    shelf: str
    stock: list[Stock]


class Vote(BaseModel):
    votes_for: int
    votes_against: int
    abstentions: int
    passed: bool


class RestaurantReview(BaseModel):
    restaurant: str
    sentiment: Literal["positive", "negative", "mixed"] = Field(description="the overall verdict")
    would_return: bool


class Emotion(BaseModel):
    emotion: Literal["joy", "anger", "sadness", "fear"]


class Rental(BaseModel):
    city: str
    bedrooms: int
    rent_per_month: int = Field(examples=[1500])
    pets_allowed: bool


class Lap(BaseModel):
    runner: str
    seconds: float


class Race(BaseModel):
    distance_m: int
    laps: list[Lap]


class Translation(BaseModel):
    source_language: Literal["english", "french", "german", "spanish"]
    word_count: int = Field(description="number of words in the text to translate")


@dataclass(frozen=True)
class Case:
    """One extraction: an output type, a prompt (or chat messages) and the gold answer."""

    key: str
    source: str
    output_type: Any
    prompt: str | None
    gold: Mapping[str, Any]
    messages: tuple[Mapping[str, str], ...] = ()

    def score(self, answer: Any) -> list[tuple[str, bool]]:
        if self.source in OWN_SOURCES:
            return facts(answer, self.gold)
        return bfcl_facts(answer, self.gold)


def _own(key: str, output_type: Any, prompt: str, **gold: Any) -> Case:
    return Case(key, "own", output_type, prompt, gold)


D = dt.date
OWN_TASKS = (
    _own("person", Person, "Extract the person: Maria Garcia (38, maria.garcia@example.com) lives in Madrid.",
         name="Maria Garcia", age=38, email="maria.garcia@example.com", city="Madrid"),
    _own("invoice", Invoice, "Extract the invoice: Invoice INV-2041 for Acme Corp: 3 laptops at 999.50 each, "
         "10 mice at 19.99 each.", invoice_number="INV-2041", customer="Acme Corp",
         items=[{"product": "laptops", "quantity": 3, "unit_price": 999.5},
                {"product": "mice", "quantity": 10, "unit_price": 19.99}]),
    _own("ticket", Ticket, "Make a ticket: nobody in the company can log in since the password reset change.",
         severity="critical", component="auth"),
    _own("meeting", Meeting, "Extract the meeting: Budget review on 14 March 2025 with Alice, Bob and Chen.",
         title="Budget review", date=D(2025, 3, 14), attendees=["Alice", "Bob", "Chen"]),
    _own("review-negative", MovieReview, "Extract the review: I walked out of Solaris Reborn after an hour. "
         "Dull, confusing and far too long. One star, generously.",
         movie="Solaris Reborn", sentiment="negative", stars=1),
    _own("review-negation", FilmOpinion, "Classify this opinion: I can't remember the last time a film moved "
         "me this much; not a single dull minute in Harbor Lights.", film="Harbor Lights", sentiment="positive"),
    _own("phishing", Email, "Classify this email: Your parcel could not be delivered. Click the link and pay "
         "the 1.99 EUR customs fee within 24 hours.", label="spam", amount_requested=1.99),
    _own("flight", Flight, "Extract the flight: Lufthansa LH400 from Frankfurt (FRA) to New York (JFK) on "
         "2025-06-01.", airline="Lufthansa", flight_number="LH400", departure="FRA", arrival="JFK",
         date=D(2025, 6, 1)),
    _own("recipe", Recipe, "Extract the recipe: Pancakes for 4 people: 200 g flour, 300 ml milk and 2 eggs.",
         dish="Pancakes", servings=4,
         ingredients=[{"name": "flour", "amount": 200, "unit": "g"}, {"name": "milk", "amount": 300, "unit": "ml"},
                      {"name": "eggs", "amount": 2, "unit": "piece"}]),
    _own("intake", Intake, "Count the animals: this week the shelter took in 3 dogs, 5 cats and 2 rabbits.",
         dogs=3, cats=5, rabbits=2, total_animals=10),
    _own("conference", Conference, "Extract the event: PyData Oslo starts on the 3rd of October 2024 and "
         "ends on October 5, 2024.", name="PyData Oslo", start_date=D(2024, 10, 3), end_date=D(2024, 10, 5)),
    _own("company", Company, "Extract the company: founded in 1998 in Oslo, Nordlys AS now employs about "
         "1,200 people.", name="Nordlys AS", founded_year=1998, headquarters="Oslo", employees=1200),
    _own("weather", Weather, "Extract the weather: Bergen today, 7.5 °C and steady rain all afternoon.",
         city="Bergen", temperature_c=7.5, condition="rain"),
    _own("order", Order, "What is the order's status? Order A-7731: the customer cancelled it before it left "
         "the warehouse.", order_id="A-7731", status="cancelled"),
    _own("contacts", Contacts, "Extract the contacts: call Tom Baker at 555-0142 or Lena Ortiz at 555-0199.",
         contacts=[{"name": "Tom Baker", "phone": "555-0142"}, {"name": "Lena Ortiz", "phone": "555-0199"}]),
    _own("book", Book, "Extract the book: 'The Quiet Orbit' by Hana Sato (2019) is a science fiction mystery.",
         title="The Quiet Orbit", author="Hana Sato", year=2019, genres=["science fiction", "mystery"]),
    _own("job", JobPosting, "Extract the job posting: Acme is hiring a Data Engineer, 55,000 to 70,000 euros "
         "a year, fully remote.", job_title="Data Engineer", company="Acme", salary_min=55000,
         salary_max=70000, remote=True),
    _own("complaint", Complaint, "Classify this message: This is the third time my internet has dropped "
         "today. I work from home and I am losing money. Fix it now.",
         sentiment="negative", urgency="high", problem="connection"),
    _own("prescription", Prescription, "Extract the prescription: take amoxicillin 500 mg three times a day "
         "for 7 days.", drug="amoxicillin", dose_mg=500, times_per_day=3, days=7),
    _own("address", Address, "Extract the address: send it to 221B Baker Street, London NW1 6XE, United "
         "Kingdom.", street="221B Baker Street", city="London", postcode="NW1 6XE", country="United Kingdom"),
    _own("match", Match, "Extract the result: Lyon beat Nantes 3-1 at home on Sunday.",
         home_team="Lyon", away_team="Nantes", home_score=3, away_score=1, winner="Lyon"),
    _own("payment", Payment, "Extract the payment: on 2 May 2025 you paid $42.10 at Blue Bottle Coffee.",
         amount=42.1, currency="USD", date=D(2025, 5, 2), merchant="Blue Bottle Coffee"),
    _own("language", Language, "Which language is this? Où se trouve la gare, s'il vous plaît ?",
         language="french"),
    _own("team", Team, "Extract the team: in team Falcon, Ana is the lead, and Ben and Chloe are developers.",
         team="Falcon", members=[{"name": "Ana", "role": "lead"}, {"name": "Ben", "role": "developer"},
                                 {"name": "Chloe", "role": "developer"}]),
    _own("store-hours", StoreHours, "Extract the opening hours: we are open Monday to Saturday, 9 am to 6 pm.",
         open_on_sunday=False, opens_at=9, closes_at=18),
    _own("parcel", Parcel, "Extract the parcel: it weighs 2.5 kg and measures 40 x 30 x 20 cm "
         "(length x width x height).", weight_kg=2.5, length_cm=40, width_cm=30, height_cm=20),
    _own("cast", Cast, "Extract the cast: La La Land, starring Emma Stone, Ryan Gosling and John Legend.",
         movie="La La Land", actors=["Emma Stone", "Ryan Gosling", "John Legend"]),
    _own("bug", Bug, "File this bug: minor typo on the About page, 'recieve' should be 'receive'.",
         severity="low", page="About"),
    _own("appointment", Appointment, "Extract the appointment: Mr. Olsen's check-up with Dr. Reyes is booked "
         "for 2025-01-20 at 2:30 pm.", patient="Mr. Olsen", doctor="Dr. Reyes", date=D(2025, 1, 20),
         time="14:30"),
    _own("shelf", Shelf, "Extract the stock: shelf B holds 12 red mugs, 4 blue mugs and 30 spoons.",
         shelf="B", stock=[{"item": "red mugs", "count": 12}, {"item": "blue mugs", "count": 4},
                           {"item": "spoons", "count": 30}]),
    _own("vote", Vote, "Extract the vote: the motion to extend the library hours passed with 14 votes for, "
         "9 against and 2 abstentions.", votes_for=14, votes_against=9, abstentions=2, passed=True),
    _own("restaurant", RestaurantReview, "Extract the review: the decor at Chez Marcel was lovely and the "
         "waiter friendly, but the food was cold and we waited 90 minutes. Never again.",
         restaurant="Chez Marcel", sentiment="negative", would_return=False),
    _own("emotion", Emotion, "Which emotion does this express? My dog passed away this morning. The house "
         "feels so empty.", emotion="sadness"),
    _own("rental", Rental, "Extract the listing: bright 2-bedroom flat in Lisbon, 1,350 euros a month, "
         "sorry, no pets.", city="Lisbon", bedrooms=2, rent_per_month=1350, pets_allowed=False),
    _own("race", Race, "Extract the race: in the 400 m final, Kim ran 48.2 seconds and Ola 49.05 seconds.",
         distance_m=400, laps=[{"runner": "Kim", "seconds": 48.2}, {"runner": "Ola", "seconds": 49.05}]),
    _own("translation", Translation, "Describe this translation request: please translate 'Guten Morgen, "
         "liebe Kollegen' into English.", source_language="german", word_count=4),
)


# -- BFCL-dev as extraction -------------------------------------------------------------------


def bfcl_model(function: Mapping[str, Any]) -> type[BaseModel]:
    """The Pydantic model of a BFCL function's parameters (docstring: its description)."""
    schema = bfcl_schema(function.get("parameters") or {"type": "dict"})
    name = re.sub(r"\W", "_", str(function["name"])) or "Arguments"
    return _object_model(name, schema, str(function.get("description") or ""))


def _object_model(name: str, schema: Mapping[str, Any], doc: str) -> type[BaseModel]:
    required = set(schema.get("required") or ())
    fields: dict[str, Any] = {}
    for i, (param, spec) in enumerate((schema.get("properties") or {}).items()):
        annotation = _annotation(f"{name}_{i}", spec)
        options: dict[str, Any] = {"alias": param}
        if isinstance(spec.get("description"), str):
            options["description"] = spec["description"]
        if param in required:
            fields[f"p{i}"] = (annotation, Field(**options))
        else:
            fields[f"p{i}"] = (annotation | None, Field(None, **options))
    model: type[BaseModel] = create_model(name, __doc__=doc or None, **fields)
    return model


def _annotation(name: str, spec: Mapping[str, Any]) -> Any:
    enum = spec.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, float, bool)) for v in enum):
        return Literal[tuple(enum)]
    kind = spec.get("type")
    if kind == "object":
        if spec.get("properties"):
            return _object_model(name, spec, str(spec.get("description") or ""))
        return dict[str, Any]
    if kind == "array":
        items = spec.get("items")
        item: Any = _annotation(name + "_item", items) if isinstance(items, Mapping) else Any
        return list[item]
    return {"integer": int, "number": float, "string": str, "boolean": bool}.get(str(kind), Any)


def bfcl_cases(limit: int | None, sources: Iterable[str] = BFCL_SOURCES) -> list[Case]:
    """The first ``limit`` cases (None: all) of each BFCL source, in the file's order."""
    wanted = set(sources)
    taken: dict[str, int] = {}
    chosen = []
    with gzip.open(BFCL, "rt", encoding="utf-8") as lines:
        for line in lines:
            raw = json.loads(line)
            category = raw["category"]
            if category not in wanted or (limit is not None and taken.get(category, 0) >= limit):
                continue
            taken[category] = taken.get(category, 0) + 1
            (function,) = raw["function"]
            ((_name, gold),) = raw["ground_truth"][0].items()
            chosen.append(Case(raw["id"], category, bfcl_model(function), None, gold,
                               messages=tuple(raw["question"][0])))
    return chosen


def all_cases(limit: int | None, sources: Sequence[str]) -> list[Case]:
    own = list(OWN_TASKS) if "own" in sources else []
    for source, (module, name) in HELDOUT_SETS.items():
        if source in sources:
            tasks = getattr(importlib.import_module(module), name)
            own += [Case(key, source, output_type, prompt, gold) for key, output_type, prompt, gold in tasks]
    return own + bfcl_cases(limit, [s for s in sources if s in BFCL_SOURCES])


# -- variants ---------------------------------------------------------------------------------


def variant_reasoning(variant: str) -> int | None:
    """The reasoning budget of a variant name such as ``think64`` or ``nodesc+think256``."""
    budgets = [int(part[5:]) for part in variant.split("+") if re.fullmatch(r"think\d+", part)]
    return budgets[-1] if budgets else None


def variant_settings(variant: str) -> dict[str, Any]:
    """``@structured`` keyword settings of a variant name such as ``listing+after``."""
    if variant == "default":
        return {}
    settings: dict[str, Any] = {}
    for part in variant.split("+"):
        if re.fullmatch(r"think\d+", part) or part == "asked":
            continue
        if part not in _SETTINGS:
            raise ValueError(f"unknown variant part {part!r} (known: {', '.join(_SETTINGS)})")
        key, value = _SETTINGS[part]
        settings[key] = value
    return settings


def conversation(case: Case, variant: str, dictionaries: Any = "words") -> list[dict[str, str]]:
    """The chat messages structgen sends for ``case`` under ``variant`` to a model that reads
    dictionaries as ``dictionaries`` (``LLM._dictionary_shape``): the peers are asked with them."""
    from structgen._generate._output import OutputSpec, options_from

    spec: OutputSpec[Any] = OutputSpec(case.output_type, options_from(variant_settings(variant)))
    messages = spec.conversation(case.prompt, system=None, messages=case.messages or None,
                                 dictionaries=dictionaries)
    return [m.as_dict() for m in messages]


# -- the worker -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    runner: str  # a structgen variant or a peer
    key: str
    peer_prompt: str


def _serve(path: str, threads: int, max_tokens: int, limit: int | None, sources: Sequence[str],
           conn: Connection) -> None:
    """The worker: load the model once, answer jobs with (status, text, valid)."""
    try:
        import llama_cpp
        from llama_cpp.llama_grammar import LlamaGrammar

        from structgen import LLM, StructgenError, structured
        # a peer without a chat template gets the prompt text structgen renders
        from structgen._generate._messages import as_messages

        llama: Any = llama_cpp.Llama(path, n_ctx=4096, n_threads=threads, n_threads_batch=threads,
                                     seed=0, verbose=False)
        llm = LLM.from_llama(llama, max_tokens=max_tokens, max_retries=0)
        cases = {c.key: c for c in all_cases(limit, sources)}
    except Exception as error:
        conn.send(("failed", f"{type(error).__name__}: {error}", False))
        return

    def structgen_answer(case: Case, variant: str) -> tuple[str, str, bool]:
        structured(**variant_settings(variant))(case.output_type)
        _cold(llm)
        try:
            budget = variant_reasoning(variant)
            system = ASK_TO_THINK if "asked" in variant.split("+") else None
            result = llm.run(case.output_type, case.prompt, messages=case.messages or None, reasoning=budget,
                             system=system)
        except StructgenError as error:
            return "invalid", f"{type(error).__name__}: {getattr(error, 'text', '')}", False
        if budget is not None and result.usage.reasoning_tokens > budget + MARKER_TOKENS:
            return "over-budget", result.text, True
        return "text", result.text, True

    def peer_answer(case: Case, peer: str, prompt_variant: str) -> tuple[str, str, bool]:
        """llama-cpp-python's chat completion; a model without a chat template (Gemma-3-270M's
        file) gets its plain completion on the very prompt text structgen renders (else
        llama-cpp-python would fall back to Llama-2's format), with the grammar
        ``response_format`` would have built."""
        messages = conversation(case, prompt_variant, llm._dictionary_shape())
        schema = case.output_type.model_json_schema()
        options: dict[str, Any] = {"temperature": 0.0, "max_tokens": max_tokens, "seed": 0}
        _cold(llm)
        if llama.metadata.get("tokenizer.chat_template"):
            if peer == "llama-schema":
                options["response_format"] = {"type": "json_object", "schema": schema}
            out = llama.create_chat_completion(messages=messages, **options)
            text = out["choices"][0]["message"]["content"] or ""
        else:
            if peer == "llama-schema":
                options["grammar"] = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            backend: Any = llm.backend
            prompt = backend.template.text(as_messages(None, system=None, messages=messages))
            text = llama.create_completion(prompt=prompt, **options)["choices"][0]["text"]
        return "text", text, _valid(case.output_type, first_json(text))

    conn.send(("ready", "", False))
    while (job := conn.recv()) is not None:
        case = cases[job.key]
        peer, _, prompt_variant = job.runner.partition("@")
        try:
            if peer in PEERS:
                reply = peer_answer(case, peer, prompt_variant or job.peer_prompt)
            else:
                reply = structgen_answer(case, job.runner)
        except Exception as error:  # a bug rather than a wrong answer: recorded, the run goes on
            reply = ("crash", f"{type(error).__name__}: {str(error)[:300]}", False)
        conn.send(reply)


def _cold(llm: Any) -> None:
    """An empty KV cache for every call (structgen's record of it too)."""
    cold_cache(llm.backend.llama)
    llm.backend._runner.forget()


def _valid(output_type: Any, value: Any) -> bool:
    if value is MISSING:
        return False
    try:
        output_type.model_validate(value)
    except ValidationError:
        return False
    return True


class Worker(harness.Worker):
    """The model in a child process; a case that uses more than ``timeout`` CPU seconds (or
    four times that in wall-clock seconds) kills it, and the next case gets a fresh one."""

    def __init__(self, path: str, threads: int, timeout: float, max_tokens: int, limit: int | None,
                 sources: Sequence[str]) -> None:
        self.timeout = timeout
        super().__init__(_serve, path, threads, max_tokens, limit, tuple(sources))

    def start(self) -> None:
        super().start()
        status, detail, _ = self.conn.recv()
        if status != "ready":
            self.close()
            raise SystemExit(f"the worker could not start: {detail}")

    def run(self, job: Job) -> tuple[str, str, bool, float]:
        """(status, text, valid, CPU seconds); status "timeout" or "died" when the case failed."""
        cpu_start = self.cpu()
        self.conn.send(job)
        if not self.replied(cpu_start, self.timeout, 4 * self.timeout, 0.5):
            used = self.cpu() - cpu_start
            self.restart()
            return "timeout", "", False, used
        try:
            status, text, valid = self.conn.recv()
        except EOFError:
            self.restart()
            return "died", "", False, 0.0
        return status, text, valid, self.cpu() - cpu_start


# -- running and reporting --------------------------------------------------------------------


@dataclass
class Outcome:
    key: str
    source: str
    runner: str
    status: str
    valid: bool
    right: int
    total: int
    cpu_seconds: float
    text: str
    wrong: list[str] = field(default_factory=list)


def judge(case: Case, runner: str, status: str, text: str, valid: bool, cpu: float) -> Outcome:
    """Score one reply: every fact wrong unless it is text with a JSON object in it."""
    answer = first_json(text) if status == "text" else MISSING
    scored = case.score(None if answer is MISSING else answer)
    if answer is MISSING:
        scored = [(path, False) for path, _ in scored]
    wrong = [path for path, ok in scored if not ok]
    return Outcome(case.key, case.source, runner, status, valid, len(scored) - len(wrong), len(scored),
                   cpu, text, wrong)


def is_peer(runner: str) -> bool:
    return runner.partition("@")[0] in PEERS


def run(worker: Worker, cases: Sequence[Case], runners: Sequence[str], peer_prompt: str,
        show: Callable[[Outcome], None] | None, save: Callable[[list[Outcome]], None]) -> list[Outcome]:
    outcomes = []
    for runner in runners:
        for case in cases:
            status, text, valid, cpu = worker.run(Job(runner, case.key, peer_prompt))
            outcome = judge(case, runner, status, text, valid, cpu)
            outcomes.append(outcome)
            if show is not None:
                show(outcome)
        save(outcomes)  # a long run keeps what it has measured
    return outcomes


def table(outcomes: Sequence[Outcome], runners: Sequence[str], sources: Sequence[str]) -> str:
    """Markdown, per runner: facts right per source and in all; the cases that failed (no JSON
    object, an error such as max_tokens running out, a timeout) and how many were timeouts."""
    head = "| runner | " + " | ".join(sources) + " | **all facts** | failed / of them timeouts |"
    rows = [head, "|---|" + "---:|" * (len(sources) + 2)]
    for runner in runners:
        mine = [o for o in outcomes if o.runner == runner]
        cells = []
        for source in [*sources, "all"]:
            picked = [o for o in mine if source in ("all", o.source)]
            right, total = sum(o.right for o in picked), sum(o.total for o in picked)
            cell = f"{right}/{total}" if total else "–"
            cells.append(f"**{cell}**" if source == "all" else cell)
        failed = sum(o.status != "text" or first_json(o.text) is MISSING for o in mine)
        timeouts = sum(o.status == "timeout" for o in mine)
        rows.append(f"| {runner} | " + " | ".join(cells) + f" | {failed} / {timeouts} |")
    return "\n".join(rows)


def ratios(outcomes: Sequence[Outcome], runners: Sequence[str]) -> str:
    total = {r: sum(o.right for o in outcomes if o.runner == r) for r in runners}
    peers = [p for p in runners if is_peer(p) and total.get(p)]
    lines = []
    for runner in runners if peers else ():
        if not is_peer(runner):
            lines.append(f"{runner}: " + ", ".join(f"{total[runner] / total[p]:.2f}× {p}" for p in peers))
    return "\n".join(lines)


def report(outcomes: Sequence[Outcome]) -> None:
    runners = list(dict.fromkeys(o.runner for o in outcomes))
    sources = [s for s in ALL_SOURCES if any(o.source == s for o in outcomes)]
    print(table(outcomes, runners, sources))
    print()
    print(ratios(outcomes, runners))


def _printer(outcome: Outcome) -> None:
    mark = "ok" if not outcome.wrong else f"wrong {','.join(outcome.wrong)[:80]}"
    print(f"  {outcome.runner:14} {outcome.key:28} {outcome.right}/{outcome.total} {outcome.status:7} "
          f"{outcome.cpu_seconds:5.1f}s {mark}  {outcome.text[:140]!r}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: structgen's)")
    parser.add_argument("--variants", default=",".join((*STRUCTGEN_VARIANTS, *PEERS)),
                        help="comma-separated structgen variants (e.g. listing+after) and peers")
    parser.add_argument("--peer-prompt", default="default", help="the variant whose messages the peers get")
    parser.add_argument("--sources", default=",".join(SOURCES), help=", ".join(ALL_SOURCES))
    parser.add_argument("--limit", type=int, default=40, help="first N cases of each BFCL category")
    parser.add_argument("--all", action="store_true", help="every case of the BFCL categories")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads (tokens and batches)")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--timeout", type=float, default=90.0, help="CPU seconds per case")
    parser.add_argument("--json", type=Path, default=None,
                        help="write every outcome here (default: bench/results/latest/quality.json)")
    parser.add_argument("--show", action="store_true", help="print each case's outcome (stderr)")
    parser.add_argument("--report", type=Path, nargs="+", default=None,
                        help="no run: the tables of outcomes saved with --json")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: the worker goes too
    if args.report:
        report([Outcome(**o) for file in args.report for o in json.loads(file.read_text())])
        return

    runners = [v for v in args.variants.split(",") if v]
    for runner in [*runners, args.peer_prompt]:
        peer, _, prompt_variant = runner.partition("@")
        if peer not in PEERS or prompt_variant:
            variant_settings(prompt_variant or peer)  # a wrong name fails before the model loads
    sources = [s for s in args.sources.split(",") if s]
    unknown = set(sources) - set(ALL_SOURCES)
    if unknown:
        parser.error(f"unknown sources: {', '.join(sorted(unknown))}")
    limit = None if args.all else args.limit
    cases = all_cases(limit, sources)
    path = model_path(args.model)
    print(f"model: {Path(path).name}; {len(cases)} cases "
          f"({', '.join(f'{s} {sum(c.source == s for c in cases)}' for s in sources)}); "
          f"max_tokens {args.max_tokens}; peers prompted as {args.peer_prompt!r}\n")

    out = harness.results_file(args.json, "quality")

    def save(outcomes: list[Outcome]) -> None:
        out.write_text(json.dumps([asdict(o) for o in outcomes], indent=1, ensure_ascii=False))

    worker = Worker(path, args.threads, args.timeout, args.max_tokens, limit, sources)
    try:
        outcomes = run(worker, cases, runners, args.peer_prompt, _printer if args.show else None, save)
    finally:
        worker.close()
    report(outcomes)


if __name__ == "__main__":
    main()

"""Round-trip and soundness properties of the converter on a wide set of Pydantic types.

Round trip: every valid instance's JSON (canonical form) is accepted by llama.cpp's sampler and
parses back equal. Soundness: every string the grammar derives validates and is accepted
natively. A failure here is a converter bug (see /work/notes/requests.md), not a test to relax.
"""

from __future__ import annotations

import datetime
import enum
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from structgen._roundtrip import type_name
from structgen.testing import assert_round_trip, assert_samples_validate

EXAMPLES = 20
SAMPLES = 15


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 3


class Address(BaseModel):
    street: str
    city: str
    zip_code: Annotated[str, Field(pattern=r"^[0-9]{5}$")]


class Person(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=20)]
    age: Annotated[int, Field(ge=0, le=150)]
    email: Optional[str] = None
    address: Address
    tags: list[str] = []


class Constrained(BaseModel):
    code: Annotated[str, Field(pattern=r"^[A-Z]{2}-[0-9]{2,4}$")]
    short: Annotated[str, Field(max_length=3)]
    ratio: Annotated[float, Field(ge=0.0, le=1.0)]
    step: Annotated[int, Field(multiple_of=5, ge=-50, lt=50)]
    price: Annotated[float, Field(gt=0, multiple_of=0.25, le=100)]
    count: Annotated[int, Field(gt=0)]


class Times(BaseModel):
    day: datetime.date
    at: datetime.datetime
    clock: datetime.time
    ident: uuid.UUID


class Bag(BaseModel):
    counts: dict[str, int]
    nested: dict[str, list[bool]] = {}


class Shapes(BaseModel):
    pair: tuple[int, str]
    triple: tuple[float, bool, Optional[int]]
    many: tuple[int, ...] = ()


class Choices(BaseModel):
    color: Color
    level: Level
    mode: Literal["fast", "slow"]
    flag: Literal[True]
    either: Union[int, str]
    maybe: Union[float, bool, None] = None


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: Annotated[int, Field(ge=1, le=9)]


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Pets(BaseModel):
    pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]
    others: list[Union[Cat, Dog]] = []


class Bounded(BaseModel):
    few: Annotated[list[int], Field(min_length=1, max_length=3)]
    unique: set[Color]
    exact: Annotated[list[str], Field(min_length=2, max_length=2)]


class Tree(BaseModel):
    value: int
    children: list[Tree] = []


class Chain(BaseModel):
    label: str
    next: Optional[Chain] = None


class Expr(BaseModel):
    op: Literal["+", "*"]
    args: list[Union[int, Expr]]


class Optionals(BaseModel):
    a: Optional[int] = None
    b: Optional[str] = None
    c: Optional[list[int]] = None
    d: Optional[Address] = None


class Money(BaseModel):
    amount: Decimal


@dataclass
class Point:
    x: float
    y: float


class Movie(TypedDict):
    title: str
    year: int


TYPES: list[Any] = [
    Address, Person, Constrained, Times, Bag, Shapes, Choices, Pets, Bounded, Tree, Chain,
    Expr, Optionals, Money, Point, Movie, list[int], dict[str, float], Optional[Address],
    Literal["a", "b", 3], tuple[Color, Level],
]


@pytest.mark.parametrize("tp", TYPES, ids=type_name)
def test_round_trip(tp: Any) -> None:
    assert_round_trip(tp, max_examples=EXAMPLES)


@pytest.mark.parametrize("tp", TYPES, ids=type_name)
def test_samples_validate(tp: Any) -> None:
    assert_samples_validate(tp, max_examples=SAMPLES)


@pytest.mark.parametrize("options", [
    {"whitespace": "minified"},
    {"whitespace": "flexible"},
    {"key_order": "required-first"},
    {"prop_order": ("tags", "name")},
], ids=["minified", "flexible", "required-first", "prop-order"])
def test_round_trip_with_options(options: dict[str, Any]) -> None:
    assert_round_trip(Person, max_examples=EXAMPLES, **options)
    assert_samples_validate(Person, max_examples=SAMPLES, **options)

"""Round-trip and soundness properties of the converter on a wide set of Pydantic types.

Round trip: every valid instance's JSON (canonical form) is accepted by llama.cpp's sampler and
parses back equal. Soundness: every string the grammar derives validates and is accepted
natively. Each on the converter's ``"type"`` preset (``Grammar.from_type``, every JSON spelling)
and on the grammar ``llm.generate`` sends (the helpers' default: string cap, needed escapes). A failure here is a converter bug (see /work/notes/requests.md), not a test to relax.
"""

from __future__ import annotations

import datetime
import enum
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    FiniteFloat,
    NegativeFloat,
    PositiveInt,
    computed_field,
)
from typing_extensions import TypedDict

from structgen._type_names import type_name
from structgen.testing import (
    assert_examples_round_trip,
    assert_round_trip,
    assert_samples_validate,
)

EXAMPLES = 40
SAMPLES = 25


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


class Inventory(BaseModel):
    stock: dict[str, Address]
    matrix: list[list[Annotated[int, Field(ge=-9, le=9)]]]
    lookup: dict[Color, bool] = {}


class Ranges(BaseModel):
    positive: PositiveInt
    negative: NegativeFloat
    percent: Annotated[int, Field(ge=0, le=100, multiple_of=10)]
    small: Annotated[float, Field(gt=-1, lt=1)]
    big: Annotated[int, Field(ge=10**6, le=10**12)]
    tenth: Annotated[float, Field(multiple_of=0.1, ge=-5, le=5)]


class Texts(BaseModel):
    slug: Annotated[str, Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", min_length=3, max_length=30)]
    colour: Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]
    nonempty: Annotated[str, Field(min_length=1)]
    bounded: Annotated[str, Field(min_length=2, max_length=4)]
    word: Annotated[str, Field(pattern=r"^\w+$")]
    anywhere: Annotated[str, Field(pattern=r"ab")]


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    user_name: str = Field(alias="userName")
    item_count: Annotated[int, Field(ge=0, le=10)] = Field(default=0, alias="itemCount")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def summary(self) -> str:
        return f"{self.user_name}:{self.item_count}"


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")

    fixed: bool


@dataclass
class Point:
    x: float
    y: float


class Movie(TypedDict):
    title: str
    year: int


TYPES: list[Any] = [
    Address, Person, Constrained, Times, Bag, Shapes, Choices, Pets, Bounded, Tree, Chain,
    Expr, Optionals, Money, Inventory, Ranges, Texts, Aliased, Open, Point, Movie, list[int],
    dict[str, float], Optional[Address], Literal["a", "b", 3], tuple[Color, Level],
    frozenset[Level], Union[Cat, Dog, None], list[FiniteFloat],
]


@pytest.mark.parametrize("tp", TYPES, ids=type_name)
def test_round_trip(tp: Any) -> None:
    assert_round_trip(tp, max_examples=EXAMPLES, grammar="type")
    assert_round_trip(tp, max_examples=EXAMPLES // 4)  # the grammar llm.generate sends


@pytest.mark.parametrize("tp", TYPES, ids=type_name)
def test_samples_validate(tp: Any) -> None:
    assert_samples_validate(tp, max_examples=SAMPLES, grammar="type")
    assert_samples_validate(tp, max_examples=SAMPLES // 5)  # the grammar llm.generate sends


@pytest.mark.parametrize("options", [
    {"whitespace": "minified"},
    {"whitespace": "flexible"},
    {"key_order": "required-first"},
    {"prop_order": ("tags", "name")},
    {"key_order": "any"},
    {"integer_zero_fraction": False},
    {"refusal": True},
    {"max_string_length": 6},
    {"escapes": "needed"},
], ids=["minified", "flexible", "required-first", "prop-order", "any-order", "no-zero-fraction",
        "refusal", "max-string-length", "escapes-needed"])
def test_round_trip_with_options(options: dict[str, Any]) -> None:
    assert_round_trip(Person, max_examples=EXAMPLES, grammar="type", **options)
    assert_samples_validate(Person, max_examples=SAMPLES, grammar="type", **options)


# Values at the edges of what json.dumps writes; random generation rarely hits them.
FLOAT_EDGES = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-05, 0.0001, 1e16, 1e+100,
               1.7976931348623157e+308, -1.7976931348623157e+308, 0.1, 123456789.123456789]
STRING_EDGES = ["", "\"", "\\", "\n\t\r\b\f", "\x00\x1f\x7f", "é", "中文", "😀", "\U0001F600x",
                "\u2028\u2029", "\ufeff", "a" * 300, "</script>"]


GRAMMARS = pytest.mark.parametrize("grammar", ["type", "generation"])


@GRAMMARS
def test_float_edges(grammar: str) -> None:
    assert_examples_round_trip(list[float], *[[x] for x in FLOAT_EDGES], grammar=grammar)
    assert_examples_round_trip(Annotated[float, Field(ge=0, le=100)],
                               *[x for x in FLOAT_EDGES if 0 <= x <= 100], grammar=grammar)
    assert_examples_round_trip(Annotated[float, Field(gt=0)], *[x for x in FLOAT_EDGES if x > 0],
                               grammar=grammar)


@GRAMMARS
def test_integer_edges(grammar: str) -> None:
    cap = 10**20 - 1
    assert_examples_round_trip(int, 0, -1, 2**63 - 1, -(2**63), 2**64, cap, -cap, grammar=grammar)
    assert_examples_round_trip(Annotated[int, Field(ge=10**25)], 10**25, 10**26 - 1,
                               grammar=grammar)


@GRAMMARS
def test_string_edges(grammar: str) -> None:
    assert_examples_round_trip(str, *STRING_EDGES, grammar=grammar)
    assert_examples_round_trip(dict[str, str], *[{s: s} for s in STRING_EDGES], grammar=grammar)

"""Every type people put in a Pydantic model generates: one table of small models.

For each row, without a model: the type converts (``Grammar.from_type`` and generation's
``spec_for``), ``structgen.testing.instances`` yields instances of it, and ``assert_round_trip``
holds (every valid instance's JSON is accepted by llama.cpp's native grammar sampler and parses
back equal), as does soundness (every string the grammar derives validates). With the default
model (marked ``model``): ``llm.generate(Model, prompt)`` returns a validated instance, greedily;
a few rows whose answer the small model reliably copies check the value too. Types that cannot
be written as JSON fail when converted (at ``@structured`` decoration) with a typed error naming
the field.
"""

from __future__ import annotations

import datetime as dt
import enum
import ipaddress
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, NamedTuple, Optional, TypeVar, Union

import pytest
from hypothesis import HealthCheck, find, settings
from pydantic import (
    AliasChoices,
    AliasPath,
    AnyUrl,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    EmailStr,
    Field,
    HttpUrl,
    NaiveDatetime,
    RootModel,
    SecretStr,
    computed_field,
)

import structgen as sg
from structgen import Grammar, UnsupportedSchemaError
from structgen._generate._output import spec_for
from structgen._types import json_schema_of
from structgen.testing import (
    accepts,
    assert_examples_round_trip,
    assert_round_trip,
    assert_samples_validate,
    instances,
)

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - Python 3.10
    class StrEnum(str, enum.Enum):
        pass

EXAMPLES = 10


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 3


class Mood(StrEnum):
    HAPPY = "happy"
    SAD = "sad"


class Labels(BaseModel):
    # Bounded: left unbounded, the small model adds tags until max_tokens runs out.
    tags: Annotated[set[str], Field(max_length=4)]
    ids: Annotated[frozenset[int], Field(max_length=4)]


class Scores(BaseModel):
    scores: dict[str, int]


class ColorCounts(BaseModel):
    counts: Annotated[dict[Color, int], Field(max_length=3)]


class Rooms(BaseModel):
    guests: dict[int, str]


class FlagsAndLevels(BaseModel):
    by_priority: dict[Priority, str]
    by_flag: dict[bool, int] = {}


class Numbers(BaseModel):
    values: tuple[int, ...]


class Shape(BaseModel):
    point: tuple[float, float]
    label: tuple[str, int]


class Point(NamedTuple):
    x: int
    y: int


class Located(BaseModel):
    position: Point


class Invoice(BaseModel):
    total: Decimal
    tax: Annotated[Decimal, Field(max_digits=6, decimal_places=2)]


class Price(BaseModel):
    amount: Annotated[Decimal, Field(gt=0, max_digits=8, decimal_places=2)]


class Meeting(BaseModel):
    starts: dt.datetime
    day: dt.date
    at: dt.time
    lasts: dt.timedelta


class Timestamps(BaseModel):
    sent: AwareDatetime
    local: NaiveDatetime


class Stored(BaseModel):
    id: uuid.UUID
    path: Path


class Hosts(BaseModel):
    v4: ipaddress.IPv4Address
    v6: ipaddress.IPv6Address


class Links(BaseModel):
    homepage: HttpUrl
    feed: AnyUrl


class Contact(BaseModel):
    email: EmailStr


class Login(BaseModel):
    user: str
    password: SecretStr


class Tagged(BaseModel):
    color: Color
    priority: Priority
    mood: Mood


class Setting(BaseModel):
    value: Literal["auto", 1, 2.5, True, None]


class Person(BaseModel):
    name: str
    nickname: Optional[str] = None
    age: Optional[int]


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Pet(BaseModel):
    pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]


class Reading(BaseModel):
    value: Union[int, str]
    source: Union[Cat, Dog, None] = None


class Names(RootModel[list[str]]):
    pass


T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int


class Item(BaseModel):
    name: str


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    user_name: str = Field(alias="userName")
    item_count: int = Field(validation_alias="itemCount")
    city: str = Field(validation_alias=AliasChoices(AliasPath("address", "city"), "town"))


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str


class Box(BaseModel):
    width: int
    height: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def area(self) -> int:
        return self.width * self.height


class Folder(BaseModel):
    name: str
    children: Annotated[list[Folder], Field(max_length=3)] = []


class Product(BaseModel):
    code: Annotated[str, Field(pattern=r"^[A-Z]{3}-[0-9]{2}$")]
    stock: Annotated[int, Field(ge=0, le=1000)]
    rating: Annotated[float, Field(ge=0, le=5)]
    name: Annotated[str, Field(min_length=2, max_length=20)]
    sizes: Annotated[list[str], Field(min_length=1, max_length=3)]


@dataclass(frozen=True)
class Row:
    """One type of the matrix, a prompt whose answer is in it, and what the answer must hold
    (for rows the small model reliably gets; None: a validated instance is enough)."""

    tp: Any
    prompt: str
    expect: Callable[[Any], bool] | None = None

    @property
    def id(self) -> str:
        return getattr(self.tp, "__name__", str(self.tp))


ROWS = [
    Row(Labels, "Extract the tags and ids. Tags: red, blue. Ids: 3, 7."),
    Row(Scores, "Extract the scores: Alice has 3 points, Bob has 5 points.",
        lambda v: v.scores == {"Alice": 3, "Bob": 5}),
    Row(ColorCounts, "Count the colours: red appears 2 times, green 1 time."),
    Row(Rooms, "Room 101 is taken by Alice and room 102 by Bob. Map room numbers to guests.",
        lambda v: v.guests == {101: "Alice", 102: "Bob"}),
    Row(FlagsAndLevels, "Priority 1 means low effort, priority 3 means high effort."),
    Row(Numbers, "List the numbers: 4, 8, 15.", lambda v: v.values == (4, 8, 15)),
    Row(Shape, "The point is at x=1.5, y=2.0 and its label is ('A', 1)."),
    Row(Located, "The robot stands at x=3, y=4."),
    Row(Invoice, "The invoice total is 12.50 dollars, of which tax is 2.10."),
    Row(Price, "The book costs 19.99 dollars."),
    Row(Meeting, "The meeting starts on 2024-05-01 at 09:30:00 and lasts 90 minutes."),
    Row(Timestamps, "Sent at 2024-05-01T09:30:00Z, local time 2024-05-01T11:30:00."),
    Row(Stored, "Order 123e4567-e89b-12d3-a456-426614174000 is stored in /tmp/orders.csv."),
    Row(Hosts, "The server answers on 192.168.1.10 and on the IPv6 address ::1."),
    Row(Links, "The homepage is https://example.com/docs and the feed is https://example.com/rss."),
    Row(Contact, "Write to jane.doe@example.com for details.",
        lambda v: v.email == "jane.doe@example.com"),
    Row(Login, "User alice logs in with the password hunter2.",
        lambda v: v.user.lower() == "alice"),
    Row(Tagged, "A red ticket of high priority, filed by a happy customer."),
    Row(Setting, "Set the value to auto."),
    Row(Person, "John Smith is 42 years old.", lambda v: v.name == "John Smith" and v.age == 42),
    Row(Pet, "My cat has 9 lives.", lambda v: isinstance(v.pet, Cat)),
    Row(Reading, "The sensor reads 42."),
    Row(Names, "List the names: Ann, Bob, Eve.", lambda v: v.root == ["Ann", "Bob", "Eve"]),
    Row(Page[Item], "Page of results: apple, pear. There are 2 results in total."),
    Row(Aliased, "User bob has 3 items and lives in Paris.",
        lambda v: v.user_name.lower() == "bob" and v.item_count == 3),
    Row(Strict, "The name is Ada.", lambda v: v.name == "Ada"),
    Row(Open, "The name is Ada.", lambda v: v.name == "Ada"),
    Row(Box, "The box is 3 wide and 4 high.", lambda v: v.area == v.width * v.height),
    Row(Folder, "The folder docs is empty: it has no children."),
    Row(Product, "Product ABC-12, 40 in stock, rated 4.5, named Lamp, sizes S and M."),
]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_converts_and_round_trips(row: Row) -> None:
    Grammar.from_type(row.tp)
    assert spec_for(row.tp).grammar.gbnf
    some = find(instances(row.tp), lambda v: True,
                settings=settings(database=None, suppress_health_check=list(HealthCheck)))
    assert isinstance(some, row.tp)
    assert_round_trip(row.tp, max_examples=EXAMPLES)
    assert_samples_validate(row.tp, max_examples=EXAMPLES)


@pytest.fixture(scope="module")
def llm() -> Iterator[sg.LLM]:
    model = sg.LLM(n_ctx=2048, max_tokens=160)
    yield model
    model.close()


@pytest.mark.model
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_generates(row: Row, llm: sg.LLM) -> None:
    value = llm.generate(row.tp, row.prompt)
    assert isinstance(value, row.tp)
    if row.expect is not None:
        assert row.expect(value), value


# -- what the grammar writes, row by row -------------------------------------------------------


def test_aliases_are_the_keys_validation_reads() -> None:
    properties = json_schema_of(Aliased)["properties"]
    assert list(properties) == ["userName", "itemCount", "town"]
    grammar = Grammar.from_type(Aliased)
    text = '{"userName": "bob", "itemCount": 3, "town": "Paris"}'
    assert accepts(grammar, text)
    assert Aliased.model_validate_json(text) == Aliased(userName="bob", itemCount=3, town="Paris")
    assert not accepts(grammar, '{"user_name": "bob", "item_count": 3, "city": "Paris"}')


def test_extra_forbid_closes_and_extra_allow_stays_open() -> None:
    assert not accepts(Grammar.from_type(Strict), '{"name": "a", "x": 1}')
    assert accepts(Grammar.from_type(Open), '{"name": "a", "x": 1}')
    # Generation follows the type: extra keys the model may add validate too.
    assert accepts(spec_for(Open).grammar, '{"name": "a"}')
    assert Open.model_validate_json('{"name": "a", "x": 1}').model_extra == {"x": 1}


def test_computed_fields_are_left_out_of_the_grammar() -> None:
    assert "area" not in json_schema_of(Box)["properties"]
    grammar = Grammar.from_type(Box)
    assert accepts(grammar, '{"width": 3, "height": 4}')
    assert not accepts(grammar, '{"width": 3, "height": 4, "area": 12}')


def test_dict_keys_spell_their_key_type() -> None:
    rooms = Grammar.from_type(Rooms)
    assert accepts(rooms, '{"guests": {"101": "a", "-2": "b"}}')
    assert not accepts(rooms, '{"guests": {"x": "a"}}') and not accepts(rooms, '{"guests": {"": "a"}}')
    counts = Grammar.from_type(ColorCounts)
    assert accepts(counts, '{"counts": {"red": 1}}') and not accepts(counts, '{"counts": {"pink": 1}}')
    levels = Grammar.from_type(FlagsAndLevels)
    assert accepts(levels, '{"by_priority": {"3": "x"}, "by_flag": {"true": 1}}')
    assert not accepts(levels, '{"by_priority": {"2": "x"}}')
    # A key pattern closes the object: Pydantic refuses other keys.
    keyed = Grammar.from_type(dict[Annotated[str, Field(pattern=r"^[a-z]+$")], int])
    assert accepts(keyed, '{"ab": 1}') and not accepts(keyed, '{"AB": 1}')


def test_datetimes_with_and_without_offset() -> None:
    meeting = Grammar.from_type(Meeting)
    for starts in ("2024-05-01T09:30:00", "2024-05-01T09:30:00Z", "2024-05-01T09:30:00.5+02:00"):
        assert accepts(meeting, f'{{"starts": "{starts}", "day": "2024-05-01", "at": "09:30:00",'
                                ' "lasts": "PT1H30M"}')
    stamps = Grammar.from_type(Timestamps)
    assert accepts(stamps, '{"sent": "2024-05-01T09:30:00Z", "local": "2024-05-01T09:30:00"}')
    assert not accepts(stamps, '{"sent": "2024-05-01T09:30:00", "local": "2024-05-01T09:30:00"}')
    assert not accepts(stamps, '{"sent": "2024-05-01T09:30:00Z", "local": "2024-05-01T09:30:00Z"}')
    assert_examples_round_trip(Meeting, Meeting(
        starts=dt.datetime(2024, 5, 1, 9, 30), day=dt.date(2024, 5, 1),
        at=dt.time(9, 30, tzinfo=dt.timezone.utc),
        lasts=-dt.timedelta(days=400, microseconds=1)))


def test_decimals_are_written_as_pydantic_reads_them() -> None:
    invoice = Grammar.from_type(Invoice)
    assert accepts(invoice, '{"total": "12.50", "tax": "2.10"}')
    assert accepts(invoice, '{"total": 12.5, "tax": 2.1}')
    assert not accepts(invoice, '{"total": "", "tax": "2.10"}')
    assert not accepts(invoice, '{"total": "1", "tax": "2.105"}')  # 3 places
    assert not accepts(invoice, '{"total": "1", "tax": "1E+9"}')  # 10 digits
    price = Grammar.from_type(Price)  # bounds: a number alone
    assert accepts(price, '{"amount": 19.99}')
    assert not accepts(price, '{"amount": -1}') and not accepts(price, '{"amount": "19.99"}')
    assert_examples_round_trip(Price, Price(amount=Decimal("19.99")))


def test_secrets_round_trip_with_their_value() -> None:
    assert_examples_round_trip(Login, Login(user="a", password=SecretStr("hunter2")))


# -- types with no JSON form fail at decoration, naming the field ------------------------------


class Thing:
    pass


def test_a_field_without_json_schema_is_refused_by_name() -> None:
    with pytest.raises(UnsupportedSchemaError, match="field 'inner.thing'"):
        @sg.structured
        class Outer(BaseModel):
            inner: Holder

    with pytest.raises(UnsupportedSchemaError, match="field 'callback'.*CallableSchema"):
        Grammar.from_type(WithCallback)


def test_an_output_type_pydantic_cannot_validate_is_refused_in_our_error() -> None:
    for not_a_schema in (Thing, Thing(), Grammar.from_type(int)):
        with pytest.raises(UnsupportedSchemaError, match="Pydantic has no schema for") as caught:
            Grammar.from_type(not_a_schema)
        assert caught.value.pointer == "#"
        assert caught.value.__cause__ is None  # Pydantic's own error is not chained through


class Holder(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    thing: Thing


class WithCallback(BaseModel):
    callback: Callable[[int], int]


def test_an_alias_path_that_names_no_key_is_refused() -> None:
    class Nested(BaseModel):
        city: str = Field(validation_alias=AliasPath("address", "city"))

    with pytest.raises(UnsupportedSchemaError, match="field 'city'.*validation alias"):
        Grammar.from_type(Nested)

    class ByName(BaseModel):
        model_config = ConfigDict(validate_by_name=True)

        city: str = Field(validation_alias=AliasPath("address", "city"))

    assert accepts(Grammar.from_type(ByName), '{"city": "Paris"}')
    assert ByName.model_validate_json('{"city": "Paris"}').city == "Paris"


def test_dict_keys_with_bounds_are_refused_by_name() -> None:
    class Bounded(BaseModel):
        marks: dict[Annotated[int, Field(ge=0)], str]

    with pytest.raises(UnsupportedSchemaError, match="field 'marks'.*integer dict key"):
        Grammar.from_type(Bounded)

"""Members written twice and loops: the JSON cursor and loop detector alone, then on the model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import Enum
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field, TypeAdapter

import structgen as sg
from structgen._backends._choices import JsonCursor
from structgen._backends._seam import MemberRules
from structgen._backends.llamacpp._repeats import MAX_PERIOD, MIN_REPEATS, MIN_RUN, LoopDetector
from structgen._generate._choice_table import member_rules

# -- the cursor: which text would write a member twice ------------------------------------------


def cursor(text: str, rules: MemberRules = MemberRules()) -> JsonCursor:
    c = JsonCursor(rules)
    c.feed(text)
    return c


@pytest.mark.parametrize(
    ("before", "token", "repeats"),
    [
        ('{"a": 1, "', 'a"', True),  # the key's closing quote
        ('{"a": 1, "', 'a":', True),
        ('{"a": 1, "', 'ab"', False),
        ('{"a": 1, "a', '"', True),
        ('{"a": 1, "a', "b", False),
        ('{"a": {"b": 1}, "', 'b"', False),  # another object's key
        ('{"a": {"b": 1, "', 'b"', True),
        ('{"a\\"": 1, "', 'a\\""', True),  # escapes are compared decoded
        ('{"a": "x", "', 'a"', True),
        ('[{"a": 1}, {"', 'a"', False),  # each object of an array has its own keys
        ('{"a": ["a", "', 'a"', False),  # plain arrays may repeat items
    ],
)
def test_keys_never_repeat_in_one_object(before: str, token: str, repeats: bool) -> None:
    assert cursor(before).would_repeat(token) is repeats


SET_OF_STRINGS = member_rules(TypeAdapter(set[str]).json_schema())
SET_OF_NUMBERS = member_rules(TypeAdapter(frozenset[float]).json_schema())


@pytest.mark.parametrize(
    ("rules", "before", "token", "repeats"),
    [
        (SET_OF_STRINGS, '["x", "', 'x"', True),
        (SET_OF_STRINGS, '["x", "', 'xy"', False),
        (SET_OF_NUMBERS, "[1, 2.5", ", ", False),
        (SET_OF_NUMBERS, "[1, 2.5, 1", "]", True),  # a number ends at what follows it
        (SET_OF_NUMBERS, "[1, 2.5, 1", ".0,", True),  # 1.0 is 1
        (SET_OF_NUMBERS, "[1, 2.5, 1", "0", False),
    ],
)
def test_set_items_never_repeat(rules: MemberRules, before: str, token: str, repeats: bool) -> None:
    assert cursor(before, rules).would_repeat(token) is repeats


class Color(Enum):
    RED = "red"
    BLUE = "blue"


def test_a_finite_set_used_up_allows_no_other_member() -> None:
    class Paint(BaseModel):
        colors: set[Color]
        amounts: dict[Literal["small", "large"], int]

    rules = member_rules(Paint.model_json_schema())
    assert rules.unique == {("colors",)}
    assert rules.finite == {("colors",): 2, ("amounts",): 2}
    c = cursor('{"colors": ["red", "blue"', rules)
    assert c.would_repeat(", ") and not c.would_repeat("]")
    c = cursor('{"colors": ["red"], "amounts": {"small": 1', rules)
    assert not c.would_repeat(", ")
    c.feed(', "large": 2')
    assert c.would_repeat(",") and not c.would_repeat("}")
    assert c.repeated is None  # would_repeat only probes


def test_pointer_names_where_the_text_stands() -> None:
    assert cursor('{"a": [1, {"b/c": "x').pointer == "/a/1/b~1c"
    c = cursor('{"a": 1, "')
    c.feed('a"')
    assert c.repeated == "key 'a' written twice in /"


def test_the_lowest_depth_counts_containers_closed_and_opened_within_one_piece() -> None:
    c = cursor('{"m": [{"a": 1')
    assert c.take_low_depth() == 0  # since the start
    item, pointer = c.container_at(3)
    assert pointer == "/m/0" and c.holds(item)
    c.feed('}, {"a')  # the item closed and the next opened in one piece
    assert c.take_low_depth() == 2 and c.take_low_depth() == 3
    assert not c.holds(item) and c.container_at(2)[1] == "/m"


# -- the loop detector ---------------------------------------------------------------------------


def first_loop(tokens: list[int]) -> tuple[int, int] | None:
    detector = LoopDetector()
    for i, token in enumerate(tokens):
        period = detector.push(token)
        if period is not None:
            return i, period
    return None


@pytest.mark.parametrize("period", [1, 2, 6, 20, MAX_PERIOD])
def test_a_repeated_sequence_is_found_within_its_bound(period: int) -> None:
    unit = list(range(100, 100 + period))
    found = first_loop([7, 8, 9] + unit * 20)
    assert found is not None
    at, seen = found
    assert seen == period
    assert at - 3 < max(MIN_RUN + period, MIN_REPEATS * period)


def test_a_closed_short_loop_leaves_a_longer_one_to_be_found() -> None:
    # Each item: a word, a run of one digit long enough to count as a loop of period 1, and the
    # token that ends the run. As the generation loop does, a loop found while another is being
    # closed is ignored, and closing it (the run ends) forgets the periods up to its own.
    item = [50, 51] + [0] * (MIN_RUN + 2) + [52]
    detector, closing, found = LoopDetector(), None, []
    for token in [7, 8] + item * 4:
        if closing is not None and token != 0:
            detector.forget(closing)
            closing = None
        period = detector.push(token)
        if period is None or closing is not None:
            continue
        if period < len(item):
            closing = period
        else:
            found.append(period)
            break
    assert found == [len(item)]


def test_text_that_does_not_repeat_is_no_loop() -> None:
    import random

    rng = random.Random(0)
    assert first_loop([rng.randrange(40) for _ in range(5000)]) is None
    assert first_loop([1, 2, 3] * 5) is None  # three tokens five times: not yet a loop
    assert first_loop(list(range(MAX_PERIOD + 1)) * 3) is None  # longer than any period looked for


# -- on the model ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def llm() -> Iterator[sg.LLM]:
    model = sg.LLM(n_ctx=2048, max_tokens=200)
    yield model
    model.close()


def keys_in_order(text: str) -> list[list[str]]:
    """Every object's keys as written (duplicates kept)."""
    found: list[list[str]] = []

    def pairs_hook(pairs: list[tuple[str, object]]) -> dict[str, object]:
        found.append([key for key, _ in pairs])
        return dict(pairs)

    json.loads(text, object_pairs_hook=pairs_hook)
    return found


class Stock(BaseModel):
    counts: dict[str, int]


@pytest.mark.model
@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        # without the check the model wrote "pears" twice (the second value replacing the first)
        ("Stock count: 4 apples, 12 pears and 0 plums.", {"apples": 4, "pears": 12}),
        # without it, "sofas": 1 again and again until max_tokens
        ("Inventory: 3 chairs, 5 tables, 1 sofa.", {"chairs": 3, "tables": 5}),
    ],
)
def test_dictionary_keys_are_never_written_twice(llm: sg.LLM, prompt: str, expected: dict[str, int]) -> None:
    result = llm.run(Stock, prompt)
    assert all(len(keys) == len(set(keys)) for keys in keys_in_order(result.text)), result.text
    assert expected.items() <= result.value.counts.items(), result.text


@pytest.mark.model
def test_set_items_are_never_written_twice(llm: sg.LLM) -> None:
    class Keywords(BaseModel):
        tags: Annotated[set[str], Field(max_length=4)]  # unbounded, SmolLM2 lists variants on and on

    result = llm.run(Keywords, "List tags for: a tutorial on async Rust with tokio. Tags: rust, async, tokio.")
    items = json.loads(result.text)["tags"]
    assert len(items) == len(set(items)) and "async" in {t.lower() for t in items}, result.text


class Note(BaseModel):
    text: str


@pytest.mark.model
def test_a_looping_string_is_closed_with_its_sentence_and_a_warning(llm: sg.LLM) -> None:
    # Greedy SmolLM2 writes "I am a cat." again and again; uncapped, it used to run to max_tokens.
    uncapped: type[Note] = sg.structured(max_string_length=None)(type("Note", (Note,), {}))
    with pytest.warns(UserWarning, match="/text: the model was repeating itself") as seen:
        result = llm.run(uncapped, "Write a long note about cats.", max_tokens=400)
    assert seen[0].filename == __file__
    text = result.value.text
    assert text.startswith("I am a cat. I am a cat. I am a cat.") and text.endswith(".")
    assert result.usage.completion_tokens < MIN_RUN + MIN_REPEATS * 6 + 10  # far from 400


@pytest.mark.model
def test_a_loop_the_grammar_cannot_close_fails_at_once(llm: sg.LLM) -> None:
    class LongNote(BaseModel):
        text: Annotated[str, Field(min_length=450)]

    with pytest.raises(sg.IncompleteOutputError, match=r"repeated itself at /text .* within 64 tokens") as caught:
        llm.generate(LongNote, "Write a long note about cats.", max_tokens=400)
    assert caught.value.text.startswith('{"text": "I am a cat.')
    assert caught.value.usage.completion_tokens < 150


@pytest.mark.model
def test_a_looping_list_is_closed_after_the_item_it_was_writing(llm: sg.LLM) -> None:
    class Guests(BaseModel):
        names: list[str]

    # Greedy SmolLM2 lists five names, then "Mike" again and again (then empty strings).
    with pytest.warns(UserWarning, match="^/names: the model was repeating itself"):
        result = llm.run(Guests, "Name twenty guests for the party.", max_tokens=300)
    names = result.value.names
    assert names[:5] == ["John", "Mike", "Alex", "Sam", "Ben"] and set(names[5:]) == {"Mike"}, result.text
    assert result.usage.completion_tokens < 60


class Member(BaseModel):
    name: str
    role: Literal["lead", "developer", "designer"]


class Team(BaseModel):
    team: str
    members: list[Member]


@pytest.mark.model
def test_objects_repeating_in_a_list_close_the_list_not_the_item(llm: sg.LLM) -> None:
    # Greedy SmolLM2 repeats {"name": "Ben", "role": "developer"} items. Closing the item it was
    # in (the old rule) met the next item's "," inside the same depth and failed the call.
    with pytest.warns(UserWarning, match="^/members: the model was repeating itself"):
        result = llm.run(Team, "Extract the team: in team Falcon, Ana is the lead, and Ben and Chloe "
                               "are developers.", max_tokens=256)
    assert result.value.members[:3] == [
        Member(name="Ana", role="lead"), Member(name="Ben", role="developer"), Member(name="Chloe", role="developer"),
    ], result.text
    assert result.usage.completion_tokens < 120


class Codes(BaseModel):
    codes: list[str]


class Line(BaseModel):
    product: str
    quantity: int


class Order(BaseModel):
    items: list[Line]


@pytest.mark.model
@pytest.mark.parametrize(("output_type", "prompt", "pointer"), [
    # Greedy SmolLM2 writes each code with a run of zeros (a loop of one token, cut short) and
    # then writes the codes again and again, each time a little different: no period repeats.
    (Codes, "List the codes: 1000000000000000000000000, 2000000000000000000000000, "
            "3000000000000000000000000.", "/codes"),
    (Order, "Extract the order: 10000000000000000000 bolts and 20000000000000000000 nuts.", "/items"),
])
def test_loops_closed_again_and_again_in_one_container_close_it(
    llm: sg.LLM, output_type: type[BaseModel], prompt: str, pointer: str,
) -> None:
    with pytest.warns(UserWarning, match=f", {pointer}: the model was repeating itself"):
        result = llm.run(output_type, prompt, max_tokens=256, max_retries=0)
    assert len(getattr(result.value, pointer[1:])) == 3, result.text
    assert result.usage.completion_tokens < 160, result.text

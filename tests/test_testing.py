"""structgen.testing: instance strategies, the round-trip and soundness helpers, their failure
reports, and the pytest plugin (run in a scratch project through ``pytester``)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal, Optional

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis.errors import FailedHealthCheck, Unsatisfiable
from pydantic import BaseModel, Field, field_serializer, field_validator
from typing_extensions import TypedDict

from structgen import GrammarError, SchemaError
from structgen._gbnf._recognizer import Recognizer
from structgen._grammar import Grammar
from structgen._instance_schema import effective_schema, flatten_schema
from structgen._roundtrip import caret_excerpt, order_keys
from structgen._type_names import type_name
from structgen._types import type_adapter
from structgen.testing import (
    accepts,
    assert_examples_round_trip,
    assert_round_trip,
    assert_samples_validate,
    instances,
    round_trip_tests,
    samples,
)

pytest_plugins = ["pytester"]

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Flag(BaseModel):
    on: bool


class Size(enum.Enum):
    S = "s"
    M = "m"


class Item(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=8)]
    size: Size
    count: Annotated[int, Field(ge=0, le=99)]
    note: Optional[str] = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


class BoundedNode(BaseModel):
    name: str
    children: list[BoundedNode] = Field(default_factory=list, max_length=3)


class Endless(BaseModel):
    me: Endless


class Contradiction(BaseModel):
    ok: int
    x: Annotated[int, Field(ge=5, le=1)]


@dataclasses.dataclass
class Pair:
    left: int
    right: str


class Movie(TypedDict):
    title: str
    year: int


FLAG_TRUE_ONLY = r'root ::= "{\"on\": true}"'
FLAG_GRAMMAR = r'root ::= "{\"on\": " ("true" | "false") "}"'
FLAG_UNSOUND = r'root ::= "{\"on\": " ("true" | "false" | "maybe") "}"'


# ---------------------------------------------------------------- instances


@pytest.mark.parametrize("tp", [Item, Pair, Movie, list[Size], tuple[int, bool], Optional[Flag]],
                         ids=type_name)
def test_instances_are_valid(tp: Any) -> None:
    adapter = type_adapter(tp)

    @FEW
    @given(instances(tp))
    def valid(value: Any) -> None:
        assert adapter.validate_python(adapter.dump_python(value)) == value

    valid()


def test_instances_of_a_model_are_model_objects() -> None:
    found = find(instances(Item), lambda item: item.note is not None and item.size is Size.M)
    assert isinstance(found, Item) and found.size is Size.M


def test_instances_of_recursive_types_nest() -> None:
    deep = find(instances(Node), lambda n: bool(n.children and n.children[0].children))
    assert isinstance(deep.children[0].children[0], Node)


def test_instances_of_a_recursive_type_with_bounded_lists() -> None:
    # Where recursion is cut off the items schema is false: the list can then only be empty
    # (a bounded list of nothing() is an error in hypothesis).
    @FEW
    @given(instances(BoundedNode))
    def bounded(node: BoundedNode) -> None:
        assert len(node.children) <= 3 and all(len(c.children) <= 3 for c in node.children)

    bounded()
    deep = find(instances(BoundedNode), lambda n: bool(n.children and n.children[-1].children))
    assert isinstance(deep.children[-1].children[0], BoundedNode)


def test_instances_of_collections_of_nothing_are_empty() -> None:
    from structgen._instances import _SchemaStrategies

    schemas = {
        "unreachable pattern members": {"type": "object", "patternProperties": {"^x": False},
                                        "additionalProperties": False},
        "unreachable extra members": {"type": "object", "properties": {"a": {"type": "null"}},
                                      "additionalProperties": False},
        "unreachable items": {"type": "array", "items": False, "maxItems": 2},
    }
    for name, schema in schemas.items():
        assert find(_SchemaStrategies().of(schema), lambda _: True) in ({}, []), name
    assert _SchemaStrategies().of({"type": "array", "items": False, "minItems": 1}).is_empty


def test_unsatisfiable_recursion_names_its_pointer() -> None:
    with pytest.raises(SchemaError) as info:
        instances(Endless)
    assert info.value.pointer.startswith("#/properties/me/properties/me")
    assert "Endless" in str(info.value) and "base case" in str(info.value)


def test_contradictory_constraint_names_its_field() -> None:
    with pytest.raises(SchemaError) as info:
        instances(Contradiction)
    assert info.value.pointer == "#/properties/x"


def test_flatten_schema_inlines_refs_and_rewrites_prefix_items() -> None:
    flat = flatten_schema(type_adapter(tuple[Node, int]).json_schema(), max_depth=2)
    assert "$ref" not in repr(flat) and "$defs" not in repr(flat)
    assert flat["items"][1] == {"type": "integer"} and flat["additionalItems"] is True
    node = flat["items"][0]
    assert node["additionalProperties"] is False  # model objects are closed
    inner = node["properties"]["children"]["items"]
    assert inner["properties"]["children"]["items"] is False  # third level: no more nodes


def test_instances_stay_within_the_integer_digit_cap() -> None:
    big = find(instances(list[int]), lambda xs: any(abs(x) >= 10**19 for x in xs))
    assert all(abs(x) < 10**20 for x in big)


def test_effective_schema_caps_unbounded_sides_only() -> None:
    schema = {"type": "object", "properties": {
        "free": {"type": "integer"},
        "above": {"type": "integer", "minimum": 10**30},
        "below": {"type": "integer", "exclusiveMaximum": 7},
        "name": {"type": "string", "maxLength": 50},
        "tag": {"type": "string", "enum": ["long-enough"]},
    }}
    props = effective_schema(schema, max_string_length=8)["properties"]
    assert (props["free"]["minimum"], props["free"]["maximum"]) == (-(10**20 - 1), 10**20 - 1)
    assert props["above"]["maximum"] == 10**31 - 1
    assert props["below"]["minimum"] == -(10**20 - 1) and "maximum" not in props["below"]
    assert props["name"]["maxLength"] == 50 and "maxLength" not in props["tag"]


def test_instance_patterns_use_ecma_classes() -> None:
    word = Annotated[str, Field(pattern=r"^\w+ \d$")]

    @FEW
    @given(instances(word))
    def ascii_only(value: str) -> None:
        assert value.isascii()

    ascii_only()


def test_instances_respect_max_string_length() -> None:
    @FEW
    @given(instances(dict[str, list[str]], max_string_length=3))
    def short(value: dict[str, list[str]]) -> None:
        assert all(len(k) <= 3 and all(len(s) <= 3 for s in v) for k, v in value.items())

    short()


def test_round_trip_of_a_raw_pattern_string() -> None:
    # The type preset: a bare root string is read back as that string (llm.generate reads its
    # answer as JSON, see test_roundtrip_generation.py).
    code = Annotated[str, Field(pattern=r"^[a-z]{1,3}-[0-9]{2}$")]
    assert_round_trip(code, max_examples=10, grammar="type", raw_pattern=True)
    assert_samples_validate(code, max_examples=10, grammar="type", raw_pattern=True)
    assert not accepts(Grammar.from_type(code, raw_pattern=True), '"ab-12"')


def test_round_trip_with_max_string_length() -> None:
    assert_round_trip(list[str], max_examples=15, max_string_length=4)


def test_order_keys_follows_the_grammar_options() -> None:
    class Row(BaseModel):
        a: Optional[int] = None
        b: int
        c: Flag

    data = {"a": 1, "b": 2, "c": {"on": True}}
    schema = Row.model_json_schema()
    assert list(order_keys(data, schema, required_first=True)) == ["b", "c", "a"]
    assert list(order_keys(data, schema, prop_order=("c", "b"))) == ["c", "b", "a"]


# ---------------------------------------------------------------- reports


def test_caret_points_at_the_offset() -> None:
    report = caret_excerpt('{"a": x}', 6, indent="")
    line, caret = report.splitlines()
    assert line == '{"a": x}'
    assert caret.index("^") == 6 and "offset 6" in caret and "'x'" in caret


def test_caret_at_the_end_of_the_text() -> None:
    caret = caret_excerpt("[1, 2", 5, indent="").splitlines()[1]
    assert caret.index("^") == 5 and "ends where the grammar needs more" in caret


def test_caret_in_a_long_text_uses_a_window() -> None:
    text = "a" * 500 + "X" + "b" * 500
    line, caret = caret_excerpt(text, 500, indent="", width=40).splitlines()
    assert line.startswith("…") and line.endswith("…") and len(line) == 42
    assert line[caret.index("^")] == "X"


def test_caret_stays_aligned_after_escapes_and_wide_characters() -> None:
    line, caret = caret_excerpt("中\tX", 2, indent="").splitlines()
    assert line == "中 \\tX"
    assert caret.index("^") == line.index("X")


# ---------------------------------------------------------------- round trip


def test_round_trip_of_simple_types() -> None:
    assert_round_trip(Flag, max_examples=5)
    assert_round_trip(list[bool], max_examples=10, whitespace="minified")
    assert_round_trip(Literal["x", "y"], max_examples=5)


def test_round_trip_with_a_hand_written_grammar() -> None:
    assert_round_trip(Flag, grammar=FLAG_GRAMMAR, max_examples=5)
    assert_round_trip(Flag, grammar=Grammar.from_string(FLAG_GRAMMAR), max_examples=5)


def test_round_trip_failure_shows_instance_text_and_caret() -> None:
    with pytest.raises(AssertionError) as info:
        assert_round_trip(Flag, grammar=FLAG_TRUE_ONLY, max_examples=10)
    report = str(info.value)
    assert "round trip of Flag failed" in report
    assert "instance: Flag(on=False)" in report
    lines = report.splitlines()
    caret_line = next(line for line in lines if "^" in line)
    text_line = lines[lines.index(caret_line) - 1]
    assert text_line.strip() == '{"on": false}'
    assert text_line[caret_line.index("^")] == "f"
    assert "offset 7" in caret_line


def test_round_trip_reports_a_value_that_does_not_come_back() -> None:
    class Shout(BaseModel):
        word: Annotated[str, Field(max_length=5)]

        @field_serializer("word")
        def louder(self, word: str) -> str:
            return word.upper()

    with pytest.raises(AssertionError) as info:
        assert_round_trip(Shout, max_examples=30)
    assert "parsing the JSON back gives a different value" in str(info.value)
    assert "parsed:" in str(info.value)


def test_round_trip_reports_json_that_does_not_validate_back() -> None:
    class Small(BaseModel):
        n: Annotated[int, Field(ge=1, le=9)]

        @field_serializer("n")
        def scaled(self, n: int) -> int:
            return n * 100

    with pytest.raises(AssertionError) as info:
        assert_round_trip(Small, grammar=r'root ::= "{\"n\": " [0-9]+ "}"', max_examples=5)
    assert "the JSON does not validate back" in str(info.value)
    assert "less than or equal to 9" in str(info.value)


def test_examples_round_trip_reports_every_failing_example() -> None:
    assert_examples_round_trip(Flag, Flag(on=True), {"on": False}, grammar=FLAG_GRAMMAR)
    with pytest.raises(AssertionError) as info:
        assert_examples_round_trip(Flag, {"on": False}, {"on": True}, Flag(on=False),
                                   grammar=FLAG_TRUE_ONLY)
    report = str(info.value)
    assert report.startswith("2 of 3 examples failed")
    assert report.count("instance: Flag(on=False)") == 2


def test_grammar_and_converter_options_do_not_mix() -> None:
    with pytest.raises(TypeError, match="refusal"):
        assert_round_trip(Flag, grammar=FLAG_GRAMMAR, refusal=True)


@pytest.mark.parametrize("bad", [0, -1, True, 2.5])
def test_max_examples_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_examples"):
        assert_round_trip(Flag, max_examples=bad)


def test_a_type_whose_validator_refuses_everything_is_explained() -> None:
    class Picky(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def never(cls, n: int) -> int:
            raise ValueError("no number is good enough")

    with pytest.raises((FailedHealthCheck, Unsatisfiable)) as info:
        assert_round_trip(Picky, max_examples=5)
    report = str(info.value)
    assert "Pydantic refused" in report and "n: Value error, no number is good enough" in report


# ---------------------------------------------------------------- samples and soundness


def test_samples_are_derivations_of_the_grammar() -> None:
    grammar = 'root ::= "[" item ("," item)* "]"\nitem ::= [a-c] | "(" item ")"'
    recognizer = Recognizer(grammar)

    @FEW
    @given(samples(grammar, max_depth=6))
    def derived(text: str) -> None:
        assert recognizer.accepts(text), text

    derived()


def test_samples_start_at_the_grammars_root() -> None:
    grammar = Grammar.from_string('answer ::= "yes" | "no"', root="answer")
    found = find(samples(grammar), lambda text: text == "no")
    assert accepts(grammar, found)


def test_samples_of_a_broken_grammar_raise_a_grammar_error() -> None:
    with pytest.raises(GrammarError) as info:
        samples('root ::= "a" (\n')
    assert info.value.line == 2


def test_samples_of_a_model_grammar_validate() -> None:
    assert_samples_validate(Flag, max_examples=10)
    assert_samples_validate(Flag, grammar=FLAG_GRAMMAR, max_examples=10)


def test_unsound_grammar_is_reported_with_the_sample() -> None:
    with pytest.raises(AssertionError) as info:
        assert_samples_validate(Flag, grammar=FLAG_UNSOUND, max_examples=50)
    report = str(info.value)
    assert "soundness of the grammar of Flag failed" in report
    assert '{"on": maybe}' in report and "Invalid JSON" in report


# ---------------------------------------------------------------- pytest integration


def test_round_trip_tests_needs_types() -> None:
    with pytest.raises(TypeError):
        round_trip_tests()


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A scratch project with its own pytest configuration."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


PLUGIN_MODELS = '''
from typing import Literal

from pydantic import BaseModel
from structgen.testing import round_trip_tests


class Flag(BaseModel):
    on: bool


class Pick(BaseModel):
    colour: str = "red"
    level: Literal[1, 2, 3] = 1
'''


def test_round_trip_tests_make_one_case_per_type_and_property(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_models=PLUGIN_MODELS + "\ntest_models = round_trip_tests(Flag, list[bool])\n"
    )
    result = project.runpytest("-v", "-p", "no:cacheprovider", "--structgen-max-examples", "3")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines([
        "*test_models[[]Flag-round_trip[]] PASSED*",
        "*test_models[[]Flag-samples_validate[]] PASSED*",
        "*test_models[[]list[[]bool[]]-round_trip[]] PASSED*",
    ])


def test_round_trip_tests_without_soundness(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_models=PLUGIN_MODELS + "\ntest_all = round_trip_tests(Flag, Pick, soundness=False, "
        "max_examples=3)\n"
    )
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_fixtures_pass_and_fail_with_a_report(project: pytest.Pytester) -> None:
    project.makepyfile(test_fixture=PLUGIN_MODELS + '''

def test_ok(structgen_round_trip, structgen_samples_validate):
    structgen_round_trip(Flag)
    structgen_samples_validate(Pick, whitespace="minified")


def test_broken_grammar(structgen_round_trip):
    structgen_round_trip(Flag, grammar='root ::= "{\\\\"on\\\\": true}"')
''')
    result = project.runpytest("-p", "no:cacheprovider", "--structgen-max-examples", "5")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*round trip of Flag failed*", "*instance: Flag(on=False)*",
                                 "*^ offset 7: first rejected character 'f'*"])


def test_plugin_option_is_documented(project: pytest.Pytester) -> None:
    result = project.runpytest("--help")
    result.stdout.fnmatch_lines(["*--structgen-max-examples=N*"])

"""The model-free parts of generation: JSON positions, choice tables, prompts, sampling."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, Optional, Union

import numpy as np
import pytest
from pydantic import BaseModel, Field

from structgen._backends._choices import JsonCursor
from structgen._backends._seam import Alternative
from structgen._backends._seam import Message, SamplingSettings, Usage
from structgen._backends.llamacpp._lookup import MAX_MATCH, DraftPolicy, lookup_draft
from structgen._backends.llamacpp._sampling import TokenPicker, log_softmax
from structgen._generate._choice_table import REFUSAL_CUES, choice_table
from structgen._generate._describe import describe_schema, example_answer
from structgen._generate._messages import as_messages
from structgen.backends import CompletionRequest, Event
from structgen import LLM
from structgen.testing import ScriptedBackend

COMPACT = (", ", ": ")


def _paths(text: str) -> list[tuple[int, tuple[str | None, ...]]]:
    """Every offset of ``text`` where a value starts, with its path."""
    cursor = JsonCursor()
    found = []
    for i, ch in enumerate(text):
        if cursor.value_path is not None:
            found.append((i, cursor.value_path))
        cursor.feed(ch)
    return found


def test_cursor_finds_value_starts() -> None:
    text = '{"a": 1, "b": ["x", {"c": true}], "d\\"e": null}'
    # A value may start right after ":" / "," or after the whitespace that follows.
    assert _paths(text) == [
        (0, ()),
        (5, ("a",)),
        (6, ("a",)),
        (13, ("b",)),
        (14, ("b",)),
        (15, ("b", None)),
        (19, ("b", None)),
        (20, ("b", None)),
        (25, ("b", None, "c")),
        (26, ("b", None, "c")),
        (41, ('d"e',)),
        (42, ('d"e',)),
    ]


def test_cursor_closed_members_and_copy() -> None:
    cursor = JsonCursor()
    cursor.feed('{"a": "x, y", "b": {"c": 1}')
    assert cursor.closed == ["a", "b"] and not cursor.done
    twin = cursor.copy()
    twin.feed("}")
    assert twin.done and not cursor.done
    items = JsonCursor()
    items.feed('[{"k": 1}, {"k": 2}]')
    assert items.closed == [0, 1] and items.done


class Ticket(BaseModel):
    severity: Literal["low", "high"]
    tags: list[Literal["ui", "db"]]
    owner: Optional[Literal["ann", "bob"]] = None
    note: str


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Pet(BaseModel):
    pet: Union[Cat, Dog]


def test_choice_table_for_enums_lists_and_optionals() -> None:
    table = choice_table(Ticket.model_json_schema(), separators=COMPACT, refusal=False)
    assert [a.text for a in table[("severity",)]] == ['"low"', '"high"']
    assert [a.text for a in table[("tags", None)]] == ['"ui"', '"db"']
    assert [a.text for a in table[("owner",)]] == ['"ann"', '"bob"', "null"]
    assert ("note",) not in table and () not in table


def test_choice_table_for_unions_and_refusal() -> None:
    table = choice_table(Pet.model_json_schema(), separators=COMPACT, refusal=True)
    assert [a.text for a in table[("pet", "kind")]] == ['"cat"', '"dog"']
    assert ("pet",) not in table  # both branches open with the same key
    root = table[()]
    assert [a.text for a in root] == ['{"pet": ', '{"refusal": ']
    assert root[-1] == Alternative('{"refusal": ', False, REFUSAL_CUES)
    minified = choice_table(Pet.model_json_schema(), separators=(",", ":"), refusal=True)
    assert [a.text for a in minified[()]] == ['{"pet":', '{"refusal":']


class Described(BaseModel):
    """A person."""

    name: str = Field(description="full name")
    age: int = Field(ge=0, le=130)
    role: Literal["admin", "user"]
    pets: list[Cat] = []


def test_description_is_compact_and_complete() -> None:
    text = describe_schema(Described.model_json_schema(), refusal=True)
    lines = text.splitlines()
    assert lines[1] == (
        '{"name": string, "age": integer (>= 0, <= 130), "role": "admin" | "user", '
        '"pets": [{"kind": "cat", "lives": integer}, ...] (optional)}'
    )
    assert "A person." in lines and "- name: full name" in lines
    assert lines[-1].startswith("If the request cannot be answered") and '{"refusal"' in lines[-1]


class Order(BaseModel):
    """An order."""

    number: str = Field(examples=["A-1"])
    items: list[Cat] = Field(description="what was bought")
    note: str = Field("", description="anything else")


def test_description_styles() -> None:
    schema = Order.model_json_schema()
    shape = '{"number": string, "items": [{"kind": "cat", "lives": integer}, ...], "note": string (optional)}'
    full = describe_schema(schema, refusal=False)
    assert full.splitlines() == [
        "Answer with JSON only, in exactly this shape:", shape, "An order.",
        "Fields:", "- items: what was bought", "- note: anything else",
    ]
    assert describe_schema(schema, refusal=False, style="shape").splitlines()[1:] == [shape, "An order."]
    assert describe_schema(schema, refusal=False, style="listing").splitlines() == [
        "Answer with a JSON object with these fields:", "An order.",
        "- number: string",
        "- items: list of objects. what was bought",
        '- items[].kind: "cat"',
        "- items[].lives: integer",
        "- note: string (optional). anything else",
    ]
    with pytest.raises(ValueError, match="describe style"):
        describe_schema(schema, refusal=False, style="loud")  # type: ignore[arg-type]


class Stock(BaseModel):
    counts: dict[str, int]
    sizes: dict[Literal["small", "large"], list[str]]


def test_dictionaries_in_words_or_braces() -> None:
    schema = Stock.model_json_schema()
    assert describe_schema(schema, refusal=False).splitlines()[1] == (
        '{"counts": object (keys: names, values: integer), '
        '"sizes": object (keys: "small" | "large", values: array of string)}'
    )
    assert describe_schema(schema, refusal=False, dictionaries="braces").splitlines()[1] == (
        '{"counts": {"<name>": integer, ...}, "sizes": {"small" | "large": array of string, ...}}'
    )


class _TemplatedScript(ScriptedBackend):
    """A scripted backend that reports a chat template, as a loaded model does."""

    def __init__(self, template: str | None, *answers: str) -> None:
        super().__init__(*answers)
        self.template = template
        self.requests: list[CompletionRequest] = []

    @property
    def chat_template(self) -> str | None:
        return self.template

    def complete(self, request: CompletionRequest) -> Iterator[Event]:
        self.requests.append(request)
        return super().complete(request)


@pytest.mark.parametrize(("template", "shape"), [
    (None, "object (keys: names, values: integer)"),
    ("{% if tools %}<tool_call>{% endif %}", '{"<name>": integer, ...}'),
])
def test_the_dictionary_shape_follows_what_the_model_is(template: str | None, shape: str) -> None:
    class Counts(BaseModel):
        counts: dict[str, int]

    backend = _TemplatedScript(template, '{"counts": {"apples": 4}}')
    assert LLM(backend=backend).generate(Counts, "4 apples").counts == {"apples": 4}
    assert shape in backend.requests[0].messages[0].content


def test_example_answer_from_field_examples() -> None:
    assert example_answer(Order.model_json_schema()) == (
        'For example (an answer to a different request): {"number": "A-1"}')
    assert example_answer(Cat.model_json_schema()) is None


def test_hint_placement_and_examples_shape_the_conversation() -> None:
    from structgen._generate._output import OutputOptions, OutputSpec

    def spec(**options: object) -> OutputSpec[Order]:
        return OutputSpec(Order, OutputOptions(**options))  # type: ignore[arg-type]

    system = spec().conversation("Order A-1: one cat.", system="Be exact.", messages=None)
    assert [m.role for m in system] == ["system", "user"]
    assert system[0].content.startswith("Be exact.\n\nAnswer with JSON only") and "For example" not in system[0].content
    after = spec(hint_placement="after_prompt", examples=True).conversation(
        None, system="Be exact.", messages=[{"role": "user", "content": "Order A-1: one cat."}])
    assert after[0] == Message("system", "Be exact.") and after[1].role == "user"
    assert after[1].content.startswith("Order A-1: one cat.\n\nAnswer with JSON only")
    assert after[1].content.endswith('{"number": "A-1"}')
    before = spec(hint_placement="before_prompt", describe="shape").conversation("Order A-1.", system=None, messages=None)
    assert before == [Message("user", before[0].content)] and before[0].content.endswith("\n\nOrder A-1.")
    assert spec(describe=False, hint_placement="after_prompt").conversation("q", system=None, messages=None) == [
        Message("user", "q")]
    for bad in ({"describe": "loud"}, {"hint_placement": "top"}, {"examples": 1}):
        with pytest.raises(TypeError):
            spec(**bad)


def test_messages_are_normalized_and_checked() -> None:
    got = as_messages("q", system="s", messages=[{"role": "assistant", "content": "a"}])
    assert got == [Message("system", "s"), Message("assistant", "a"), Message("user", "q")]
    with pytest.raises(TypeError):
        as_messages(None, system=None, messages=[{"role": "robot", "content": "x"}])
    with pytest.raises(ValueError):
        as_messages(None, system="only a system message", messages=None)


def test_sampling_settings_are_checked() -> None:
    for bad in ({"temperature": -1}, {"top_p": 0}, {"top_k": -2}, {"min_p": 1.0}):
        with pytest.raises(ValueError):
            SamplingSettings(**bad)


def test_picker_is_greedy_or_seeded() -> None:
    logits = np.array([0.0, 3.0, 2.9, -np.inf], dtype=np.float32)
    assert TokenPicker(SamplingSettings()).pick(logits) == 1
    assert TokenPicker(SamplingSettings()).pick(np.full(3, -np.inf, dtype=np.float32)) is None
    hot = SamplingSettings(temperature=1.5, top_k=0, top_p=1.0, min_p=0.0, seed=3)
    runs = [[TokenPicker(hot).pick(logits) for _ in range(1)] for _ in range(2)]
    assert runs[0] == runs[1]
    picker = TokenPicker(hot)
    drawn = {picker.pick(logits) for _ in range(200)}
    assert drawn <= {0, 1, 2} and {1, 2} <= drawn  # -inf is never drawn
    assert TokenPicker(SamplingSettings()).choose([-3.0, -1.0, -2.0]) == 1
    assert np.isclose(np.exp(log_softmax(logits)[np.isfinite(logits)]).sum(), 1.0)


def test_usage_adds_up() -> None:
    total = Usage(1, 0, 2, 3, 0.5, 1.0, 2.0, 1, 1, prompt_seconds=0.5) + Usage(4, 4, 1, 1, 0.25, 1.0, 1.0, 1, 0)
    assert total == Usage(5, 4, 3, 4, 0.75, 2.0, 3.0, 2, 1, prompt_seconds=0.5)
    assert total.completion_tokens == 7


def test_structured_options_shape_the_spec() -> None:
    from structgen import structured
    from structgen.testing import accepts
    from structgen._generate._output import spec_for

    @structured(choose_by_likelihood=False, describe=False, instructions="Be brief.")
    class Quiet(BaseModel):
        mood: Literal["calm", "loud"]

    spec = spec_for(Quiet)
    assert spec.choices is None and spec.system_hint() == "Be brief."

    @structured(describe="listing", hint_placement="after_prompt", instructions="Be brief.")
    class Listed(BaseModel):
        mood: Literal["calm", "loud"] = Field(examples=["calm"])

    listed = spec_for(Listed)
    assert listed.system_hint() is None and listed.hint() is not None
    assert listed.hint().splitlines()[:3] == ["Be brief.", "", "Answer with a JSON object with these fields:"]
    assert "For example" not in (listed.hint() or "")
    with pytest.raises(TypeError, match="unknown option"):
        structured(describe_style="listing")

    @structured(whitespace="minified")
    class Tight(BaseModel):
        mood: Literal["calm", "loud"]

    tight = spec_for(Tight)
    assert tight.choices == {("mood",): (Alternative('"calm"', True), Alternative('"loud"', True))}
    assert accepts(tight.grammar, '{"mood":"calm"}') and not accepts(tight.grammar, '{"mood": "calm"}')
    assert spec_for(Literal["a", "b"]) is spec_for(Literal["a", "b"])


def test_lookup_draft_copies_what_followed_the_latest_full_match() -> None:
    text = list(range(100, 100 + MAX_MATCH))  # MAX_MATCH distinct tokens
    context = [1, *text, 7, 8, 9, 2, 3, *text]
    assert lookup_draft(context, 3) == [7, 8, 9]
    assert lookup_draft(context, 2) == [7, 8]  # the limit wins
    assert lookup_draft(context, 0) == []
    assert lookup_draft(context[:-1], 3) == []  # one token short of a full match
    # A loop: the previous repetition is the latest match, and the copy goes on periodically.
    loop = [5, *text, *text]
    assert lookup_draft(loop, 4) == text[:4]
    assert lookup_draft([3, 4, *[0] * (MAX_MATCH + 1)], 5) == [0] * 5
    period = [1, 2, 3] * 5
    assert lookup_draft(period, 6) == [1, 2, 3, 1, 2, 3]
    assert lookup_draft([*text, *text[:3]], 8) == []


def test_draft_policy_follows_the_models_shape() -> None:
    # SmolLM2-135M: 49k vocabulary x 576 of 135M weights; Gemma-3-270M: 262k x 640 of 268M.
    small = DraftPolicy.for_model(8, 49152, 576, 134_515_008)
    large = DraftPolicy.for_model(8, 262_144, 640, 268_098_176)
    assert (small.length, small.head) == (8, True)
    assert (large.length, large.head) == (8, False)  # every logits row is expensive there
    assert DraftPolicy.for_model(0, 49152, 576, 134_515_008).length == 0


def test_strings_at_the_cap_are_found_with_their_pointers() -> None:
    from structgen._generate._generation import _strings_of_length

    data = {"a/bc": ["xyz", "no"], "abc": {"k": "xyz"}, "n": 3}
    assert _strings_of_length(data, 3, "") == ["/a~1bc/0", "/abc (key)", "/abc/k"]
    assert _strings_of_length("xyz", 3, "") == ["/"] and _strings_of_length([1, "ab"], 3, "") == []

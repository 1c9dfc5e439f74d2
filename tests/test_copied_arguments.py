"""Copied arguments: free strings limited to runs of the words that were said (no model; the
grammar is judged by llama.cpp's sampler on the default model's vocabulary)."""

from __future__ import annotations

import enum
import re
from typing import Literal

from hypothesis import given, strategies as st

import structgen as sg
from structgen import Grammar
from structgen.testing import ScriptedBackend, accepts
from structgen._tools.policy._policies import POLICY_RULES
from structgen._tools.policy._arguments import copied_tools, named_tools, spans_pattern
from structgen._tools.policy._fitted import MAX_WORDS
from structgen._tools._tool import as_tools


def runs(text: str) -> set[str]:
    """Every run of 1..MAX_WORDS words, edges trimmed as the pattern promises."""
    edge = "\"'“”‘’()[]{}<>.,;:!?"
    words = [w for w in text.split() if w.strip(edge)]
    found = set()
    for i in range(len(words)):
        for j in range(i, min(len(words), i + MAX_WORDS)):
            if i == j:
                found.add(words[i].strip(edge))
            else:
                found.add(" ".join([words[i].lstrip(edge), *words[i + 1 : j], words[j].rstrip(edge)]))
    return found


def test_runs_of_whole_words_with_their_edges_trimmed() -> None:
    pattern = re.compile(spans_pattern("Translate 'happy birthday' into Greek, please.") or "")
    for said in ("happy birthday", "happy", "Greek", "into Greek", "Greek, please", "please",
                 "birthday' into Greek"):
        assert pattern.fullmatch(said), said
    for unsaid in ("'happy birthday'", "Greek,", "birthday into", "happy  birthday", "Gree", "French", ""):
        assert not pattern.fullmatch(unsaid), unsaid


def test_nothing_said_limits_nothing() -> None:
    assert spans_pattern("  ... ?! ") is None


words = st.lists(st.sampled_from(["a", "b", "c.", "(d)", "e's", "f?", "'g'", "x+y", "a|b", "$5", "\\"]),
                 min_size=1, max_size=20)


@given(words)
def test_the_pattern_matches_exactly_the_runs(chosen: list[str]) -> None:
    text = " ".join(chosen)
    pattern = re.compile(spans_pattern(text) or "")
    wanted = runs(text)
    assert all(pattern.fullmatch(run) for run in wanted)
    for i in range(len(chosen)):  # anything else made of the same words is refused
        for j in range(i + 1, len(chosen) + 1):
            for candidate in (" ".join(chosen[i:j]), " ".join(reversed(chosen[i:j])), "".join(chosen[i:j])):
                assert bool(pattern.fullmatch(candidate)) == (candidate in wanted), candidate


def send(to: str, mode: Literal["fast", "slow"], count: int, tags: list[str], note: str = "x") -> None:
    """Send something."""


def test_only_free_strings_are_limited() -> None:
    [tool] = copied_tools(as_tools([send]), "mail bob@x.org now")
    properties = tool.parameters["properties"]
    assert "pattern" in properties["to"] and "pattern" in properties["note"]
    assert "pattern" in properties["tags"]["items"]
    assert "pattern" not in properties["mode"] and "pattern" not in properties["count"]
    assert tool.parameters["properties"]["note"]["default"] == "x"
    [unchanged] = as_tools([send])
    assert "pattern" not in unchanged.parameters["properties"]["to"]


def test_the_grammar_accepts_the_runs_and_nothing_else() -> None:
    [tool] = copied_tools(as_tools([send]), "Mail bob@x.org: the meeting moved.")
    grammar = Grammar.from_json_schema(tool.parameters)
    ok = '{"to": "bob@x.org", "mode": "fast", "count": 1, "tags": ["meeting moved"], "note": "Mail"}'
    assert accepts(grammar, ok)  # llama.cpp's own sampler decides
    assert not accepts(grammar, ok.replace("bob@x.org", "alice@x.org"))
    assert not accepts(grammar, ok.replace('"Mail"', '"Mail bob@x.org:"'))


def test_each_setting_tries_its_grammars_in_order() -> None:
    from structgen._backends._seam import Message
    from tests.support.policy import argument_tries

    tools = as_tools([send])
    said = [Message("user", "old words"), Message("user", "mail bob@x.org")]
    [free] = argument_tries("free", tools, said)
    [copied] = argument_tries("copied", tools, said)
    first, second = argument_tries("free_then_copied", tools, said)
    assert free == first == tools
    assert copied[0].parameters == second[0].parameters != tools[0].parameters
    assert re.fullmatch(copied[0].parameters["properties"]["to"]["pattern"], "bob@x.org")
    assert not re.fullmatch(copied[0].parameters["properties"]["to"]["pattern"], "old")  # older turns are not said
    nothing_free = as_tools([add])
    assert argument_tries("free_then_copied", nothing_free, said) == [nothing_free]
    # "auto": a copied second try only where the decision found the request asks for an action.
    auto_first, auto_second = argument_tries("auto", tools, said, asks_action=True)
    assert auto_first == tools and auto_second[0].parameters == second[0].parameters
    assert argument_tries("auto", tools, said) == [free]


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


# -- listed values the request names ------------------------------------------------------------

Unit = Literal["celsius", "fahrenheit", "kelvin"]


def weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Weather in a city."""
    return city


def convert(value: float, from_unit: Unit, to_unit: Unit) -> float:
    """Convert a temperature."""
    return value


def pay(amount: float, method: Literal["debit card", "app_balance", "in", "x"] = "x") -> str:
    """Pay someone."""
    return "ok"


def narrowed(function: object, said: str) -> dict[str, object]:
    [tool] = as_tools([function])
    [out] = named_tools([tool], said)
    return {name: spec.get("enum", spec.get("anyOf")) for name, spec in out.parameters["properties"].items()}


def test_a_named_value_is_the_only_one_allowed_and_is_written() -> None:
    [tool] = named_tools(as_tools([weather]), "What's the temperature in Boston in Fahrenheit?")
    assert tool.parameters["properties"]["unit"]["enum"] == ["fahrenheit"]
    assert tool.parameters["required"] == ["city", "unit"]
    grammar = Grammar.from_json_schema(tool.parameters)
    assert accepts(grammar, '{"city": "Boston", "unit": "fahrenheit"}')
    assert not accepts(grammar, '{"city": "Boston", "unit": "celsius"}')
    assert not accepts(grammar, '{"city": "Boston"}')
    assert as_tools([weather])[0].parameters["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]  # untouched


def test_values_are_named_only_as_whole_words() -> None:
    assert narrowed(pay, "pay 20 with my Debit Card")["method"] == ["debit card"]
    assert narrowed(pay, "pay 20 from the app balance")["method"] == ["app_balance"]
    assert narrowed(pay, "pay 20 with my debit cards")["method"] == ["debit card", "app_balance", "in", "x"]
    # stop words and single letters are said by chance: they never count
    assert narrowed(pay, "pay x 20 in cash")["method"] == ["debit card", "app_balance", "in", "x"]


def test_nothing_is_narrowed_where_the_request_is_ambiguous() -> None:
    both = "celsius or fahrenheit in Oslo"
    assert narrowed(weather, both)["unit"] == ["celsius", "fahrenheit"]
    # a value of two positions: the request does not say which one it fills
    assert narrowed(convert, "convert 300 kelvin")["from_unit"] == ["celsius", "fahrenheit", "kelvin"]
    assert narrowed(convert, "convert 300 kelvin")["to_unit"] == ["celsius", "fahrenheit", "kelvin"]
    [tool] = as_tools([weather])
    assert named_tools([tool], "weather in Oslo")[0] is tool


class Size(str, enum.Enum):
    SMALL = "small"
    LARGE = "large"


def order(drink: str, size: Size = Size.SMALL) -> str:
    """Order a drink."""
    return drink


def order_many(size: Size, sizes: list[Size]) -> str:
    """Order drinks."""
    return ""


def test_definitions_and_arrays() -> None:
    [one] = named_tools(as_tools([order]), "a large latte")
    assert one.parameters["$defs"]["Size"]["enum"] == ["large"] and "size" in one.parameters["required"]
    # the definition is also an array's items: each item may be another value, so nothing changes
    [many] = named_tools(as_tools([order_many]), "a large latte")
    assert many.parameters["$defs"]["Size"]["enum"] == ["small", "large"]


def test_named_values_apply_on_every_try_unless_switched_off() -> None:
    from structgen._backends._seam import Message
    from tests.support.policy import argument_tries

    said = [Message("user", "weather in Paris in fahrenheit"), Message("tool", "celsius")]
    tools = as_tools([weather])
    for setting in ("free", "copied", "free_then_copied"):
        for tried in argument_tries(setting, tools, said):  # type: ignore[arg-type]
            assert tried[0].parameters["properties"]["unit"]["enum"] == ["fahrenheit"]
    assert argument_tries("free", tools, said, listed_values="any") == [tools]
    # tool results are not the user's words
    said = [Message("user", "weather in Paris"), Message("tool", "celsius")]
    assert argument_tries("free", tools, said) == [tools]


def test_the_listed_values_rule_reaches_the_call_grammar_and_the_model_policy_leaves_them_open() -> None:
    call = '[{"name": "weather", "arguments": {"city": "Paris", "unit": "fahrenheit"}}]'
    calls = f"{call[:-1]}, {call[1:]}"  # under "auto" a second call is offered; a repeat ends the turn
    for policy, narrowed in ((sg.Policy(decision="words", arguments="free", offered_call="same-tool"), True),
                             (sg.Policy(decision="words", arguments="free", offered_call="same-tool", listed_values="any"), False)):
        backend = ScriptedBackend(calls)
        turn = sg.LLM.from_backend(backend).call_tools("weather in Paris in fahrenheit", [weather], policy=policy)
        assert [c.arguments.unit for c in turn.calls] == ["fahrenheit"]
        assert ("celsius" not in backend.requests[0].gbnf) is narrowed
    assert POLICY_RULES["model"].listed_values == "any" and POLICY_RULES["small-model"].listed_values == "named"


def test_a_final_answer_is_not_narrowed() -> None:
    """run_tools' typed answer is judged, not given: the request naming a value decides nothing."""
    from dataclasses import replace

    from structgen._tools._tool import FINAL_TOOL

    [tool] = as_tools([weather])
    final = replace(tool, name=FINAL_TOOL)
    assert named_tools([final], "Is it fahrenheit in Boston?") == [final]

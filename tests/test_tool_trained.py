"""Function calling on a tool-trained model: Qwen2.5-Coder-0.5B-Instruct, whose chat template
renders tools (Hermes ``<tool_call>``) and which writes its calls as fenced JSON spread over
lines. Under ``policy="model"`` its calls are read in the forms it writes, constrained by
llama.cpp's grammar sampler from the moment one opens, in process and through llama-server.

The model comes from ``tests/server_support.py`` (``make test`` assembles it once).
"""

from __future__ import annotations

import importlib.machinery
import math
import statistics
import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Literal

import pytest
from pydantic import BaseModel

import structgen as sg
from structgen._backends._seam import TextDelta
from structgen._tools._formats import HERMES_FORMAT
from structgen._tools.policy._policies import OfferedCall, PolicyName
from structgen._tools import as_tools
from structgen.testing import ScriptedBackend, accepts
from tests.server_support import ROOT, running_server, tool_model_path

pytestmark = pytest.mark.model


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather in a city."""
    return f"sunny in {city}"


def triangle_area(base: float, height: float) -> float:
    """Calculate the area of a triangle from its base and height."""
    return base * height / 2


TOOLS = [get_weather, triangle_area]


@pytest.fixture(scope="module")
def qwen() -> Iterator[sg.LLM]:
    llm = sg.LLM(tool_model_path(), n_threads=1, max_tokens=200)
    yield llm
    llm.close()


# -- the forms a Hermes-family model writes ------------------------------------------------------

FENCED = '```json\n{\n  "name": "get_weather",\n  "arguments": {\n    "city": "Oslo"\n  }\n}\n```'
BARE = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
TAGGED = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'


@pytest.mark.parametrize("text", [FENCED, BARE, TAGGED, FENCED + "\n\n" + TAGGED])
def test_the_lazy_call_grammar_takes_every_form_natively(text: str) -> None:
    grammar, _ = HERMES_FORMAT.grammar(as_tools(TOOLS), max_calls=4, lazy=True)
    assert accepts(grammar, text)
    tight, _ = HERMES_FORMAT.grammar(as_tools(TOOLS), max_calls=4)
    assert accepts(tight, text) == (text == TAGGED)  # forced turns keep the format's own wrapper


@pytest.mark.parametrize(("text", "start"), [
    ("Sure, here it is:\n" + FENCED, 18), ("I will call " + BARE, 12), (TAGGED, 0),
    ('{"name": "get_forecast", "arguments": {}}', None), ("```json\n[1, 2]\n```", None),
])
def test_a_turn_opens_where_a_call_to_a_listed_tool_starts(text: str, start: int | None) -> None:
    assert HERMES_FORMAT.opening(text, as_tools(TOOLS)) == start


def test_a_cut_removes_the_whole_wrapper() -> None:
    text = FENCED + "\n\n" + FENCED
    second = text.index("{", len(FENCED))
    assert HERMES_FORMAT.call_start(text, second) == len(FENCED)


# -- the model ---------------------------------------------------------------------------------


def test_the_policy_follows_what_the_model_is(qwen: sg.LLM) -> None:
    """A model whose template renders tools gets "tool-trained", one whose template knows
    none "small-model" (docs/benchmarks.md, "Function calling")."""
    untemplated = sg.LLM.from_backend(ScriptedBackend("{}"))
    assert qwen._tool_format("auto").native and not untemplated._tool_format("auto").native
    assert (qwen.tool_policy, untemplated.tool_policy) == ("tool-trained", "small-model")
    assert "tool_policy='tool-trained'" in repr(qwen)
    with pytest.raises(ValueError, match="policy must be one of"):
        qwen.call_tools("hi", TOOLS, policy="large")  # type: ignore[arg-type]


def test_a_fenced_call_is_constrained_and_read(qwen: sg.LLM) -> None:
    turn = qwen.call_tools("What's the weather in Paris?", TOOLS, policy="model")
    assert [(c.name, c.arguments.city) for c in turn.calls] == [("get_weather", "Paris")]
    assert turn.raw.startswith("```json\n{") and turn.text is None
    assert turn.usage.grammar_seconds > 0  # the grammar took over at the fence
    area = qwen.call_tools("Area of a triangle with base 10 and height 5?", TOOLS, policy="model")
    assert area.calls[0].invoke() == 25


@pytest.mark.parametrize(("request_text", "expected"), [
    ("What's the weather in Paris and in Rome?", [("get_weather", "Paris"), ("get_weather", "Rome")]),
    ("What's the weather in Paris, and the area of a triangle with base 10 and height 5?",
     [("get_weather", "Paris"), ("triangle_area", 10.0)]),
    ("What's the weather in Paris?", [("get_weather", "Paris")]),
])
def test_the_offered_second_call_is_kept_only_when_it_adds_something_said(
    qwen: sg.LLM, request_text: str, expected: list[tuple[str, object]]
) -> None:
    """Left alone the model writes one call of two; offered a second, it writes it, and a
    second call that adds nothing the user said (a repeat, another unit) ends the turn."""
    turn = qwen.call_tools(request_text, TOOLS, policy="model")
    first = {"get_weather": lambda a: a.city, "triangle_area": lambda a: a.base}
    assert [(c.name, first[c.name](c.arguments)) for c in turn.calls] == expected
    assert not turn.truncated


def gcd(a: int, b: int) -> int:
    """Greatest common divisor of two integers."""
    return math.gcd(a, b)


def lcm(a: int, b: int) -> int:
    """Least common multiple of two integers."""
    return math.lcm(a, b)


def median(data: list[float]) -> float:
    """Median of a list of numbers."""
    return statistics.median(data)


def variance(data: list[float]) -> float:
    """Variance of a list of numbers."""
    return statistics.variance(data)


GCD = "Find the greatest common divisor of 96 and 128, and the least common multiple of 15 and 25."
SPREAD = "What are the median and the variance of 3, 4, 5, 2, 8?"


@pytest.mark.parametrize(("request_text", "tools", "offered", "names"), [
    (GCD, [gcd, lcm], "same-tool", ["gcd"]),
    (GCD, [gcd, lcm], "new-word", ["gcd", "lcm"]),
    (SPREAD, [median, variance], "new-word", ["median"]),
    (SPREAD, [median, variance], "new-word-or-tool", ["median", "variance"]),
])
def test_the_scored_gate_keeps_the_offered_call_as_the_policy_rule_says(
    qwen: sg.LLM, request_text: str, tools: list[Callable[..., object]], offered: OfferedCall, names: list[str]
) -> None:
    """Under the gate the grammar makes the model write a second call in ``<tool_call>``; the
    ``offered_call`` rule alone decides whether the call of the other tool stays: it adds said
    numbers (lcm), or only the request's naming of its tool (variance, the same data)."""
    turn = qwen.call_tools(request_text, tools, policy=sg.Policy(decision="action", arguments="free", offered_call=offered))
    assert [c.name for c in turn.calls] == names
    assert turn.raw.count("<tool_call>") == len(names) and not turn.truncated


def test_a_reply_in_words_streams_as_text(qwen: sg.LLM) -> None:
    events = list(qwen.stream_tools("Say hello to me in French, in three words.", TOOLS, policy="model"))
    turn = events[-1]
    assert isinstance(turn, sg.ToolTurn) and turn.calls == [] and turn.text
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == turn.text


def test_a_streamed_call_is_a_call_not_text(qwen: sg.LLM) -> None:
    events = list(qwen.stream_tools("What's the weather in Paris?", TOOLS, policy="model"))
    calls = [e for e in events if isinstance(e, sg.ToolCall)]
    assert [c.name for c in calls] == ["get_weather"] and calls == events[-1].calls  # type: ignore[union-attr]
    assert not any("get_weather" in e.text for e in events if isinstance(e, TextDelta))
    assert any(isinstance(e, sg.ArgumentsDelta) for e in events)


@pytest.mark.parametrize("policy", ["auto", "tool-trained", "small-model"])
def test_the_scored_policies_force_the_format(qwen: sg.LLM, policy: PolicyName) -> None:
    turn = qwen.call_tools("What's the weather in Paris?", TOOLS, policy=policy)
    assert turn.raw.startswith("<tool_call>\n{") and turn.calls[0].arguments.city == "Paris"


def test_the_default_lets_a_request_for_two_tools_call_both(qwen: sg.LLM) -> None:
    """Every fitting tool may be called and the offered call may be of another tool; under
    "small-model" only the tools scoring close to the best are, and the second call must repeat
    the first one's tool."""
    tools = [get_weather, triangle_area, gcd]
    request = "What's the weather in Oslo? Also the area of a triangle with base 4 and height 3."
    assert [c.name for c in qwen.call_tools(request, tools).calls] == ["get_weather", "triangle_area"]
    assert len(qwen.call_tools(request, tools, policy="small-model").calls) == 1


def test_the_default_keeps_a_call_of_a_tool_the_request_names(qwen: sg.LLM) -> None:
    """The same data twice: after the median, the variance adds no word the user said, but the
    request names its tool (under "new-word" the turn ends after the median, above)."""
    assert [c.name for c in qwen.call_tools(SPREAD, [median, variance]).calls] == ["median", "variance"]


class Stock(BaseModel):
    counts: dict[str, int]


def test_a_dictionary_gets_the_names_the_text_gives(qwen: sg.LLM) -> None:
    """Typed generation on the same model: shown a dictionary as ``object (keys: names, values:
    integer)``, this model wrote ``{"names": 3, "values": 0}``; shown the braced shape a model
    of its class reads, it writes the things counted."""
    stock = qwen.generate(Stock, "Stock count: 4 apples, 12 pears and 0 plums.")
    assert stock.counts == {"apples": 4, "pears": 12, "plums": 0}


def test_a_call_written_as_the_reply_is_text_or_the_call_as_the_rule_says(qwen: sg.LLM) -> None:
    """The gate, fitted on small models, scores this phrasing just below "fits" and chooses a
    reply; shown the tool by its template (``reply_tools="all"``), the model writes the call
    anyway. ``call_in_reply="text"`` returns the reply as written (keeping its call cost 4 of 12
    irrelevance cases on BFCL's tuning half); ``"kept"`` returns the call."""
    request = "What's the weather like in Paris today?"
    turn = qwen.call_tools(request, [get_weather], policy=sg.Policy(decision="action", arguments="free", offered_call="new-word", offered_tools="fitting"))
    assert turn.calls == [] and turn.text is not None and '"get_weather"' in turn.text
    kept = sg.Policy(decision="action", arguments="free", offered_call="new-word", offered_tools="fitting", call_in_reply="kept")
    turn = qwen.call_tools(request, [get_weather], policy=kept)
    assert [c.name for c in turn.calls] == ["get_weather"] and turn.calls[0].arguments.city == "Paris"


def draw_circle(radius: float, unit: str = "m") -> str:
    """Draw a circle of a given radius."""
    return f"a circle of radius {radius} {unit}"


def test_a_reply_shown_no_tools_is_words(qwen: sg.LLM) -> None:
    """The gate finds no tool for the request. Shown the tools by its template
    (``reply_tools="all"``), the model answers with a call to the one listed, as text; under the
    default's ``"none"`` it is shown none and answers in words, from a prompt without them."""
    request = "What is the area of a rectangle 5 meters wide and 7 meters long?"
    shown = qwen.call_tools(request, [draw_circle], policy=sg.Policy(decision="action", arguments="free", offered_call="new-word-or-tool", offered_tools="fitting", channel="undecided", listed_values="any", alternatives="tokens", reply_tools="all"))
    hidden = qwen.call_tools(request, [draw_circle])  # the default: "tool-trained", shown no tools
    assert shown.calls == [] and shown.text is not None and '"draw_circle"' in shown.text
    assert hidden.calls == [] and hidden.text is not None and "draw_circle" not in hidden.text
    assert "35" in hidden.text and hidden.usage.prompt_tokens < shown.usage.prompt_tokens


def test_fenced_calls_through_llama_server() -> None:
    with running_server("-c", "4096", "-np", "1", model=tool_model_path()) as (url, _):
        remote = sg.LLM.from_backend(sg.LlamaServerBackend(url), max_tokens=200)
        assert remote._tool_format("auto").native  # the template, from GET /props
        turn = remote.call_tools("What's the weather in Paris?", TOOLS, policy="model")
        assert [(c.name, c.arguments.city) for c in turn.calls] == [("get_weather", "Paris")]
        assert "```json" in turn.raw
        reply = remote.call_tools("Say hello to me in French, in three words.", TOOLS, policy="model")
        assert reply.calls == [] and reply.text


# -- the install step --------------------------------------------------------------------------


def _chunked_model() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("chunked_model", str(ROOT / ".ci" / "chunked-model"))
    spec = importlib.util.spec_from_loader("chunked_model", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_install_step_refuses_a_wrong_hash_and_a_missing_part(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    script = _chunked_model()
    real = script.MODELS["qwen2.5-coder-0.5b-instruct-q4_k_m"]
    target = tmp_path / "model.gguf"
    with pytest.raises(SystemExit):  # the first chunk alone: neither the size nor the hash
        script.assemble("first-part", real._replace(parts=1), target)
    assert "not installed" in capfd.readouterr().err and not list(tmp_path.iterdir())
    with pytest.raises(SystemExit):
        script.assemble("missing", real._replace(version="0.0.0"), target)
    assert "part 1 of 6" in capfd.readouterr().err and not list(tmp_path.iterdir())

"""Tools from functions, models and dicts; call grammars judged by llama.cpp's own sampler."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

import structgen as sg
from tests.support.corpora import BFCL
from structgen._backends.llamacpp._native import native_vocab
from structgen._tools._formats import JSON_FORMAT
from structgen._tools import as_tool, as_tools
from structgen._tools._call_schema import call_schema


def weather_google(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the weather.

    Args:
        city: The city, spelled
            as the user wrote it.
        unit: Celsius or Fahrenheit.
    """
    return f"{city}:{unit}"


def weather_numpy(city: str, days: int = 1) -> str:
    """Forecast for a city.

    Parameters
    ----------
    city : str
        The city.
    days : int
        How many days ahead.
    """
    return city


def weather_rest(city: str, days: int = 1) -> str:
    """Forecast for a city.

    :param city: The city.
    :param int days: How many days ahead.
    """
    return city


async def slow_add(a: int, b: int) -> int:
    """Add two numbers, slowly."""
    await asyncio.sleep(0)
    return a + b


class Search(BaseModel):
    """Search the web."""

    query: str = Field(description="what to look for")
    limit: Annotated[int, Field(ge=1, le=10)] = 3


class Titled(BaseModel):
    model_config = ConfigDict(title="lookup_user")
    user_id: int


@pytest.mark.parametrize("function", [weather_google, weather_numpy, weather_rest])
def test_function_docstrings_describe_tool_and_parameters(function: Callable[..., Any]) -> None:
    made = as_tool(function)
    assert made.name == function.__name__
    assert made.description.startswith(("Get the weather.", "Forecast for a city."))
    props = made.parameters["properties"]
    assert props["city"]["description"].startswith("The city")
    assert made.parameters["required"] == ["city"]
    assert made.function is function


def test_google_continuation_lines_join() -> None:
    made = as_tool(weather_google)
    assert made.parameters["properties"]["city"]["description"] == "The city, spelled as the user wrote it."
    assert made.parameters["properties"]["unit"]["enum"] == ["c", "f"]


def test_tool_decorator_overrides_and_keeps_the_function() -> None:
    @sg.tool(name="forecast", description="Weather ahead.")
    def f(city: str) -> str:
        """Ignored."""
        return city

    assert f("Oslo") == "Oslo"
    made = as_tool(f)
    assert (made.name, made.description) == ("forecast", "Weather ahead.")


def test_example_requests_come_from_every_kind_of_tool_and_stay_out_of_the_listing() -> None:
    @sg.tool(examples=["will it rain in Oslo tomorrow?", "  forecast for Lima  "])
    def forecast(city: str) -> str:
        """Weather ahead."""
        return city

    made = as_tool(forecast)
    assert made.examples == ("will it rain in Oslo tomorrow?", "forecast for Lima")
    assert "examples" not in json.dumps(made.to_openai())  # never sent to a server or a template
    spec = {"name": "math.factorial", "description": "n!", "examples": ["what's 5 factorial"],
            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    assert as_tool(spec).examples == ("what's 5 factorial",)
    assert as_tool(Search).with_examples(["look up pydantic"]).examples == ("look up pydantic",)
    assert as_tool(Search).examples == ()

    @sg.tool(name="web_search", examples=["look up the pydantic docs"])
    class Lookup(BaseModel):
        """Search the web."""

        query: str

    class Narrower(Lookup):
        """Search one site."""

        site: str = ""

    assert (as_tool(Lookup).name, as_tool(Lookup).examples) == ("web_search", ("look up the pydantic docs",))
    assert (as_tool(Narrower).name, as_tool(Narrower).examples) == ("Narrower", ())  # not its parent's


@pytest.mark.parametrize("examples", ["one string", [""], ["ok", 3]])
def test_bad_example_requests_fail_when_the_tool_is_made(examples: Any) -> None:
    def f(x: int) -> int:
        return x

    with pytest.raises(sg.ToolDefinitionError, match="examples of f must be a list"):
        sg.tool(examples=examples)(f)
    with pytest.raises(sg.ToolDefinitionError):
        as_tool({"name": "f", "examples": examples})


def test_async_function_tool() -> None:
    made = as_tool(slow_add)
    assert made.is_async
    call = sg.ToolCall("slow_add", made.validate('{"a": 2, "b": 3}'), "x", made)
    assert call.invoke() == 5
    assert asyncio.run(call.ainvoke()) == 5


def test_model_and_dict_tools() -> None:
    search = as_tool(Search)
    assert (search.name, search.description) == ("Search", "Search the web.")
    assert search.function is None
    assert as_tool(Titled).name == "lookup_user"
    spec = {"type": "function", "function": {"name": "math.factorial", "description": "n!",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}
    factorial = as_tool(spec)
    assert factorial.name == "math.factorial" and factorial.arguments_type is None
    assert factorial.validate('{"n": 5}') == {"n": 5}
    assert as_tool(spec["function"]).name == "math.factorial"


def test_bad_tools_fail_when_made_naming_the_parameter() -> None:
    def untyped(x, y: int) -> int:  # type: ignore[no-untyped-def]
        return y

    with pytest.raises(sg.ToolDefinitionError) as info:
        as_tool(untyped)
    assert info.value.parameter == "x" and info.value.tool == "untyped"

    def star(*values: int) -> int:
        return 0

    with pytest.raises(sg.ToolDefinitionError, match="values"):
        as_tool(star)

    def callback(handler: Callable[[int], int]) -> int:
        return 0

    with pytest.raises(sg.ToolDefinitionError) as info:
        as_tool(callback)
    assert info.value.parameter == "handler"

    unenforceable = {"name": "f", "parameters": {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}}}
    with pytest.raises(sg.ToolDefinitionError) as info:
        as_tool(unenforceable)
    assert info.value.parameter == "tags" and "uniqueItems" in str(info.value)

    with pytest.raises(sg.ToolDefinitionError):
        as_tool({"name": "has space", "parameters": {"type": "object"}})
    with pytest.raises(sg.ToolDefinitionError, match="two tools"):
        as_tools([weather_google, weather_google])
    with pytest.raises(TypeError):
        as_tool(42)  # type: ignore[arg-type]


def test_tools_with_the_same_definition_names_do_not_collide() -> None:
    class Item(BaseModel):
        name: str

    class Order(BaseModel):
        items: list[Item]

    class Other(BaseModel):
        class Item(BaseModel):  # same $defs name, another shape
            sku: int

        items: list[Item]

    schema = call_schema(as_tools([Order, Other]))
    assert set(schema["$defs"]) == {"tool0", "tool1"}
    refs = json.dumps(schema)
    assert '"#/$defs/tool0/$defs/Item"' in refs and '"#/$defs/tool1/$defs/Item"' in refs


def _accepts(gbnf: str, root: str, text: str) -> bool:
    return native_vocab().check(gbnf, root, text).accepted


def test_call_grammar_pairs_each_name_with_its_own_arguments() -> None:
    tools = as_tools([weather_google, slow_add])
    grammar, choices = JSON_FORMAT.grammar(tools, max_calls=3)
    ok = '[{"name": "weather_google", "arguments": {"city": "Oslo"}}, {"name": "slow_add", "arguments": {"a": 1, "b": 2}}]'
    assert _accepts(grammar.gbnf, grammar.root, ok)
    swapped = '[{"name": "slow_add", "arguments": {"city": "Oslo"}}]'
    assert not _accepts(grammar.gbnf, grammar.root, swapped)
    assert not _accepts(grammar.gbnf, grammar.root, '[{"name": "weather_google", "arguments": {"city": "Oslo", "x": 1}}]')
    four = "[" + ", ".join(['{"name": "slow_add", "arguments": {"a": 1, "b": 2}}'] * 4) + "]"
    assert not _accepts(grammar.gbnf, grammar.root, four)  # max_calls
    assert choices is not None and (None, "name") in choices
    assert all(a.per_token for a in choices[(None, "name")])


def _bfcl_sample() -> list[dict[str, Any]]:
    path = BFCL
    cases = [json.loads(line) for line in gzip.open(path, "rt")]
    by_category: dict[str, list[dict[str, Any]]] = {}
    # Expected values longer than the tools' string cap (200 characters) cannot be generated.
    short = [c for c in cases if c.get("ground_truth") and len(json.dumps(c["ground_truth"])) < 600]
    for case in short:
        by_category.setdefault(case["category"], []).append(case)
    return [case for group in by_category.values() for case in group[:6]]


def _declared_order(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` with its keys in the schema's order (the grammar writes declared order)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(value, dict) or not isinstance(props, dict):
        return value
    order = [k for k in props if k in value] + [k for k in value if k not in props]
    return {k: _declared_order(value[k], props.get(k, {})) for k in order}


def _first(accepted: list[Any]) -> Any:
    """The first acceptable value; a dict's own values are lists of acceptable values too."""
    value = accepted[0]
    if isinstance(value, dict):
        return {k: _first(v) for k, v in value.items() if isinstance(v, list) and v and v[0] != ""}
    return value


@pytest.mark.parametrize("case", _bfcl_sample(), ids=lambda case: case["id"])
def test_bfcl_expected_calls_are_in_their_grammar(case: dict[str, Any]) -> None:
    """Every expected call of a BFCL case (its first acceptable value for each parameter) is a
    sentence of the turn's grammar, judged by llama.cpp's sampler on the default vocabulary."""
    from tests.support.bfcl import bfcl_tool

    tools = as_tools([bfcl_tool(f) for f in case["function"]])
    grammar, _ = JSON_FORMAT.grammar(tools, max_calls=len(case["ground_truth"]))
    calls = []
    for expected in case["ground_truth"]:
        (name, params), = expected.items()
        arguments = {k: _first(v) for k, v in params.items() if v and v[0] != ""}
        schema = next(t for t in tools if t.name == name).parameters
        calls.append({"function": {"name": name, "arguments": _declared_order(arguments, schema)}})
    text = JSON_FORMAT.spell(calls)
    assert _accepts(grammar.gbnf, grammar.root, text), text


def test_call_grammar_reads_tools_in_their_common_draft() -> None:
    # Each tool's schema moves under $defs; the call schema takes the draft they all declare,
    # so draft-4 spellings (a boolean exclusiveMinimum) pass its meta-schema check and hold.
    draft4 = "http://json-schema.org/draft-04/schema#"
    tools = as_tools([{"name": f"count{i}", "parameters": {
        "$schema": draft4, "type": "object", "required": ["n"],
        "properties": {"n": {"type": "integer", "minimum": 1, "exclusiveMinimum": True}}}}
        for i in range(2)])
    assert call_schema(tools)["$schema"] == draft4
    grammar, _ = JSON_FORMAT.grammar(tools, max_calls=1)
    assert _accepts(grammar.gbnf, grammar.root, '[{"name": "count1", "arguments": {"n": 2}}]')
    assert not _accepts(grammar.gbnf, grammar.root, '[{"name": "count1", "arguments": {"n": 1}}]')
    mixed = as_tools([weather_google, {"name": "count", "parameters": tools[0].parameters}])
    assert "$schema" not in call_schema(mixed)  # no common draft: read as 2020-12

"""The BFCL suite (bench/suites/bfcl.py): the BFCL AST-checker rules of ``check``, the tune/test split, the dialect
converter ``bfcl_tool`` and how llama-server's replies are read.

No model: hand-made cases for every scoring rule, real functions of the dev file, and a mocked
HTTP transport for the server.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

import httpx

from bench.suites.bfcl import (CATEGORIES, Bounds, Outcome, Server, cases, check, halves, normalise, score,
                               server_command, split_sizes)
from tests.support.bfcl import bfcl_schema, bfcl_tool

SEARCH = {
    "name": "hotel.search",
    "description": "Find hotels.",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string"},
            "max_price": {"type": "float"},
            "rooms": {"type": "integer", "default": 1},
            "amenities": {"type": "array", "items": {"type": "string"}},
            "dates": {"type": "dict", "properties": {"start": {"type": "string"}, "end": {"type": "string"}}},
            "pets": {"type": "boolean", "default": False},
        },
        "required": ["city", "max_price"],
    },
}
WEATHER = {"name": "weather", "parameters": {"type": "dict", "properties": {"city": {"type": "string"}},
                                            "required": ["city"]}}
TRUTH = {"hotel.search": {
    "city": ["New York, NY", "NYC"],
    "max_price": [200.0],
    "rooms": [1, ""],
    "amenities": [["free wifi", "pool"], ""],
    "dates": [{"start": ["2024-03-01"], "end": ["2024-03-04", ""]}, ""],
    "pets": [""],
}}


def case(truth: list[dict[str, Any]] | None, category: str = "simple_python",
         functions: tuple[dict[str, Any], ...] = (SEARCH,)) -> dict[str, Any]:
    return {"id": "t", "category": category, "function": list(functions), "ground_truth": truth}


def search(**arguments: Any) -> tuple[str, dict[str, Any]]:
    return "hotel.search", {"city": "NYC", "max_price": 200.0, **arguments}


SIMPLE = case([TRUTH])


def test_a_matching_call_passes_and_unpacks_as_passed_reason() -> None:
    passed, reason = check(SIMPLE, [search()])
    assert passed and reason == "ok"
    assert check(SIMPLE, [search()])  # the verdict is also true or false itself
    assert not check(SIMPLE, [search(city="Boston")])


def test_strings_are_normalised() -> None:
    assert normalise("New York, NY") == normalise("new-york ny") == "newyorkny"
    assert normalise("a_b*c^d/e.f") == "abcdef"
    assert check(SIMPLE, [search(city="new york ny")])
    assert check(SIMPLE, [search(city="NEW_YORK/NY.")])
    assert not check(SIMPLE, [search(city="New York")])


def test_an_int_passes_for_a_float_but_not_the_other_way() -> None:
    assert check(SIMPLE, [search(max_price=200)])
    assert not check(SIMPLE, [search(max_price="200")])
    assert not check(SIMPLE, [search(rooms=1.0)])  # an integer parameter wants an int
    assert not check(SIMPLE, [search(rooms=True)])  # and a bool is not one
    assert check(SIMPLE, [search(rooms=1)])


def test_an_empty_string_among_the_answers_means_optional() -> None:
    assert check(SIMPLE, [("hotel.search", {"city": "NYC", "max_price": 200.0})])
    truth = {"hotel.search": {**TRUTH["hotel.search"], "rooms": [2]}}
    passed, reason = check(case([truth]), [search()])
    assert not passed and "rooms" in reason  # not optional there: it must be given


def test_a_parameter_outside_the_function_or_the_answers_is_rejected() -> None:
    passed, reason = check(SIMPLE, [search(stars=5)])
    assert not passed and "unexpected" in reason
    passed, reason = check(SIMPLE, [search(pets=True)])  # a property, but no answer gives it a value
    assert not passed and "pets" in reason
    assert not check(SIMPLE, [search(pets="")])  # nor an explicit empty value of the wrong type


def test_a_missing_required_parameter_is_rejected() -> None:
    passed, reason = check(SIMPLE, [("hotel.search", {"city": "NYC"})])
    assert not passed and "required" in reason and "max_price" in reason


def test_the_function_name_must_be_exact() -> None:
    assert not check(SIMPLE, [("hotel_search", search()[1])])
    assert not check(SIMPLE, [("Hotel.Search", search()[1])])


def test_lists_are_compared_in_order_with_normalised_strings() -> None:
    assert check(SIMPLE, [search(amenities=["Free WiFi", "POOL"])])
    assert not check(SIMPLE, [search(amenities=["pool", "free wifi"])])
    assert not check(SIMPLE, [search(amenities=["free wifi"])])


def test_dicts_are_compared_key_by_key() -> None:
    assert check(SIMPLE, [search(dates={"start": "2024/03/01", "end": "2024-03-04"})])
    assert check(SIMPLE, [search(dates={"start": "2024-03-01"})])  # "end" may be omitted
    assert not check(SIMPLE, [search(dates={"end": "2024-03-04"})])  # "start" may not
    assert not check(SIMPLE, [search(dates={"start": "2024-03-01", "nights": 3})])
    assert not check(SIMPLE, [search(dates={"start": "2024-03-02"})])


def test_lists_of_dicts_are_forms_and_anything_deeper_is_literal() -> None:
    """As BFCL's dict checker: strings one level down are normalised, a dict or list inside a
    dict is compared with ``==`` as it is (so case matters there)."""
    function = {"name": "f", "parameters": {"type": "dict", "required": ["rows"], "properties": {
        "rows": {"type": "array", "items": {"type": "dict"}}}}}
    truth = {"f": {"rows": [[{"name": ["Ann"], "at": [{"x": 1.5, "y": "North"}]}, {"name": ["Bob"], "at": [""]}]]}}
    sample = case([truth], functions=(function,))
    assert check(sample, [("f", {"rows": [{"name": "ann", "at": {"x": 1.5, "y": "North"}}, {"name": "Bob"}]})])
    assert check(sample, [("f", {"rows": [{"name": "ann", "at": {"x": 1.5, "y": "North"}}, {"name": "B-O-B"}]})])
    lower = {"name": "ann", "at": {"x": 1.5, "y": "north"}}
    passed, reason = check(sample, [("f", {"rows": [lower, {"name": "Bob"}]})])
    assert not passed and "'at'" in reason  # "north" inside the inner dict is not normalised
    assert not check(sample, [("f", {"rows": [{"name": "Bob"}, {"name": "ann", "at": {"x": 1.5, "y": "North"}}]})])
    assert not check(sample, [("f", {"rows": [{"name": "ann", "at": {"x": 1.5}}, {"name": "Bob"}]})])
    assert not check(sample, [("f", {"rows": [{"name": "ann", "at": {"x": 2, "y": "North"}}, {"name": "Bob"}]})])
    assert not check(sample, [("f", {"rows": [{"name": "ann", "at": {"x": 1.5, "y": "North"}}, "Bob"]})])


ARRAYS = {"name": "stats", "parameters": {"type": "dict", "required": ["scores", "tags"], "properties": {
    "scores": {"type": "array", "items": {"type": "float"}},
    "tags": {"type": "array", "items": {"type": "string"}},
    "ids": {"type": "array", "items": {"type": "integer"}}}}}
ARRAY_CASE = case([{"stats": {"scores": [[1.5, 2.0]], "tags": [["a b", "C"]], "ids": [["1", "2"], ""]}}],
                  functions=(ARRAYS,))


def stats(**arguments: Any) -> tuple[str, dict[str, Any]]:
    return "stats", {"scores": [1.5, 2.0], "tags": ["ab", "c"], **arguments}


def test_array_items_must_have_the_declared_item_type() -> None:
    assert check(ARRAY_CASE, [stats()])
    passed, reason = check(ARRAY_CASE, [stats(tags=["ab", 3])])
    assert not passed and reason.startswith("wrong type for 'tags'") and "of string" in reason
    passed, reason = check(ARRAY_CASE, [stats(scores=["1.5", "2.0"])])
    assert not passed and reason.startswith("wrong type for 'scores'")
    # An int is taken for a float parameter, not for a float item (BFCL promotes only the former).
    passed, reason = check(ARRAY_CASE, [stats(scores=[1.5, 2])])
    assert not passed and reason.startswith("wrong type for 'scores'")


def test_item_types_go_unchecked_when_the_parameter_is_optional() -> None:
    """With ``""`` among the answers BFCL skips the item check: ints where strings are declared
    pass the type check, and fail on the value (compared literally)."""
    passed, reason = check(ARRAY_CASE, [stats(ids=[1, 2])])
    assert not passed and reason.startswith("wrong value for 'ids'")
    assert check(ARRAY_CASE, [stats(ids=["1", "2"])])


def test_an_empty_list_passes_for_an_optional_list() -> None:
    assert check(SIMPLE, [search(amenities=[])])  # BFCL reads the optional "" as the empty list
    assert not check(ARRAY_CASE, [stats(tags=[])])  # not for a required one


def test_a_value_of_the_answers_type_is_a_variable_compared_as_is() -> None:
    function = {"name": "f", "parameters": {"type": "dict", "required": ["n"], "properties": {
        "n": {"type": "integer"}}}}
    sample = case([{"f": {"n": ["count"]}}], functions=(function,))
    assert check(sample, [("f", {"n": "count"})])  # the answers' type (str) where an int is declared
    assert not check(sample, [("f", {"n": "Count"})])  # a variable is not normalised
    assert not check(sample, [("f", {"n": 3})])


def test_a_multiple_case_checks_the_expected_function_and_wants_one_call() -> None:
    sample = case([{"weather": {"city": ["Paris"]}}], "multiple", (SEARCH, WEATHER))
    assert check(sample, [PARIS])
    passed, reason = check(sample, [ROME])
    assert not passed and "expected 'weather'" in reason
    assert not check(sample, [PARIS, PARIS])


def test_every_ground_truth_answer_passes_its_own_case() -> None:
    """The first acceptable value of every parameter (optional ones left out) is a passing call,
    but for three cases that BFCL's own rules make impossible."""
    def first(options: list[Any]) -> Any:
        value = next(v for v in options if v != "")
        if isinstance(value, dict) and all(isinstance(v, list) for v in value.values()):
            return {k: first(v) for k, v in value.items() if "" not in v}
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            return [first([v]) for v in value]
        return value

    failed = []
    for sample in cases(10**6):
        if "irrelevance" in sample["category"]:
            continue
        specs = {f["name"]: f for f in sample["function"]}
        calls = []
        for want in sample["ground_truth"]:
            (name, answers), = want.items()
            required = specs[name]["parameters"].get("required", [])
            calls.append((name, {p: first(v) for p, v in answers.items()
                                 if any(x != "" for x in v) and ("" not in v or p in required)}))
        if not check(sample, calls):
            failed.append(sample["id"])
    # a required parameter with no acceptable value, one whose only answer is "", one not in the spec
    assert failed == ["live_simple_106-63-0", "live_multiple_507-149-4", "live_multiple_862-181-3"]


PARALLEL = case([
    {"weather": {"city": ["Paris"]}},
    {"weather": {"city": ["London"]}},
    {"hotel.search": {"city": ["Rome"], "max_price": [100.0]}},
], "parallel_multiple", (SEARCH, WEATHER))
PARIS, LONDON = ("weather", {"city": "paris"}), ("weather", {"city": "London"})
ROME = ("hotel.search", {"city": "Rome", "max_price": 100})


@pytest.mark.parametrize("order", [(PARIS, LONDON, ROME), (ROME, LONDON, PARIS), (LONDON, ROME, PARIS)])
def test_parallel_calls_match_in_any_order(order: tuple[Any, ...]) -> None:
    assert check(PARALLEL, list(order))


def test_parallel_calls_need_the_exact_count_and_each_expected_call_once() -> None:
    passed, reason = check(PARALLEL, [PARIS, LONDON])
    assert not passed and "expected 3" in reason
    assert not check(PARALLEL, [PARIS, LONDON, ROME, PARIS])
    assert not check(PARALLEL, [PARIS, PARIS, ROME])  # Paris twice leaves London unmatched


def test_parallel_calls_are_matched_greedily_as_bfcl_does() -> None:
    """A perfect matching exists (either <- London, Paris <- Paris), but BFCL gives each expected
    call, in order, the first unused call that passes it: "either" takes Paris and strands the
    second expected call."""
    either = {"weather": {"city": ["Paris", "London"]}}
    sample = case([either, {"weather": {"city": ["Paris"]}}], "parallel", (WEATHER,))
    passed, reason = check(sample, [PARIS, LONDON])
    assert not passed and reason.startswith("no call matches expected call 1")
    assert check(sample, [LONDON, PARIS])  # the same calls in the other order pass


def test_irrelevance_passes_only_without_a_call() -> None:
    for category in ("irrelevance", "live_irrelevance"):
        truths: tuple[list[dict[str, Any]] | None, ...] = (None, [])
        for truth in truths:
            assert check(case(truth, category), []) == (True, "no call")
            assert not check(case(truth, category), [search()])


def test_other_categories_fail_without_a_call() -> None:
    for category in ("simple_python", "multiple", "parallel", "live_simple"):
        assert check(case([TRUTH], category), []) == (False, "no call")


# -- the dialect converter ----------------------------------------------------------------------

SAMPLE = cases(3)


def _types(schema: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(schema, dict):
        if isinstance(schema.get("type"), str):
            found.add(schema["type"])
        for key in ("items", "additionalProperties"):
            found |= _types(schema.get(key))
        for sub in (schema.get("properties") or {}).values():
            found |= _types(sub)
    return found


def test_the_sample_holds_every_category() -> None:
    assert {c["category"] for c in SAMPLE} == {
        "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
        "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance"}
    assert len(SAMPLE) == 30


@pytest.mark.parametrize("sample", SAMPLE, ids=[c["id"] for c in SAMPLE])
def test_real_functions_become_valid_json_schema(sample: dict[str, Any]) -> None:
    for function in sample["function"]:
        tool = bfcl_tool(function)
        assert tool["type"] == "function"
        assert tool["function"]["name"] == function["name"]
        parameters = tool["function"]["parameters"]
        jsonschema.Draft202012Validator.check_schema(parameters)
        assert parameters["type"] == "object"
        assert _types(parameters) <= {"object", "number", "array", "string", "integer", "boolean"}


def test_every_function_of_the_dev_file_converts() -> None:
    distinct = {json.dumps(f, sort_keys=True): f for c in cases(10**6) for f in c["function"]}
    converted = [bfcl_tool(f)["function"]["parameters"] for f in distinct.values()]
    for parameters in converted[::8]:  # the meta-schema check is slow: a spread eighth of them
        jsonschema.Draft202012Validator.check_schema(parameters)


def test_a_real_line_converts_type_by_type() -> None:
    function = next(f for c in SAMPLE for f in c["function"] if f["name"] == "requests.get")
    parameters = bfcl_tool(function)["function"]["parameters"]
    assert parameters["required"] == ["url"]
    assert parameters["properties"]["url"]["type"] == "string"
    assert parameters["properties"]["headers"]["type"] == "object"  # was "dict"
    assert parameters["properties"]["headers"]["properties"]["Content-Type"]["default"] == "application/json"
    assert parameters["properties"]["timeout"] == {**function["parameters"]["properties"]["timeout"], "type": "number"}


def test_each_dialect_type() -> None:
    spec = {"type": "dict", "properties": {
        "a": {"type": "float", "default": 0.5}, "b": {"type": "tuple", "items": {"type": "integer"}},
        "c": {"type": "any"}, "d": {"type": "dict", "properties": {"type": {"type": "boolean"}}},
        "e": {"type": "array", "items": {"type": "dict", "properties": {"x": {"type": "float"}}}},
        "f": {"type": "string", "optional": "True", "enum": ["x", "y"]}}}
    assert bfcl_schema(spec) == {"type": "object", "properties": {
        "a": {"type": "number", "default": 0.5}, "b": {"type": "array", "items": {"type": "integer"}},
        "c": {"type": "string"}, "d": {"type": "object", "properties": {"type": {"type": "boolean"}}},
        "e": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}}},
        "f": {"type": "string", "enum": ["x", "y"]}}}
    assert json.dumps(bfcl_schema(spec)).count('"type": "number"') == 2


def test_an_enum_that_contradicts_its_type_keeps_the_schema_satisfiable() -> None:
    assert bfcl_schema({"type": "boolean", "enum": ["True", "False", "dontcare"]}) == {
        "enum": ["True", "False", "dontcare"]}
    assert bfcl_schema({"type": "integer", "enum": [1, 2]}) == {"type": "integer", "enum": [1, 2]}
    assert bfcl_schema({"type": "array", "items": {"type": "string"}, "enum": ["a", "b"]}) == {
        "type": "array", "items": {"type": "string", "enum": ["a", "b"]}}


def test_an_unknown_type_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown BFCL type"):
        bfcl_schema({"type": "complex"})


# -- undecodable replies, the split, the server's replies ---------------------------------------


def test_an_undecodable_reply_is_no_call_on_irrelevance_only() -> None:
    broken = Outcome(None, "undecodable:JSONDecodeError", 1.0, undecodable=True)
    assert score(case(None, "irrelevance"), broken).passed
    assert not score(SIMPLE, broken).passed
    assert not score(case(None, "live_irrelevance"), Outcome(None, "timeout", 60.0)).passed
    assert not score(case(None, "irrelevance"), Outcome(None, "crash:KeyError: 'x'", 1.0)).passed
    assert score(SIMPLE, Outcome([search()], "", 1.0)) == (True, "ok")


def test_the_split_halves_every_category_by_the_hash_of_the_id() -> None:
    split = halves()
    everything = cases()
    assert set(split) == {c["id"] for c in everything} and set(split.values()) == {"tune", "test"}
    for category, sizes in split_sizes().items():
        assert sizes["tune"] == sum(1 for c in everything if c["category"] == category) // 2
        assert sizes["test"] - sizes["tune"] in (0, 1)
    tune, test = cases(split="tune"), cases(split="test")
    assert len(tune) + len(test) == len(everything)
    assert {c["id"] for c in tune}.isdisjoint(c["id"] for c in test)
    assert all(split[c["id"]] == "test" for c in test)
    # Pinned: the split is fixed once; a change here moves cases between the halves.
    assert [split[f"simple_python_{i}"] for i in (1, 2, 12, 13, 14, 15, 16, 17)] == [
        "tune", "tune", "tune", "tune", "test", "tune", "test", "test"]


def test_the_first_cases_of_a_half_in_file_order() -> None:
    first = cases(2, ["parallel", "irrelevance"], "tune")
    assert [c["category"] for c in first] == ["parallel", "parallel", "irrelevance", "irrelevance"]
    assert all(halves()[c["id"]] == "tune" for c in first)
    assert len(cases(2, CATEGORIES, "test")) == 20


def test_the_server_is_local_with_one_slot_of_the_whole_context() -> None:
    command = server_command("llama-server", "m.gguf", Bounds(30.0, 128, 2048, 1, 2), 8080)
    assert command == ["llama-server", "--jinja", "-m", "m.gguf", "-c", "2048", "-np", "1", "-t", "1", "-tb", "2",
                       "--host", "127.0.0.1", "--port", "8080"]


def _server(reply: httpx.Response, seen: list[dict[str, Any]]) -> Server:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return reply

    server = Server.__new__(Server)  # no process: the transport answers
    server.url, server.bounds = "http://127.0.0.1:1", Bounds(30.0, 99, 2048, 1, 2)
    server.client = httpx.Client(transport=httpx.MockTransport(handle))
    return server


def _chat(*tool_calls: dict[str, Any]) -> httpx.Response:
    message = {"role": "assistant", "content": None if tool_calls else "Hello.", "tool_calls": list(tool_calls)}
    return httpx.Response(200, json={"choices": [{"message": message}]})


def test_the_server_is_asked_like_the_others_and_its_tool_calls_are_read() -> None:
    seen: list[dict[str, Any]] = []
    tools = [bfcl_tool(WEATHER)]
    call = {"type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}}
    outcome = _server(_chat(call, call), seen).run([{"role": "user", "content": "hi"}], tools)
    assert outcome.calls == [("weather", {"city": "Paris"})] * 2 and not outcome.failure
    body = seen[0]
    assert body["tools"] == tools and body["tool_choice"] == "auto" and body["temperature"] == 0.0
    assert body["max_tokens"] == 99 and body["parallel_tool_calls"] is True
    assert _server(_chat(), []).run([], tools).calls == []


def test_the_server_s_undecodable_calls_and_errors() -> None:
    bad = {"type": "function", "function": {"name": "weather", "arguments": '{"city": '}}
    outcome = _server(_chat(bad), []).run([], [])
    assert outcome.calls is None and outcome.undecodable
    listed = {"type": "function", "function": {"name": "weather", "arguments": "[1]"}}
    assert _server(_chat(listed), []).run([], []).undecodable
    failed = _server(httpx.Response(400, json={"error": {"message": "too long"}}), []).run([], [])
    assert failed.calls is None and not failed.undecodable and failed.failure == "error:http 400: too long"

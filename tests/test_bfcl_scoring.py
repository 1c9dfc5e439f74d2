"""bench/bfcl.py scores calls with BFCL's AST-checker rules; these pin the rules."""

from __future__ import annotations

from typing import Any

import jsonschema

from bench.bfcl import bfcl_tool, cases, check

FUNCTION = {"name": "geo.area", "parameters": {"type": "dict", "properties": {
    "shape": {"type": "string"}, "size": {"type": "float"}, "unit": {"type": "string"},
    "points": {"type": "tuple", "items": {"type": "integer"}}}, "required": ["shape", "size"]}}


def case(truth: list[dict[str, Any]], category: str = "simple_python") -> dict[str, Any]:
    return {"category": category, "function": [FUNCTION], "ground_truth": truth}


ONE = case([{"geo.area": {"shape": ["New York-City"], "size": [2.0], "unit": ["km", ""], "points": [[1, 2], ""]}}])


def test_strings_are_normalised_ints_pass_for_floats_and_optional_may_be_omitted() -> None:
    assert check(ONE, [("geo.area", {"shape": "new york city", "size": 2})])
    assert check(ONE, [("geo.area", {"shape": "NewYork_City", "size": 2.0, "unit": "km", "points": [1, 2]})])


def test_wrong_values_extra_or_missing_parameters_fail() -> None:
    assert not check(ONE, [("geo.area", {"shape": "Boston", "size": 2})])
    assert not check(ONE, [("geo.area", {"shape": "new york city", "size": 2, "colour": "red"})])
    assert not check(ONE, [("geo.area", {"size": 2})])
    assert not check(ONE, [("geo.area", {"shape": "new york city", "size": 2, "points": [2, 1]})])
    assert not check(ONE, [("other", {"shape": "new york city", "size": 2})])


def test_parallel_calls_match_in_any_order_with_the_count_exact() -> None:
    two = case([{"geo.area": {"shape": ["a"], "size": [1.0]}}, {"geo.area": {"shape": ["b"], "size": [2.0]}}], "parallel")
    b, a = ("geo.area", {"shape": "b", "size": 2}), ("geo.area", {"shape": "a", "size": 1})
    assert check(two, [b, a])
    assert not check(two, [a])
    assert not check(two, [a, b, a])


def test_irrelevance_passes_only_without_calls() -> None:
    irrelevant = case([], "irrelevance")
    assert check(irrelevant, [])
    assert not check(irrelevant, [("geo.area", {"shape": "a", "size": 1})])
    assert not check(ONE, [])


def test_the_dialect_becomes_json_schema() -> None:
    for sample in cases(3):
        for function in sample["function"]:
            tool = bfcl_tool(function)
            jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])
            assert '"dict"' not in str(tool) and "'float'" not in str(tool)

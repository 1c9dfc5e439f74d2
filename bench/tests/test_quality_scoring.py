"""The quality suite (bench/suites/quality.py): how answers are read and facts counted (no model)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from bench.suites.quality import (
    MISSING,
    OWN_TASKS,
    SOURCES,
    all_cases,
    bfcl_facts,
    conversation,
    facts,
    first_json,
    judge,
    same,
    variant_settings,
)


@pytest.mark.parametrize(
    ("value", "gold", "right"),
    [
        ("  New   york ", "New York", True),  # case and whitespace only
        ("New York.", "New York", False),
        (38, 38, True),
        (38.0, 38, True),
        (1.99, 1.99, True),
        ("38", 38, False),  # a number must be a number
        (True, 1, False),
        (1, True, False),
        (False, False, True),
        ("2025-03-14", dt.date(2025, 3, 14), True),
        ("2025-03-14T00:00:00", dt.date(2025, 3, 14), True),
        ("14 March 2025", dt.date(2025, 3, 14), False),  # dates as ISO
        (["bob", "Alice", "Chen"], ["Alice", "Bob", "Chen"], True),  # a list of scalars is a multiset
        (["Alice", "Bob"], ["Alice", "Bob", "Chen"], False),
        (["Alice", "Alice", "Bob"], ["Alice", "Bob", "Bob"], False),
        (None, None, True),
        (MISSING, None, True),
        (0, None, False),
    ],
)
def test_one_value_against_gold(value: Any, gold: Any, right: bool) -> None:
    assert same(value, gold) is right


def test_facts_count_fields_and_items_of_object_lists() -> None:
    gold = {"customer": "Acme", "items": [{"product": "mice", "quantity": 10}, {"product": "pens", "quantity": 2}],
            "tags": ["a", "b"]}
    answer = {"customer": "acme", "items": [{"product": "Mice", "quantity": 10}], "tags": ["b", "a"]}
    assert facts(answer, gold) == [
        ("customer", True), ("items[0].product", True), ("items[0].quantity", True),
        ("items[1].product", False), ("items[1].quantity", False), ("tags", True),
    ]
    assert [ok for _, ok in facts("not an object", gold)] == [False] * 6


def test_bfcl_facts_follow_bfcl_value_rules() -> None:
    gold = {"city": ["New York, NY", "NYC"], "rooms": [1, ""], "pets": [""]}
    assert bfcl_facts({"city": "new york ny", "rooms": 1}, gold) == [("city", True), ("rooms", True), ("pets", True)]
    assert bfcl_facts({"city": "Boston", "rooms": None, "pets": True}, gold) == [
        ("city", False), ("rooms", True), ("pets", False)]


def test_first_json_object_is_the_answer() -> None:
    assert first_json('Sure! ```json\n{"a": {"b": 1}}\n``` and {"c": 2}') == {"a": {"b": 1}}
    assert first_json('{broken {"a": 1}') == {"a": 1}
    assert first_json("no JSON here") is MISSING


def test_a_reply_without_json_or_a_timeout_gets_every_fact_wrong() -> None:
    case = next(c for c in OWN_TASKS if c.key == "weather")
    good = judge(case, "default", "text", '{"city": "Bergen", "temperature_c": 7.5, "condition": "rain"}', True, 0.1)
    assert (good.right, good.total, good.wrong) == (3, 3, [])
    for status, text in (("text", "It rains in Bergen."), ("timeout", ""), ("invalid", '{"city": "Bergen"')):
        bad = judge(case, "default", status, text, False, 0.1)
        assert (bad.right, bad.total) == (0, 3)


def test_cases_variants_and_prompts() -> None:
    cases = all_cases(3, SOURCES)
    assert len(OWN_TASKS) >= 30 and len({c.key for c in OWN_TASKS}) == len(OWN_TASKS)
    assert [c.source for c in cases].count("simple_python") == 3
    bfcl = next(c for c in cases if c.key == "simple_python_1")
    assert bfcl.gold == {"number": [5]} and bfcl.output_type.model_json_schema()["required"] == ["number"]
    assert variant_settings("listing+after") == {"describe": "listing", "hint_placement": "after_prompt"}
    with pytest.raises(ValueError):
        variant_settings("louder")
    after = conversation(bfcl, "after")
    assert [m["role"] for m in after] == ["user"]
    assert after[0]["content"].startswith("Calculate the factorial") and '"number": integer' in after[0]["content"]
    assert conversation(bfcl, "default")[0]["role"] == "system"

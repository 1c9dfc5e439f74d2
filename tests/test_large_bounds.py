"""Counts beyond llama.cpp's repetition limits: exact grammars that llama.cpp loads, or a typed
refusal naming the keyword, never a grammar it refuses or a bound silently dropped."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from structgen import Grammar, SchemaError, UnsupportedSchemaError
from structgen._gbnf import Recognizer
from structgen import json_schema_to_gbnf
from structgen._gbnf._rules import RuleSet
from structgen._gbnf import _expr
from structgen._gbnf._expr import repeat
from structgen.testing import accepts

HUGE = 10**12

# (schema, texts accepted, texts rejected); every grammar must also load in llama.cpp.
TABLE: list[tuple[str, Any, list[str], list[str]]] = [
    ("maxLength", {"type": "string", "maxLength": HUGE}, ['""', '"ab"'], ['1']),
    ("minLength", {"type": "string", "minLength": HUGE}, [], ['""', '"ab"']),
    ("64-bit maxLength", {"type": "string", "minLength": 3, "maxLength": 2**64},
     ['"abc"', '"abcdef"'], ['"ab"']),
    ("maxLength of a pattern", {"type": "string", "pattern": "^a*$", "maxLength": HUGE},
     ['""', '"aaa"'], ['"ab"']),
    ("minLength of a pattern", {"type": "string", "pattern": "^[a-z]+$", "minLength": HUGE},
     [], ['"ab"']),
    ("maxItems", {"type": "array", "items": {"type": "null"}, "maxItems": 2**64},
     ['[]', '[null, null]'], ['[1]']),
    ("minItems", {"type": "array", "items": {"type": "null"}, "minItems": 2**64},
     [], ['[]', '[null]']),
    ("maxProperties", {"type": "object", "maxProperties": HUGE},
     ['{}', '{"a": 1, "b": [2]}'], ['[]']),
    ("minProperties", {"type": "object", "minProperties": HUGE}, [], ['{}', '{"a": 1}']),
    ("maxProperties of a dict", {"type": "object", "additionalProperties": {"type": "integer"},
                                 "maxProperties": 7000},
     ['{}', '{"a": 1, "b": 2}'], ['{"a": "x"}']),
    ("closed object", {"type": "object", "properties": {"a": {}, "b": {}},
                       "additionalProperties": False, "maxProperties": HUGE},
     ['{}', '{"a": 1, "b": 2}'], ['{"c": 1}']),
    ("closed object, unreachable minimum",
     {"type": ["object", "null"], "properties": {"a": {}}, "additionalProperties": False,
      "minProperties": 2}, ['null'], ['{}', '{"a": 1}']),
    ("dict with bounds", {"type": "object", "additionalProperties": {"type": "integer"},
                          "minProperties": 2, "maxProperties": 3},
     ['{"a": 1, "b": 2}', '{"a": 1, "b": 2, "c": 3}'],
     ['{}', '{"a": 1}', '{"a": 1, "b": 2, "c": 3, "d": 4}']),
]


@pytest.mark.parametrize("name, schema, good, bad", TABLE, ids=[row[0] for row in TABLE])
def test_large_bounds_load_and_decide_exactly(name: str, schema: Any, good: list[str],
                                              bad: list[str]) -> None:
    grammar = Grammar.from_json_schema(schema)  # our parser's copy of llama.cpp's limits
    assert [t for t in good if not accepts(grammar, t)] == []  # llama.cpp loads it natively
    assert [t for t in bad if accepts(grammar, t)] == []
    assert accepts(grammar.gbnf, "null") == ("null" in good)


@pytest.mark.parametrize("schema, keyword", [
    ({"type": "string", "maxLength": 2**64 + 1}, "maxLength"),
    ({"type": "string", "minLength": 1e300}, "minLength"),
    ({"type": "array", "maxItems": 10**30}, "maxItems"),
    ({"properties": {"a": {"type": "object", "minProperties": 10**40}}}, "minProperties"),
    # Counting members between declared keys needs a state per count.
    ({"type": "object", "properties": {"a": {}}, "maxProperties": HUGE}, "maxProperties"),
])
def test_counts_beyond_the_limit_are_refused_by_name(schema: Any, keyword: str) -> None:
    with pytest.raises(UnsupportedSchemaError) as info:
        json_schema_to_gbnf(schema)
    assert info.value.keyword == keyword
    assert info.value.pointer in ("#", "#/properties/a")


def test_non_strict_drops_a_count_beyond_the_limit_and_says_so() -> None:
    schema = {"type": "string", "pattern": "^[a-c]*$", "maxLength": 2**64 + 1}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grammar = json_schema_to_gbnf(schema, strict=False)
    assert ["#/maxLength" in str(w.message) for w in caught] == [True]
    assert accepts(grammar, '"abc"') and not accepts(grammar, '"abd"')


def test_closed_object_that_needs_too_many_members_accepts_nothing() -> None:
    schema = {"type": "object", "properties": {"a": {}}, "additionalProperties": False,
              "minProperties": HUGE}
    with pytest.raises(SchemaError, match="accepts no value"):
        json_schema_to_gbnf(schema)


# --- the block scheme, exhaustively, with a small block ---------------------------------------

def _lengths_accepted(low: int, high: int | None, up_to: int) -> list[int]:
    rules = RuleSet()
    rules.add_named("root", repeat('"a"', low, high, rules=rules, hint="r") or '""')
    recognizer = Recognizer(rules.to_gbnf())
    return [n for n in range(up_to + 1) if recognizer.accepts("a" * n)]


def test_block_repetition_counts_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    # Blocks of 3: counts up to 40 nest three levels deep, as 10**9 does with blocks of 1000.
    monkeypatch.setattr(_expr, "MAX_REPEAT", 3)
    up_to = 45
    for low in range(0, 31, 3):
        for high in [None, low, low + 1, low + 2, low + 4, low + 9, low + 10, low + 14]:
            expected = [n for n in range(up_to + 1) if n >= low and (high is None or n <= high)]
            assert _lengths_accepted(low, high, up_to) == expected, (low, high)

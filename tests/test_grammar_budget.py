"""The grammar size budget: a conversion over ``max_grammar_bytes`` is a typed refusal up front."""

from __future__ import annotations

from typing import Any

import pytest

from structgen import Grammar, GrammarOptions, UnsupportedSchemaError, json_schema_to_gbnf
from structgen._schema.options import DEFAULT_MAX_GRAMMAR_BYTES


def branching(levels: int) -> dict[str, Any]:
    """``allOf`` of two-branch ``anyOf``s: the intersection spells 2**levels alternatives."""
    return {"allOf": [
        {"anyOf": [
            {"type": "object", "properties": {f"p{i}": {"type": "integer"}}, "required": [f"p{i}"]},
            {"type": "object", "properties": {f"q{i}": {"type": "string"}}, "required": [f"q{i}"]},
        ]}
        for i in range(levels)
    ]}


SCHEMA = branching(5)
SIZE = len(json_schema_to_gbnf(SCHEMA, max_grammar_bytes=None).encode())


def test_a_grammar_over_the_budget_is_refused_with_its_size() -> None:
    with pytest.raises(UnsupportedSchemaError) as caught:
        json_schema_to_gbnf(SCHEMA, max_grammar_bytes=SIZE - 1)
    assert caught.value.pointer == "#"
    assert f"{SIZE:,} bytes" in str(caught.value) and "max_grammar_bytes" in str(caught.value)


def test_the_budget_is_inclusive_and_raising_it_lets_the_grammar_through() -> None:
    at_limit = json_schema_to_gbnf(SCHEMA, max_grammar_bytes=SIZE)
    assert at_limit == json_schema_to_gbnf(SCHEMA, max_grammar_bytes=None)
    assert Grammar.from_json_schema(SCHEMA, max_grammar_bytes=SIZE).gbnf == at_limit


def test_the_size_counts_utf8_bytes_not_characters() -> None:
    schema = {"enum": ["é" * 200]}
    text = json_schema_to_gbnf(schema, max_grammar_bytes=None)
    assert len(text.encode()) > len(text)
    with pytest.raises(UnsupportedSchemaError):
        json_schema_to_gbnf(schema, max_grammar_bytes=len(text))
    assert json_schema_to_gbnf(schema, max_grammar_bytes=len(text.encode())) == text


def test_the_default_budget_applies_to_every_entry_point() -> None:
    assert GrammarOptions().max_grammar_bytes == DEFAULT_MAX_GRAMMAR_BYTES
    with pytest.raises(UnsupportedSchemaError):
        Grammar.from_json_schema(SCHEMA, max_grammar_bytes=SIZE // 2)


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "100"])
def test_the_budget_is_none_or_a_positive_int(bad: Any) -> None:
    with pytest.raises(ValueError):
        GrammarOptions(max_grammar_bytes=bad)

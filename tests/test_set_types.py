"""``set[X]`` and ``frozenset[X]`` generate: Pydantic builds the set from the list it reads, so
the grammar leaves duplicates to it, unless a ``min_length`` of 2 or more could be undercut by
them; a raw JSON Schema's ``uniqueItems`` is enforced or refused as before."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, TypeAdapter

import structgen
from structgen import Grammar, UnsupportedSchemaError
from structgen import json_schema_to_gbnf
from structgen._types import json_schema_of
from structgen.testing import accepts, assert_round_trip, assert_samples_validate


class Tagged(BaseModel):
    tags: set[str]
    ids: frozenset[int] = frozenset()
    groups: list[set[str]] = []


def test_set_fields_accept_duplicates_that_pydantic_folds() -> None:
    grammar = Grammar.from_type(Tagged)
    text = '{"tags": ["a", "b", "a"], "ids": [1, 1], "groups": [["x", "x"], []]}'
    assert accepts(grammar, text)
    assert Tagged.model_validate_json(text) == Tagged(tags={"a", "b"}, ids=frozenset({1}),
                                                      groups=[{"x"}, set()])
    assert not accepts(grammar, '{"tags": [1]}')


def test_a_model_with_set_fields_can_be_decorated() -> None:
    @structgen.structured(refusal=True)
    class Labels(BaseModel):
        labels: set[str]

    assert accepts(Grammar.from_type(Labels, refusal=True), '{"labels": ["x", "x"]}')


@pytest.mark.parametrize("tp", [Tagged, frozenset[Literal["a", "b"]], set[int]], ids=str)
def test_set_types_round_trip_and_their_samples_validate(tp: Any) -> None:
    assert_round_trip(tp, max_examples=15)
    assert_samples_validate(tp, max_examples=15)


def test_the_schema_of_a_set_leaves_duplicates_to_pydantic() -> None:
    assert json_schema_of(set[int]) == {"type": "array", "items": {"type": "integer"}}
    bounded = json_schema_of(Annotated[frozenset[str], Field(min_length=1, max_length=2)])
    assert "uniqueItems" not in bounded and (bounded["minItems"], bounded["maxItems"]) == (1, 2)


def test_length_bounds_hold_with_duplicates() -> None:
    tp = Annotated[set[str], Field(min_length=1, max_length=2)]
    grammar = Grammar.from_type(tp)
    assert accepts(grammar, '["a", "a"]') and TypeAdapter(tp).validate_json('["a", "a"]') == {"a"}
    assert not accepts(grammar, "[]") and not accepts(grammar, '["a", "b", "c"]')


def test_a_set_of_at_least_two_keeps_unique_items() -> None:
    # ["a", "a"] is one member: duplicates would undercut min_length=2.
    small = Annotated[set[Literal["a", "b", "c"]], Field(min_length=2)]
    assert json_schema_of(small)["uniqueItems"] is True
    grammar = Grammar.from_type(small)
    assert accepts(grammar, '["a", "b"]') and not accepts(grammar, '["a", "a"]')
    with pytest.raises(UnsupportedSchemaError) as info:
        Grammar.from_type(Annotated[set[str], Field(min_length=2)])
    assert (info.value.pointer, info.value.keyword) == ("#", "uniqueItems")


def test_unique_items_of_a_raw_schema_is_still_enforced_or_refused() -> None:
    with pytest.raises(UnsupportedSchemaError) as info:
        json_schema_to_gbnf({"type": "array", "items": {"type": "string"}, "uniqueItems": True})
    assert info.value.keyword == "uniqueItems"
    small = json_schema_to_gbnf({"type": "array", "items": {"enum": [1, 2]}, "uniqueItems": True})
    assert accepts(small, "[1, 2]") and not accepts(small, "[1, 1]")

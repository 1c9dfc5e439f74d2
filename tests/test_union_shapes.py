"""Unions written so that llama.cpp's sampler follows few alternatives at once: shared beginnings
factored out, arrays alike but for their counts joined. Checked on the stacks structgen's
recognizer keeps (the ones llama.cpp keeps) and on llama.cpp's own sampler."""

from __future__ import annotations

import json
from typing import Any, Literal, Union

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from structgen import Grammar, json_schema_to_gbnf
from structgen._gbnf._recognizer import Recognizer
from structgen._gbnf._factor import factored_union
from structgen.testing import accepts


class Leaf(BaseModel):
    children: list[Node]
    kind: Literal["leaf"]


class Branch(BaseModel):
    children: list[Node]
    kind: Literal["branch"]


class Note(BaseModel):
    text: str
    kind: Literal["note"]


Node = Union[Leaf, Branch]
Leaf.model_rebuild()
Branch.model_rebuild()


def tree(depth: int) -> dict[str, Any]:
    """A chain of ``depth`` branches around a leaf."""
    node: dict[str, Any] = {"children": [], "kind": "leaf"}
    for _ in range(depth):
        node = {"children": [node], "kind": "branch"}
    return node


def most_stacks(gbnf: str, text: str) -> int:
    state, most = Recognizer(gbnf).initial(), 0
    for ch in text:
        next_state = state.advance(ch)
        assert next_state is not None, f"rejected at {ch!r}"
        state = next_state
        most = max(most, len(state.stacks))
    assert state.is_accepting()
    return most


def test_objects_that_part_after_a_nested_value_share_one_reading_of_it() -> None:
    # The kind comes after the children: unfactored, both alternatives are followed through the
    # whole subtree, and nested the stacks grow threefold a level.
    gbnf = Grammar.from_type(Node).gbnf
    assert gbnf.startswith('root ::= "{" "\\"children\\"" ": "')
    shallow, deep = (most_stacks(gbnf, json.dumps(tree(d))) for d in (2, 12))
    assert shallow == deep <= 4


def test_alternatives_that_begin_alike_are_factored_beside_one_that_does_not() -> None:
    gbnf = Grammar.from_type(Union[Node, None])
    assert gbnf.gbnf.startswith('root ::= "{" "\\"children\\"" ": "')
    assert gbnf.gbnf.splitlines()[0].endswith('| "null"')
    assert most_stacks(gbnf.gbnf, json.dumps(tree(2))) == most_stacks(gbnf.gbnf, json.dumps(tree(12)))
    assert accepts(gbnf, "null")


def test_within_a_group_those_that_share_more_are_factored_again() -> None:
    # All three begin with "{"; the two with children first share them.
    gbnf = Grammar.from_type(Union[Leaf, Branch, Note]).gbnf
    root = gbnf.splitlines()[0]
    assert root.startswith('root ::= "{" ( "\\"children\\"" ": "') and '"\\"text\\""' in root
    assert most_stacks(gbnf, json.dumps(tree(2))) == most_stacks(gbnf, json.dumps(tree(12)))
    assert accepts(gbnf, json.dumps({"text": "hi", "kind": "note"}))
    assert not accepts(gbnf, json.dumps({"text": "hi", "kind": "leaf"}))


def test_the_factored_grammar_decides_as_llama_cpp_does() -> None:
    gbnf = Grammar.from_type(Node).gbnf
    assert accepts(gbnf, json.dumps(tree(14)))
    assert not accepts(gbnf, json.dumps(tree(3)).replace('"leaf"', '"twig"'))
    assert not accepts(gbnf, '{"children": [], "kind": "branch", "kind": "leaf"}')


def test_alternatives_that_part_at_once_are_left_as_they_are() -> None:
    gbnf = json_schema_to_gbnf({"anyOf": [
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
         "additionalProperties": False},
        {"type": "array", "items": {"type": "integer"}}]})
    assert gbnf.splitlines()[0].count("|") == 1 and "(" not in gbnf.splitlines()[0]


def test_a_shared_beginning_of_literals_alone_is_left_as_it_is() -> None:
    body = factored_union("a | b", {"a": '"{" "\\"k\\"" ": " "1" "}"',
                                    "b": '"{" "\\"k\\"" ": " "2" "}"'}.get)
    assert body is None


def test_an_alternative_that_is_the_shared_beginning_makes_the_rest_optional() -> None:
    rules = {"a": '"[" item', "b": '"[" item "," item', "item": '"x"'}
    assert factored_union("a | b", rules.get) == '"[" item ( "," item )?'


def test_groups_and_suffixes_are_compared_whole() -> None:
    rules = {"a": 'item ( "," item )* "a"', "b": 'item ( "," item )* "b"', "item": '[0-9]+'}
    assert factored_union("a | b", rules.get) == 'item ( "," item )* ( "a" | "b" )'


KINDS = st.lists(st.sampled_from(["integer", "string"]), min_size=0, max_size=3)


@settings(max_examples=40, deadline=None)
@given(KINDS, KINDS, KINDS)
def test_factoring_keeps_the_language(shared: list[str], left: list[str], right: list[str]) -> None:
    # Two closed objects with the same leading members and different tails: each one's
    # instances are accepted, a mix of the two is not, by llama.cpp's own sampler.
    def members(kinds: list[str], start: int) -> dict[str, Any]:
        return {f"m{start + i}": {"type": kind} for i, kind in enumerate(kinds)}

    def obj(tail: list[str], last: str) -> dict[str, Any]:
        props = members(shared, 0) | members(tail, len(shared)) | {last: {"const": 1}}
        return {"type": "object", "properties": props, "required": list(props),
                "additionalProperties": False}

    def instance(tail: list[str], last: str) -> str:
        kinds = shared + tail
        values = {f"m{i}": 1 if k == "integer" else "x" for i, k in enumerate(kinds)}
        return json.dumps(values | {last: 1})

    gbnf = json_schema_to_gbnf({"anyOf": [obj(left, "left"), obj(right, "right")]})
    first_left, first_right = (shared + left)[:1], (shared + right)[:1]
    assert ("( " in gbnf.splitlines()[0]) == bool(first_left and first_left == first_right)
    assert accepts(gbnf, instance(left, "left"))
    assert accepts(gbnf, instance(right, "right"))
    assert not accepts(gbnf, instance(left, "right")) or left == right
    assert not accepts(gbnf, json.dumps({"left": 1, "right": 1}))


def test_arrays_alike_but_for_their_counts_keep_the_stacks_from_growing_with_depth() -> None:
    gbnf = json_schema_to_gbnf({"anyOf": [
        {"type": "array", "items": {"$ref": "#"}, "minItems": 1},
        {"type": "array", "items": {"$ref": "#"}, "maxItems": 3}, {"type": "integer"}]})
    shallow, deep = (most_stacks(gbnf, "[" * d + "1" + "]" * d) for d in (3, 12))
    assert shallow == deep

"""$ref resolution: $id base URIs, anchors, other documents, legacy ids, cycles and recursion."""

from __future__ import annotations

from typing import Any

import pytest

from structgen._errors import SchemaError
from structgen import json_schema_to_gbnf
from structgen.testing import accepts

REMOTE = {
    "https://example.com/schemas/name.json": {
        "$defs": {"short": {"type": "string", "maxLength": 3}},
        "$ref": "#/$defs/short",
    },
    "https://example.com/schemas/tree.json": {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "tree.json"}}},
        "additionalProperties": False,
    },
}

CASES: list[tuple[str, Any, list[str], list[str]]] = [
    ("$id changes the base of relative refs", {
        "$id": "https://example.com/schemas/root.json",
        "properties": {"n": {"$ref": "name.json"}}, "type": "object"},
     ['{"n": "abc"}'], ['{"n": "abcd"}']),
    ("nested $id resources", {
        "$id": "https://example.com/root.json",
        "$defs": {"inner": {"$id": "inner/", "$defs": {"x": {"type": "integer"}},
                            "$ref": "#/$defs/x"}},
        "$ref": "inner/"},
     ['1'], ['"1"']),
    ("anchor in another resource", {
        "$id": "https://example.com/root.json",
        "$ref": "other.json#num",
        "$defs": {"o": {"$id": "other.json", "$defs": {"n": {"$anchor": "num",
                                                             "type": "number"}}}}},
     ['1.5'], ['"x"']),
    ("recursive remote document", {"$ref": "https://example.com/schemas/tree.json"},
     ['{}', '{"kids": [{"kids": []}]}'], ['{"kids": [1]}']),
    ("urn base", {"$id": "urn:example:root", "$defs": {"b": {"type": "boolean"}},
                  "$ref": "#/$defs/b"},
     ['true'], ['1']),
    ("draft 4 id", {"$schema": "http://json-schema.org/draft-04/schema#",
                    "id": "https://example.com/d4.json",
                    "definitions": {"s": {"type": "string"}},
                    "$ref": "#/definitions/s"},
     ['"x"'], ['1']),
    ("ref siblings are intersected", {"$defs": {"n": {"type": "integer"}},
                                      "$ref": "#/$defs/n", "minimum": 5},
     ['5'], ['4']),
    ("mutual recursion through objects", {
        "$defs": {"a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}},
                        "additionalProperties": False},
                  "b": {"type": "array", "items": {"$ref": "#/$defs/a"}}},
        "$ref": "#/$defs/a"},
     ['{"b": [{}, {"b": []}]}'], ['{"b": [1]}']),
]


@pytest.mark.parametrize("name,schema,good,bad", CASES,
                         ids=[c[0] for c in CASES])
def test_refs(name: str, schema: Any, good: list[str], bad: list[str]) -> None:
    grammar = json_schema_to_gbnf(schema, refs=REMOTE)
    for text in good:
        assert accepts(grammar, text), text
    for text in bad:
        assert not accepts(grammar, text), text


def test_refs_inputs_are_not_mutated() -> None:
    before = repr(REMOTE)
    json_schema_to_gbnf({"$ref": "https://example.com/schemas/tree.json"}, refs=REMOTE)
    assert repr(REMOTE) == before


def test_network_needs_allow_fetch() -> None:
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf({"$ref": "https://example.com/not-given.json"})
    assert "allow_fetch" in str(info.value)


def test_pure_cycle_names_ref() -> None:
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf({"$ref": "#"})
    assert info.value.keyword == "$ref"


def test_recursive_oneof_of_references() -> None:
    schema = {
        "$defs": {
            "cond": {"oneOf": [
                {"type": "object", "properties": {"and": {"type": "array",
                                                          "items": {"$ref": "#/$defs/cond"}}},
                 "required": ["and"], "additionalProperties": False},
                {"type": "object", "properties": {"leaf": {"type": "string"}},
                 "required": ["leaf"], "additionalProperties": False}]}},
        "$ref": "#/$defs/cond"}
    grammar = json_schema_to_gbnf(schema)
    assert accepts(grammar, '{"and": [{"leaf": "x"}, {"and": []}]}')
    assert not accepts(grammar, '{"and": [{"leaf": 1}]}')


def test_dynamic_ref_resolves_in_the_dynamic_scope() -> None:
    tree = {"$id": "https://example.com/tree.json", "$dynamicAnchor": "node",
            "type": "object",
            "properties": {"data": True,
                           "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}}
    strict = {"$id": "https://example.com/strict-tree.json", "$dynamicAnchor": "node",
              "$ref": "tree.json", "unevaluatedProperties": False}
    grammar = json_schema_to_gbnf(strict, refs={"https://example.com/tree.json": tree})
    assert accepts(grammar, '{"children": [{"data": 1}]}')
    assert not accepts(grammar, '{"children": [{"daat": 1}]}')
    loose = json_schema_to_gbnf({"$ref": "https://example.com/tree.json"},
                                refs={"https://example.com/tree.json": tree})
    assert accepts(loose, '{"children": [{"daat": 1}]}')


@pytest.mark.parametrize("name", ["value", "ws", "latin1", "char", "chars"])
def test_definitions_named_like_builtin_rules(name: str) -> None:
    # A definition's rule takes its name from the definition; the rules every grammar shares
    # (any JSON value, flexible whitespace, the \u spellings of characters) must not end up
    # pointing at it.
    schema = {"$defs": {name: {"type": "boolean"}}, "type": "object",
              "properties": {"b": {"$ref": f"#/$defs/{name}"}, "s": {"type": "string"}}}
    for whitespace, extra in (("compact", '{"x": 1, "s": "\\u0101"}'),
                              ("flexible", '{ "x" : [ 1 ] , "s" : "\\u0101" }')):
        grammar = json_schema_to_gbnf(schema, whitespace=whitespace)
        assert accepts(grammar, extra)
        assert accepts(grammar, '{"b": true, "y": {"z": null}}')
        assert not accepts(grammar, '{"b": 1}')

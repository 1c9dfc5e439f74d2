"""The converter's API: options, typed errors (pointer and keyword), purity, determinism."""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import pytest

from structgen._errors import SchemaError, UnsupportedSchemaError
from structgen import json_schema_to_gbnf
from structgen._schema import canonical_json, convert, refusal_json
from structgen._schema.options import GrammarOptions
from structgen.testing import accepts

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0},
                   "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["name"],
}


def test_root_rule_and_determinism() -> None:
    first = json_schema_to_gbnf(PERSON)
    assert first.startswith("root ::= ")
    assert json_schema_to_gbnf(copy.deepcopy(PERSON)) == first


def test_input_is_never_mutated() -> None:
    schema = {"allOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": copy.deepcopy(PERSON)},
              "properties": {"x": {"enum": [1, 2]}}}
    before = copy.deepcopy(schema)
    json_schema_to_gbnf(schema, additional_properties=False)
    assert schema == before


def test_schema_as_json_text_and_bool() -> None:
    assert json_schema_to_gbnf(json.dumps(PERSON)) == json_schema_to_gbnf(PERSON)
    assert accepts(json_schema_to_gbnf(True), "[1]")


@pytest.mark.parametrize("bad", [1, None, ["type"], 2.5])
def test_non_schema_types_raise_type_error(bad: Any) -> None:
    with pytest.raises(TypeError):
        json_schema_to_gbnf(bad)


def test_convert_takes_options() -> None:
    grammar = convert(PERSON, GrammarOptions(whitespace="minified"))
    assert accepts(grammar, '{"name":"a","age":3}')
    assert not accepts(grammar, '{"name": "a"}')


@pytest.mark.parametrize("value", [
    {"name": "a", "tags": ["x", "y"]}, {"name": "b", "age": 0}, {"name": "é\n"},
])
@pytest.mark.parametrize("whitespace", ["compact", "minified", "flexible"])
def test_canonical_json_is_accepted(value: Any, whitespace: str) -> None:
    grammar = json_schema_to_gbnf(PERSON, whitespace=whitespace)
    assert accepts(grammar, canonical_json(value, whitespace))


def test_flexible_whitespace_is_bounded() -> None:
    grammar = json_schema_to_gbnf(PERSON, whitespace="flexible")
    assert accepts(grammar, '{\n  "name" : "a",\n  "age": 1\n}')
    assert not accepts(grammar, '{' + ' ' * 50 + '"name": "a"}')


def test_prop_order_and_required_first() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"},
                                               "b": {"type": "integer"}},
              "required": ["b"], "additionalProperties": False}
    assert accepts(json_schema_to_gbnf(schema), '{"a": 1, "b": 2}')
    assert not accepts(json_schema_to_gbnf(schema), '{"b": 2, "a": 1}')
    assert accepts(json_schema_to_gbnf(schema, prop_order=["b"]), '{"b": 2, "a": 1}')
    assert accepts(json_schema_to_gbnf(schema, key_order="required-first"), '{"b": 2, "a": 1}')


def test_additional_properties_option_closes_open_objects() -> None:
    grammar = json_schema_to_gbnf(PERSON, additional_properties=False)
    assert accepts(grammar, '{"name": "a"}')
    assert not accepts(grammar, '{"name": "a", "x": 1}')
    explicit = dict(PERSON, additionalProperties=True)
    assert accepts(json_schema_to_gbnf(explicit, additional_properties=False),
                   '{"name": "a", "x": 1}')


def test_max_string_length_caps_unbounded_strings() -> None:
    grammar = json_schema_to_gbnf({"type": "string"}, max_string_length=3)
    assert accepts(grammar, '"abc"')
    assert not accepts(grammar, '"abcd"')


def test_max_string_length_leaves_declared_bounds_alone() -> None:
    longer = json_schema_to_gbnf({"type": "string", "maxLength": 5}, max_string_length=3)
    assert accepts(longer, '"abcde"') and not accepts(longer, '"abcdef"')
    at_least = json_schema_to_gbnf({"type": "string", "minLength": 4}, max_string_length=3)
    assert accepts(at_least, '"abcd"') and not accepts(at_least, '"abcde"')
    assert not accepts(at_least, '"abc"')


def test_max_string_length_caps_free_text_only() -> None:
    # A pattern's automaton times the cap could grow the grammar a hundredfold: left as it is.
    pattern = {"type": "string", "pattern": "^([a-z]+[0-9])+$"}
    assert json_schema_to_gbnf(pattern, max_string_length=3) == json_schema_to_gbnf(pattern)
    keys = json_schema_to_gbnf({"type": "object", "additionalProperties": {"type": "integer"}},
                               max_string_length=3)
    assert accepts(keys, '{"abc": 1}') and not accepts(keys, '{"abcd": 1}')
    # keys that must avoid declared names keep their trie; their values are capped
    open_object = {"type": "object", "properties": {"name": {"type": "string"}}}
    assert (json_schema_to_gbnf(open_object, max_string_length=3).count("key")
            == json_schema_to_gbnf(open_object).count("key"))
    assert not accepts(json_schema_to_gbnf(open_object, max_string_length=3), '{"name": "abcd"}')


def test_refusal_alternative() -> None:
    grammar = json_schema_to_gbnf({"type": "integer"}, refusal=True)
    assert accepts(grammar, "3")
    assert accepts(grammar, refusal_json("I cannot say"))
    assert not accepts(grammar, refusal_json(""))
    assert not accepts(grammar, '{"refusal": 3}')
    minified = json_schema_to_gbnf({"type": "integer"}, refusal=True, whitespace="minified")
    assert accepts(minified, refusal_json("no", "minified"))


def test_raw_pattern() -> None:
    grammar = json_schema_to_gbnf({"type": "string", "pattern": "^[0-9]{3}$"}, raw_pattern=True)
    assert accepts(grammar, "123")
    assert not accepts(grammar, '"123"')


def test_remote_refs_come_from_refs_only() -> None:
    schema = {"$ref": "https://example.com/num.json"}
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf(schema)
    assert info.value.keyword == "$ref"
    grammar = json_schema_to_gbnf(schema, refs={"https://example.com/num.json":
                                                {"type": "integer"}})
    assert accepts(grammar, "5")


@pytest.mark.parametrize("schema,pointer,keyword", [
    ({"$ref": "#/$defs/missing"}, "#", "$ref"),
    ({"properties": {"a": {"$ref": "#/nowhere"}}}, "#/properties/a", "$ref"),
    ({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}},
     None, "$ref"),
    ({"allOf": [{"$ref": "#"}]}, None, "$ref"),
    ({"type": "strin"}, "#", "type"),
    ({"minLength": -1}, "#", "minLength"),
    ({"type": "string", "pattern": "(a"}, "#", "pattern"),
])
def test_invalid_schemas(schema: Any, pointer: str | None, keyword: str) -> None:
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf(schema)
    assert not isinstance(info.value, UnsupportedSchemaError)
    assert info.value.keyword == keyword
    if pointer is not None:
        assert info.value.pointer == pointer


def test_root_that_accepts_nothing() -> None:
    with pytest.raises(SchemaError):
        json_schema_to_gbnf(False)
    with pytest.raises(SchemaError):
        json_schema_to_gbnf({"type": "integer", "minimum": 3, "maximum": 2})


@pytest.mark.parametrize("schema,pointer,keyword", [
    ({"properties": {"a": {"type": "array", "items": {"type": "object"}, "uniqueItems": True}}},
     "#/properties/a", "uniqueItems"),
    ({"type": "string", "pattern": "(?=a)b"}, "#", "pattern"),
    ({"items": {"type": "integer"}, "not": {"type": "array", "items": {"multipleOf": 3}}},
     "#", "not"),
])
def test_unsupported_keywords_are_named(schema: Any, pointer: str, keyword: str) -> None:
    with pytest.raises(UnsupportedSchemaError) as info:
        json_schema_to_gbnf(schema)
    assert (info.value.pointer, info.value.keyword) == (pointer, keyword)


def test_non_strict_drops_with_one_warning() -> None:
    schema = {"type": "object", "properties": {
        "a": {"type": "array", "items": {"type": "object"}, "uniqueItems": True},
        "b": {"type": "array", "items": {"type": "array"}, "uniqueItems": True}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grammar = json_schema_to_gbnf(schema, strict=False)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "#/properties/a/uniqueItems" in message and "#/properties/b/uniqueItems" in message
    assert accepts(grammar, '{"a": [{}, {}]}')


@pytest.mark.parametrize("schema, text, dropped", [
    # An e-mail address of at most 255 characters needs too large an automaton: non-strict
    # drops maxLength (wider, and said), keeping the format.
    ({"type": "object", "properties": {"email": {"type": "string", "format": "email",
                                                  "maxLength": 255}}},
     '{"email": "ann@example.com"}', "#/properties/email/maxLength"),
    # A lookahead cannot be enforced: non-strict drops the pattern.
    ({"type": "string", "pattern": "^(?=a)\\w+$"}, '"zz"', "#/pattern"),
])
def test_non_strict_drops_string_constraints(schema: Any, text: str, dropped: str) -> None:
    with pytest.raises(UnsupportedSchemaError):
        json_schema_to_gbnf(schema)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grammar = json_schema_to_gbnf(schema, strict=False)
    assert [dropped in str(w.message) for w in caught] == [True]
    assert accepts(grammar, text)
    if "email" in text:
        assert not accepts(grammar, '{"email": "not an address"}')  # the format stays


def test_left_recursive_union_is_rejected() -> None:
    schema = {"$defs": {"e": {"anyOf": [{"$ref": "#/$defs/e"}, {"type": "null"}]}},
              "$ref": "#/$defs/e"}
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf(schema)
    assert info.value.keyword == "$ref"


def test_closing_leaves_untyped_values_open() -> None:
    schema = {"type": "object", "properties": {"x": {}, "d": {"type": "object",
                                                             "additionalProperties": True}},
              "required": ["x", "d"]}
    grammar = json_schema_to_gbnf(schema, additional_properties=False)
    assert accepts(grammar, '{"x": {"a": 1}, "d": {"k": {"a": 1}}}')
    assert not accepts(grammar, '{"x": 1, "d": {}, "extra": 1}')


def test_closing_merges_ref_siblings_first() -> None:
    schema = {"$defs": {"A": {"type": "object", "properties": {"s": {"type": "string"}}}},
              "type": "object",
              "properties": {"a": {"$ref": "#/$defs/A", "description": "an A"}}}
    grammar = json_schema_to_gbnf(schema, additional_properties=False)
    assert accepts(grammar, '{"a": {"s": "x"}}')
    assert not accepts(grammar, '{"a": {"s": "x", "t": 1}}')


def test_integer_zero_fraction_option() -> None:
    assert accepts(json_schema_to_gbnf({"type": "integer"}), "2.0")
    plain = json_schema_to_gbnf({"type": "integer"}, integer_zero_fraction=False)
    assert accepts(plain, "2")
    assert not accepts(plain, "2.0")


def test_draft4_integers_exclude_zero_fractions() -> None:
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}
    assert not accepts(json_schema_to_gbnf(schema), "2.0")


def test_key_order_any() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"},
                                               "b": {"type": "string"}},
              "required": ["a"], "additionalProperties": False}
    grammar = json_schema_to_gbnf(schema, key_order="any")
    for text in ('{"a": 1}', '{"a": 1, "b": "x"}', '{"b": "x", "a": 1}'):
        assert accepts(grammar, text)
    for text in ('{"b": "x"}', '{"a": 1, "a": 2}', '{"b": "x", "b": "y", "a": 1}'):
        assert not accepts(grammar, text)


def test_spec_format_that_cannot_be_enforced() -> None:
    with pytest.raises(UnsupportedSchemaError) as info:
        json_schema_to_gbnf({"type": "string", "format": "regex"})
    assert info.value.keyword == "format"

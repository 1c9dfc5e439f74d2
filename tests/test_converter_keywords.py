"""Per-keyword tables for the JSON Schema → GBNF converter, judged by llama.cpp's own sampler.

Each case: (schema, texts the grammar must accept, texts it must reject). Texts are what
``json.dumps`` writes (the compact default whitespace mode).
"""

from __future__ import annotations

from typing import Any

import pytest

from structgen import json_schema_to_gbnf
from structgen.testing import accepts

Case = tuple[str, Any, list[str], list[str]]

TYPES: list[Case] = [
    ("empty schema", {}, ['null', 'true', '1', '-2.5e+10', '"x"', '[1, {"a": []}]', '{"a": null}'],
     ['', 'nul', '[1,2]', '{"a":1}', '01']),
    ("true", True, ['{}', '[]', '"a"'], ['x']),
    ("null", {"type": "null"}, ['null'], ['0', '"null"']),
    ("boolean", {"type": "boolean"}, ['true', 'false'], ['1', '"true"']),
    ("integer", {"type": "integer"}, ['0', '-7', '12345', '1.0'], ['1.5', '01', '-0', '"1"']),
    ("number", {"type": "number"}, ['0', '-7', '1.5', '1e-05', '1e+100'], ['.5', '1.', '"1"']),
    ("string", {"type": "string"}, ['""', '"a b"', '"\\u00e9"', '"\\n"'], ['"\n"', "'a'", 'a']),
    ("type array", {"type": ["string", "null"]}, ['"a"', 'null'], ['1', 'true']),
    ("integer or number", {"type": ["integer", "number"]}, ['1', '1.5'], ['"1"']),
]

NUMBERS: list[Case] = [
    ("integer bounds", {"type": "integer", "minimum": -3, "maximum": 20},
     ['-3', '0', '20', '7'], ['-4', '21', '100']),
    ("exclusive bounds", {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
     ['1', '9'], ['0', '10']),
    ("fractional bounds round inward", {"type": "integer", "minimum": 1.5, "maximum": 3.5},
     ['2', '3'], ['1', '4']),
    ("number bounds", {"type": "number", "minimum": 0.5, "maximum": 2},
     ['0.5', '1', '1.75', '2', '2.0'], ['0.4', '2.01', '-1']),
    ("multipleOf", {"type": "integer", "multipleOf": 5, "minimum": 0, "maximum": 30},
     ['0', '15', '30'], ['3', '35']),
    ("untyped minimum", {"minimum": 10}, ['10', '"a"', 'null', '[]'], ['9']),
]

STRINGS: list[Case] = [
    ("lengths", {"type": "string", "minLength": 2, "maxLength": 3},
     ['"ab"', '"abc"', '"\\u00e9\\u00e9"'], ['"a"', '"abcd"']),
    ("pattern", {"type": "string", "pattern": "^[a-z]+-[0-9]{2}$"},
     ['"ab-12"'], ['"ab-1"', '"AB-12"', '"ab-123"']),
    ("unanchored pattern", {"type": "string", "pattern": "x"}, ['"axb"', '"x"'], ['"ab"']),
    ("format date", {"type": "string", "format": "date"}, ['"2024-02-29"'], ['"2024-2-29"']),
    ("format uuid", {"type": "string", "format": "uuid"},
     ['"123e4567-e89b-12d3-a456-426614174000"'], ['"123e4567"']),
    ("untyped minLength", {"minLength": 2}, ['"ab"', '1', 'null', '{}'], ['"a"']),
    ("custom format is an annotation", {"type": "string", "format": "flavour"},
     ['"vanilla"'], ['1']),
]

ENUMS: list[Case] = [
    ("enum", {"enum": ["a", 1, None, [1, 2], {"x": True}]},
     ['"a"', '1', '1.0', 'null', '[1, 2]', '{"x": true}'], ['"b"', 'true', '[2, 1]', '2']),
    ("const", {"const": {"a": [1, "b"]}}, ['{"a": [1, "b"]}'], ['{"a": [1]}', '{}']),
    ("booleans are not numbers", {"enum": [1, True]}, ['1', 'true'], ['false', '0']),
    ("enum filtered by type", {"type": "string", "enum": ["a", 1]}, ['"a"'], ['1']),
    ("const with escapes", {"const": "a\"b\\c\n"}, ['"a\\"b\\\\c\\n"'], ['"a"']),
    # A lone surrogate has only its escaped spelling; characters that do not print are escaped
    # in the grammar text (which must encode as UTF-8) and still match raw.
    # JSON-equal numbers take the same spellings, however large.
    ("const large float", {"const": 1e20}, ["100000000000000000000", "1e+20"],
     ["100000000000000000001", "1e+21"]),
    ("const large int", {"const": 10**20}, ["100000000000000000000", "1e+20"],
     ["99999999999999999999"]),
    ("const lone surrogate", {"const": "a\ud800b"}, ['"a\\ud800b"'], ['"ab"', '"a\\ud801b"']),
    ("enum non-printing", {"enum": ["x\u00a0y", "\u2028"]},
     ['"x\u00a0y"', '"x\\u00a0y"', '"\u2028"', '"\\u2028"'], ['"x y"', '"\\u2029"']),
    ("property name non-printing", {"type": "object", "properties": {"\u200b": {"type": "null"}},
                                    "required": ["\u200b"], "additionalProperties": False},
     ['{"\u200b": null}', '{"\\u200b": null}'], ['{"": null}', '{"\\u200c": null}']),
]

OBJECTS: list[Case] = [
    ("properties in order", {"type": "object", "properties": {"a": {"type": "integer"},
                                                             "b": {"type": "string"}},
                             "required": ["a"], "additionalProperties": False},
     ['{"a": 1}', '{"a": 1, "b": "x"}'], ['{}', '{"b": "x"}', '{"a": 1, "c": 2}',
                                          '{"a": "1"}', '{"b": "x", "a": 1}']),
    ("additional keys anywhere", {"type": "object", "properties": {"a": {"type": "integer"}}},
     ['{"a": 1, "z": [true]}', '{"z": 1, "a": 1}', '{}'], ['{"a": "x"}', '{"z": 1, "a": "x"}']),
    ("additional keys never reuse declared names",
     {"type": "object", "properties": {"a": {"type": "integer"}},
      "additionalProperties": {"type": "string"}},
     ['{"a": 1, "b": "x"}'], ['{"a": "x"}', '{"\\u0061": "x"}', '{"b": 1}']),
    ("dict of integers", {"type": "object", "additionalProperties": {"type": "integer"}},
     ['{}', '{"x": 1, "y": 2}'], ['{"x": "1"}']),
    ("patternProperties", {"type": "object", "patternProperties": {"^n_": {"type": "number"}},
                           "additionalProperties": False},
     ['{"n_a": 1.5}', '{}'], ['{"n_a": "x"}', '{"m": 1}']),
    ("propertyNames", {"type": "object", "propertyNames": {"maxLength": 2}},
     ['{"ab": 1}', '{}'], ['{"abc": 1}']),
    ("min and max properties", {"type": "object", "minProperties": 1, "maxProperties": 2},
     ['{"a": 1}', '{"a": 1, "b": 2}'], ['{}', '{"a": 1, "b": 2, "c": 3}']),
    ("required without properties in any order", {"required": ["b", "a"]},
     ['{"a": 1, "b": 2}', '{"b": 2, "a": 1}', '3'], ['{"a": 1}']),
    ("dependentRequired", {"dependentRequired": {"a": ["b"]}},
     ['{}', '{"b": 1}', '{"a": 1, "b": 2}'], ['{"a": 1}']),
    ("empty object", {"type": "object", "additionalProperties": False}, ['{}'], ['{"a": 1}']),
]

ARRAYS: list[Case] = [
    ("items with bounds", {"type": "array", "items": {"type": "integer"}, "minItems": 1,
                           "maxItems": 3},
     ['[1]', '[1, 2, 3]'], ['[]', '[1, 2, 3, 4]', '["a"]']),
    ("tuple", {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
               "items": False},
     ['[]', '[1]', '[1, "a"]'], ['[1, "a", 2]', '["a"]']),
    ("draft 4 tuple", {"$schema": "http://json-schema.org/draft-04/schema#", "type": "array",
                       "items": [{"type": "integer"}],
                       "additionalItems": {"type": "string"}},
     ['[1, "a", "b"]'], ['[1, 2]']),
    ("contains", {"type": "array", "contains": {"const": 5}}, ['[5]', '[1, 5, 2]'],
     ['[]', '[1, 2]']),
    ("maxContains", {"type": "array", "items": {"type": "integer"}, "contains": {"const": 1},
                     "maxContains": 1},
     ['[1]', '[2, 1, 3]'], ['[1, 1]', '[2]']),
    ("large minItems is chunked", {"type": "array", "items": {"type": "null"},
                                   "minItems": 1500, "maxItems": 100000},
     ['[' + ', '.join(['null'] * 1500) + ']'], ['[' + ', '.join(['null'] * 1499) + ']']),
    ("contains after prefixItems", {"prefixItems": [{"type": "string"}],
                                    "contains": {"type": "integer"}, "maxContains": 1},
     ['["a", 1]', '["a", "b", 2, "c"]'], ['[1]', '["a", "b"]', '["a", 1, 2]']),
    ("two contains from allOf", {"type": "array", "allOf": [
        {"contains": {"const": 1}}, {"contains": {"const": 2}, "maxContains": 1}]},
     ['[1, 2]', '[2, 3, 1, 1]'], ['[1, 1]', '[2]', '[1, 2, 2]']),
    ("uniqueItems on a finite domain", {"type": "array", "items": {"enum": ["a", "b"]},
                                        "uniqueItems": True},
     ['[]', '["a"]', '["b", "a"]'], ['["a", "a"]']),
    ("large maxItems is chunked", {"type": "array", "items": {"type": "null"},
                                   "maxItems": 2500},
     ['[]', '[null]', '[' + ', '.join(['null'] * 2500) + ']'],
     ['[' + ', '.join(['null'] * 2501) + ']']),
]

COMBINATORS: list[Case] = [
    ("anyOf", {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 1}]},
     ['1', '"a"'], ['"ab"', 'null']),
    ("anyOf of arrays whose counts touch", {"anyOf": [
        {"type": "array", "items": {"type": "integer"}, "maxItems": 1},
        {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3}]},
     ['[]', '[1]', '[1, 2]', '[1, 2, 3]'], ['[1, 2, 3, 4]', '["a"]']),
    ("anyOf of arrays with a gap in their counts", {"anyOf": [
        {"type": "array", "maxItems": 1}, {"type": "array", "minItems": 3}]},
     ['[]', '[1]', '[1, 2, 3]', '[1, 2, 3, 4]'], ['[1, 2]']),
    ("anyOf of recursive arrays", {"anyOf": [
        {"type": "array", "items": {"$ref": "#"}, "minItems": 1},
        {"type": "array", "items": {"$ref": "#"}, "maxItems": 3}, {"type": "integer"}]},
     ['[]', '[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]', '[1, [2, 3], 4, 5]'], ['[[]', '"a"']),
    ("oneOf disjoint", {"oneOf": [{"type": "integer"}, {"type": "boolean"}]}, ['1', 'true'],
     ['"a"']),
    ("oneOf overlapping", {"oneOf": [{"minimum": 2}, {"maximum": 5}], "type": "number"},
     ['1', '6'], ['3']),
    ("discriminated union", {
        "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
        "$defs": {
            "Cat": {"type": "object", "properties": {"kind": {"const": "cat"},
                                                     "lives": {"type": "integer"}},
                    "required": ["kind", "lives"]},
            "Dog": {"type": "object", "properties": {"kind": {"const": "dog"},
                                                     "good": {"type": "boolean"}},
                    "required": ["kind", "good"]}}},
     ['{"kind": "cat", "lives": 9}', '{"kind": "dog", "good": true}'],
     ['{"kind": "cat", "good": true}', '{"kind": "fox", "lives": 1}']),
    ("allOf merges objects", {"allOf": [
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
        {"properties": {"b": {"type": "string"}}, "required": ["b"]}]},
     ['{"a": 1, "b": "x"}'], ['{"a": 1}', '{"a": "1", "b": "x"}']),
    ("allOf enum intersection", {"allOf": [{"enum": [1, 2, True]}, {"enum": [True, 2, "2"]}]},
     ['2', 'true'], ['1', '"2"']),
    ("not type", {"not": {"type": "string"}}, ['1', 'null'], ['"a"']),
    ("not enum", {"type": "string", "not": {"enum": ["a", "b"]}}, ['"c"'], ['"a"']),
    ("not a format", {"type": "string", "not": {"format": "date"}},
     ['"tomorrow"', '"2024-1-1"'], ['"2024-01-01"']),
    ("not additionalProperties", {"type": "object",
                                  "not": {"additionalProperties": {"type": "integer"}}},
     ['{"a": "x"}', '{"a": 1, "b": "x"}', '{"b": "x", "a": 1}'], ['{}', '{"a": 1}']),
    ("not propertyNames", {"type": "object", "not": {"propertyNames": {"maxLength": 2}}},
     ['{"abc": 1}', '{"a": 1, "abcd": 2}'], ['{}', '{"ab": 1}']),
    ("not of a closed union", {"not": {"anyOf": [True, {"properties": {"foo": True}}],
                                       "unevaluatedProperties": False}},
     ['{"bar": 1}', '{"foo": 1, "bar": 2}'], ['{"foo": 1}', '{}', '1']),
    ("if without then keeps annotations", {
        "if": {"patternProperties": {"foo": {"type": "string"}}},
        "unevaluatedProperties": False},
     ['{"foo": "a"}', '{}'], ['{"bar": "a"}', '{"foo": 1}']),
    ("not integer", {"type": "number", "not": {"type": "integer"}},
     ['1.5', '-0.25', '1e-05'], ['1', '1.0', '-3']),
    ("not const object", {"type": "object", "not": {"const": {"a": 1}}},
     ['{}', '{"a": 2}', '{"a": 1, "b": 1}'], ['{"a": 1}']),
    ("double negation stays lazy", {"allOf": [{"enum": [{"a": 1}, {"a": "x"}]},
                                              {"not": {"not": {"additionalProperties": {
                                                  "type": "integer"}}}}]},
     ['{"a": 1}'], ['{"a": "x"}']),
    ("oneOf of open objects", {"oneOf": [{"properties": {"a": {"type": "integer"}}},
                                         {"properties": {"a": {"type": "string"}}}],
                               "type": "object", "required": ["a"]},
     ['{"a": 1}', '{"a": "x"}'], ['{"a": null}']),
    ("if then else", {"if": {"properties": {"k": {"const": 1}}, "required": ["k"]},
                      "then": {"required": ["one"]}, "else": {"required": ["other"]}},
     ['{"k": 1, "one": 0}', '{"k": 2, "other": 0}'], ['{"k": 1, "other": 0}']),
    ("boolean subschemas", {"anyOf": [False, {"type": "null"}]}, ['null'], ['1']),
]

REFS: list[Case] = [
    ("defs", {"$ref": "#/$defs/n", "$defs": {"n": {"type": "integer", "maximum": 3}}},
     ['3'], ['4']),
    ("definitions and chains", {"$ref": "#/definitions/a", "definitions": {
        "a": {"$ref": "#/definitions/b"}, "b": {"type": "boolean"}}}, ['true'], ['1']),
    ("escaped pointer", {"$ref": "#/$defs/a~1b%25c", "$defs": {"a/b%c": {"type": "null"}}},
     ['null'], ['1']),
    ("recursive tree", {"type": "object", "properties": {
        "v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["v"], "additionalProperties": False},
     ['{"v": 1}', '{"v": 1, "kids": [{"v": 2, "kids": []}]}'],
     ['{"v": 1, "kids": [{}]}']),
    ("anchor", {"$ref": "#thing", "$defs": {"t": {"$anchor": "thing", "type": "string"}}},
     ['"a"'], ['1']),
]

UNEVALUATED: list[Case] = [
    ("unevaluatedProperties with allOf", {
        "allOf": [{"properties": {"a": True}}], "properties": {"b": True},
        "unevaluatedProperties": False},
     ['{"b": 2, "a": 1}', '{}'], ['{"a": 1, "c": 3}']),
    ("unevaluatedProperties sees every matching anyOf branch", {
        "type": "object", "properties": {"foo": {"type": "string"}},
        "anyOf": [{"properties": {"bar": {"const": "bar"}}, "required": ["bar"]},
                  {"properties": {"baz": {"const": "baz"}}, "required": ["baz"]}],
        "unevaluatedProperties": False},
     ['{"foo": "x", "bar": "bar"}', '{"foo": "x", "bar": "bar", "baz": "baz"}'],
     ['{"foo": "x", "bar": "bar", "quux": 1}']),
    ("unevaluatedItems after prefixItems", {"prefixItems": [{"type": "integer"}],
                                            "unevaluatedItems": False},
     ['[1]', '[]'], ['[1, 2]']),
]


def _check(schema: Any, good: list[str], bad: list[str]) -> None:
    grammar = json_schema_to_gbnf(schema)
    for text in good:
        assert accepts(grammar, text), f"should accept {text!r}\n{grammar}"
    for text in bad:
        assert not accepts(grammar, text), f"should reject {text!r}\n{grammar}"


@pytest.mark.parametrize(
    "name,schema,good,bad",
    TYPES + NUMBERS + STRINGS + ENUMS + OBJECTS + ARRAYS + COMBINATORS + REFS + UNEVALUATED,
    ids=lambda v: v if isinstance(v, str) and len(v) < 60 else "",
)
def test_keyword_table(name: str, schema: Any, good: list[str], bad: list[str]) -> None:
    _check(schema, good, bad)


def test_arrays_alike_but_for_their_counts_are_one_array() -> None:
    # Two list alternatives that begin alike would keep a parser stack each through every item,
    # doubling with every level of nesting (docs/conversion.md).
    touching = json_schema_to_gbnf({"anyOf": [
        {"type": "array", "items": {"$ref": "#"}, "minItems": 1},
        {"type": "array", "items": {"$ref": "#"}, "maxItems": 3}, {"type": "integer"}]})
    assert touching.count('"["') == 1
    gap = json_schema_to_gbnf({"anyOf": [{"type": "array", "maxItems": 1},
                                         {"type": "array", "minItems": 3}]})
    assert gap.count('"["') >= 2

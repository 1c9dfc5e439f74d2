"""Schemas are checked against their draft's meta-schema before conversion: an invalid keyword is
a SchemaError naming its pointer and keyword, and the flattened meta-schemas that make the
check fast decide exactly as the published ones."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.corpora import jsts_cases, maskbench_cases
from structgen import Grammar, SchemaError, UnsupportedSchemaError
from structgen._pointers import subschema_steps
from structgen import json_schema_to_gbnf
from structgen._schema.normalize.meta import (
    _compiled_check,
    _draft,
    _flat_validator,
    _published_validator,
    shipped_tables,
)
from structgen._schema.normalize.meta_compiled import Unknown
from structgen.testing import accepts

DRAFT_URIS = [
    "http://json-schema.org/draft-03/schema#",
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
]


@pytest.mark.parametrize("schema, pointer, keyword", [
    ({"type": "integer", "minimum": True}, "#", "minimum"),
    ({"type": "strin"}, "#", "type"),
    ({"minLength": -1}, "#", "minLength"),
    ({"properties": {"a/b": {"maxLength": 1.5}}}, "#/properties/a~1b", "maxLength"),
    ({"items": {"anyOf": [{"type": "string"}, {"required": "a"}]}}, "#/items/anyOf/1",
     "required"),
    # A value where a schema belongs: the subschema's own pointer, no keyword.
    ({"properties": {"a": 1}}, "#/properties/a", None),
    # Inside a keyword's value: the keyword.
    ({"required": ["a", "a"]}, "#", "required"),
    ({"dependencies": {"a": ["b", 1]}}, "#", "dependencies"),
    ({"not": {"anyOf": []}}, "#/not", "anyOf"),
    ({"$schema": ["not", "a", "uri"]}, "#", "$schema"),
])
def test_invalid_keyword_is_named(schema: Any, pointer: str, keyword: str | None) -> None:
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf(schema)
    assert not isinstance(info.value, UnsupportedSchemaError)
    assert (info.value.pointer, info.value.keyword) == (pointer, keyword)
    assert "meta-schema" in str(info.value)


def test_message_says_where_and_against_what() -> None:
    with pytest.raises(SchemaError) as info:
        Grammar.from_json_schema({"type": "integer", "minimum": True})
    assert str(info.value).startswith("#/minimum: True is not of type 'number'")
    assert "https://json-schema.org/draft/2020-12/schema" in str(info.value)


def test_long_values_are_cut_in_the_message() -> None:
    schema = {"$schema": DRAFT_URIS[1], "enum": ["x" * 40] * 20}  # draft 4: enum items unique
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf(schema)
    assert info.value.keyword == "enum"
    assert len(info.value.message) < 400 and info.value.message.endswith(
        f"(against the meta-schema {DRAFT_URIS[1].rstrip('#')})")


DRAFT_SPELLINGS = [
    # Draft 4 spells an exclusive bound as a boolean; from draft 6 on it is a number.
    (1, {"type": "integer", "minimum": 1, "exclusiveMinimum": True}, "2", "1", "exclusiveMinimum"),
    # Array-valued items are a tuple up to 2019-09; in 2020-12 (the default) items is a schema.
    (3, {"type": "array", "items": [{"type": "integer"}], "additionalItems": False}, "[1]", "[1, 2]", "items"),
]


@pytest.mark.parametrize(("draft", "schema", "valid", "invalid", "keyword"), DRAFT_SPELLINGS)
def test_each_draft_by_its_own_meta_schema(
    draft: int, schema: dict[str, Any], valid: str, invalid: str, keyword: str
) -> None:
    grammar = json_schema_to_gbnf({"$schema": DRAFT_URIS[draft], **schema})
    assert accepts(grammar, valid) and not accepts(grammar, invalid)
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf(schema)
    assert info.value.keyword == keyword


def test_unknown_meta_schema_is_read_as_2020_12() -> None:
    custom = "https://example.com/my-meta-schema"
    assert accepts(json_schema_to_gbnf({"$schema": custom, "type": "integer"}), "3")
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf({"$schema": custom, "type": "integer", "maximum": "3"})
    assert info.value.keyword == "maximum"


def test_other_documents_are_checked_in_the_draft_they_inherit() -> None:
    uri = "https://example.com/bound.json"
    bound = {"type": "integer", "minimum": 1, "exclusiveMinimum": True}  # draft 4 spelling
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf({"$ref": uri}, refs={uri: bound})
    assert (info.value.pointer, info.value.keyword) == ("#", "exclusiveMinimum")
    assert f"in the document {uri}" in str(info.value)
    # Without a $schema of its own, a referenced document is read in the root's draft.
    grammar = json_schema_to_gbnf({"$schema": DRAFT_URIS[1], "$ref": uri}, refs={uri: bound})
    assert accepts(grammar, "2") and not accepts(grammar, "1")


def test_shipped_tables_are_what_the_installed_jsonschema_gives() -> None:
    import json

    from structgen._schema.normalize import meta_tables

    live = shipped_tables()
    for name, value in live.items():
        # Key order too: the compiled check tries keywords in the meta-schema's order.
        assert json.dumps(getattr(meta_tables, name)) == json.dumps(value), (
            f"{name} is stale: run structgen._schema.normalize.meta.write_shipped_tables()")


@pytest.mark.parametrize("declared", [
    *DRAFT_URIS, *(u.rstrip("#") for u in DRAFT_URIS), "http://json-schema.org/draft-07/schema",
    "HTTP://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema#x",
    "https://json-schema.org/draft/2020-12/schema#", "https://example.com/my-meta-schema",
    "http://[::1", "", 7, None,
])
def test_draft_is_the_one_jsonschema_picks(declared: Any) -> None:
    from jsonschema import Draft4Validator
    from jsonschema.validators import validator_for

    for fallback in (None, "Draft4Validator"):
        default = Draft4Validator if fallback else validator_for({})
        try:
            if not isinstance(declared, str):
                raise ValueError  # then the meta-schema itself says what is wrong
            expected = validator_for({"$schema": declared}, default=default).__name__
        except ValueError:  # not even a URI: the fallback
            expected = default.__name__
        assert _draft({"$schema": declared}, fallback) == expected


def test_a_valid_schema_is_checked_without_importing_jsonschema() -> None:
    # Importing jsonschema costs more than most conversions: a valid schema does without.
    code = ("import sys; from structgen import json_schema_to_gbnf; "
            "json_schema_to_gbnf({'$schema': 'http://json-schema.org/draft-07/schema#', "
            "'type': 'object', 'properties': {'a': {'type': 'integer', 'minimum': 1}}}); "
            "json_schema_to_gbnf({'type': 'array', 'prefixItems': [{'type': 'string'}]}); "
            "assert 'jsonschema' not in sys.modules, 'imported'; "
            "json_schema_to_gbnf({'minLength': -1})")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert "imported" not in done.stderr
    assert "SchemaError" in done.stderr  # and an invalid one still gets jsonschema's error


def test_a_schema_too_deep_to_check_is_refused_by_type() -> None:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(3000):
        schema = {"type": "object", "properties": {"a": schema}}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(2000)  # other tests' plugins may have raised it
    try:
        with pytest.raises(UnsupportedSchemaError, match="nests too deeply"):
            json_schema_to_gbnf(schema)
    finally:
        sys.setrecursionlimit(limit)


def test_formats_of_the_meta_schema_are_not_asserted() -> None:
    # An ECMA-262 pattern that Python's re (jsonschema's judge of format "regex") refuses.
    grammar = json_schema_to_gbnf({"type": "string", "pattern": "^\\p{Lu}+$"})
    assert accepts(grammar, '"AB"') and not accepts(grammar, '"ab"')


# --- the flattened meta-schemas decide as the published ones ------------------------------------

WRONG_VALUES: list[Any] = [True, -1, 1.5, "x", [], {}, [1, 1], None, {"type": 5}]


def mutations(schema: Any) -> Iterator[Any]:
    """``schema`` with one keyword of one subschema replaced by a wrong value, every way."""

    def walk(node: Any, put: Callable[[Any], Any]) -> Iterator[Any]:
        if not isinstance(node, dict):
            return
        for key in node:
            for wrong in WRONG_VALUES:
                yield put({**node, key: wrong})
        for keyword, name, sub in subschema_steps(node):
            yield from walk(sub, _putter(node, keyword, name, put))

    yield from walk(schema, lambda whole: whole)


def _putter(node: dict[str, Any], keyword: str, name: str | int | None,
            put: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def put_sub(new: Any) -> Any:
        if name is None:
            return put({**node, keyword: new})
        container = node[keyword]
        copied = list(container) if isinstance(container, list) else dict(container)
        copied[name] = new  # type: ignore[index]
        return put({**node, keyword: copied})

    return put_sub


def corpus_schemas() -> list[Any]:
    schemas = [c.schema for c in jsts_cases()] + [c.schema for c in maskbench_cases(every=200)]
    # Every draft's meta-schema sees the suite's schemas too.
    plain = [s for s in schemas[:120] if isinstance(s, dict) and "$schema" not in s]
    schemas += [{**s, "$schema": uri} for uri in DRAFT_URIS for s in plain[:: len(DRAFT_URIS)]]
    return [s for s in schemas if isinstance(s, dict)]


def test_flattened_and_compiled_meta_schemas_decide_as_the_published_ones() -> None:
    checked = 0
    invalid = 0
    unknown = 0
    for schema in corpus_schemas():
        for candidate in itertools.chain([schema], itertools.islice(mutations(schema), 0, 48, 6)):
            draft = _draft(candidate)
            fast = _flat_validator(draft)
            assert fast is not _published_validator(draft), draft
            verdict = fast.is_valid(candidate)
            assert verdict == _published_validator(draft).is_valid(candidate), candidate
            compiled = _compiled_check(draft)
            if compiled is None:  # draft 3 only: jsonschema decides it
                assert draft == "Draft3Validator"
                unknown += 1
                continue
            try:
                assert compiled(candidate) == verdict, candidate
            except Unknown:
                unknown += 1
            checked += 1
            invalid += not verdict
    assert checked > 2500 and invalid > checked // 4  # both verdicts well represented
    assert unknown < checked // 20  # the compiled check decides nearly all on its own


def test_values_the_compiled_check_leaves_to_jsonschema() -> None:
    # jsonschema tells True from 1 in uniqueItems (draft 4's enum), Python's set does not.
    draft4 = DRAFT_URIS[1]
    json_schema_to_gbnf({"$schema": draft4, "enum": [1, True]})
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf({"$schema": draft4, "enum": [1, 1.0]})
    assert info.value.keyword == "enum"
    # A value json.loads never makes (a tuple) is judged by jsonschema: not an array.
    with pytest.raises(SchemaError) as info:
        json_schema_to_gbnf({"type": "array", "prefixItems": ({"type": "string"},)})
    assert info.value.keyword == "prefixItems"

"""A schema is checked against its draft's meta-schema before it is converted.

The draft is the one ``$schema`` names, 2020-12 when it names none (or one jsonschema does not
ship: a custom meta-schema is read as 2020-12); jsonschema's validator for that draft decides.
An invalid keyword (``{"minimum": true}``) raises :class:`SchemaError` with the pointer of its
subschema and the keyword, where the converter would otherwise read it as it could, or not at
all. Formats inside the meta-schema are not asserted: a ``pattern`` is ECMA-262, which the
converter's own regex parser judges (Python's ``re``, jsonschema's judge of ``regex``, is another
dialect).

Validating against the published meta-schemas costs more than most conversions: their
``$dynamicRef``/``$recursiveRef`` and vocabulary ``allOf`` resolve references at every
subschema (docs/benchmarks.md, "Conversion time", has the cost). So each meta-schema is also flattened once
into the same set of schemas, read by the same validator class: references inlined except those
back to the meta-schema itself, which become ``$ref: "#"`` (a dynamic reference resolves there
too, since validation starts at the root that declares its anchor), and the vocabularies merged
into one ``properties``. A document the flattened meta-schema accepts is valid; one it rejects
meets the published meta-schema, whose error is the one reported (a test checks that both
decide alike on the corpora's schemas and thousands of mutations of them).

Importing jsonschema costs more than most conversions, so a valid schema does without it: the
draft, its keywords and its flattened meta-schema (compiled to closures, ``meta_compiled``) come
from ``meta_tables``, written from jsonschema once and checked against it by a test; jsonschema
is imported only to decide what the compiled check cannot and to write an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from ..._errors import SchemaError
from ..._memo import memo
from ..._pointers import SUBSCHEMA_KEYWORDS, pointer_step, subschema_steps
from .meta_compiled import Check, NotCompiled, Unknown, compile_meta_schema
from .meta_tables import DRAFT_KEYWORDS, FLAT_META_SCHEMAS, LATEST_DRAFT, META_SCHEMA_IDS

#: The drafts jsonschema ships, by the names of their validator classes.
DRAFTS = ("Draft3Validator", "Draft4Validator", "Draft6Validator", "Draft7Validator",
          "Draft201909Validator", "Draft202012Validator")
#: Each draft by its meta-schema's URI as ``urlsplit`` writes it back (jsonschema's key).
DRAFT_BY_URI = {urlsplit(uri).geturl(): draft for draft, uri in META_SCHEMA_IDS.items()}

#: Keywords of a meta-schema that assert nothing once every reference is inlined.
_INERT = frozenset({
    "$schema", "$id", "id", "$vocabulary", "$anchor", "$dynamicAnchor", "$recursiveAnchor",
    "$defs", "definitions", "$comment", "title", "description", "default", "deprecated",
    "examples",
})
_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")
#: Drafts in which ``$ref`` ignores the keywords beside it.
_LEGACY_REF_DRAFTS = frozenset({"Draft3Validator", "Draft4Validator", "Draft6Validator",
                                "Draft7Validator"})
#: Longest message excerpt of a jsonschema error (it repeats the offending value).
_MESSAGE_LIMIT = 300


class _NotFlat(Exception):
    """A meta-schema that the flattening does not cover (the published ones never are)."""


def check_meta_schema(document: Any, *, uri: str | None = None, referrer: Any = None) -> None:
    """Raise :class:`SchemaError` unless ``document`` is valid against its draft's meta-schema.

    ``uri`` names a document other than the root (a ``$ref`` target from ``refs`` or fetched),
    for the message; without a ``$schema`` of its own it is read in the draft of ``referrer``,
    the root document, as JSON Schema has it.
    """
    if not isinstance(document, dict):  # true and false are valid schemas in every draft
        return
    draft = _draft(document, _draft(referrer) if isinstance(referrer, dict) else None)
    compiled = _compiled_check(draft)
    if compiled is not None:
        try:
            if compiled(document):
                return
        except (Unknown, RecursionError):  # jsonschema decides, as it did before
            pass
    if _flat_validator(draft).is_valid(document):
        return
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped]

    error = best_match(_published_validator(draft).iter_errors(document))
    if error is None:  # the flattened meta-schema was stricter: the published one decides
        return
    pointer, keyword = locate(document, list(error.absolute_path))
    message = error.message
    if len(message) > _MESSAGE_LIMIT:
        message = message[:_MESSAGE_LIMIT] + " …"
    where = f" in the document {uri}" if uri is not None else ""
    raise SchemaError(f"{message}{where} (against the meta-schema {_meta_uri(draft)})",
                      pointer=pointer, keyword=keyword)


def _draft(document: dict[str, Any], fallback: str | None = None) -> str:
    """The name of jsonschema's validator class for the draft ``document`` declares
    (``fallback``, or 2020-12, when it declares none that jsonschema ships). Read from the
    shipped table, as jsonschema's ``validator_for`` reads its own (URIs compared as
    ``urlsplit`` writes them back): importing jsonschema costs more than most conversions,
    and a valid schema no longer needs it."""
    default = fallback or LATEST_DRAFT
    declared = document.get("$schema")
    if not isinstance(declared, str):  # then the meta-schema itself says what is wrong
        return default
    try:
        normalized = urlsplit(declared).geturl()
    except ValueError:  # not even a URI
        return default
    return DRAFT_BY_URI.get(normalized, default)


def _validator_class(draft: str) -> Any:
    import jsonschema  # type: ignore[import-untyped]

    return getattr(jsonschema, draft)


def _meta_uri(draft: str) -> str:
    return str(META_SCHEMA_IDS[draft]).rstrip("#")


@memo(None)
def _published_validator(draft: str) -> Any:
    """The draft's validator of schemas, against the published meta-schema, formats unchecked."""
    from jsonschema.validators import validator_for  # type: ignore[import-untyped]

    cls = _validator_class(draft)
    return validator_for(cls.META_SCHEMA, default=cls)(cls.META_SCHEMA)


@memo(None)
def _flat_validator(draft: str) -> Any:
    """The same check against the flattened meta-schema (the published one if it cannot be)."""
    try:
        flat = flattened_meta_schema(draft)
    except _NotFlat:
        return _published_validator(draft)
    return _validator_class(draft)(flat)


@memo(None)
def _compiled_check(draft: str) -> Check | None:
    """The shipped flattened meta-schema compiled to closures (None: jsonschema decides every
    time). Draft 3 is left to jsonschema: its ``required`` and ``type`` mean other things."""
    shipped = FLAT_META_SCHEMAS.get(draft)
    if shipped is None:
        return None
    try:
        return compile_meta_schema(shipped, draft, DRAFT_KEYWORDS[draft])
    except NotCompiled:
        return None


def shipped_tables() -> dict[str, Any]:
    """What ``meta_tables`` holds, computed from the installed jsonschema (a test compares)."""
    import jsonschema

    ids, keywords, flat = {}, {}, {}
    for draft in DRAFTS:
        cls = getattr(jsonschema, draft)
        ids[draft] = cls.ID_OF(cls.META_SCHEMA)
        keywords[draft] = sorted(cls.VALIDATORS)
        if draft != "Draft3Validator":
            flat[draft] = flattened_meta_schema(draft)
    latest = jsonschema.validators.validator_for({}).__name__
    return {"META_SCHEMA_IDS": ids, "DRAFT_KEYWORDS": keywords, "FLAT_META_SCHEMAS": flat,
            "LATEST_DRAFT": latest}


def write_shipped_tables() -> None:
    """Write ``meta_tables.py`` afresh from the installed jsonschema (after upgrading it)."""
    import json
    from pathlib import Path

    tables = shipped_tables()
    text = json.dumps(tables, indent=1)
    quotes = "'" * 3  # the JSON goes in a raw string literal
    if quotes in text:
        raise ValueError("the tables hold three quotes in a row")
    lines = [f'"""{_TABLES_DOC}"""', "", "from __future__ import annotations", "",
             "import json", "from typing import Any", "",
             f"_TABLES: dict[str, Any] = json.loads(r{quotes}{text}{quotes})", ""]
    lines += [f'{name}: {"str" if isinstance(value, str) else "dict[str, Any]"} = '
              f'_TABLES["{name}"]' for name, value in tables.items()]
    Path(__file__).with_name("meta_tables.py").write_text("\n".join(lines) + "\n")


_TABLES_DOC = """What check_meta_schema needs of jsonschema for a valid schema, computed once from it.

Generated by ``meta.write_shipped_tables()``; ``tests/test_meta_schema.py`` checks that it is
what the installed jsonschema gives. Each draft's meta-schema URI, the keywords its validator
class knows, its flattened meta-schema (not draft 3's, which jsonschema always decides), and
the draft a schema without ``$schema`` is read in."""


def flattened_meta_schema(draft: str) -> dict[str, Any]:
    """The draft's meta-schema with every reference inlined but those to itself (``#``)."""
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    root = REGISTRY.resolver().lookup(_meta_uri(draft))
    flattener = _Flattener(root.contents, legacy_ref=draft in _LEGACY_REF_DRAFTS)
    flat = flattener.schema(root.contents, root.resolver, ())
    if not isinstance(flat, dict):
        raise _NotFlat("the meta-schema is not an object")
    flat = _merged_vocabularies(flat)
    _check_only_root_references(flat)
    return flat


class _Flattener:
    def __init__(self, root: Any, *, legacy_ref: bool) -> None:
        self.root = root
        self.legacy_ref = legacy_ref

    def schema(self, node: Any, resolver: Any, inlining: tuple[int, ...]) -> Any:
        """``node`` with its references resolved; ``inlining``: the targets being inlined."""
        if not isinstance(node, dict):
            return node
        out = {k: v for k, v in node.items() if k not in _INERT and k not in _REFERENCES}
        for keyword, name, sub in subschema_steps(node):
            if keyword in out:
                _replace(out, keyword, name, self.schema(sub, resolver, inlining))
        target = self._reference(node, resolver, inlining)
        if target is None:
            return out
        if not out or self.legacy_ref:
            return target
        return {"allOf": [target, out]}

    def _reference(self, node: dict[str, Any], resolver: Any, inlining: tuple[int, ...]) -> Any:
        dynamic = node.get("$dynamicRef", node.get("$recursiveRef"))
        if dynamic is not None:
            if dynamic not in ("#meta", "#"):
                raise _NotFlat(f"dynamic reference {dynamic!r}")
            return {"$ref": "#"}
        ref = node.get("$ref")
        if ref is None:
            return None
        resolved = resolver.lookup(ref)
        if resolved.contents is self.root:
            return {"$ref": "#"}
        if id(resolved.contents) in inlining:
            raise _NotFlat(f"reference cycle through {ref!r}")
        return self.schema(resolved.contents, resolved.resolver,
                           (*inlining, id(resolved.contents)))


def _replace(out: dict[str, Any], keyword: str, name: str | int | None, value: Any) -> None:
    """Put ``value`` at (``keyword``, ``name``) of ``out``, copying the container it goes in."""
    if name is None:
        out[keyword] = value
        return
    container = out[keyword]
    if isinstance(container, list):
        out[keyword] = container = list(container)
        assert isinstance(name, int)
    else:
        out[keyword] = container = dict(container)
    container[name] = value


def _merged_vocabularies(flat: dict[str, Any]) -> dict[str, Any]:
    """One ``properties`` instead of an ``allOf`` of vocabularies that each only type the
    schema as the root does and list their own keywords (2019-09 and 2020-12); anything else
    stays as it is."""
    vocabularies = flat.get("allOf")
    if not isinstance(vocabularies, list):
        return flat
    rest = {k: v for k, v in flat.items() if k != "allOf"}
    merged: dict[str, Any] = {}
    for part in [rest, *vocabularies]:
        if not isinstance(part, dict) or not set(part) <= {"type", "properties"}:
            return flat
        names = part.get("properties", {})
        same_type = part.get("type", rest.get("type")) == rest.get("type")
        if not same_type or not isinstance(names, dict) or set(names) & set(merged):
            return flat
        merged.update(names)
    return {**rest, "properties": merged}


def _check_only_root_references(node: Any) -> None:
    """Raise _NotFlat if a reference other than ``#`` is left, in a subschema or in a keyword
    value the walk copies as it is (draft 3's ``type`` may hold schemas)."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key in _REFERENCES and value != "#":
            raise _NotFlat(f"reference {value!r} left")
        if key not in SUBSCHEMA_KEYWORDS and _holds_reference(value):
            raise _NotFlat(f"a reference left in {key!r}")
    for _, _, sub in subschema_steps(node):
        _check_only_root_references(sub)


def _holds_reference(value: Any) -> bool:
    if isinstance(value, dict):
        return any((k in _REFERENCES and v != "#") or _holds_reference(v)
                   for k, v in value.items())
    return isinstance(value, list) and any(_holds_reference(v) for v in value)


def locate(document: Any, path: Sequence[str | int]) -> tuple[str, str | None]:
    """(JSON pointer of the subschema, keyword) that an error at ``path`` of ``document`` is in.

    The keyword is None when the subschema itself is wrong (``{"properties": {"a": 1}}``:
    ``1`` is no schema); a path into a keyword's value (``required/1``) names the keyword.
    """
    pointer, node, steps = "#", document, list(path)
    while steps and isinstance(node, dict):
        keyword = str(steps.pop(0))
        value: Any = node.get(keyword)
        name: str | int | None = None
        if (keyword, None) in _subschema_positions(node):
            sub = value
        elif keyword in SUBSCHEMA_KEYWORDS and steps and _has(value, steps[0]):
            name = steps.pop(0)
            sub = value[name]
        else:
            return pointer, keyword
        if not steps:
            return pointer + pointer_step(keyword, name), None
        if not isinstance(sub, dict):  # inside a value that holds no schemas (dependencies' lists)
            return pointer, keyword
        pointer, node = pointer + pointer_step(keyword, name), sub
    return pointer, None


def _subschema_positions(node: dict[str, Any]) -> set[tuple[str, str | int | None]]:
    return {(keyword, name) for keyword, name, _ in subschema_steps(node)}


def _has(container: Any, token: str | int) -> bool:
    if isinstance(container, dict):
        return token in container
    return isinstance(container, list) and isinstance(token, int) and 0 <= token < len(container)


__all__ = ["check_meta_schema", "flattened_meta_schema", "locate", "shipped_tables"]

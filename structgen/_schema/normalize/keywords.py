"""Type-specific keywords: each builds or narrows the atom of its own JSON type.

One small function per keyword group, dispatched by type from :func:`typed_atoms`. Applicators
(allOf, anyOf, $ref, not, ...) live in ``applicators``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..._errors import SchemaError, UnsupportedSchemaError
from ..._pointers import escape_pointer_token
from ..algebra.sets import array_nonempty, num_empty, object_nonempty
from ..ir.atoms import (
    ANY, IR, NOTHING, TYPE_ATOMS, ArrAtom, Atom, Contains, KeyCond, NumAtom, ObjAtom, StrAtom,
    StringSpec, to_decimal,
)
from ..strings.formats import format_regex

if TYPE_CHECKING:
    from .normalizer import Normalizer

_TYPE_NAMES = tuple(TYPE_ATOMS)
#: The largest count (minLength, maxItems, ...) converted: every 64-bit count. Counts are
#: exact at any size (one rule per factor of 1000 or 100), but JSON integers have no size
#: limit and the grammar and its construction grow with their digits.
MAX_COUNT = 2**64

#: The formats JSON Schema 2020-12 defines; any other name is a custom annotation.
SPEC_FORMATS = frozenset({
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex"})


def schema_types(schema: dict[str, Any], pointer: str) -> list[str]:
    """The type names ``type`` allows (integer only when number is not also allowed)."""
    declared = schema.get("type")
    if declared is None:
        return ["null", "boolean", "number", "string", "array", "object"]
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list) or not all(isinstance(n, str) and n in _TYPE_NAMES
                                              for n in names):
        raise SchemaError(f"invalid type {declared!r}", pointer=pointer, keyword="type")
    if "number" in names and "integer" in names:
        names = [n for n in names if n != "integer"]
    return list(dict.fromkeys(names))


def typed_atoms(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    atoms: list[Atom] = []
    for name in schema_types(schema, pointer):
        atom: Atom | None = TYPE_ATOMS[name]
        if isinstance(atom, NumAtom):
            atom = number_atom(schema, atom.integer, pointer)
            if atom is not None and atom.integer and ctx.resolver.legacy:
                atom = replace(atom, float_integers=False)  # draft 4: 1.0 is not an integer
        elif isinstance(atom, StrAtom):
            atom = string_atom(ctx, schema, pointer)
        elif isinstance(atom, ArrAtom):
            atom = array_atom(ctx, schema, base, pointer)
        elif isinstance(atom, ObjAtom):
            atom = object_atom(ctx, schema, base, pointer)
        if atom is not None:
            atoms.append(atom)
    return tuple(atoms)


def _number(schema: dict[str, Any], keyword: str, pointer: str) -> Decimal | None:
    value = schema.get(keyword)
    if value is None or isinstance(value, bool):
        return None
    if not isinstance(value, (int, float)):
        raise SchemaError(f"{keyword} must be a number", pointer=pointer, keyword=keyword)
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(f"{keyword} must be finite", pointer=pointer, keyword=keyword)
    return to_decimal(value)


def _count(ctx: Normalizer, schema: dict[str, Any], keyword: str, pointer: str) -> int | None:
    """The value of a count keyword (minLength, maxItems, ...); None when absent, or beyond
    MAX_COUNT and dropped (non-strict)."""
    value = schema.get(keyword)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (
            isinstance(value, float) and not value.is_integer()):
        raise SchemaError(f"{keyword} must be a non-negative integer", pointer=pointer,
                          keyword=keyword)
    if value > MAX_COUNT:
        ctx.unsupported(pointer, keyword, f"{keyword} {value} is above the largest count "
                                          f"grammars are built for (2**64)")
        return None
    return int(value)


def number_atom(schema: dict[str, Any], integer: bool, pointer: str) -> NumAtom | None:
    lower: tuple[Decimal, bool] | None = None
    upper: tuple[Decimal, bool] | None = None
    minimum, maximum = _number(schema, "minimum", pointer), _number(schema, "maximum", pointer)
    # Draft 4 spells exclusiveness as a boolean beside minimum/maximum.
    if minimum is not None:
        lower = (minimum, schema.get("exclusiveMinimum") is True)
    if maximum is not None:
        upper = (maximum, schema.get("exclusiveMaximum") is True)
    ex_min = _number(schema, "exclusiveMinimum", pointer)
    if ex_min is not None and (lower is None or ex_min >= lower[0]):
        lower = (ex_min, True)
    ex_max = _number(schema, "exclusiveMaximum", pointer)
    if ex_max is not None and (upper is None or ex_max <= upper[0]):
        upper = (ex_max, True)
    multiple = _number(schema, "multipleOf", pointer)
    if multiple is not None and multiple <= 0:
        raise SchemaError("multipleOf must be positive", pointer=pointer, keyword="multipleOf")
    atom = NumAtom(lower, upper, multiple, integer)
    return None if num_empty(atom) else atom


def string_atom(ctx: Normalizer, schema: dict[str, Any], pointer: str) -> StrAtom | None:
    min_length = _count(ctx, schema, "minLength", pointer) or 0
    max_length = _count(ctx, schema, "maxLength", pointer)
    patterns: tuple[str, ...] = ()
    pattern = schema.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            raise SchemaError("pattern must be a string", pointer=pointer, keyword="pattern")
        try:
            ctx.check_pattern(pattern, pointer, "pattern")
            patterns = (pattern,)
        except UnsupportedSchemaError as exc:  # lookarounds, backreferences, ...
            ctx.unsupported(pointer, "pattern", exc.message)  # raises unless non-strict
    formats: tuple[str, ...] = ()
    fmt = schema.get("format")
    # Formats are enforced (a generating grammar should produce them). A format that JSON
    # Schema defines but no regex here spells (regex) cannot be enforced; a custom format has
    # no defined meaning and validators accept any string for it, so it stays an annotation.
    if isinstance(fmt, str):
        if format_regex(fmt) is not None:
            formats = (fmt,)
        elif fmt in SPEC_FORMATS:
            ctx.unsupported(pointer, "format", f"format {fmt!r} cannot be enforced by a grammar")
    if max_length is not None and min_length > max_length:
        return None
    return StrAtom(StringSpec(patterns=patterns, min_length=min_length, max_length=max_length,
                              formats=formats))


def array_atom(ctx: Normalizer, schema: dict[str, Any], base: str,
               pointer: str) -> ArrAtom | None:
    items = schema.get("items")
    prefix_schemas = schema.get("prefixItems")
    rest_pointer = f"{pointer}/items"
    if isinstance(items, list):  # draft 4 tuple form
        prefix_schemas, items, rest_pointer = items, schema.get("additionalItems"), \
            f"{pointer}/additionalItems"
        prefix_pointer = f"{pointer}/items"
    else:
        prefix_pointer = f"{pointer}/prefixItems"
    prefix: tuple[IR, ...] = ()
    if isinstance(prefix_schemas, list):
        prefix = tuple(ctx.value_schema(s, base, f"{prefix_pointer}/{i}")
                       for i, s in enumerate(prefix_schemas))
    rest = None if items is None else ctx.value_schema(items, base, rest_pointer)
    contains: tuple[Contains, ...] = ()
    if "contains" in schema:
        ir = ctx.value_schema(schema["contains"], base, f"{pointer}/contains")
        low = _count(ctx, schema, "minContains", pointer)
        high = _count(ctx, schema, "maxContains", pointer)
        low = 1 if low is None else low
        if low > 0 or high is not None:
            contains = (Contains(ir, low, high),)
    unique = schema.get("uniqueItems") is True
    seen_contains = (ctx.schema(schema["contains"], base, f"{pointer}/contains"),) \
        if "contains" in schema else ()
    atom = ArrAtom(prefix, None if rest == ANY else rest,
                   _count(ctx, schema, "minItems", pointer) or 0,
                   _count(ctx, schema, "maxItems", pointer),
                   contains, unique, len(prefix), rest is not None, seen_contains)
    return array_nonempty(atom)


def object_atom(ctx: Normalizer, schema: dict[str, Any], base: str,
                pointer: str) -> ObjAtom | None:
    properties = schema.get("properties") or {}
    pattern_schemas = schema.get("patternProperties") or {}
    if not isinstance(properties, dict) or not isinstance(pattern_schemas, dict):
        raise SchemaError("properties and patternProperties must be objects", pointer=pointer)
    patterns: list[tuple[str, IR]] = []
    for pattern, sub in pattern_schemas.items():
        ctx.check_pattern(pattern, pointer, "patternProperties")
        sub_pointer = f"{pointer}/patternProperties/{escape_pointer_token(pattern)}"
        patterns.append((pattern, ctx.value_schema(sub, base, sub_pointer)))
    props: list[tuple[str, IR]] = []
    for key, sub in properties.items():
        ir = ctx.value_schema(sub, base, f"{pointer}/properties/{escape_pointer_token(key)}")
        for pattern, pattern_ir in patterns:
            if ctx.pattern_matches(pattern, key):
                ir = ctx.algebra.intersect(ir, pattern_ir, nested=True)
        props.append((key, ir))
    extras = [(KeyCond(match=p), ir) for p, ir in patterns if ir != ANY]
    additional = schema.get("additionalProperties")
    if additional is not None:
        add_ir = ctx.value_schema(additional, base, f"{pointer}/additionalProperties")
        if add_ir != ANY:
            extras.append((KeyCond(nomatch=tuple(p for p, _ in patterns)), add_ir))
    required = schema.get("required") or []
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError("required must be a list of strings", pointer=pointer,
                          keyword="required")
    names = None
    if "propertyNames" in schema:
        names = ctx.schema(schema["propertyNames"], base, f"{pointer}/propertyNames")
        if names == ANY:
            names = None
    atom = ObjAtom(tuple(props), frozenset(required), tuple(extras), names,
                   _count(ctx, schema, "minProperties", pointer) or 0,
                   _count(ctx, schema, "maxProperties", pointer),
                   frozenset(properties), tuple(p for p, _ in patterns), additional is not None,
                   "properties" in schema)
    return object_nonempty(atom)


def dependent_required(deps: dict[str, Any], pointer: str, keyword: str) -> list[IR]:
    """Each ``{a: [b, c]}``: non-objects, objects without a, or objects with a, b and c."""
    parts: list[IR] = []
    others = tuple(a for a in ANY if not isinstance(a, ObjAtom))
    for key, needed in deps.items():
        if not isinstance(needed, list) or not all(isinstance(n, str) for n in needed):
            raise SchemaError("dependencies must list property names", pointer=pointer,
                              keyword=keyword)
        if not needed:
            continue
        parts.append(others + (ObjAtom(props=((key, NOTHING),)),
                               ObjAtom(required=frozenset({key, *needed}))))
    return parts


def without_key(key: str) -> IR:
    others = tuple(a for a in ANY if not isinstance(a, ObjAtom))
    return others + (ObjAtom(props=((key, NOTHING),)),)


def with_key(key: str) -> IR:
    return (ObjAtom(required=frozenset({key})),)

"""The JSON Schema that instances of a type are generated from (see :mod:`._instances`).
hypothesis-jsonschema knows neither recursive ``$ref`` nor 2020-12's ``prefixItems``, so the
type's schema is first flattened: every ``$ref`` is inlined, recursion is unrolled a few levels
(deeper levels become ``false``, which leaves the type's base cases: empty lists, ``None``) and
``prefixItems`` becomes draft-7 ``items``. Then it is narrowed to what grammars spell (the
converter's integer digit cap, ``max_string_length``), and a schema no value satisfies is
reported by the JSON pointer of its innermost empty part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._errors import SchemaError
from ._pointers import escape_pointer_token, follow_pointer, subschemas
from ._schema.emit.digits import digits_cap

__all__ = [
    "RECURSION_DEPTH",
    "draft7_validator",
    "effective_schema",
    "flatten_schema",
    "resolve_pointer",
    "unsatisfiable_pointer",
]

#: How many times a recursive definition may be entered on one path of a generated instance.
RECURSION_DEPTH = 3

# Keywords whose value is one subschema, a list of subschemas, or a name → subschema map.
_ONE_SCHEMA = (
    "additionalProperties", "additionalItems", "contains", "else", "if", "items", "not",
    "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties",
)
_SCHEMA_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAP = ("properties", "patternProperties", "dependentSchemas")
_DEFINITIONS = ("$defs", "definitions")


def resolve_pointer(document: Any, ref: str, pointer: str) -> Any:
    """The node of ``document`` that the local ``$ref`` ``ref`` (met at ``pointer``) names."""
    if not ref.startswith("#"):
        raise SchemaError(f"cannot generate instances through the remote $ref {ref!r}",
                          pointer=pointer, keyword="$ref")
    try:
        return follow_pointer(document, ref[1:].split("/")[1:])
    except LookupError:
        raise SchemaError(f"$ref {ref!r} points nowhere", pointer=pointer, keyword="$ref") from None


def flatten_schema(schema: Any, *, max_depth: int = RECURSION_DEPTH) -> Any:
    """``schema`` without ``$ref`` (recursion unrolled ``max_depth`` times) or ``prefixItems``.

    An object schema listing ``properties`` and saying nothing about others gets
    ``additionalProperties: false`` (the grammar of a model is closed the same way).
    """

    def walk(node: Any, stack: tuple[str, ...], pointer: str) -> Any:
        if not isinstance(node, Mapping):
            return node
        if "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str):
                raise SchemaError("$ref must be a string", pointer=pointer, keyword="$ref")
            if stack.count(ref) >= max_depth:
                target: Any = False
            else:
                target = walk(resolve_pointer(schema, ref, pointer), (*stack, ref), pointer)
            rest = {k: v for k, v in node.items() if k not in ("$ref", *_DEFINITIONS)}
            if not rest:
                return target
            return {"allOf": [target, walk(rest, stack, pointer)]}
        kept = {k: v for k, v in node.items() if k not in _DEFINITIONS}
        out = _map_subschemas(kept, lambda sub, here: walk(sub, stack, here), pointer)
        if "prefixItems" in out:
            rest_items = out.pop("items", True)
            out["items"] = out.pop("prefixItems")
            out["additionalItems"] = rest_items
        if "properties" in out and not any(
            k in out for k in ("additionalProperties", "patternProperties",
                               "unevaluatedProperties")
        ):
            out["additionalProperties"] = False
        return out

    return walk(schema, (), "#")


def _map_subschemas(node: Mapping[str, Any], fn: Callable[[Any, str], Any],
                    pointer: str) -> dict[str, Any]:
    """A copy of ``node`` with each subschema replaced by ``fn(subschema, its JSON pointer)``;
    data (enum, const, default) and plain keywords are kept as they are."""
    out = dict(node)
    for key, value in node.items():
        here = f"{pointer}/{key}"
        if key in _ONE_SCHEMA and not isinstance(value, list):
            out[key] = fn(value, here)
        elif key in _SCHEMA_LIST or (key == "items" and isinstance(value, list)):
            out[key] = [fn(v, f"{here}/{i}") for i, v in enumerate(value)]
        elif key in _SCHEMA_MAP and isinstance(value, Mapping):
            out[key] = {k: fn(v, f"{here}/{escape_pointer_token(k)}") for k, v in value.items()}
    return out


def cap_string(schema: dict[str, Any], limit: int) -> None:
    """Give a string schema without a ``maxLength`` the bound ``limit`` (a larger ``minLength``
    wins), as the converter's ``max_string_length`` does."""
    schema.setdefault("maxLength", max(limit, schema.get("minLength", 0)))


def _ecma(pattern: str) -> str:
    """``pattern`` for Python's re with ECMA-262's ASCII ``\\w \\d \\b`` (``\\s`` becomes ASCII
    whitespace: a subset of ECMA's, so generated strings stay valid)."""
    return pattern if pattern.startswith("(?a)") else "(?a)" + pattern


def effective_schema(schema: Any, *, max_string_length: int | None = None) -> Any:
    """``schema`` narrowed to what a grammar can spell, so instances stay producible: integers
    without a bound on a side get the converter's digit cap there, and with
    ``max_string_length`` strings get that bound, as the converter does (undeclared object keys
    are capped where they are generated: ``propertyNames`` would also bind declared ones);
    patterns get ECMA-262's ASCII classes."""
    if not isinstance(schema, Mapping):
        return schema
    node = _map_subschemas(
        schema, lambda sub, _: effective_schema(sub, max_string_length=max_string_length), "#"
    )
    # JSON Schema patterns are ECMA-262: \w \d \b are ASCII there, Unicode in Python's re.
    if isinstance(node.get("pattern"), str):
        node["pattern"] = _ecma(node["pattern"])
    if isinstance(node.get("patternProperties"), Mapping):
        node["patternProperties"] = {_ecma(k): v for k, v in node["patternProperties"].items()}
    types = node.get("type")
    types = set(types) if isinstance(types, list) else {types}
    if "integer" in types:
        low = node.get("minimum", node.get("exclusiveMinimum"))
        high = node.get("maximum", node.get("exclusiveMaximum"))
        if low is None:
            node["minimum"] = -digits_cap(int(-high) if high is not None and high < 0 else 0)
        if high is None:
            node["maximum"] = digits_cap(int(low) if low is not None and low > 0 else 0)
    if max_string_length is not None and "enum" not in node and "const" not in node:
        if "string" in types:
            cap_string(node, max_string_length)
    return node


def unsatisfiable_pointer(schema: Any) -> str | None:
    """The JSON pointer of the innermost part that makes ``schema`` empty, None if it is not.

    Emptiness is decided by hypothesis-jsonschema's canonicaliser (the test of ``from_schema``).
    """
    from hypothesis_jsonschema._canonicalise import FALSEY, canonicalish

    def empty(node: Any) -> bool:
        return bool(canonicalish(node) == FALSEY)

    if not empty(schema):
        return None
    node, pointer = schema, "#"
    while isinstance(node, dict):
        inner = [(child, pointer + rel) for rel, child in subschemas(node) if empty(child)]
        if not inner:
            break
        node, pointer = inner[0]
    return pointer


def draft7_validator(schema: Any) -> Any:
    """A jsonschema validator of draft 7, the draft that flattened schemas are written in."""
    from jsonschema import Draft7Validator  # type: ignore[import-untyped]

    return Draft7Validator(schema)

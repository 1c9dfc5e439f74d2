"""JSON pointers, and where a schema holds its subschemas (the keywords and their positions).

Shared by the converter, the instance generators and the error messages that name a pointer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

# Keywords whose value is one subschema, a list of them, or a name -> subschema map.
_SINGLE_SET = frozenset({
    "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then",
    "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items",
})
_LISTS_SET = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_MAPS_SET = frozenset({
    "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies",
})

#: Every keyword whose value holds subschemas.
SUBSCHEMA_KEYWORDS = _SINGLE_SET | _LISTS_SET | _MAPS_SET


def escape_pointer_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def follow_pointer(document: Any, tokens: list[str]) -> Any:
    """The node of ``document`` that the (still escaped) JSON-pointer ``tokens`` lead to;
    LookupError when there is none."""
    node = document
    for raw in tokens:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise LookupError(raw)
    return node


def subschema_steps(schema: dict[str, Any]) -> Iterator[tuple[str, str | int | None, Any]]:
    """(keyword, property name or list index or None, subschema) for every subschema position
    of ``schema``."""
    for kw, value in schema.items():
        if kw not in SUBSCHEMA_KEYWORDS:  # most keys: one set lookup
            continue
        if isinstance(value, (dict, bool)) and kw in _SINGLE_SET:
            yield kw, None, value
        elif isinstance(value, list) and kw in _LISTS_SET:
            for i, sub in enumerate(value):
                if isinstance(sub, (dict, bool)):
                    yield kw, i, sub
        elif isinstance(value, dict) and kw in _MAPS_SET:
            for name, sub in value.items():
                if isinstance(sub, (dict, bool)):
                    yield kw, name, sub


def pointer_step(keyword: str, name: str | int | None) -> str:
    """The JSON pointer from a schema to its subschema at (``keyword``, ``name``)."""
    return f"/{keyword}" if name is None else f"/{keyword}/{escape_pointer_token(str(name))}"


def subschemas(schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(relative pointer, subschema) for every subschema position of ``schema``."""
    for kw, name, sub in subschema_steps(schema):
        yield pointer_step(kw, name), sub

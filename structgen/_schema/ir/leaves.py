"""A process-wide cache of the IR of leaf schemas (no subschemas, no references, no ids).

Most schemas in the wild are trees whose leaves are small typed schemas such as
``{"type": "string", "maxLength": 40}``; the same leaves recur within and across documents. A
leaf's IR depends only on the keywords the normalizer reads and on a few options, so it can be
shared: IR atoms are immutable.
"""

from __future__ import annotations

from typing import Any

from ..._memo import register
from ..._pointers import SUBSCHEMA_KEYWORDS
from .atoms import IR

#: Keywords that hold subschemas, refer elsewhere or name resources: schemas using them are
#: normalized every time.
_STRUCTURAL = SUBSCHEMA_KEYWORDS | {
    "$ref", "$dynamicRef", "$id", "id", "$anchor", "$dynamicAnchor", "dependentRequired",
}
#: The keywords whose values a leaf's IR depends on (every other keyword is an annotation).
_READ = frozenset({
    "type", "enum", "const", "format", "pattern", "minLength", "maxLength", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    "uniqueItems", "minProperties", "maxProperties", "required", "minContains", "maxContains",
})
#: Entries kept before the cache starts over; leaves with longer lists (large enums) are not
#: kept at all. Together they bound the memory.
MAX_LEAVES = 8192
MAX_LIST = 64

_leaf_irs: dict[tuple[Any, ...], IR] = {}
register(_leaf_irs)


class _NotFrozen(Exception):
    """A value that is not worth a key (an object inside enum or const, a long list)."""


def _freeze(value: Any) -> Any:
    """A hashable stand-in for a JSON value that keeps apart what Python equates: ``1``,
    ``1.0`` and ``True`` (their spellings and types differ in the grammar), ``0.0`` and ``-0.0``."""
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, float):
        return (float, repr(value))
    if isinstance(value, (bool, int)):
        return (type(value), value)
    if isinstance(value, list) and len(value) <= MAX_LIST:
        return (list, tuple(_freeze(v) for v in value))
    raise _NotFrozen


def leaf_key(schema: dict[str, Any], context: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The cache key of a leaf schema under ``context`` (the options the IR depends on), or
    None when the schema is not a leaf."""
    if not _STRUCTURAL.isdisjoint(schema):
        return None
    parts: list[Any] = [context]
    for keyword, value in schema.items():
        if keyword in _READ:
            try:
                parts.append((keyword, _freeze(value)))
            except _NotFrozen:
                return None
    return tuple(parts)


def cached_leaf(key: tuple[Any, ...]) -> IR | None:
    return _leaf_irs.get(key)


def remember_leaf(key: tuple[Any, ...], ir: IR) -> None:
    if len(_leaf_irs) >= MAX_LEAVES:
        _leaf_irs.clear()
    _leaf_irs[key] = ir

"""Valid instances of a type, as a hypothesis strategy (``structgen.testing.instances``).
Values are drawn from the type's flattened, narrowed JSON Schema (:mod:`._instance_schema`):
objects, arrays and the applicators are generated here, hypothesis-jsonschema does the scalars.
Each document is then validated as JSON by Pydantic; the ones it refuses are skipped and
counted, so that a strategy that starves can say why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, time, timedelta
from typing import Any

from ._errors import SchemaError
from ._instance_schema import (
    RECURSION_DEPTH,
    cap_string,
    draft7_validator,
    effective_schema,
    flatten_schema,
    unsatisfiable_pointer,
)
from ._schema.emit.digits import digits_cap
from ._schema.ir.atoms import canonical_key, to_decimal
from ._type_names import type_name
from ._types import json_schema_of, type_adapter

__all__ = ["instance_strategy"]


#: The longest ``timedelta`` the ``iso8601-duration`` format spells: 999999 years of 365 days.
_LONGEST_DURATION = timedelta(days=999_999 * 365)


def _as_pydantic_writes(values: Any, tp: Any) -> Any:
    as_json = type_adapter(tp)
    return values.map(lambda v: str(as_json.dump_python(v, mode="json")))


def _pydantic_formats() -> dict[str, Any]:
    """Strategies for the formats Pydantic emits that hypothesis-jsonschema does not know: its
    temporal values as Pydantic writes them, the others from the format's regex."""
    from hypothesis import strategies as st

    from ._schema.strings.formats import format_regex

    spans = st.timedeltas(min_value=-_LONGEST_DURATION, max_value=_LONGEST_DURATION)
    formats = {
        "uuid": st.uuids().map(str),
        "iso8601-duration": _as_pydantic_writes(spans, timedelta),
        "local-date-time": _as_pydantic_writes(st.datetimes(), datetime),
        "local-time": _as_pydantic_writes(st.times(), time),
    }
    for name in ("duration", "email-address", "http-url", "url"):
        formats[name] = st.from_regex(str(format_regex(name)), fullmatch=True)
    return formats


_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated",
                          "readOnly", "writeOnly", "$comment", "discriminator"})
_OBJECT_WORDS = ("properties", "additionalProperties", "patternProperties", "required",
                 "propertyNames", "minProperties", "maxProperties")
_ARRAY_WORDS = ("items", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains")
_EXTRA_KEYS = 3  # at most this many undeclared keys in a generated open object


class _SchemaStrategies:
    """JSON values of a flattened schema. Objects, arrays and the applicators are built here
    (hypothesis-jsonschema 0.23's object strategy relies on a Hypothesis internal that newer
    Hypothesis releases changed); scalar schemas go to hypothesis-jsonschema's ``from_schema``."""

    def __init__(self, max_string_length: int | None = None) -> None:
        from hypothesis import strategies as st
        from hypothesis_jsonschema import from_schema

        self.st = st
        self.from_schema = from_schema
        self.formats = _pydantic_formats()
        self.max_string_length = max_string_length
        # Any JSON value, with the same caps the schema walk applies (unlike
        # hypothesis-jsonschema's, whose integers and strings are unbounded).
        cap = digits_cap(0)
        text = st.text(max_size=max_string_length)
        self.any_json = st.recursive(
            st.none() | st.booleans() | st.integers(-cap, cap) | text
            | st.floats(allow_nan=False, allow_infinity=False),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
            max_leaves=10,
        )

    def of(self, schema: Any) -> Any:
        st = self.st
        if schema is False:
            return st.nothing()
        if schema is True:
            return self.any_json
        node = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
        if not node:
            return self.any_json
        if "allOf" in node:
            return self._all_of(node)
        for word in ("anyOf", "oneOf"):
            if word in node:
                base = {k: v for k, v in node.items() if k != word}
                branches = st.one_of([self._all_of({"allOf": [base, b]}) for b in node[word]])
                return branches.filter(draft7_validator(node).is_valid) if word == "oneOf" else branches
        if "enum" in node or "const" in node:
            values = [node["const"]] if "const" in node else list(node["enum"])
            return st.sampled_from(values).filter(draft7_validator(node).is_valid)
        types = node.get("type")
        if isinstance(types, list):
            if len(types) != 1:
                rest = {k: v for k, v in node.items() if k != "type"}
                return st.one_of([self.of({**rest, "type": t}) for t in types])
            node["type"] = types = types[0]
        if types == "object" or (types is None and any(w in node for w in _OBJECT_WORDS)):
            return self._object(node)
        if types == "array" or (types is None and any(w in node for w in _ARRAY_WORDS)):
            return self._array(node)
        scalars = self.from_schema(node, custom_formats=self.formats)
        step = node.get("multipleOf")
        if isinstance(step, float) and not step.is_integer():
            # k * 0.1 in floats is often no exact decimal multiple (0.7000000000000001);
            # JSON Schema and the grammar count in decimals, Pydantic with a tolerance.
            scalars = scalars.filter(lambda x: _exact_multiple(x, step))
        return scalars

    def _all_of(self, node: dict[str, Any]) -> Any:
        from hypothesis_jsonschema._canonicalise import merged

        parts = [{k: v for k, v in node.items() if k != "allOf"}, *node["allOf"]]
        parts = [p for p in parts if p is not True and not (isinstance(p, Mapping) and not p)]
        if any(p is False for p in parts):
            return self.st.nothing()
        if len(parts) <= 1:
            return self.of(parts[0] if parts else True)
        if all(isinstance(p, Mapping) and set(p) <= _ANNOTATIONS for p in parts[1:]):
            return self.of(parts[0])
        combined = merged(list(parts))
        if combined is not None:
            return self.of(combined)
        # Not mergeable: draw from one part and keep what the others accept.
        return self.of(parts[0]).filter(draft7_validator({"allOf": parts[1:]}).is_valid)

    def _object(self, node: dict[str, Any]) -> Any:
        st = self.st
        properties: Mapping[str, Any] = node.get("properties", {})
        required = set(node.get("required", ()))
        extra = node.get("additionalProperties", True)
        fixed = {k: self.of(properties.get(k, extra)) for k in sorted(required)}
        optional = {k: self.of(v) for k, v in properties.items() if k not in required}
        # An optional property no value fits (recursion cut off) is simply left out.
        optional = {k: v for k, v in optional.items() if not v.is_empty}
        result = st.fixed_dictionaries(fixed, optional=optional)
        if extra is not False or "patternProperties" in node:
            names_schema = {**node.get("propertyNames", {}), "type": "string"}
            if self.max_string_length is not None:
                cap_string(names_schema, self.max_string_length)
            names = self.from_schema(names_schema)
            values = self.of(extra) if extra is not False else st.nothing()
            others = (st.just({}) if values.is_empty else
                      st.dictionaries(names.filter(lambda k: k not in properties), values,
                                      max_size=_EXTRA_KEYS))
            patterned = self._pattern_properties(node.get("patternProperties", {}))
            result = st.tuples(result, others, patterned).map(
                lambda parts: {**parts[1], **parts[2], **parts[0]})
        check = draft7_validator(node).is_valid
        return result.filter(check)

    def _pattern_properties(self, patterns: Mapping[str, Any]) -> Any:
        st = self.st
        if not patterns:
            return st.just({})
        entries = [st.tuples(self.from_schema({"type": "string", "pattern": p}), self.of(s))
                   for p, s in patterns.items()]
        return self._lists(st.one_of(entries), max_size=_EXTRA_KEYS).map(dict)

    def _array(self, node: dict[str, Any]) -> Any:
        st = self.st
        items = node.get("items", True)
        low, high = node.get("minItems", 0), node.get("maxItems")
        unique = canonical_key if node.get("uniqueItems") else None
        if isinstance(items, list):
            prefix = st.tuples(*(self.of(s) for s in items[: high if high is not None else None]))
            more = node.get("additionalItems", True)
            n = min(len(items), high if high is not None else len(items))
            tail_high = None if high is None else high - n
            tail = (st.just([]) if more is False or tail_high == 0 else
                    self._lists(self.of(more), min_size=max(0, low - n), max_size=tail_high))
            result = st.tuples(prefix, tail).map(lambda parts: [*parts[0], *parts[1]])
        else:
            result = self._lists(self.of(items), min_size=low, max_size=high, unique_by=unique)
        return result.filter(draft7_validator(node).is_valid)

    def _lists(self, elements: Any, *, min_size: int = 0, max_size: int | None = None,
               unique_by: Any = None) -> Any:
        """``st.lists``, also of elements none can be drawn of (items cut off where recursion
        is unrolled, or ``false``): then the empty list alone, if ``min_size`` allows it
        (hypothesis refuses a bounded collection of ``nothing()``)."""
        st = self.st
        if elements.is_empty:
            return st.just([]) if min_size == 0 else st.nothing()
        return st.lists(elements, min_size=min_size, max_size=max_size, unique_by=unique_by)


def _exact_multiple(value: Any, step: float) -> bool:
    """Whether ``value`` as written by ``json.dumps`` is a decimal multiple of ``step``."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return True
    return to_decimal(value) % to_decimal(step) == 0


class _Rejections:
    """Counts generated documents Pydantic refused, to explain a strategy that starves."""

    def __init__(self) -> None:
        self.count = 0
        self.last: str = ""

    def note(self, error: Exception) -> None:
        self.count += 1
        details = getattr(error, "errors", None)
        if callable(details) and details():
            first = details()[0]
            where = ".".join(str(part) for part in first.get("loc", ())) or "value"
            self.last = f"{where}: {first.get('msg', '')}"
        else:
            self.last = str(error).splitlines()[0] if str(error) else type(error).__name__


def instance_strategy(tp: Any, *, max_string_length: int | None = None) -> Any:
    """A hypothesis strategy of valid instances of ``tp`` (see ``structgen.testing.instances``)."""
    from pydantic import ValidationError

    adapter = type_adapter(tp)
    flat = effective_schema(flatten_schema(json_schema_of(tp)), max_string_length=max_string_length)
    pointer = unsatisfiable_pointer(flat)
    if pointer is not None:
        raise SchemaError(
            f"no JSON value satisfies this part of the schema of {type_name(tp)} (recursion is"
            f" unrolled {RECURSION_DEPTH} levels, so a recursive type needs a base case)",
            pointer=pointer,
        )
    rejections = _Rejections()

    def validate(document: Any) -> Any:
        try:
            return adapter.validate_json(json.dumps(document))
        except (ValidationError, ValueError) as error:
            rejections.note(error)
            return _REJECTED

    strategy = _SchemaStrategies(max_string_length).of(flat)
    instances = strategy.map(validate).filter(lambda value: value is not _REJECTED)
    instances.structgen_rejections = rejections
    return instances


_REJECTED = object()

"""The machinery behind :mod:`structgen.testing`: valid instances of a type, and the two
properties that tie a type to its grammar (round trip and soundness), with readable reports.

Instances come from the type's JSON Schema. hypothesis-jsonschema knows neither recursive
``$ref`` nor 2020-12's ``prefixItems``, so the schema is first flattened: every ``$ref`` is
inlined, recursion is unrolled a few levels (deeper levels become ``false``, which leaves the
type's base cases: empty lists, ``None``) and ``prefixItems`` becomes draft-7 ``items``. Then it
is narrowed to what grammars spell (the converter's integer digit cap, ``max_string_length``).
Objects, arrays and applicators are generated here; hypothesis-jsonschema does the scalars.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Mapping
from datetime import timedelta
from decimal import Decimal
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from ._errors import SchemaError
from ._types import json_schema_of, type_adapter

__all__ = [
    "RECURSION_DEPTH",
    "RoundTripCheck",
    "caret_excerpt",
    "effective_schema",
    "flatten_schema",
    "instance_strategy",
    "json_data",
    "order_keys",
    "run_property",
    "type_name",
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


def type_name(tp: Any) -> str:
    """A short readable name: ``User``, ``list[int]``, ``Optional[Address]``, ``Literal['a']``."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is None or not args:
        if tp is Ellipsis:
            return "..."
        if tp is type(None):
            return "None"
        name = getattr(tp, "__name__", None)
        return name if isinstance(name, str) else repr(tp).replace("typing.", "")
    if origin is Literal:
        return f"Literal[{', '.join(repr(a) for a in args)}]"
    if origin is Annotated:
        marks: list[str] = []
        for mark in tp.__metadata__:
            inner = getattr(mark, "metadata", None)  # a pydantic FieldInfo lists its constraints
            if isinstance(inner, list):
                marks += [repr(m) for m in inner]
            else:
                marks.append(repr(mark))
        return f"Annotated[{', '.join([type_name(args[0]), *marks])}]"
    if origin in (Union, UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 < len(args):
            return f"Optional[{type_name(rest[0])}]"
        return " | ".join(type_name(a) for a in args)
    return f"{type_name(origin)}[{', '.join(type_name(a) for a in args)}]"


# ---------------------------------------------------------------- schema flattening


def _resolve_pointer(document: Any, ref: str, pointer: str) -> Any:
    if not ref.startswith("#"):
        raise SchemaError(f"cannot generate instances through the remote $ref {ref!r}",
                          pointer=pointer, keyword="$ref")
    node = document
    for raw in ref[1:].split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaError(f"$ref {ref!r} points nowhere", pointer=pointer, keyword="$ref")
    return node


def flatten_schema(schema: Any, *, max_depth: int = RECURSION_DEPTH,
                   close_objects: bool = True) -> Any:
    """``schema`` without ``$ref`` (recursion unrolled ``max_depth`` times) or ``prefixItems``.

    With ``close_objects``, an object schema listing ``properties`` and saying nothing about
    others gets ``additionalProperties: false`` (the grammar of a model is closed the same way).
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
                target = walk(_resolve_pointer(schema, ref, pointer), (*stack, ref), pointer)
            rest = {k: v for k, v in node.items() if k not in ("$ref", *_DEFINITIONS)}
            if not rest:
                return target
            return {"allOf": [target, walk(rest, stack, pointer)]}
        out: dict[str, Any] = {}
        for key, value in node.items():
            here = f"{pointer}/{key}"
            if key in _DEFINITIONS:
                continue
            if key in _ONE_SCHEMA and not isinstance(value, list):
                out[key] = walk(value, stack, here)
            elif key in _SCHEMA_LIST or (key == "items" and isinstance(value, list)):
                out[key] = [walk(v, stack, f"{here}/{i}") for i, v in enumerate(value)]
            elif key in _SCHEMA_MAP and isinstance(value, Mapping):
                out[key] = {k: walk(v, stack, f"{here}/{k}") for k, v in value.items()}
            else:
                out[key] = value  # data (enum, const, default) or a plain keyword
        if "prefixItems" in out:
            rest_items = out.pop("items", True)
            out["items"] = out.pop("prefixItems")
            out["additionalItems"] = rest_items
        if close_objects and "properties" in out and not any(
            k in out for k in ("additionalProperties", "patternProperties",
                               "unevaluatedProperties")
        ):
            out["additionalProperties"] = False
        return out

    return walk(schema, (), "#")


def _integer_cap(lower: Any) -> int:
    """The largest magnitude the grammar spells on a side whose other end is ``lower`` (as
    ``_numbers``: ``MAX_INTEGER_DIGITS`` digits, or as many as that bound has)."""
    from ._schema._numbers import MAX_INTEGER_DIGITS

    digits = len(str(abs(int(lower)))) if lower is not None else 0
    return int(10 ** max(MAX_INTEGER_DIGITS, digits)) - 1


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
    node = dict(schema)
    for key, value in schema.items():
        if key in _ONE_SCHEMA and not isinstance(value, list):
            node[key] = effective_schema(value, max_string_length=max_string_length)
        elif key in _SCHEMA_LIST or (key == "items" and isinstance(value, list)):
            node[key] = [effective_schema(v, max_string_length=max_string_length) for v in value]
        elif key in _SCHEMA_MAP and isinstance(value, Mapping):
            node[key] = {k: effective_schema(v, max_string_length=max_string_length)
                         for k, v in value.items()}
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
            node["minimum"] = -_integer_cap(-high if high is not None and high < 0 else None)
        if high is None:
            node["maximum"] = _integer_cap(low if low is not None and low > 0 else None)
    if max_string_length is not None and "enum" not in node and "const" not in node:
        if "string" in types:
            node["maxLength"] = min(node.get("maxLength", max_string_length), max_string_length)
    return node


def _children(schema: Mapping[str, Any], pointer: str) -> list[tuple[Any, str]]:
    found: list[tuple[Any, str]] = []
    for key, value in schema.items():
        here = f"{pointer}/{key}"
        if key in _ONE_SCHEMA and not isinstance(value, list):
            found.append((value, here))
        elif key in _SCHEMA_LIST or (key == "items" and isinstance(value, list)):
            found.extend((v, f"{here}/{i}") for i, v in enumerate(value))
        elif key in _SCHEMA_MAP and isinstance(value, Mapping):
            found.extend((v, f"{here}/{k}") for k, v in value.items())
    return found


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
    while isinstance(node, Mapping):
        inner = [(child, p) for child, p in _children(node, pointer) if empty(child)]
        if not inner:
            break
        node, pointer = inner[0]
    return pointer


# ---------------------------------------------------------------- instances


def _duration_strings() -> Any:
    from hypothesis import strategies as st

    as_json = type_adapter(timedelta)
    return st.timedeltas().map(lambda d: str(as_json.dump_python(d, mode="json")))


def _pydantic_formats() -> dict[str, Any]:
    """Strategies for the formats Pydantic emits that hypothesis-jsonschema does not know."""
    from hypothesis import strategies as st

    return {"uuid": st.uuids().map(str), "duration": _duration_strings()}


_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated",
                          "readOnly", "writeOnly", "$comment", "discriminator"})
_OBJECT_WORDS = ("properties", "additionalProperties", "patternProperties", "required",
                 "propertyNames", "minProperties", "maxProperties")
_ARRAY_WORDS = ("items", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains")
_EXTRA_KEYS = 3  # at most this many undeclared keys in a generated open object


def _unique_key(value: Any) -> str:
    """Equal JSON values (1 and 1.0 included) get equal keys; true and 1 do not."""

    def norm(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        return v

    return json.dumps(norm(value), sort_keys=True)


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
        cap = _integer_cap(None)
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
                return branches.filter(_validator(node).is_valid) if word == "oneOf" else branches
        if "enum" in node or "const" in node:
            values = [node["const"]] if "const" in node else list(node["enum"])
            return st.sampled_from(values).filter(_validator(node).is_valid)
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
        return self.of(parts[0]).filter(_validator({"allOf": parts[1:]}).is_valid)

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
                names_schema["maxLength"] = min(names_schema.get("maxLength", 1 << 30),
                                                self.max_string_length)
            names = self.from_schema(names_schema)
            others = st.dictionaries(names.filter(lambda k: k not in properties),
                                     self.of(extra) if extra is not False else st.nothing(),
                                     max_size=_EXTRA_KEYS)
            patterned = self._pattern_properties(node.get("patternProperties", {}))
            result = st.tuples(result, others, patterned).map(
                lambda parts: {**parts[1], **parts[2], **parts[0]})
        check = _validator(node).is_valid
        return result.filter(check)

    def _pattern_properties(self, patterns: Mapping[str, Any]) -> Any:
        st = self.st
        if not patterns:
            return st.just({})
        entries = [st.tuples(self.from_schema({"type": "string", "pattern": p}), self.of(s))
                   for p, s in patterns.items()]
        return st.lists(st.one_of(entries), max_size=_EXTRA_KEYS).map(dict)

    def _array(self, node: dict[str, Any]) -> Any:
        st = self.st
        items = node.get("items", True)
        low, high = node.get("minItems", 0), node.get("maxItems")
        unique = _unique_key if node.get("uniqueItems") else None
        if isinstance(items, list):
            prefix = st.tuples(*(self.of(s) for s in items[: high if high is not None else None]))
            more = node.get("additionalItems", True)
            n = min(len(items), high if high is not None else len(items))
            tail_high = None if high is None else high - n
            tail = (st.just([]) if more is False or tail_high == 0 else
                    st.lists(self.of(more), min_size=max(0, low - n), max_size=tail_high))
            result = st.tuples(prefix, tail).map(lambda parts: [*parts[0], *parts[1]])
        else:
            result = st.lists(self.of(items), min_size=low, max_size=high, unique_by=unique)
        return result.filter(_validator(node).is_valid)


def _exact_multiple(value: Any, step: float) -> bool:
    """Whether ``value`` as written by ``json.dumps`` is a decimal multiple of ``step``."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return True
    exact = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    return exact % Decimal(repr(step)) == 0


def _validator(schema: Any) -> Any:
    from jsonschema import Draft7Validator  # type: ignore[import-untyped]

    return Draft7Validator(schema)


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


def instance_strategy(tp: Any, *, max_depth: int = RECURSION_DEPTH,
                      max_string_length: int | None = None) -> Any:
    """A hypothesis strategy of valid instances of ``tp`` (see ``structgen.testing.instances``)."""
    from pydantic import ValidationError

    adapter = type_adapter(tp)
    flat = effective_schema(flatten_schema(json_schema_of(tp), max_depth=max_depth),
                            max_string_length=max_string_length)
    pointer = unsatisfiable_pointer(flat)
    if pointer is not None:
        raise SchemaError(
            f"no JSON value satisfies this part of the schema of {type_name(tp)} (recursion is"
            f" unrolled {max_depth} levels, so a recursive type needs a base case)",
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


# ---------------------------------------------------------------- key order


def order_keys(data: Any, schema: Any, *, prop_order: tuple[str, ...] = (),
               required_first: bool = False) -> Any:
    """``data`` with object keys in the order the grammar emits them (``prop_order`` names
    first, then declaration order; required keys before optional ones if ``required_first``).
    Of a union, the first branch that ``data`` is valid against decides."""
    document = schema

    def resolve(node: Any) -> Any:
        seen = 0
        while isinstance(node, Mapping) and "$ref" in node and seen < 64:
            node, seen = _resolve_pointer(document, node["$ref"], "#"), seen + 1
        return node

    def branch(node: Any, value: Any) -> Any:
        node = resolve(node)
        if not isinstance(node, Mapping):
            return {}
        for word in ("anyOf", "oneOf", "allOf"):
            for option in node.get(word, ()):
                option = resolve(option)
                if word == "allOf" or _validator({**option, "$defs": document.get("$defs", {})}
                                                  ).is_valid(value):
                    picked = branch(option, value)
                    if picked:
                        return picked
        return node

    def walk(value: Any, node: Any) -> Any:
        node = branch(node, value)
        if isinstance(value, list):
            items = node.get("prefixItems", [])
            rest = node.get("items", True)
            return [walk(v, items[i] if i < len(items) else rest) for i, v in enumerate(value)]
        if not isinstance(value, dict):
            return value
        properties: Mapping[str, Any] = node.get("properties", {})
        required = set(node.get("required", ()))
        declared = [k for k in properties if k in value]
        keys = [k for k in prop_order if k in declared]
        keys += [k for k in declared if k not in keys]
        if required_first:
            keys = [k for k in keys if k in required] + [k for k in keys if k not in required]
        keys += [k for k in value if k not in keys]
        extra = node.get("additionalProperties", True)
        return {k: walk(value[k], properties.get(k, extra)) for k in keys}

    return walk(data, schema)


# ---------------------------------------------------------------- reports


def _visible(ch: str) -> str:
    if ch.isprintable() and unicodedata.east_asian_width(ch) not in ("W", "F"):
        return ch
    if ch.isprintable():
        return ch + " "  # wide characters take two columns; keep the caret aligned
    return ch.encode("unicode_escape").decode("ascii")


def caret_excerpt(text: str, offset: int, *, indent: str = "  ", width: int = 100) -> str:
    """Two lines: ``text`` (a window of it when long) and a caret under character ``offset``."""
    start = max(0, min(offset - width // 2, len(text) - width))
    end = min(len(text), start + width)
    shown = [_visible(ch) for ch in text[start:end]]
    head = "…" if start > 0 else ""
    tail = "…" if end < len(text) else ""
    column = len(head) + sum(len(piece) for piece in shown[: offset - start])
    line = f"{indent}{head}{''.join(shown)}{tail}"
    if offset >= len(text):
        note = f"offset {offset}: the text ends where the grammar needs more"
    else:
        note = f"offset {offset}: first rejected character {text[offset]!r}"
    return f"{line}\n{indent}{' ' * column}^ {note}"


def json_data(adapter: Any, value: Any) -> Any:
    """``value`` as the JSON data its schema describes: keys by (validation) alias, computed
    fields left out (they are not in the validation schema), round-trippable forms."""
    try:
        return adapter.dump_python(value, mode="json", by_alias=True, round_trip=True,
                                   exclude_computed_fields=True)
    except TypeError:  # Pydantic < 2.12 has no exclude_computed_fields
        return adapter.dump_python(value, mode="json", by_alias=True, round_trip=True)


class RoundTripCheck:
    """Checks one type against one grammar; each method returns None or a failure report.

    ``serialize`` turns ``json_data(adapter, value)`` into the grammar's text and
    ``parse`` reads such a text back (default: ``adapter.validate_json``); ``verdict(text)`` is
    the native check (a ``Verdict``); ``spellable(ch)`` says whether the vocabulary behind
    ``verdict`` can write the character at all. With ``refusal``, a sample that is the refusal
    alternative ``{"refusal": "..."}`` need not validate.
    """

    def __init__(self, tp: Any, serialize: Callable[[Any], str],
                 verdict: Callable[[str], Any],
                 spellable: Callable[[str], bool] = lambda ch: True,
                 parse: Callable[[str], Any] | None = None, refusal: bool = False) -> None:
        self.tp = tp
        self.name = type_name(tp)
        self.adapter = type_adapter(tp)
        self.serialize = serialize
        self.verdict = verdict
        self.spellable = spellable
        self.parse = parse or self.adapter.validate_json
        self.refusal = refusal

    def round_trip_problem(self, instance: Any) -> str | None:
        text = self.serialize(json_data(self.adapter, instance))
        head = f"round trip of {self.name} failed"
        shown = f"  instance: {instance!r}"
        verdict = self.verdict(text)
        if not verdict.accepted:
            return (f"{head}: llama.cpp's grammar sampler rejects the JSON of a valid instance\n"
                    f"{shown}\n  text (first rejected character marked):\n"
                    f"{caret_excerpt(text, verdict.rejected_at or 0, indent='    ')}")
        try:
            back = self.parse(text)
        except ValueError as error:
            return f"{head}: the JSON does not validate back\n{shown}\n  text: {text}\n{error}"
        if back != instance:
            return (f"{head}: parsing the JSON back gives a different value\n{shown}\n"
                    f"  parsed:   {back!r}\n  text: {text}")
        return None

    def sample_problem(self, text: str) -> str | None:
        head = f"soundness of the grammar of {self.name} failed"
        try:
            self.parse(text)
        except ValueError as error:
            if not (self.refusal and _is_refusal(text)):
                return (f"{head}: a string the grammar derives does not validate\n"
                        f"  text: {text!r}\n{error}")
        return self._native_problem(head, text)

    def _native_problem(self, head: str, text: str) -> str | None:
        verdict = self.verdict(text)
        at = verdict.rejected_at or 0
        if not verdict.accepted and (at >= len(text) or self.spellable(text[at])):
            # (A character no token of the vocabulary can write is no disagreement: a model
            # with this vocabulary never emits it.)
            return (f"{head}: llama.cpp's grammar sampler rejects a string the grammar derives"
                    " (the sampler and the pure-Python derivation disagree)\n"
                    f"{caret_excerpt(text, at)}")
        return None


def _is_refusal(text: str) -> bool:
    """Whether ``text`` is the refusal alternative: ``{"refusal": "<reason>"}``."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and list(value) == ["refusal"] and isinstance(
        value["refusal"], str)


def run_property(strategy: Any, problem: Callable[[Any], str | None], *,
                 max_examples: int) -> None:
    """Run ``problem`` on ``max_examples`` values of ``strategy``; raise AssertionError with the
    report of the (shrunk) failing value. A starving instance strategy gets its cause noted."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import FailedHealthCheck, Unsatisfiable

    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise ValueError(f"max_examples must be a positive int, not {max_examples!r}")

    @settings(max_examples=max_examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy)
    def holds(value: Any) -> None:
        report = problem(value)
        if report is not None:
            raise AssertionError(report)

    try:
        holds()
    except (FailedHealthCheck, Unsatisfiable) as error:
        rejections = getattr(strategy, "structgen_rejections", None)
        if rejections is None or not rejections.count:
            raise
        # Same exception type, with the cause spelled out (add_note needs Python 3.11).
        raise type(error)(
            f"{error}\nstructgen: Pydantic refused {rejections.count} documents generated from"
            f" the JSON Schema (the type has constraints its schema does not state, such as"
            f" validators); last error: {rejections.last}"
        ) from None

"""The intermediate representation: a schema as a union of typed atoms.

A JSON Schema denotes a set of JSON values. We represent that set as a tuple of *atoms*; each atom
describes values of exactly one JSON type (or one literal value, or a named reference), and the set
is the union of the atoms. Keywords then only ever touch the atom of their own type, which is what
makes an untyped ``{"minLength": 2}`` mean "any non-string, or a string of length >= 2".

An empty tuple is the empty set (the ``false`` schema).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from decimal import Decimal
from json.encoder import encode_basestring_ascii
from typing import Any, Union

from ..._frozen import cached_hash

Bound = tuple[Decimal, bool]  # (value, exclusive)


@cached_hash
@dataclass(frozen=True)
class NullAtom:
    pass


@cached_hash
@dataclass(frozen=True)
class BoolAtom:
    values: frozenset[bool] = frozenset({True, False})


@cached_hash
@dataclass(frozen=True)
class NumAtom:
    """Numbers between ``lower`` and ``upper``; ``integer`` keeps only integral values, spelled
    with a zero fraction (1.0) too unless ``float_integers`` is False (drafts 3 and 4)."""

    lower: Bound | None = None
    upper: Bound | None = None
    multiple_of: Decimal | None = None
    integer: bool = False
    float_integers: bool = True
    fraction: bool = False  # only numbers that are not integers (a complement of integer)


@cached_hash
@dataclass(frozen=True)
class StringSpec:
    """A set of strings (decoded values), every field a further restriction."""

    patterns: tuple[str, ...] = ()  # ECMA-262 regexes, search semantics; ALL must match
    not_patterns: tuple[str, ...] = ()  # NONE may match
    min_length: int = 0  # code points
    max_length: int | None = None
    formats: tuple[str, ...] = ()  # names; regexes from strings.formats.format_regex
    exclude: frozenset[str] = frozenset()  # decoded values not allowed
    only: frozenset[str] | None = None  # if set, the finite set of allowed values


@cached_hash
@dataclass(frozen=True)
class StrAtom:
    spec: StringSpec = field(default_factory=StringSpec)


@cached_hash
@dataclass(frozen=True)
class Contains:
    ir: IR
    minimum: int = 1
    maximum: int | None = None


@cached_hash
@dataclass(frozen=True)
class ArrAtom:
    """Arrays: ``prefix[i]`` constrains position i, ``items`` every later position."""

    prefix: tuple[IR, ...] = ()
    items: IR | None = None  # None: any value
    min_items: int = 0
    max_items: int | None = None
    contains: tuple[Contains, ...] = ()
    unique: bool = False
    # What evaluated the items, for unevaluatedItems: the first seen_prefix positions, every
    # position (items/additionalItems), or the items matching one of seen_contains.
    seen_prefix: int = 0
    seen_all: bool = False
    seen_contains: tuple[IR, ...] = ()


@cached_hash
@dataclass(frozen=True)
class KeyCond:
    """Which undeclared keys a value schema applies to.

    ``match`` set: keys the regex matches (patternProperties). ``match`` None: keys that none of
    ``nomatch`` matches (additionalProperties beside the patternProperties of the same schema).
    """

    match: str | None = None
    nomatch: tuple[str, ...] = ()


@cached_hash
@dataclass(frozen=True)
class Need:
    """At least one member whose key is undeclared (not in ``props``, not in ``excluded``),
    meets ``cond``, and whose value is in ``ir`` (what the complement of
    additionalProperties/patternProperties asks for)."""

    cond: KeyCond
    ir: IR
    excluded: frozenset[str] = frozenset()
    key_names: IR | None = None  # the key must also be one of these strings (¬propertyNames)


@cached_hash
@dataclass(frozen=True)
class ObjAtom:
    """Objects. ``props`` are declared keys (value schema already includes matching patterns);
    every ``extras`` rule whose condition holds applies to an undeclared key; ``names`` constrains
    every key (propertyNames)."""

    props: tuple[tuple[str, IR], ...] = ()
    required: frozenset[str] = frozenset()
    extras: tuple[tuple[KeyCond, IR], ...] = ()
    names: IR | None = None
    min_props: int = 0
    max_props: int | None = None
    # What evaluated the members, for unevaluatedProperties: keys named by ``properties``,
    # keys matching a patternProperties regex, or everything (additionalProperties).
    seen: frozenset[str] = frozenset()
    seen_patterns: tuple[str, ...] = ()
    seen_all: bool = False
    # Declared by a schema with ``properties`` (a model): what additional_properties=False closes.
    modeled: bool = False
    needs: tuple[Need, ...] = ()

    def prop(self, name: str) -> IR | None:
        if len(self.props) <= _SCAN_PROPS:
            for key, ir in self.props:
                if key == name:
                    return ir
            return None
        # Intersections look up every key of both sides: a scan would make that quadratic.
        table: dict[str, IR] | None = self.__dict__.get("_prop_table")
        if table is None:
            table = {}
            for key, ir in self.props:
                table.setdefault(key, ir)
            object.__setattr__(self, "_prop_table", table)
        return table.get(name)


#: Objects with at most this many declared keys look a key up by scanning.
_SCAN_PROPS = 8


@cached_hash
@dataclass(frozen=True, eq=False)
class ConstAtom:
    """Exactly one JSON value (hashed by its canonical key, so JSON-equal values match)."""

    value: Any

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConstAtom) and json_equal(self.value, other.value)

    def __hash__(self) -> int:
        return hash(canonical_key(self.value))


@cached_hash
@dataclass(frozen=True)
class RefAtom:
    """Whatever the schema at ``key`` (an absolute URI with fragment) denotes; emitted as a rule."""

    key: str


Atom = Union[NullAtom, BoolAtom, NumAtom, StrAtom, ArrAtom, ObjAtom, ConstAtom, RefAtom]
IR = tuple[Atom, ...]

NOTHING: IR = ()
ANY: IR = (NullAtom(), BoolAtom(), NumAtom(), StrAtom(), ArrAtom(), ObjAtom())
TYPE_ATOMS: dict[str, Atom] = {
    "null": NullAtom(),
    "boolean": BoolAtom(),
    "number": NumAtom(),
    "integer": NumAtom(integer=True),
    "string": StrAtom(),
    "array": ArrAtom(),
    "object": ObjAtom(),
}


class Irreducible(Exception):
    """The exact result of a set operation is not expressible in the IR."""


_TYPE_OF: dict[type, str] = {NullAtom: "null", BoolAtom: "boolean", NumAtom: "number",
                             StrAtom: "string", ArrAtom: "array", ObjAtom: "object"}


def atom_type(atom: Atom) -> str:
    """The JSON type an atom's values have (integers count as numbers)."""
    if isinstance(atom, ConstAtom):
        t = json_type(atom.value)
        return "number" if t == "integer" else t
    return _TYPE_OF[type(atom)]


def is_finite(ir: IR) -> bool:
    for atom in ir:
        if type(atom) is not ConstAtom:
            return False
    return True


def is_any(ir: IR | None) -> bool:
    return ir is None or ir == ANY


def json_type(value: Any) -> str:
    """The JSON type name of a Python value decoded from JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if math.isfinite(value) and value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {value!r}")


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true != 1; objects compare without key order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return to_decimal(a) == to_decimal(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def to_decimal(value: int | float) -> Decimal:
    """The exact decimal a JSON number spells (floats by their shortest repr)."""
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


def canonical_key(value: Any) -> str:
    """A hashable key equal for JSON-equal values."""
    if isinstance(value, str):
        return encode_basestring_ascii(value)  # what json.dumps does for a str, minus its overhead
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "n" + str(to_decimal(value).normalize())
    if isinstance(value, list):
        return "[" + ",".join(canonical_key(v) for v in value) + "]"
    if isinstance(value, dict):
        items = sorted((json.dumps(k), canonical_key(v)) for k, v in value.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    raise TypeError(f"not a JSON value: {value!r}")

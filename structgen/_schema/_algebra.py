"""Set algebra on the IR: intersection (allOf), complement (not), union clean-up.

Everything here is exact. When an exact answer is out of reach, :class:`Irreducible` is raised and
the keyword handler that asked turns it into an ``UnsupportedSchemaError`` naming its keyword.
"""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ._ir import (
    ANY, IR, NOTHING, ArrAtom, Atom, BoolAtom, ConstAtom, Contains, KeyCond, NullAtom, NumAtom,
    ObjAtom, RefAtom, StrAtom, json_type,
)
from ._strings import StringSpec

if TYPE_CHECKING:
    from ._normalize import Normalizer

#: A union larger than this is not worth a grammar (intersections multiply unions).
MAX_ATOMS = 256


class Irreducible(Exception):
    """The exact result is not expressible in the IR."""


_TYPE_OF: dict[type, str] = {NullAtom: "null", BoolAtom: "boolean", NumAtom: "number",
                             StrAtom: "string", ArrAtom: "array", ObjAtom: "object"}


def atom_type(atom: Atom) -> str:
    if isinstance(atom, ConstAtom):
        t = json_type(atom.value)
        return "number" if t == "integer" else t
    return _TYPE_OF[type(atom)]


def is_finite(ir: IR) -> bool:
    return all(isinstance(a, ConstAtom) for a in ir)


def _lcm(a: Decimal, b: Decimal) -> Decimal:
    exp = max(-a.as_tuple().exponent, -b.as_tuple().exponent, 0)  # type: ignore[operator]
    scale = Decimal(10) ** exp
    ia, ib = int(a * scale), int(b * scale)
    return Decimal(ia * ib // math.gcd(ia, ib)) / scale


def _tighter(a: tuple[Decimal, bool] | None, b: tuple[Decimal, bool] | None,
             lower: bool) -> tuple[Decimal, bool] | None:
    if a is None or b is None:
        return a if b is None else b
    if a[0] == b[0]:
        return (a[0], a[1] or b[1])
    pick_a = a[0] > b[0] if lower else a[0] < b[0]
    return a if pick_a else b


def num_empty(atom: NumAtom) -> bool:
    lo, hi = atom.lower, atom.upper
    if lo is not None and hi is not None:
        if lo[0] > hi[0] or (lo[0] == hi[0] and (lo[1] or hi[1])):
            return True
    if atom.integer and lo is not None and hi is not None:
        low = math.floor(lo[0]) + 1 if lo[1] else math.ceil(lo[0])
        high = math.ceil(hi[0]) - 1 if hi[1] else math.floor(hi[0])
        return low > high
    return False


class Algebra:
    def __init__(self, ctx: Normalizer) -> None:
        self.ctx = ctx

    # ---------------------------------------------------------------- union clean-up
    def simplify(self, ir: IR) -> IR:
        """Drop duplicates and atoms covered by an unconstrained atom of the same type."""
        full = {atom_type(a) for a in ir if a in ANY}
        out: list[Atom] = []
        for atom in ir:
            if atom in out:
                continue
            if not isinstance(atom, RefAtom) and atom_type(atom) in full and atom not in ANY:
                continue
            out.append(atom)
        if len(out) > MAX_ATOMS:
            raise Irreducible(f"more than {MAX_ATOMS} alternatives")
        return tuple(out)

    # ---------------------------------------------------------------- intersection
    def intersect(self, a: IR, b: IR, nested: bool = False) -> IR:
        if a == ANY or a == b:
            return b
        if b == ANY:
            return a
        if not a or not b:
            return NOTHING
        refs = any(isinstance(x, RefAtom) for x in a + b)
        if refs and nested:
            return (self.ctx.synthetic("and", (a, b)),)
        if refs:
            a, b = self.ctx.expand_all(a), self.ctx.expand_all(b)
        if is_finite(a) or is_finite(b):
            finite, other = (a, b) if is_finite(a) else (b, a)
            return tuple(c for c in finite if self.ctx.accepts(other, c.value))  # type: ignore[union-attr]
        out: list[Atom] = []
        for x in a:
            for y in b:
                z = self.intersect_atoms(x, y)
                if z is not None:
                    out.append(z)
        return self.simplify(tuple(out))

    def intersect_all(self, parts: list[IR]) -> IR:
        # Finite parts first: everything after them is a cheap filter.
        parts = sorted(parts, key=lambda p: 0 if is_finite(p) else 1)
        result = ANY
        for part in parts:
            result = self.intersect(result, part)
            if not result:
                break
        return result

    def intersect_atoms(self, x: Atom, y: Atom) -> Atom | None:
        if isinstance(x, ConstAtom) or isinstance(y, ConstAtom):
            c, other = (x, y) if isinstance(x, ConstAtom) else (y, x)
            return c if self.ctx.accepts((other,), c.value) else None  # type: ignore[union-attr]
        if atom_type(x) != atom_type(y):
            return None
        if x == y:
            return x
        if isinstance(x, BoolAtom) and isinstance(y, BoolAtom):
            values = x.values & y.values
            return BoolAtom(values) if values else None
        if isinstance(x, NumAtom) and isinstance(y, NumAtom):
            return self._numbers(x, y)
        if isinstance(x, StrAtom) and isinstance(y, StrAtom):
            return self._strings(x.spec, y.spec)
        if isinstance(x, ArrAtom) and isinstance(y, ArrAtom):
            return self._arrays(x, y)
        if isinstance(x, ObjAtom) and isinstance(y, ObjAtom):
            return self._objects(x, y)
        return x  # NullAtom

    def _numbers(self, x: NumAtom, y: NumAtom) -> NumAtom | None:
        mult = x.multiple_of if y.multiple_of is None else (
            y.multiple_of if x.multiple_of is None else _lcm(x.multiple_of, y.multiple_of))
        atom = NumAtom(_tighter(x.lower, y.lower, True), _tighter(x.upper, y.upper, False), mult,
                       x.integer or y.integer)
        return None if num_empty(atom) else atom

    def _strings(self, x: StringSpec, y: StringSpec) -> StrAtom | None:
        maxes = [m for m in (x.max_length, y.max_length) if m is not None]
        spec = StringSpec(
            patterns=tuple(dict.fromkeys(x.patterns + y.patterns)),
            not_patterns=tuple(dict.fromkeys(x.not_patterns + y.not_patterns)),
            min_length=max(x.min_length, y.min_length),
            max_length=min(maxes) if maxes else None,
            formats=tuple(dict.fromkeys(x.formats + y.formats)),
            exclude=x.exclude | y.exclude,
            only=None,
        )
        if spec.max_length is not None and spec.min_length > spec.max_length:
            return None
        if x.only is not None or y.only is not None:
            candidates = (x.only if x.only is not None else y.only) or frozenset()
            only = frozenset(v for v in candidates if self.ctx.string_matches(spec, v)
                             and (y.only is None or v in y.only) and (x.only is None or v in x.only))
            if not only:
                return None
            spec = replace(spec, only=only)
        return StrAtom(spec)

    def _arrays(self, x: ArrAtom, y: ArrAtom) -> ArrAtom | None:
        n = max(len(x.prefix), len(y.prefix))
        xi = ANY if x.items is None else x.items
        yi = ANY if y.items is None else y.items
        prefix = []
        for i in range(n):
            px = x.prefix[i] if i < len(x.prefix) else xi
            py = y.prefix[i] if i < len(y.prefix) else yi
            prefix.append(self.intersect(px, py, nested=True))
        items = self.intersect(xi, yi, nested=True)
        maxes = [m for m in (x.max_items, y.max_items) if m is not None]
        atom = ArrAtom(tuple(prefix), None if items == ANY else items,
                       max(x.min_items, y.min_items), min(maxes) if maxes else None,
                       x.contains + y.contains, x.unique or y.unique)
        return array_nonempty(atom)

    def value_for_key(self, atom: ObjAtom, key: str) -> IR:
        """The schema ``atom`` imposes on the value of property ``key``."""
        declared = atom.prop(key)
        if declared is not None:
            return declared
        result = ANY
        for cond, ir in atom.extras:
            if self.key_matches(cond, key):
                result = self.intersect(result, ir, nested=True)
        return result

    def key_matches(self, cond: KeyCond, key: str) -> bool:
        if cond.match is not None:
            return self.ctx.pattern_matches(cond.match, key)
        return not any(self.ctx.pattern_matches(p, key) for p in cond.nomatch)

    def _objects(self, x: ObjAtom, y: ObjAtom) -> ObjAtom | None:
        names = [k for k, _ in x.props] + [k for k, _ in y.props if x.prop(k) is None]
        props = tuple((k, self.intersect(self.value_for_key(x, k), self.value_for_key(y, k),
                                         nested=True)) for k in names)
        maxes = [m for m in (x.max_props, y.max_props) if m is not None]
        if x.names is None or y.names is None:
            key_names = x.names if y.names is None else y.names
        else:
            key_names = self.intersect(x.names, y.names)
        atom = ObjAtom(props, x.required | y.required, x.extras + y.extras, key_names,
                       max(x.min_props, y.min_props), min(maxes) if maxes else None)
        return object_nonempty(atom)

    # ---------------------------------------------------------------- complement
    def complement(self, ir: IR, nested: bool = False) -> IR:
        if any(isinstance(a, RefAtom) for a in ir):
            if nested:
                return (self.ctx.synthetic("not", (ir,)),)
            ir = self.ctx.expand_all(ir)
        result = ANY
        for atom in ir:
            result = self.intersect(result, self._complement_atom(atom))
            if not result:
                break
        return result

    def _others(self, kind: str) -> list[Atom]:
        return [a for a in ANY if atom_type(a) != kind]

    def _complement_atom(self, atom: Atom) -> IR:
        kind = atom_type(atom)
        pieces: list[Atom] = self._others(kind)
        if isinstance(atom, ConstAtom):
            pieces += self._not_value(atom.value)
        elif isinstance(atom, BoolAtom):
            rest = frozenset({True, False}) - atom.values
            pieces += [BoolAtom(rest)] if rest else []
        elif isinstance(atom, NumAtom):
            pieces += self._not_number(atom)
        elif isinstance(atom, StrAtom):
            pieces += self._not_string(atom.spec)
        elif isinstance(atom, ArrAtom):
            pieces += self._not_array(atom)
        elif isinstance(atom, ObjAtom):
            pieces += self._not_object(atom)
        return self.simplify(tuple(pieces))

    def _not_value(self, value: Any) -> list[Atom]:
        kind = json_type(value)
        if kind == "null":
            return []
        if kind == "boolean":
            return [BoolAtom(frozenset({not value}))]
        if kind in ("integer", "number"):
            d = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
            return [NumAtom(upper=(d, True)), NumAtom(lower=(d, True))]
        if kind == "string":
            return [StrAtom(StringSpec(exclude=frozenset({value})))]
        if kind == "array" and not value:
            return [ArrAtom(min_items=1)]
        if kind == "object" and not value:
            return [ObjAtom(min_props=1)]
        raise Irreducible(f"the complement of the {kind} value {value!r}")

    def _not_number(self, atom: NumAtom) -> list[Atom]:
        if atom.multiple_of is not None or atom.integer:
            raise Irreducible("the complement of integer or multipleOf constraints")
        out: list[Atom] = []
        if atom.lower is not None:
            out.append(NumAtom(upper=(atom.lower[0], not atom.lower[1])))
        if atom.upper is not None:
            out.append(NumAtom(lower=(atom.upper[0], not atom.upper[1])))
        return out

    def _not_string(self, spec: StringSpec) -> list[Atom]:
        if spec.formats:
            raise Irreducible("the complement of a format")
        out = [StrAtom(StringSpec(not_patterns=(p,))) for p in spec.patterns]
        out += [StrAtom(StringSpec(patterns=(p,))) for p in spec.not_patterns]
        if spec.min_length > 0:
            out.append(StrAtom(StringSpec(max_length=spec.min_length - 1)))
        if spec.max_length is not None:
            out.append(StrAtom(StringSpec(min_length=spec.max_length + 1)))
        if spec.exclude:
            out.append(StrAtom(StringSpec(only=spec.exclude)))
        if spec.only is not None:
            out.append(StrAtom(StringSpec(exclude=spec.only)))
        return out

    def _not_array(self, atom: ArrAtom) -> list[Atom]:
        if atom.unique:
            raise Irreducible("the complement of uniqueItems")
        out: list[Atom] = []
        if atom.min_items > 0:
            out.append(ArrAtom(max_items=atom.min_items - 1))
        if atom.max_items is not None:
            out.append(ArrAtom(min_items=atom.max_items + 1))
        for i, ir in enumerate(atom.prefix):
            if ir != ANY:
                prefix = (ANY,) * i + (self.complement(ir, nested=True),)
                out.append(ArrAtom(prefix=prefix, min_items=i + 1))
        if atom.items is not None and atom.items != ANY:
            if atom.prefix:
                raise Irreducible("the complement of items after prefixItems")
            out.append(ArrAtom(contains=(Contains(self.complement(atom.items, nested=True)),)))
        for c in atom.contains:
            if c.maximum is not None or c.minimum > 1 or atom.prefix:
                raise Irreducible("the complement of minContains/maxContains")
            if c.minimum == 1:
                out.append(ArrAtom(items=self.complement(c.ir, nested=True)))
        return out

    def _not_object(self, atom: ObjAtom) -> list[Atom]:
        if atom.names is not None and atom.names != ANY:
            raise Irreducible("the complement of propertyNames")
        out: list[Atom] = []
        for key in sorted(atom.required):
            out.append(ObjAtom(props=((key, NOTHING),)))
        for key, ir in atom.props:
            if ir != ANY:
                out.append(ObjAtom(props=((key, self.complement(ir, nested=True)),),
                                   required=frozenset({key})))
        for _cond, ir in atom.extras:
            if ir != ANY:
                raise Irreducible("the complement of additionalProperties or patternProperties")
        if atom.min_props > 0:
            out.append(ObjAtom(max_props=atom.min_props - 1))
        if atom.max_props is not None:
            out.append(ObjAtom(min_props=atom.max_props + 1))
        return out


def array_nonempty(atom: ArrAtom) -> ArrAtom | None:
    """``atom`` with impossible positions cut off, or None when no array fits."""
    limit = atom.max_items
    for i, ir in enumerate(atom.prefix):
        if not ir:
            limit = i if limit is None else min(limit, i)
            break
    if atom.items == NOTHING:
        limit = len(atom.prefix) if limit is None else min(limit, len(atom.prefix))
    if limit is not None and atom.min_items > limit:
        return None
    for c in atom.contains:
        if not c.ir and c.minimum > 0:
            return None
        if limit is not None and c.minimum > limit:
            return None
    if limit != atom.max_items:
        atom = replace(atom, max_items=limit)
    return atom


def object_nonempty(atom: ObjAtom) -> ObjAtom | None:
    for key, ir in atom.props:
        if not ir and key in atom.required:
            return None
    if atom.max_props is not None and (atom.min_props > atom.max_props
                                       or len(atom.required) > atom.max_props):
        return None
    if atom.names is not None and not atom.names and (atom.required or atom.min_props):
        return None
    return atom

"""Set algebra on the IR: intersection (allOf), complement (not), union clean-up.

Everything here is exact. When an exact answer is out of reach, :class:`Irreducible` is raised and
the keyword handler that asked turns it into an ``UnsupportedSchemaError`` naming its keyword.
"""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal

from ..ir.atoms import (
    ANY, IR, NOTHING, ArrAtom, Atom, BoolAtom, ConstAtom, Irreducible, KeyCond, Need, NumAtom,
    ObjAtom, RefAtom, StrAtom, StringSpec, atom_type, decimal_lcm, is_finite,
)
from .complement import complement_atom
from .context import AlgebraContext

__all__ = ["Algebra", "Irreducible", "array_nonempty", "is_finite", "num_empty",
           "object_nonempty"]

_FULL = frozenset(ANY)

#: A union larger than this is not worth a grammar (intersections multiply unions).
MAX_ATOMS = 256


def _tighter(a: tuple[Decimal, bool] | None, b: tuple[Decimal, bool] | None,
             lower: bool) -> tuple[Decimal, bool] | None:
    if a is None or b is None:
        return a if b is None else b
    if a[0] == b[0]:
        return (a[0], a[1] or b[1])
    pick_a = a[0] > b[0] if lower else a[0] < b[0]
    return a if pick_a else b


def _annotated(atom: Atom) -> bool:
    """Whether an atom records evaluated items/properties (for unevaluated*): such an atom is
    not redundant beside an unconstrained one, because it evaluates more."""
    if isinstance(atom, ArrAtom):
        return bool(atom.seen_prefix or atom.seen_all or atom.seen_contains)
    if isinstance(atom, ObjAtom):
        return bool(atom.seen or atom.seen_patterns or atom.seen_all)
    return False


def _counts_joined(atoms: list[Atom]) -> list[Atom]:
    """Arrays alike in everything but their item counts, where the counts overlap or touch, as
    one array (the first one's place). Two list alternatives that begin alike keep a parser stack
    each through every item in llama.cpp's sampler, and nested in one another (recursive through
    a reference) the stacks double with every level; one array keeps one."""
    joined = True
    while joined:
        joined = False
        kept: list[Atom] = []
        for atom in atoms:
            for i, other in enumerate(kept):
                if isinstance(atom, ArrAtom) and isinstance(other, ArrAtom):
                    union = _count_union(other, atom)
                    if union is not None:
                        kept[i], joined = union, True
                        break
            else:
                kept.append(atom)
        atoms = kept
    return atoms


def _count_union(x: ArrAtom, y: ArrAtom) -> ArrAtom | None:
    """One array for ``x`` or ``y``, if they differ only in counts that overlap or touch."""
    if replace(x, min_items=0, max_items=None) != replace(y, min_items=0, max_items=None):
        return None
    highs = [m for m in (x.max_items, y.max_items) if m is not None]
    if highs and max(x.min_items, y.min_items) > min(highs) + 1:
        return None  # a gap between the two ranges of counts
    return replace(x, min_items=min(x.min_items, y.min_items),
                   max_items=max(highs) if len(highs) == 2 else None)


def _combined_needs(needs: tuple[Need, ...]) -> tuple[Need, ...]:
    """Needs as the grammar can hold them: each is met by a member of its own, so a need that
    another one implies goes (one member meets both); two independent ones are irreducible."""
    def implied(weak: Need, strong: Need) -> bool:
        return (weak.cond == KeyCond() and weak.ir == ANY and weak.key_names is None
                and weak.excluded <= strong.excluded)

    kept = [n for i, n in enumerate(needs)
            if not any(j != i and implied(n, m) and (not implied(m, n) or j < i)
                       for j, m in enumerate(needs))]
    if len(kept) > 1:
        raise Irreducible("two complements of additionalProperties/propertyNames at once")
    return tuple(kept)


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
    def __init__(self, ctx: AlgebraContext) -> None:
        self.ctx = ctx
        #: Intersections already made, by the identity of their operands (kept alive here, so
        #: an id is never reused): the same sub-schemas meet again and again when objects and
        #: ``oneOf`` branches are compared member by member. Identity, not equality, because
        #: equal atoms may still be spelled differently (1 and 1.0).
        self._intersections: dict[tuple[int, int], tuple[IR, IR, IR]] = {}

    # ---------------------------------------------------------------- union clean-up
    def simplify(self, ir: IR) -> IR:
        """Drop duplicates and atoms covered by an unconstrained atom of the same type."""
        if len(ir) <= 1:
            return ir
        full = {atom_type(a) for a in ir if a in _FULL}
        out: dict[Atom, None] = {}
        for atom in ir:
            if full and not isinstance(atom, RefAtom) and atom_type(atom) in full \
                    and atom not in _FULL and not _annotated(atom):
                continue
            out[atom] = None
        atoms = list(out)
        if sum(isinstance(a, ArrAtom) for a in atoms) > 1:
            atoms = _counts_joined(atoms)
        if len(atoms) > MAX_ATOMS:
            raise Irreducible(f"more than {MAX_ATOMS} alternatives")
        return tuple(atoms)

    # ---------------------------------------------------------------- intersection
    def intersect(self, a: IR, b: IR, nested: bool = False) -> IR:
        if a is b or a == ANY:
            return b
        if b == ANY:
            return a
        if not a or not b:
            return NOTHING
        if any(isinstance(x, RefAtom) for x in a + b):
            return self._intersect_refs(a, b, nested)
        # Without references at the top the answer depends on the operands alone (``nested``
        # only matters for references).
        key = (id(a), id(b))
        known = self._intersections.get(key)
        if known is not None:
            return known[2]
        if is_finite(a) or is_finite(b):
            result = self._filter(a, b)
        else:
            result = self._atom_pairs(a, b)
        self._intersections[key] = (a, b, result)
        return result

    def _intersect_refs(self, a: IR, b: IR, nested: bool) -> IR:
        if (is_finite(a) or is_finite(b)) and not self.ctx.busy(a + b):
            return self._filter(a, b)
        if nested or self.ctx.busy(a + b):
            return (self.ctx.synthetic("and", (a, b)),)
        return self._atom_pairs(self.ctx.expand_all(a), self.ctx.expand_all(b))

    def _filter(self, a: IR, b: IR) -> IR:
        """The values of the finite operand the other accepts (the validator reads references
        and lazy negations itself)."""
        finite, other = (a, b) if is_finite(a) else (b, a)
        return tuple(c for c in finite if self.ctx.accepts(other, c.value))  # type: ignore[union-attr]

    def _atom_pairs(self, a: IR, b: IR) -> IR:
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
            y.multiple_of if x.multiple_of is None else decimal_lcm(x.multiple_of, y.multiple_of))
        integer, fraction = x.integer or y.integer, x.fraction or y.fraction
        if integer and fraction:
            return None
        atom = NumAtom(_tighter(x.lower, y.lower, True), _tighter(x.upper, y.upper, False), mult,
                       integer,
                       (x.float_integers or not x.integer) and (y.float_integers or not y.integer),
                       fraction)
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
                       x.contains + y.contains, x.unique or y.unique,
                       max(x.seen_prefix, y.seen_prefix), x.seen_all or y.seen_all,
                       x.seen_contains + y.seen_contains)
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

    def may_meet(self, atom: ObjAtom, need: Need, key: str) -> bool:
        """Whether ``key`` can be the undeclared key that ``need`` (one of ``atom``'s) asks for."""
        return (atom.prop(key) is None and key not in need.excluded
                and self.key_matches(need.cond, key)
                and (need.key_names is None or self.ctx.accepts(need.key_names, key)))

    def _objects(self, x: ObjAtom, y: ObjAtom) -> ObjAtom | None:
        names = [k for k, _ in x.props] + [k for k, _ in y.props if x.prop(k) is None]
        props = tuple((k, self.intersect(self.value_for_key(x, k), self.value_for_key(y, k),
                                         nested=True)) for k in names)
        maxes = [m for m in (x.max_props, y.max_props) if m is not None]
        if x.names is None or y.names is None:
            key_names = x.names if y.names is None else y.names
        else:
            key_names = self.intersect(x.names, y.names)
        for one in (x, y):
            for need in one.needs:
                if any(self.may_meet(one, need, key) for key in names):
                    # The key the need asks for might now be a declared one.
                    raise Irreducible("the complement of additionalProperties or "
                                      "patternProperties beside other declared keys")
        atom = ObjAtom(props, x.required | y.required, x.extras + y.extras, key_names,
                       max(x.min_props, y.min_props), min(maxes) if maxes else None,
                       x.seen | y.seen, tuple(dict.fromkeys(x.seen_patterns + y.seen_patterns)),
                       x.seen_all or y.seen_all, x.modeled or y.modeled,
                       _combined_needs(x.needs + y.needs))
        return object_nonempty(atom)

    # ---------------------------------------------------------------- complement
    def complement(self, ir: IR, nested: bool = False) -> IR:
        if len(ir) == 1 and isinstance(ir[0], RefAtom):
            negated = self.ctx.negation_of(ir[0].key)
            if negated is not None:
                return negated
        if any(isinstance(a, RefAtom) for a in ir):
            if nested or self.ctx.busy(ir):
                return (self.ctx.synthetic("not", (ir,)),)
            ir = self.ctx.expand_all(ir)
        result = ANY
        for atom in ir:
            result = self.intersect(result, complement_atom(self, atom, None))
            if not result:
                break
        return result

    def difference(self, x: IR, y: IR, nested: bool = False) -> IR:
        """x ∩ ¬y, exact in more cases than ``intersect(x, complement(y))``: the complement of
        an object atom is taken relative to each closed object of ``x``."""
        if len(y) == 1 and isinstance(y[0], RefAtom):
            negated = self.ctx.negation_of(y[0].key)
            if negated is not None:  # x ∩ ¬¬z = x ∩ z
                return self.intersect(x, negated, nested)
        if any(isinstance(a, RefAtom) for a in x + y):
            if nested or self.ctx.busy(x + y):
                return (self.ctx.synthetic("diff", (x, y)),)
            x, y = self.ctx.expand_all(x), self.ctx.expand_all(y)
        if is_finite(x):
            return tuple(c for c in x if not self.ctx.accepts(y, c.value))  # type: ignore[union-attr]
        out: list[Atom] = []
        for atom in x:
            if isinstance(atom, ConstAtom):
                if not self.ctx.accepts(y, atom.value):
                    out.append(atom)
                continue
            part: IR = (atom,)
            for other in y:
                # An atom of another type removes nothing from this one.
                if isinstance(other, ConstAtom) or atom_type(other) == atom_type(atom):
                    part = self.intersect(part, complement_atom(self, other, atom))
                if not part:
                    break
            out.extend(part)
        return self.simplify(tuple(out))

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

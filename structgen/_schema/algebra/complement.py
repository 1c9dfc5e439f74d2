"""Complements of single atoms: ¬atom as a union of atoms (exact, or Irreducible).

``context`` is the atom the complement will be intersected with (see ``Algebra.difference``):
relative to a closed object, "some undeclared key" can only be one of its declared keys.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..ir.atoms import (
    ANY, IR, NOTHING, ArrAtom, Atom, BoolAtom, ConstAtom, Contains, Irreducible, KeyCond, Need,
    NumAtom, ObjAtom, StrAtom, StringSpec, atom_type, json_type,
)
from ..strings.formats import format_regex

if TYPE_CHECKING:
    from .sets import Algebra


def _others(alg: Algebra, kind: str) -> list[Atom]:
    return [a for a in ANY if atom_type(a) != kind]

def complement_atom(alg: Algebra, atom: Atom, context: Atom | None) -> IR:
    kind = atom_type(atom)
    pieces: list[Atom] = _others(alg, kind)
    if isinstance(atom, ConstAtom):
        pieces += _not_value(alg, atom.value)
    elif isinstance(atom, BoolAtom):
        rest = frozenset({True, False}) - atom.values
        pieces += [BoolAtom(rest)] if rest else []
    elif isinstance(atom, NumAtom):
        pieces += _not_number(alg, atom)
    elif isinstance(atom, StrAtom):
        pieces += _not_string(alg, atom.spec)
    elif isinstance(atom, ArrAtom):
        pieces += _not_array(alg, atom)
    elif isinstance(atom, ObjAtom):
        pieces += _not_object(alg, atom, context if isinstance(context, ObjAtom) else None)
    return alg.simplify(tuple(pieces))

def _not_value(alg: Algebra, value: Any) -> list[Atom]:
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
    if kind == "array":
        # Another length, or the same length with some item different.
        out: list[Atom] = [ArrAtom(min_items=len(value) + 1)]
        if value:
            out.append(ArrAtom(max_items=len(value) - 1))
        for i, item in enumerate(value):
            prefix = (ANY,) * i + (alg.complement((ConstAtom(item),)),)
            out.append(ArrAtom(prefix=prefix, min_items=len(value), max_items=len(value)))
        return out
    # An object: a key missing, an extra key (all present and more members), or a value
    # different.
    keys = tuple(value)
    out = [ObjAtom(required=frozenset(keys), min_props=len(keys) + 1)]
    for key in keys:
        out.append(ObjAtom(props=((key, NOTHING),)))
        out.append(ObjAtom(props=((key, alg.complement((ConstAtom(value[key]),))),),
                           required=frozenset({key})))
    return out

def _not_number(alg: Algebra, atom: NumAtom) -> list[Atom]:
    if atom.multiple_of is not None:
        raise Irreducible("the complement of multipleOf")
    out: list[Atom] = []
    if atom.fraction:
        if atom.lower is not None or atom.upper is not None:
            raise Irreducible("the complement of bounded non-integers")
        return [NumAtom(integer=True)]
    if atom.integer:
        out.append(NumAtom(fraction=True))
    if atom.lower is not None:
        out.append(NumAtom(upper=(atom.lower[0], not atom.lower[1])))
    if atom.upper is not None:
        out.append(NumAtom(lower=(atom.upper[0], not atom.upper[1])))
    return out

def _not_string(alg: Algebra, spec: StringSpec) -> list[Atom]:
    out: list[Atom] = []
    for name in spec.formats:
        # A format is a (anchored) regex, so "not this format" is a forbidden pattern.
        regex = format_regex(name)
        if regex is None:
            raise Irreducible(f"the complement of the format {name!r}")
        out.append(StrAtom(StringSpec(not_patterns=(regex,))))
    out += [StrAtom(StringSpec(not_patterns=(p,))) for p in spec.patterns]
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

def _not_array(alg: Algebra, atom: ArrAtom) -> list[Atom]:
    if atom.unique:
        raise Irreducible("the complement of uniqueItems")
    out: list[Atom] = []
    if atom.min_items > 0:
        out.append(ArrAtom(max_items=atom.min_items - 1))
    if atom.max_items is not None:
        out.append(ArrAtom(min_items=atom.max_items + 1))
    for i, ir in enumerate(atom.prefix):
        if ir != ANY:
            prefix = (ANY,) * i + (alg.complement(ir, nested=True),)
            out.append(ArrAtom(prefix=prefix, min_items=i + 1))
    if atom.items is not None and atom.items != ANY:
        if atom.prefix:
            raise Irreducible("the complement of items after prefixItems")
        out.append(ArrAtom(contains=(Contains(alg.complement(atom.items, nested=True)),)))
    for c in atom.contains:
        if c.maximum is not None or c.minimum > 1 or atom.prefix:
            raise Irreducible("the complement of minContains/maxContains")
        if c.minimum == 1:
            out.append(ArrAtom(items=alg.complement(c.ir, nested=True)))
    return out

def _not_value_of(alg: Algebra, context: ObjAtom | None, key: str, ir: IR) -> IR:
    """Values of ``key`` outside ``ir``, relative to what the context allows there (the
    piece is intersected with the context anyway, and relative complements reduce more)."""
    if context is None:
        return alg.complement(ir, nested=True)
    return alg.difference(alg.value_for_key(context, key), ir, nested=True)

def _not_object(alg: Algebra, atom: ObjAtom, context: ObjAtom | None) -> list[Atom]:
    # Keys the context declares (and can hold). When it forbids every undeclared key, "some
    # key that ``atom`` does not declare" can only be one of these.
    declared = [k for k, ir in context.props if ir] if context else []
    closed = context is not None and any(
        c.match is None and not c.nomatch and not ir for c, ir in context.extras)
    out: list[Atom] = []
    if atom.names is not None and atom.names != ANY:
        # Some key whose name breaks propertyNames: a declared one, or (open context) any other.
        out += [ObjAtom(required=frozenset({k})) for k in declared
                if not alg.ctx.accepts(atom.names, k)]
        if not closed:
            bad_names = tuple(a for a in alg.complement(atom.names)
                              if atom_type(a) == "string")
            if bad_names:
                out.append(ObjAtom(needs=(Need(KeyCond(), ANY, frozenset(declared),
                                               bad_names),)))
    for key in sorted(atom.required):
        out.append(ObjAtom(props=((key, NOTHING),)))
    for key, ir in atom.props:
        if ir != ANY:
            out.append(ObjAtom(props=((key, _not_value_of(alg, context, key, ir)),),
                               required=frozenset({key})))
    if atom.needs:
        raise Irreducible("the complement of a complement of additionalProperties")
    for cond, ir in atom.extras:
        if ir == ANY:
            continue
        # Some key that ``atom`` does not declare breaks ``ir``: one the context declares, or,
        # unless the context is closed, a key nobody declares.
        for key in declared:
            if atom.prop(key) is None and alg.key_matches(cond, key):
                out.append(ObjAtom(props=((key, _not_value_of(alg, context, key, ir)),),
                                   required=frozenset({key})))
        if not closed:
            excluded = frozenset(k for k, _ in atom.props) | frozenset(declared)
            out.append(ObjAtom(needs=(Need(cond, alg.complement(ir, nested=True), excluded),)))
    if atom.min_props > 0:
        out.append(ObjAtom(max_props=atom.min_props - 1))
    if atom.max_props is not None:
        out.append(ObjAtom(min_props=atom.max_props + 1))
    return out

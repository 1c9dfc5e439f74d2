"""A small validator for the IR: decides whether a JSON value belongs to the set an IR denotes.

Used to filter ``enum``/``const`` values against the rest of a schema, to decide which
``patternProperties`` apply to a declared property, and to evaluate ``not`` on finite sets.
"""

from __future__ import annotations

from decimal import localcontext
from typing import TYPE_CHECKING, Any

from ..ir.atoms import (
    ANY, IR, ArrAtom, Atom, BoolAtom, ConstAtom, NullAtom, NumAtom, ObjAtom, RefAtom, StrAtom,
    json_equal, json_type, to_decimal,
)

if TYPE_CHECKING:
    from ..normalize.normalizer import Normalizer


def accepts(ctx: Normalizer, ir: IR, value: Any) -> bool:
    return any(accepts_atom(ctx, atom, value) for atom in ir)


def accepts_atom(ctx: Normalizer, atom: Atom, value: Any) -> bool:
    if isinstance(atom, RefAtom):
        negated = ctx.negation_of(atom.key)
        if negated is not None:
            return not accepts(ctx, negated, value)
        return accepts(ctx, ctx.expand(atom.key), value)
    if isinstance(atom, ConstAtom):
        return json_equal(atom.value, value)
    kind = json_type(value)
    if isinstance(atom, NullAtom):
        return kind == "null"
    if isinstance(atom, BoolAtom):
        return kind == "boolean" and value in atom.values
    if isinstance(atom, NumAtom):
        return kind in ("integer", "number") and _number_ok(atom, value)
    if isinstance(atom, StrAtom):
        return kind == "string" and ctx.string_matches(atom.spec, value)
    if isinstance(atom, ArrAtom):
        return kind == "array" and _array_ok(ctx, atom, value)
    if isinstance(atom, ObjAtom):
        return kind == "object" and _object_ok(ctx, atom, value)
    raise TypeError(f"unknown atom {atom!r}")


def _number_ok(atom: NumAtom, value: int | float) -> bool:
    if atom.fraction and json_type(value) == "integer":
        return False
    if atom.integer and (json_type(value) != "integer"
                         or (isinstance(value, float) and not atom.float_integers)):
        return False
    d = to_decimal(value)
    if atom.lower is not None:
        bound, exclusive = atom.lower
        if d < bound or (exclusive and d == bound):
            return False
    if atom.upper is not None:
        bound, exclusive = atom.upper
        if d > bound or (exclusive and d == bound):
            return False
    if atom.multiple_of is not None:
        with localcontext() as context:
            context.prec = 400
            try:
                return (d / atom.multiple_of) % 1 == 0
            except ArithmeticError:
                return False
    return True


def _array_ok(ctx: Normalizer, atom: ArrAtom, value: list[Any]) -> bool:
    n = len(value)
    if n < atom.min_items or (atom.max_items is not None and n > atom.max_items):
        return False
    for i, item in enumerate(value):
        schema = atom.prefix[i] if i < len(atom.prefix) else (atom.items or ANY)
        if not accepts(ctx, schema, item):
            return False
    for c in atom.contains:
        count = sum(1 for item in value if accepts(ctx, c.ir, item))
        if count < c.minimum or (c.maximum is not None and count > c.maximum):
            return False
    if atom.unique:
        for i in range(n):
            for j in range(i + 1, n):
                if json_equal(value[i], value[j]):
                    return False
    return True


def _object_ok(ctx: Normalizer, atom: ObjAtom, value: dict[str, Any]) -> bool:
    n = len(value)
    if n < atom.min_props or (atom.max_props is not None and n > atom.max_props):
        return False
    if not atom.required <= value.keys():
        return False
    for key, item in value.items():
        if atom.names is not None and not accepts(ctx, atom.names, key):
            return False
        if not accepts(ctx, ctx.algebra.value_for_key(atom, key), item):
            return False
    for need in atom.needs:
        if not any(ctx.algebra.may_meet(atom, need, key) and accepts(ctx, need.ir, item)
                   for key, item in value.items()):
            return False
    return True

"""Applicator keywords: each turns its subschemas into one IR that the schema intersects.

One small function per keyword, dispatched from :data:`APPLICATORS` (``not`` is collected by the
normalizer and applied last, so that finite siblings can filter instead of complementing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._errors import SchemaError
from ..._pointers import escape_pointer_token
from ..ir.atoms import ANY, IR, Atom, ConstAtom, Irreducible, ObjAtom, RefAtom, atom_type, is_finite
from .context import SchemaContext
from .keywords import dependent_required, with_key, without_key

Handler = Callable[[SchemaContext, dict[str, Any], str, str], IR]


def _sub_list(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str,
              keyword: str) -> list[IR]:
    subs = schema[keyword]
    if not isinstance(subs, list) or not subs:
        raise SchemaError(f"{keyword} must be a non-empty array", pointer=pointer,
                          keyword=keyword)
    return [ctx.schema(s, base, f"{pointer}/{keyword}/{i}") for i, s in enumerate(subs)]


def _ref(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    return ctx.ref(schema["$ref"], base, pointer)


def _dynamic_ref(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    ref = schema["$dynamicRef"]
    target = ctx.resolver.resolve(base, ref, pointer)
    name = ref.split("#", 1)[1] if isinstance(ref, str) and "#" in ref else ""
    # Only a target that is itself a dynamic anchor of that name is looked up dynamically.
    if name and not name.startswith("/") and isinstance(target.schema, dict) \
            and target.schema.get("$dynamicAnchor") == name:
        if not ctx.resolver.dynamic:
            if ctx.resolver.dynamic_anchor_count(name) > 1:
                raise Irreducible("$dynamicRef in a fetched document whose target depends on "
                                  "the dynamic scope")
            return ctx.ref_to(target)
        outermost = ctx.dynamic_target(name)
        if outermost is not None:
            target = ctx.resolver.resolve(outermost, "#" + name, pointer)
    return ctx.ref_to(target)


def _all_of(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    return ctx.algebra.intersect_all(_sub_list(ctx, schema, base, pointer, "allOf"))


#: anyOf beside unevaluated* is split by which branches match when it has at most this many.
MAX_EVALUATED_SPLIT = 4


def _any_of(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    branches = _sub_list(ctx, schema, base, pointer, "anyOf")
    union = ctx.algebra.simplify(tuple(a for b in branches for a in b))
    if ("unevaluatedProperties" in schema or "unevaluatedItems" in schema) \
            and 1 < len(branches) <= MAX_EVALUATED_SPLIT:
        try:
            return _by_matching_branches(ctx, branches)
        except Irreducible:
            pass  # the plain union counts only one branch as evaluated: stricter, never wider
    return union


def _by_matching_branches(ctx: SchemaContext, branches: list[IR]) -> IR:
    """The anyOf split by the exact set of branches that match, so that each part evaluates
    what all its matching branches evaluate (what unevaluated* needs)."""
    algebra = ctx.algebra
    out: list[Any] = []
    for mask in range(1, 1 << len(branches)):
        inside = [b for i, b in enumerate(branches) if mask & (1 << i)]
        part = algebra.intersect_all(inside)
        for i, b in enumerate(branches):
            if part and not mask & (1 << i):
                part = algebra.difference(part, b)
        out.extend(part)
    return algebra.simplify(tuple(out))


def _one_of(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    branches = _sub_list(ctx, schema, base, pointer, "oneOf")
    algebra = ctx.algebra
    kinds = [_kinds(b) for b in branches]
    expanded = _Expansions(ctx, branches)
    overlapping: set[int] = set()
    for i in range(len(branches)):
        for j in range(i + 1, len(branches)):
            if not (kinds[i] & kinds[j]) and "?" not in kinds[i] | kinds[j]:
                continue  # values of different JSON types never overlap
            if _share_an_atom(branches[i], branches[j]):
                overlapping |= {i, j}  # an atom meets itself: no need to intersect the rest
                continue
            if _clearly_disjoint(expanded, i, j):
                continue
            if branches[i] and branches[j] and algebra.intersect(branches[i], branches[j]):
                overlapping |= {i, j}
    out: list[Any] = []
    for i, branch in enumerate(branches):
        if i in overlapping:
            others = tuple(a for j, b in enumerate(branches) if j != i and j in overlapping
                           for a in b)
            branch = algebra.difference(branch, others)
        out.extend(branch)
    return algebra.simplify(tuple(out))


class _Expansions:
    """Each branch with its references expanded, worked out when first needed: every pair of
    branches is compared, so expanding per pair would repeat the work n times (the expansion
    of a branch only ever changes the first time, when its references are normalized)."""

    def __init__(self, ctx: SchemaContext, branches: list[IR]) -> None:
        self.ctx, self.branches = ctx, branches
        self.busy: dict[int, bool] = {}
        self.full: dict[int, IR] = {}

    def is_busy(self, i: int) -> bool:
        if i not in self.busy:
            self.busy[i] = self.ctx.busy(self.branches[i])
        return self.busy[i]

    def of(self, i: int) -> IR:
        if i not in self.full:
            self.full[i] = self.ctx.expand_all(self.branches[i])
        return self.full[i]


def _clearly_disjoint(expanded: _Expansions, i: int, j: int) -> bool:
    """A cheap sufficient test before intersecting: every pair of atoms differs in type, in
    value, or in the constant of a key both require (a discriminator)."""
    if expanded.is_busy(i) or expanded.is_busy(j):
        return False
    x, y = expanded.of(i), expanded.of(j)
    return all(_atoms_disjoint(a, b) for a in x for b in y)


def _share_an_atom(x: IR, y: IR) -> bool:
    return not set(x).isdisjoint(y)


def _atoms_disjoint(a: Atom, b: Atom) -> bool:
    if atom_type(a) != atom_type(b):
        return True
    if isinstance(a, ConstAtom) and isinstance(b, ConstAtom):
        return a != b
    if isinstance(a, ObjAtom) and isinstance(b, ObjAtom):
        for key in a.required & b.required:
            va, vb = a.prop(key), b.prop(key)
            if va and vb and is_finite(va) and is_finite(vb) and not set(va) & set(vb):
                return True
    return False


def _kinds(ir: IR) -> set[str]:
    """The JSON types of an IR's values ("?" for a reference not looked into)."""
    return {"?" if isinstance(a, RefAtom) else atom_type(a) for a in ir}


def _if_then_else(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    if "then" not in schema and "else" not in schema and not (
            "unevaluatedProperties" in schema or "unevaluatedItems" in schema):
        return ANY  # only matters for what `if` evaluates
    condition = ctx.schema(schema["if"], base, f"{pointer}/if")
    then = ctx.schema(schema.get("then", True), base, f"{pointer}/then")
    otherwise = ctx.schema(schema.get("else", True), base, f"{pointer}/else")
    algebra = ctx.algebra
    yes = algebra.intersect(condition, then)
    try:
        no = algebra.difference(otherwise, condition)
    except Irreducible:
        if "then" in schema or "else" in schema:
            raise
        return ANY  # only the annotations of `if` are lost: fewer keys count as evaluated
    return algebra.simplify(yes + no)


def _dependent_required(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    deps = schema["dependentRequired"]
    if not isinstance(deps, dict):
        raise SchemaError("dependentRequired must be an object", pointer=pointer,
                          keyword="dependentRequired")
    return ctx.algebra.intersect_all(dependent_required(deps, pointer, "dependentRequired"))


def _dependent_schemas(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str,
                       keyword: str = "dependentSchemas") -> IR:
    deps = schema[keyword]
    if not isinstance(deps, dict):
        raise SchemaError(f"{keyword} must be an object", pointer=pointer, keyword=keyword)
    parts: list[IR] = []
    algebra = ctx.algebra
    for key, sub in deps.items():
        if isinstance(sub, list):
            parts.extend(dependent_required({key: sub}, pointer, keyword))
            continue
        ir = ctx.schema(sub, base, f"{pointer}/{keyword}/{escape_pointer_token(key)}")
        if ir == ANY:
            continue
        parts.append(algebra.simplify(without_key(key) + algebra.intersect(with_key(key), ir)))
    return algebra.intersect_all(parts)


def _dependencies(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    return _dependent_schemas(ctx, schema, base, pointer, "dependencies")


def _not_placeholder(ctx: SchemaContext, schema: dict[str, Any], base: str, pointer: str) -> IR:
    return ANY  # `not` is collected separately and applied last


APPLICATORS: list[tuple[str, Handler]] = [
    ("$ref", _ref),
    ("$dynamicRef", _dynamic_ref),
    ("allOf", _all_of),
    ("anyOf", _any_of),
    ("oneOf", _one_of),
    ("if", _if_then_else),
    ("dependentRequired", _dependent_required),
    ("dependentSchemas", _dependent_schemas),
    ("dependencies", _dependencies),
    ("not", _not_placeholder),
]

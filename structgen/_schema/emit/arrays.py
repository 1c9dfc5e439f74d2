"""Arrays: tuples (prefixItems), homogeneous items with counted repetition, contains, uniqueItems.

Counts use GBNF ``{m,n}``; llama.cpp copies the repeated expression n times, so large counts are
split into chunks of CHUNK repetitions (exact, never wider).
"""

from __future__ import annotations

import itertools

from ..algebra.sets import Irreducible
from ..._gbnf._expr import Expr, alt, repeat, seq
from ..._gbnf._rules import child_hint
from ..ir.atoms import ANY, IR, ArrAtom, BoolAtom, ConstAtom, Contains, NullAtom
from .context import EmitContext

#: (items × contains-count) states above which contains is not built.
MAX_COUNT_STATES = 4000
#: Distinct values up to which uniqueItems is enforced by enumerating subsets.
MAX_UNIQUE_DOMAIN = 8


def emit_array(em: EmitContext, atom: ArrAtom, hint: str, pointer: str) -> str | None:
    if atom.unique and (atom.max_items is None or atom.max_items > 1):
        return _unique(em, atom, hint, pointer)
    if atom.contains:
        return _contains(em, atom, hint, pointer)
    return _plain(em, atom, hint, pointer)


def _wrap(em: EmitContext, content: Expr, hint: str) -> str | None:
    if content is None:
        return None
    return em.rules.add(hint, em.container(em.open_arr, content or None, '"]"', optional=False))


def _plain(em: EmitContext, atom: ArrAtom, hint: str, pointer: str) -> str | None:
    lo, hi = atom.min_items, atom.max_items
    exprs: list[str] = []
    for i, ir in enumerate(atom.prefix):
        if hi is not None and i >= hi:
            break
        expr = em.emit(ir, child_hint(hint, str(i)), f"{pointer}/prefixItems/{i}")
        if expr is None:
            hi = i
            break
        exprs.append(expr)
    k = len(exprs)
    rest: str | None = None
    if hi is None or hi > k:
        rest = em.emit(atom.items if atom.items is not None else ANY, child_hint(hint, "item"),
                       f"{pointer}/items")
        if rest is None:
            hi = k
    if hi is not None and lo > hi:
        return None
    sep = em.sep
    # tail(i): positions i.. after i items were written, each preceded by a separator.
    tail: Expr = ""
    if rest is not None:
        tail = repeat(f"{sep} {rest}", max(lo - k, 0), None if hi is None else hi - k,
                      rules=em.rules, hint=hint)
    for i in range(k - 1, 0, -1):
        item = seq(sep, exprs[i], tail)
        tail = alt([item, ""]) if i >= lo else item
    if k > 0:
        content = seq(exprs[0], tail)
    elif rest is not None and hi != 0:
        content = seq(rest, repeat(f"{sep} {rest}", max(lo - 1, 0),
                                   None if hi is None else hi - 1, rules=em.rules, hint=hint))
    else:
        content = None if lo > 0 else ""
    if content and lo == 0:
        content = alt([content, ""])
    return _wrap(em, content, hint)


def _finite_domain(em: EmitContext, ir: IR) -> list[object] | None:
    values: list[object] = []
    for atom in em.norm.expand_all(ir):
        if isinstance(atom, ConstAtom):
            values.append(atom.value)
        elif isinstance(atom, BoolAtom):
            values.extend(sorted(atom.values))
        elif isinstance(atom, NullAtom):
            values.append(None)
        else:
            return None
    return values


def _unique(em: EmitContext, atom: ArrAtom, hint: str, pointer: str) -> str | None:
    domain = None if atom.prefix or atom.contains else _finite_domain(em, atom.items or ANY)
    if domain is None or len(domain) > MAX_UNIQUE_DOMAIN:
        em.norm.unsupported(pointer, "uniqueItems",
                            "uniqueItems is only enforced for small finite item sets")
        return _plain(em, atom, hint, pointer) if not atom.contains else \
            _contains(em, atom, hint, pointer)
    exprs = [em.literal(v, f"{hint}-item") for v in domain]
    return _wrap(em, _UniqueWriter(em, exprs, atom.min_items, atom.max_items, hint).content(),
                 hint)


class _UniqueWriter:
    """Arrays of distinct values from a small domain: one state per set of values written (a
    class, not a recursive closure, which would be a reference cycle)."""

    def __init__(self, em: EmitContext, exprs: list[str], lo: int, hi: int | None,
                 hint: str) -> None:
        self.em, self.exprs, self.lo, self.hi, self.hint = em, exprs, lo, hi, hint
        self.memo: dict[int, Expr] = {}

    def content(self) -> Expr:
        options = ["" if self.lo == 0 else None]
        options += [seq(expr, self.rest(1 << j)) for j, expr in enumerate(self.exprs)]
        return alt(options)

    def rest(self, mask: int) -> Expr:
        if mask in self.memo:
            return self.memo[mask]
        count = bin(mask).count("1")
        options: list[Expr] = ["" if count >= self.lo else None]
        if self.hi is None or count < self.hi:
            for j, expr in enumerate(self.exprs):
                if not mask & (1 << j):
                    options.append(seq(self.em.sep, expr, self.rest(mask | (1 << j))))
        result = alt(options)
        if result and " " in result:
            result = self.em.rules.add(f"{self.hint}-u", result)
        self.memo[mask] = result
        return result


#: contains keywords on one array (from allOf) counted together, at most this many.
MAX_CONTAINS = 3

Counts = tuple[int, ...]


def _split(em: EmitContext, ir: IR, contains: tuple[IR, ...], exact: bool, hint: str,
           pointer: str) -> list[tuple[str, Counts]] | None:
    """An item schema as classes (expression, which contains it counts for). Without
    maxContains a class may count for fewer contains than it matches (only "at least" is
    asked); with it, classes partition the items exactly."""
    algebra = em.norm.algebra
    classes: list[tuple[str, Counts]] = []
    for mask in range(1 << len(contains)):
        inc = tuple(1 if mask & (1 << i) else 0 for i in range(len(contains)))
        part = ir
        try:
            for i, c_ir in enumerate(contains):
                # nested=True: references stay named rules, so recursive schemas end.
                if inc[i]:
                    part = algebra.intersect(part, c_ir, nested=True)
                elif exact and part:
                    part = algebra.difference(part, c_ir, nested=True)
        except Irreducible as exc:
            em.norm.unsupported(pointer, "maxContains", f"cannot split items by contains: {exc}")
            return None
        name = "item" if not mask else "hit" if mask == 1 else f"hit{mask}"
        expr = em.emit(part, child_hint(hint, name), f"{pointer}/contains") if part else None
        if expr is not None:
            classes.append((expr, inc))
    return classes


def _contains(em: EmitContext, atom: ArrAtom, hint: str, pointer: str) -> str | None:
    """Items counted by the contains they match: states (items so far, matches per contains),
    saturated once the counts no longer matter."""
    norm = em.norm
    cs = atom.contains
    if len(cs) > MAX_CONTAINS:
        norm.unsupported(pointer, "contains", f"more than {MAX_CONTAINS} contains on one array")
        return _plain(em, atom, hint, pointer)
    exact = any(c.maximum is not None for c in cs)
    c_irs = tuple(c.ir for c in cs)
    per_position = []
    for i, ir in enumerate(atom.prefix):
        split = _split(em, ir, c_irs, exact, child_hint(hint, str(i)), pointer)
        if split is None:
            return _plain(em, atom, hint, pointer)
        per_position.append(split)
    rest_split = _split(em, atom.items if atom.items is not None else ANY, c_irs, exact, hint,
                        pointer)
    if rest_split is None:
        return _plain(em, atom, hint, pointer)
    kp = len(per_position)
    lo, hi = atom.min_items, atom.max_items
    t_cap = hi if hi is not None else max(lo, kp)
    k_caps = tuple(c.maximum if c.maximum is not None else c.minimum for c in cs)
    states = t_cap + 1
    for cap in k_caps:
        states *= cap + 1
    if states > MAX_COUNT_STATES:
        norm.unsupported(pointer, "contains", "too many item counts to track")
        return _plain(em, atom, hint, pointer)
    counter = _ContainsWriter(em, cs, per_position, rest_split, lo, hi, t_cap, k_caps, hint)
    # Build from the largest counts down so that recursion depth stays small.
    counts = sorted(itertools.product(*(range(cap + 1) for cap in k_caps)), reverse=True)
    for t in range(t_cap, 0, -1):
        for k in counts:
            counter.rest(t, k)
    start = tuple(0 for _ in cs)
    options: list[Expr] = ["" if counter.done(0, start) else None]
    for expr, inc in counter.classes_at(0):
        nxt = counter.step(0, start, inc)
        if nxt is not None:
            options.append(seq(expr, counter.rest(*nxt)))
    return _wrap(em, alt(options), hint)


class _ContainsWriter:
    """The states (items so far, matches per contains) of ``_contains`` (a class, not recursive
    closures, which would be reference cycles)."""

    def __init__(self, em: EmitContext, cs: tuple[Contains, ...],
                 per_position: list[list[tuple[str, Counts]]],
                 rest_split: list[tuple[str, Counts]], lo: int, hi: int | None, t_cap: int,
                 k_caps: Counts, hint: str) -> None:
        self.em, self.cs, self.per_position, self.rest_split = em, cs, per_position, rest_split
        self.lo, self.hi, self.t_cap, self.k_caps, self.hint = lo, hi, t_cap, k_caps, hint
        self.memo: dict[tuple[int, Counts], Expr] = {}

    def classes_at(self, t: int) -> list[tuple[str, Counts]]:
        return self.per_position[t] if t < len(self.per_position) else self.rest_split

    def done(self, t: int, k: Counts) -> bool:
        return t >= self.lo and all(k[i] >= c.minimum for i, c in enumerate(self.cs))

    def step(self, t: int, k: Counts, inc: Counts) -> tuple[int, Counts] | None:
        t2 = t + 1
        if self.hi is not None and t2 > self.hi:
            return None
        k2 = []
        for i, c in enumerate(self.cs):
            n = k[i] + inc[i]
            if c.maximum is not None:
                if n > c.maximum:
                    return None
            else:
                n = min(n, self.k_caps[i])
            k2.append(n)
        return (t2 if self.hi is not None else min(t2, self.t_cap), tuple(k2))

    def rest(self, t: int, k: Counts) -> Expr:
        if (t, k) in self.memo:
            return self.memo[(t, k)]
        em = self.em
        options: list[Expr] = ["" if self.done(t, k) else None]
        loop: list[str] = []
        for expr, inc in self.classes_at(t):
            nxt = self.step(t, k, inc)
            if nxt == (t, k):
                loop.append(expr)  # changes no count that still matters: repeats freely
            elif nxt is not None:
                options.append(seq(em.sep, expr, self.rest(*nxt)))
        prefix = f"( {em.sep} ( {' | '.join(loop)} ) )*" if loop else ""
        result = seq(prefix, alt(options))
        if result and " " in result:
            result = em.rules.add(f"{self.hint}-c{t}", result)
        self.memo[(t, k)] = result
        return result

"""Arrays: tuples (prefixItems), homogeneous items with counted repetition, contains, uniqueItems.

Counts use GBNF ``{m,n}``; llama.cpp copies the repeated expression n times, so large counts are
split into chunks of CHUNK repetitions (exact, never wider).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._algebra import Irreducible
from ._emit import child_hint
from ._emit_objects import Expr, alt_eps, seq_eps
from ._ir import ANY, IR, ArrAtom, BoolAtom, ConstAtom, NullAtom

if TYPE_CHECKING:
    from ._emit import Emitter

#: Largest {m,n} written directly; beyond it repetitions are nested in chunks.
MAX_REPEAT = 1000
CHUNK = 100
#: (items × contains-count) states above which contains is not built.
MAX_COUNT_STATES = 4000
#: Distinct values up to which uniqueItems is enforced by enumerating subsets.
MAX_UNIQUE_DOMAIN = 8


def repeat(em: Emitter, expr: str, low: int, high: int | None, hint: str) -> str:
    """``expr{low,high}`` spelled within llama.cpp's repetition limits."""
    if high is not None and high == 0:
        return ""
    group = f"( {expr} )" if " " in expr else expr
    if high is None:
        if low <= MAX_REPEAT:
            return f"{group}*" if low == 0 else f"{group}+" if low == 1 else f"{group}{{{low},}}"
        return seq_eps(repeat(em, expr, low, low, hint), f"{group}*") or ""
    if high <= MAX_REPEAT:
        if (low, high) == (0, 1):
            return f"{group}?"
        return f"{group}{{{low}}}" if low == high else f"{group}{{{low},{high}}}"
    if low > 0:
        return seq_eps(repeat(em, expr, low, low, hint), repeat(em, expr, 0, high - low, hint)) \
            or ""
    # x{0,N} with N = CHUNK*q + r: either fewer than q full chunks and a partial one, or q and ≤ r.
    chunk = em.rules.add(f"{hint}-chunk", f"{group}{{{CHUNK}}}")
    q, r = divmod(high, CHUNK)
    fewer = seq_eps(repeat(em, chunk, 0, q - 1, hint), f"{group}{{0,{CHUNK - 1}}}")
    full = seq_eps(repeat(em, chunk, q, q, hint), repeat(em, expr, 0, r, hint))
    return em.rules.add(f"{hint}-rep", f"{fewer} | {full}")


def emit_array(em: Emitter, atom: ArrAtom, hint: str, pointer: str) -> str | None:
    if atom.unique and (atom.max_items is None or atom.max_items > 1):
        return _unique(em, atom, hint, pointer)
    if atom.contains:
        return _contains(em, atom, hint, pointer)
    return _plain(em, atom, hint, pointer)


def _wrap(em: Emitter, content: Expr, hint: str) -> str | None:
    if content is None:
        return None
    return em.rules.add(hint, em.container(em.open_arr, content or None, '"]"', optional=False))


def _plain(em: Emitter, atom: ArrAtom, hint: str, pointer: str) -> str | None:
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
        tail = repeat(em, f"{sep} {rest}", max(lo - k, 0), None if hi is None else hi - k, hint)
    for i in range(k - 1, 0, -1):
        item = seq_eps(sep, exprs[i], tail)
        tail = alt_eps([item, ""]) if i >= lo else item
    if k > 0:
        content = seq_eps(exprs[0], tail)
    elif rest is not None and hi != 0:
        content = seq_eps(rest, repeat(em, f"{sep} {rest}", max(lo - 1, 0),
                                       None if hi is None else hi - 1, hint))
    else:
        content = None if lo > 0 else ""
    if content and lo == 0:
        content = alt_eps([content, ""])
    return _wrap(em, content, hint)


def _finite_domain(em: Emitter, ir: IR) -> list[object] | None:
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


def _unique(em: Emitter, atom: ArrAtom, hint: str, pointer: str) -> str | None:
    domain = None if atom.prefix or atom.contains else _finite_domain(em, atom.items or ANY)
    if domain is None or len(domain) > MAX_UNIQUE_DOMAIN:
        em.norm.unsupported(pointer, "uniqueItems",
                            "uniqueItems is only enforced for small finite item sets")
        return _plain(em, atom, hint, pointer) if not atom.contains else \
            _contains(em, atom, hint, pointer)
    lo, hi = atom.min_items, atom.max_items
    exprs = [em.literal(v, f"{hint}-item") for v in domain]
    memo: dict[int, Expr] = {}

    def rest(mask: int) -> Expr:
        if mask in memo:
            return memo[mask]
        count = bin(mask).count("1")
        options: list[Expr] = ["" if count >= lo else None]
        if hi is None or count < hi:
            for j, expr in enumerate(exprs):
                if not mask & (1 << j):
                    options.append(seq_eps(em.sep, expr, rest(mask | (1 << j))))
        result = alt_eps(options)
        if result and " " in result:
            result = em.rules.add(f"{hint}-u", result)
        memo[mask] = result
        return result

    options = ["" if lo == 0 else None]
    options += [seq_eps(expr, rest(1 << j)) for j, expr in enumerate(exprs)]
    return _wrap(em, alt_eps(options), hint)


def _split(em: Emitter, ir: IR, c_ir: IR, exact: bool, hint: str, pointer: str
           ) -> list[tuple[str, int]] | None:
    """An item schema as (expression, counts toward contains) classes; with ``exact`` the
    non-matching class excludes the matches (needed for maxContains), else it is all items."""
    norm = em.norm
    hits = norm.algebra.intersect(ir, c_ir)
    try:
        others = norm.algebra.difference(ir, c_ir) if exact else ir
    except Irreducible as exc:
        norm.unsupported(pointer, "maxContains", f"cannot split items by contains: {exc}")
        return None
    classes: list[tuple[str, int]] = []
    hit_expr = em.emit(hits, child_hint(hint, "hit"), f"{pointer}/contains") if hits else None
    other_expr = em.emit(others, child_hint(hint, "item"), f"{pointer}/items") if others else None
    if hit_expr is not None:
        classes.append((hit_expr, 1))
    if other_expr is not None:
        classes.append((other_expr, 0))
    return classes


def _contains(em: Emitter, atom: ArrAtom, hint: str, pointer: str) -> str | None:
    """Items counted by whether they match ``contains``: states (items so far, matches so far),
    saturated once the counts no longer matter."""
    norm = em.norm
    if len(atom.contains) > 1:
        norm.unsupported(pointer, "contains", "more than one contains on the same array")
        return _plain(em, atom, hint, pointer)
    c = atom.contains[0]
    exact = c.maximum is not None
    per_position = []
    for i, ir in enumerate(atom.prefix):
        split = _split(em, ir, c.ir, exact, child_hint(hint, str(i)), pointer)
        if split is None:
            return _plain(em, atom, hint, pointer)
        per_position.append(split)
    rest_split = _split(em, atom.items if atom.items is not None else ANY, c.ir, exact, hint,
                        pointer)
    if rest_split is None:
        return _plain(em, atom, hint, pointer)
    kp = len(per_position)
    lo, hi = atom.min_items, atom.max_items
    cmin, cmax = c.minimum, c.maximum
    t_cap = hi if hi is not None else max(lo, kp)
    k_cap = cmax if cmax is not None else cmin
    if (t_cap + 1) * (k_cap + 1) > MAX_COUNT_STATES:
        norm.unsupported(pointer, "contains", "too many item counts to track")
        return _plain(em, atom, hint, pointer)
    memo: dict[tuple[int, int], Expr] = {}

    def classes_at(t: int) -> list[tuple[str, int]]:
        return per_position[t] if t < kp else rest_split

    def step(t: int, k: int, inc: int) -> tuple[int, int] | None:
        t2, k2 = t + 1, k + inc
        if hi is not None and t2 > hi or cmax is not None and k2 > cmax:
            return None
        return (t2 if hi is not None else min(t2, t_cap), k2 if cmax is not None else min(k2, k_cap))

    def rest(t: int, k: int) -> Expr:
        if (t, k) in memo:
            return memo[(t, k)]
        if hi is None and t == t_cap:
            # Enough items already: only the contains count still matters, so non-matching
            # items loop freely and matching ones advance k.
            hit_expr = next((e for e, inc in rest_split if inc), None)
            other_expr = next((e for e, inc in rest_split if not inc), None)
            if cmax is None and k == k_cap:
                result: Expr = f"( {em.sep} ( {' | '.join(e for e, _ in rest_split)} ) )*" \
                    if rest_split else ""
            else:
                loop = f"( {em.sep} {other_expr} )*" if other_expr is not None else ""
                nxt = step(t, k, 1)
                options: list[Expr] = ["" if k >= cmin else None]
                if hit_expr is not None and nxt is not None:
                    options.append(seq_eps(em.sep, hit_expr, rest(*nxt)))
                result = seq_eps(loop, alt_eps(options))
        else:
            options = ["" if t >= lo and k >= cmin else None]
            for expr, inc in classes_at(t):
                nxt = step(t, k, inc)
                if nxt is not None:
                    options.append(seq_eps(em.sep, expr, rest(*nxt)))
            result = alt_eps(options)
        if result and " " in result:
            result = em.rules.add(f"{hint}-c{t}-{k}", result)
        memo[(t, k)] = result
        return result

    # Build from the largest counts down so that recursion depth stays small.
    for t in range(t_cap, 0, -1):
        for k in range(k_cap, -1, -1):
            rest(t, k)
    options: list[Expr] = ["" if lo == 0 and cmin == 0 else None]
    for expr, inc in classes_at(0):
        nxt = step(0, 0, inc)
        if nxt is not None:
            options.append(seq_eps(expr, rest(*nxt)))
    return _wrap(em, alt_eps(options), hint)

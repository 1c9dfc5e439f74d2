"""GBNF expressions as text: one sequence, one alternation, one counted repetition.

An expression is a ``str``; ``""`` is the empty text and ``None`` an impossible part (a value
the schema rules out), which makes a whole sequence impossible and drops out of an alternation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import overload

from ._rules import RuleSet

Expr = str | None

#: Largest count written as ``{m,n}``: llama.cpp copies a repeated item once per count and
#: refuses counts of 2000 or more. Larger counts go through rules of MAX_REPEAT copies.
MAX_REPEAT = 1000


@overload
def seq(*parts: str) -> str: ...
@overload
def seq(*parts: Expr) -> Expr: ...
def seq(*parts: Expr) -> Expr:
    """The parts one after the other (empty ones left out); None if any part is impossible."""
    if None in parts:
        return None
    return " ".join([p for p in parts if p])


def alt(options: Iterable[Expr]) -> Expr:
    """Any one of the options: duplicates and impossible ones left out, parenthesized when
    needed, and optional (``( … )?``) when the empty text is one of them."""
    options = list(options)
    real = list(dict.fromkeys(o for o in options if o))
    nullable = "" in options
    if not real:
        return "" if nullable else None
    body = " | ".join(real)
    if nullable:
        return f"( {body} )?"
    return f"( {body} )" if len(real) > 1 else real[0]


def repeat(expr: str, low: int, high: int | None, *, rules: RuleSet | None = None,
           hint: str = "rep") -> str:
    """``expr`` repeated ``low`` to ``high`` times (None: unbounded), exact at any count.

    Counts above MAX_REPEAT are written with block rules (``hint-block``: MAX_REPEAT copies, then
    MAX_REPEAT blocks, and so on), which needs ``rules``.
    """
    item = f"( {expr} )" if " " in expr else expr
    if low <= MAX_REPEAT and (high is None or high <= MAX_REPEAT):
        if high is None:
            return {0: f"{item}*", 1: f"{item}+"}.get(low, f"{item}{{{low},}}")
        if high <= 0:
            return ""
        if low == high:
            return item if low == 1 else f"{item}{{{low}}}"
        return f"{item}?" if (low, high) == (0, 1) else f"{item}{{{low},{high}}}"
    if rules is None:
        raise ValueError(f"a count above {MAX_REPEAT} needs rules for its blocks")
    if item != expr:  # llama.cpp copies a repeated group's rules once per count: use a reference
        item = rules.add(f"{hint}-item", expr)
    if high is None:
        return seq(repeat(item, low, low, rules=rules, hint=hint), f"{item}*")
    block = rules.add(f"{hint}-block", f"{item}{{{MAX_REPEAT}}}")
    if low == high:
        q, r = divmod(low, MAX_REPEAT)
        return seq(repeat(block, q, q, rules=rules, hint=hint),
                   repeat(item, r, r, rules=rules, hint=hint))
    head = repeat(item, low, low, rules=rules, hint=hint)
    span = high - low
    if span <= MAX_REPEAT:
        return seq(head, repeat(item, 0, span, rules=rules, hint=hint))
    q, r = divmod(span, MAX_REPEAT)
    # 0..span = (at most q-1 blocks, then up to one block more) | (q blocks, then up to r)
    fewer = seq(repeat(block, 0, q - 1, rules=rules, hint=hint),
                repeat(item, 0, MAX_REPEAT, rules=rules, hint=hint))
    most = seq(repeat(block, q, q, rules=rules, hint=hint),
               repeat(item, 0, r, rules=rules, hint=hint))
    # A rule, not a group: groups nested inline multiply the rules llama.cpp generates.
    return seq(head, rules.add(f"{hint}-rep", f"{fewer} | {most}"))

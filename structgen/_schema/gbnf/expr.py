"""GBNF expressions as text: sequences, alternations and counted repetition.

An expression is a ``str``; ``None`` stands for "no text at all" (an impossible part) and ``""``
for the empty text.
"""

from __future__ import annotations

from .rules import RuleSet

Expr = str | None  # None: impossible; "": the empty string


def alt_eps(options: list[Expr]) -> Expr:
    if len(options) == 1:  # the usual case, and what the general rule gives for it
        return options[0]
    real = [o for o in options if o]
    if len(real) > 1:
        real = list(dict.fromkeys(real))
    nullable = "" in options
    if not real:
        return "" if nullable else None
    body = " | ".join(real)
    if nullable:
        return f"( {body} )?"
    return f"( {body} )" if len(real) > 1 else real[0]


def seq_eps(*parts: Expr) -> Expr:
    if None in parts:
        return None
    return " ".join([p for p in parts if p])


def seq(*parts: str | None) -> str:
    return " ".join(p for p in parts if p)


def alt(options: list[str]) -> str | None:
    """An alternation of expressions (None when there is none), parenthesized when needed."""
    unique = list(dict.fromkeys(options))
    if not unique:
        return None
    if len(unique) == 1:
        return unique[0]
    return "( " + " | ".join(unique) + " )"


#: Largest {m,n} written directly; beyond it repetitions are nested in chunks.
MAX_REPEAT = 1000
CHUNK = 100


def repeat(rules: RuleSet, expr: str, low: int, high: int | None, hint: str) -> str:
    """``expr{low,high}`` spelled within llama.cpp's repetition limits."""
    if high is not None and high == 0:
        return ""
    group = f"( {expr} )" if " " in expr else expr
    if high is None:
        if low <= MAX_REPEAT:
            return f"{group}*" if low == 0 else f"{group}+" if low == 1 else f"{group}{{{low},}}"
        return seq_eps(_exactly(rules, expr, low, hint), f"{group}*") or ""
    if high <= MAX_REPEAT:
        if (low, high) == (0, 1):
            return f"{group}?"
        return f"{group}{{{low}}}" if low == high else f"{group}{{{low},{high}}}"
    return seq_eps(_exactly(rules, expr, low, hint), _up_to(rules, expr, high - low, hint)) or ""


def _chunk(rules: RuleSet, expr: str, hint: str) -> str:
    group = f"( {expr} )" if " " in expr else expr
    return rules.add(f"{hint}-chunk", f"{group}{{{CHUNK}}}")


def _exactly(rules: RuleSet, expr: str, n: int, hint: str) -> str:
    """``expr{n}``: CHUNK-sized chunks counted recursively, then the remainder."""
    if n <= MAX_REPEAT:
        return repeat(rules, expr, n, n, hint)
    q, r = divmod(n, CHUNK)
    return seq_eps(_exactly(rules, _chunk(rules, expr, hint), q, hint),
                   repeat(rules, expr, r, r, hint)) or ""


def _up_to(rules: RuleSet, expr: str, n: int, hint: str) -> str:
    """``expr{0,n}`` with n = CHUNK*q + r: fewer than q full chunks and a partial one, or q
    chunks and at most r more (exact, never wider)."""
    if n <= MAX_REPEAT:
        return repeat(rules, expr, 0, n, hint)
    q, r = divmod(n, CHUNK)
    chunk = _chunk(rules, expr, hint)
    fewer = seq_eps(_up_to(rules, chunk, q - 1, hint), repeat(rules, expr, 0, CHUNK - 1, hint))
    full = seq_eps(_exactly(rules, chunk, q, hint), repeat(rules, expr, 0, r, hint))
    return rules.add(f"{hint}-rep", f"{fewer} | {full}")

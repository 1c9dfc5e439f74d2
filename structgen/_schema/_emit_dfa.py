"""GBNF for a DFA's language: one right-recursive rule per state (see :func:`emit_dfa`)."""

from __future__ import annotations

from collections.abc import Callable

from ._charset import CharSet
from ._dfa import DFA
from ._rules import RuleSet

#: Chains of single-entry states are inlined into their parent rule up to this depth.
_INLINE_DEPTH = 24


def emit_dfa(
    dfa: DFA, rules: RuleSet, hint: str, char_ref: Callable[[CharSet], str], final: str
) -> str | None:
    """GBNF for the DFA's language followed by ``final``: a rule name, or None if empty.

    Each state becomes one right-recursive rule; a state entered from a single place is inlined
    into that place instead, so plain literals stay on one line.
    """
    if dfa.is_empty():
        return None
    n = len(dfa.delta)
    edges: list[list[tuple[str, int]]] = []
    indegree = [0] * n
    labels: dict[tuple[int, ...], str] = {}
    every_symbol = tuple(range(len(dfa.alphabet)))
    for row in dfa.delta:
        # The symbols leading to each target, targets in the order of their first symbol.
        distinct = dict.fromkeys(row)
        if len(distinct) == 1:  # one target for every symbol: no need to sort them out
            targets: dict[int, tuple[int, ...]] = {t: every_symbol for t in distinct if t >= 0}
        else:
            grouped: dict[int, list[int]] = {t: [] for t in distinct if t >= 0}
            for a, t in enumerate(row):
                if t >= 0:
                    grouped[t].append(a)
            targets = {t: tuple(syms) for t, syms in grouped.items()}
        out = []
        for t, key in targets.items():
            if key not in labels:
                labels[key] = char_ref(CharSet.from_ranges(r for a in key for r in dfa.alphabet[a].ranges))
            out.append((labels[key], t))
        edges.append(out)
        for _, t in out:
            indegree[t] += 1
    return _StateWriter(dfa, rules, hint, final, edges, indegree).write()


class _StateWriter:
    """One rule per state that is entered from several places (a class, not closures: recursive
    closures are reference cycles that only the cyclic garbage collector frees)."""

    def __init__(self, dfa: DFA, rules: RuleSet, hint: str, final: str,
                 edges: list[list[tuple[str, int]]], indegree: list[int]) -> None:
        self.dfa, self.rules, self.hint, self.final = dfa, rules, hint, final
        self.edges, self.indegree = edges, indegree
        self.names: dict[int, str] = {}
        self.pending: list[int] = []

    def write(self) -> str:
        top = self.ref(0)
        while self.pending:
            s = self.pending.pop()
            self.rules.define(self.names[s], " | ".join(self.alternatives(s, 0)))
        return top

    def is_rule(self, s: int) -> bool:
        return s == 0 or self.indegree[s] != 1

    def alternatives(self, s: int, depth: int) -> list[str]:
        alts = [self.final] if self.dfa.accepting[s] else []
        for head, t in self.edges[s]:
            if self.is_rule(t) or depth >= _INLINE_DEPTH:
                alts.append(f"{head} {self.ref(t)}")
                continue
            sub = self.alternatives(t, depth + 1)
            tail = sub[0] if len(sub) == 1 else "(" + " | ".join(sub) + ")"
            alts.append(f"{head} {tail}".rstrip())
        return alts

    def ref(self, s: int) -> str:
        if s not in self.names:
            self.names[s] = self.rules.reserve(self.hint)
            self.pending.append(s)
        return self.names[s]

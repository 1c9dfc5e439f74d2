"""GBNF for a DFA's language: one right-recursive rule per state (see :func:`emit_dfa`)."""

from __future__ import annotations

from collections.abc import Callable

from ..._gbnf._rules import RuleSet, expr_refs, group_depth
from .charset import CharSet
from .dfa import DFA

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
    every_symbol = tuple(range(len(dfa.symbols)))
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
                labels[key] = char_ref(CharSet.from_ranges(r for a in key for r in dfa.symbols[a]))
            out.append((labels[key], t))
        edges.append(out)
        for _, t in out:
            indegree[t] += 1
    label_refs = {label: (expr_refs(label), group_depth(label)) for label in labels.values()}
    return _StateWriter(dfa, rules, hint, final, edges, indegree, label_refs).write()


class _StateWriter:
    """One rule per state that is entered from several places (a class: recursive closures
    are reference cycles; a conversion keeps none, so reference counting frees it on return)."""

    def __init__(self, dfa: DFA, rules: RuleSet, hint: str, final: str,
                 edges: list[list[tuple[str, int]]], indegree: list[int],
                 label_refs: dict[str, tuple[tuple[str, ...], int]]) -> None:
        self.dfa, self.rules, self.hint, self.final = dfa, rules, hint, final
        #: Each label's rule names and group nesting: what ``RuleSet`` would otherwise scan the
        #: bodies for.
        self.edges, self.indegree, self.label_refs = edges, indegree, label_refs
        self.final_refs, self.final_nesting = expr_refs(final), group_depth(final)
        self.names: dict[int, str] = {}
        self.pending: list[int] = []

    def write(self) -> str:
        top = self.ref(0)
        while self.pending:
            s = self.pending.pop()
            refs: set[str] = set()  # what the body uses, so reachability need not scan it
            alts, nesting = self.alternatives(s, 0, refs)
            self.rules.define(self.names[s], " | ".join(alts), tuple(refs), nesting)
        return top

    def is_rule(self, s: int) -> bool:
        return s == 0 or self.indegree[s] != 1

    def alternatives(self, s: int, depth: int, refs: set[str]) -> tuple[list[str], int]:
        """The alternatives of state ``s``'s text and how deep their groups nest."""
        alts = []
        nesting = 0
        if self.dfa.accepting[s]:
            alts.append(self.final)
            refs.update(self.final_refs)
            nesting = self.final_nesting
        for head, t in self.edges[s]:
            head_refs, head_nesting = self.label_refs[head]
            refs.update(head_refs)
            nesting = max(nesting, head_nesting)
            if self.is_rule(t) or depth >= _INLINE_DEPTH:
                target = self.ref(t)
                refs.add(target)
                alts.append(f"{head} {target}")
                continue
            sub, sub_nesting = self.alternatives(t, depth + 1, refs)
            if len(sub) == 1:
                tail = sub[0]
            else:
                tail = "(" + " | ".join(sub) + ")"
                sub_nesting += 1
            nesting = max(nesting, sub_nesting)
            alts.append(f"{head} {tail}".rstrip())
        return alts, nesting

    def ref(self, s: int) -> str:
        if s not in self.names:
            self.names[s] = self.rules.reserve(self.hint)
            self.pending.append(s)
        return self.names[s]

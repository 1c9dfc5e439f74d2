"""Minimisation of DFAs: trimming, then merging equivalent states into a canonical numbering.

:func:`minimize` drops unreachable and dead states, finds the equivalence classes with whichever
of three algorithms suits the automaton (one pass for acyclic ones, Moore's refinement for small
ones, Hopcroft's algorithm for the rest), renumbers the classes breadth-first and fuses symbols
that every state treats alike. :func:`trim` does the first step alone.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from .charset import merge_ranges
from .dfa import DFA, Symbols

__all__ = ["minimize", "trim"]


def trim(dfa: DFA) -> DFA:
    """Drop states that are unreachable or cannot reach acceptance (renumbered breadth-first)."""
    live = _coreachable(dfa)
    if 0 not in live:
        return DFA(dfa.symbols, [(-1,) * len(dfa.symbols)], [False])
    number = {0: 0}
    order = [0]
    for s in order:
        for t in dict.fromkeys(dfa.delta[s]):
            if t >= 0 and t in live and t not in number:
                number[t] = len(order)
                order.append(t)
    # New number of every old state (-1: dropped); the extra last entry maps -1 to itself.
    new = [number.get(t, -1) for t in range(len(dfa.delta))] + [-1]
    rows = [tuple(map(new.__getitem__, dfa.delta[s])) for s in order]
    return DFA(dfa.symbols, rows, [dfa.accepting[s] for s in order])


def minimize(dfa: DFA) -> DFA:
    """Trim dead and unreachable states, then merge equivalent ones (the module docstring says
    which algorithm finds them when)."""
    live = _coreachable(dfa)
    if 0 not in live:
        return DFA(dfa.symbols, [(-1,) * len(dfa.symbols)], [False])
    n, k = len(dfa.delta), len(dfa.symbols)
    dead = n  # one explicit sink collects every missing or dead transition
    # Where each transition goes: live states stay, the rest (and -1, the last entry) go dead.
    target = [t if t in live else dead for t in range(n)] + [dead]
    delta = [list(map(target.__getitem__, row)) for row in dfa.delta] + [[dead] * k]
    # The minimal DFA is unique and _renumber numbers it canonically, so which algorithm finds
    # the classes does not change the result. Acyclic DFAs (length-bounded products) go first:
    # one pass, where Moore needs one round per character of the longest string.
    acyclic = _acyclic_classes(delta, dfa.accepting, dead)
    if acyclic is not None:
        return _renumber(dfa, delta, acyclic, dead)
    if n <= _MOORE_LIMIT:
        return _renumber(dfa, delta, _moore(delta, dfa.accepting + [False]), dead)
    return _renumber(dfa, delta, _hopcroft(delta, dfa.accepting, k), dead)


def _acyclic_classes(delta: list[list[int]], accepting: list[bool], dead: int) -> list[int] | None:
    """Equivalence classes in one pass when the DFA has no cycle (length-bounded products):
    states in post-order, each named by its acceptance and its successors' names. None if the
    DFA has a cycle."""
    classes = [-1] * len(delta)
    classes[dead] = 0
    names: dict[tuple[int, ...], int] = {}
    on_stack = [False] * len(delta)
    # Each state on the stack with its distinct successors still to visit (rows repeat
    # targets: many symbols lead to the same state).
    stack = [(0, iter(dict.fromkeys(delta[0])))]
    on_stack[0] = True
    while stack:
        s, successors = stack[-1]
        for t in successors:
            if classes[t] < 0:  # not named yet (the sink is named 0)
                if on_stack[t]:
                    return None
                on_stack[t] = True
                stack.append((t, iter(dict.fromkeys(delta[t]))))
                break
        else:
            stack.pop()
            on_stack[s] = False
            key = (1 if accepting[s] else 0, *map(classes.__getitem__, delta[s]))
            classes[s] = names.setdefault(key, len(names) + 1)
    return classes


#: Below this many states Moore's refinement (a few rounds of C-speed tuple hashing) beats
#: Hopcroft's algorithm in Python; above it, long counter chains make Moore quadratic.
_MOORE_LIMIT = 400


def _moore(delta: list[list[int]], accepting: list[bool]) -> list[int]:
    """Equivalence class of each state: refine by (class, successor classes) until stable."""
    classes = [1 if acc else 0 for acc in accepting]
    count = len(set(classes))
    # One C-level getter per state for its successors' classes (every row has the same length;
    # with one symbol the getter returns the class itself, which is as good a signature).
    successors = [itemgetter(*row) for row in delta] if delta and delta[0] else None
    while True:
        signatures: dict[tuple[int, Any], int] = {}
        if successors is None:
            refined = [signatures.setdefault((c, None), len(signatures)) for c in classes]
        else:
            refined = [signatures.setdefault((classes[s], successor(classes)), len(signatures))
                       for s, successor in enumerate(successors)]
        if len(signatures) == count:
            return refined
        classes, count = refined, len(signatures)


def _hopcroft(delta: list[list[int]], accepting: list[bool], k: int) -> list[int]:
    """Equivalence class of each state of a complete DFA (the last state is the sink)."""
    n = len(delta) - 1
    block_of = [0 if s < n and accepting[s] else 1 for s in range(n + 1)]
    blocks: list[set[int]] = [{s for s in range(n + 1) if block_of[s] == b} for b in (0, 1)]
    if not blocks[0]:
        blocks, block_of = [blocks[1]], [0] * (n + 1)
    inverse: list[dict[int, list[int]]] = [{} for _ in range(k)]
    for s, row in enumerate(delta):
        for a, t in enumerate(row):
            inverse[a].setdefault(t, []).append(s)
    work = {(b, a) for b in range(len(blocks)) for a in range(k)}
    while work:
        b, a = work.pop()
        touched: dict[int, list[int]] = {}
        inv = inverse[a]
        for t in blocks[b]:
            for s in inv.get(t, ()):
                touched.setdefault(block_of[s], []).append(s)
        for y, members in touched.items():
            if len(members) == len(blocks[y]):
                continue
            new = len(blocks)
            part = set(members)
            blocks[y] -= part
            blocks.append(part)
            for s in part:
                block_of[s] = new
            for c in range(k):
                if (y, c) in work:
                    work.add((new, c))
                else:
                    work.add((new, c) if len(part) <= len(blocks[y]) else (y, c))
    return block_of


def _coreachable(dfa: DFA) -> set[int]:
    reverse: list[list[int]] = [[] for _ in dfa.delta]
    for s, row in enumerate(dfa.delta):
        for t in set(row):  # rows repeat targets: many symbols lead to the same state
            if t >= 0:
                reverse[t].append(s)
    live = {s for s, acc in enumerate(dfa.accepting) if acc}
    todo = list(live)
    while todo:
        for s in reverse[todo.pop()]:
            if s not in live:
                live.add(s)
                todo.append(s)
    return live


def _renumber(dfa: DFA, delta: list[list[int]], block_of: list[int], dead: int) -> DFA:
    """Quotient by the blocks, numbered in breadth-first order from the start; the sink vanishes."""
    dead_block = block_of[dead]
    number = {block_of[0]: 0}
    reps = [0]
    for rep in reps:
        for t in dict.fromkeys(delta[rep]):
            b = block_of[t]
            if b != dead_block and b not in number:
                number[b] = len(reps)
                reps.append(t)
    # The new number of every old state's block (-1 for the dead block).
    new = [number.get(b, -1) for b in block_of]
    rows = [list(map(new.__getitem__, delta[r])) for r in reps]
    accepting = [dfa.accepting[r] for r in reps]
    return _merge_symbols(dfa.symbols, rows, accepting)


def _merge_symbols(symbols: Symbols, rows: list[list[int]], accepting: list[bool]) -> DFA:
    """Fuse symbols that every state treats alike, keeping the alphabet small."""
    columns: dict[tuple[int, ...], list[int]] = {}
    for a, column in enumerate(zip(*rows)):
        columns.setdefault(column, []).append(a)
    merged = list(columns.values())
    new_symbols = tuple(merge_ranges(r for a in group for r in symbols[a]) for group in merged)
    # The first column of each group, transposed back into rows (tuples).
    new_rows: list[tuple[int, ...]] = list(zip(*columns)) if columns else [() for _ in rows]
    return DFA(new_symbols, new_rows, accepting)

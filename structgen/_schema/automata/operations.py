"""Finite automata over Unicode code points, for the string keywords a grammar alone cannot combine.

This module builds DFAs from word lists and length bounds and combines them: intersection (all
patterns, formats, length bounds), union (alternative strings that share one automaton), length
limits and complement (forbidden patterns and names).
The :class:`DFA` value lives in ``dfa``, regex construction in ``regex_dfa`` and minimisation
in ``minimize``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from typing import TypeVar

from .charset import MAX_CODE_POINT, UNIVERSE, CharSet, Range, merge_ranges
from .dfa import DFA, MAX_PRODUCT_STATES, MAX_STATES, Symbols, TooLarge, minterms
from .minimize import minimize, trim

__all__ = ["complement", "exclusion_dfa", "finite_dfa", "intersect", "length_dfa", "limit_length",
           "union_all", "without_words"]


K = TypeVar("K")  # how a product numbers its pairs of states


# --- construction ---------------------------------------------------------------------------


def _word_alphabet(values: Iterable[str]) -> tuple[list[str], Symbols, dict[int, int]]:
    """The distinct words in order, an alphabet of one symbol per character they use, and the
    symbol of each character's code point."""
    words = sorted(set(values))
    symbols, of_label = minterms(CharSet.of((ord(c), ord(c))) for w in words for c in w)
    return words, symbols, {cs.ranges[0][0]: idx[0] for cs, idx in of_label.items()}


def finite_dfa(values: Iterable[str]) -> DFA:
    """The DFA accepting exactly ``values`` (a trie; minimise it for sharing of suffixes)."""
    words, symbols, symbol = _word_alphabet(values)
    delta: list[list[int]] = [[-1] * len(symbols)]
    accepting = [False]
    for word in words:
        state = 0
        for ch in word:
            a = symbol[ord(ch)]
            if delta[state][a] < 0:
                delta.append([-1] * len(symbols))
                accepting.append(False)
                delta[state][a] = len(delta) - 1
            state = delta[state][a]
        accepting[state] = True
    return minimize(DFA(symbols, delta, accepting))


def exclusion_dfa(values: Iterable[str]) -> DFA:
    """Every string except ``values``: their trie, where leaving the trie leads to a state that
    accepts everything. Built directly, without minimisation (it is small and almost minimal)."""
    words, symbols, symbol = _word_alphabet(values)
    free = 1  # state 0 is the root of the trie
    delta: list[list[int]] = [[free] * len(symbols), [free] * len(symbols)]
    accepting = [True, True]
    for word in words:
        state = 0
        for ch in word:
            a = symbol[ord(ch)]
            if delta[state][a] == free:
                delta.append([free] * len(symbols))
                accepting.append(True)
                delta[state][a] = len(delta) - 1
            state = delta[state][a]
        accepting[state] = False
    return DFA(symbols, [tuple(row) for row in delta], accepting)


def length_dfa(min_length: int, max_length: int | None) -> DFA:
    """Strings of ``min_length`` to ``max_length`` code points."""
    top = max_length if max_length is not None else min_length
    if top + 1 > MAX_STATES:
        raise TooLarge
    delta = [(i + 1,) for i in range(top)] + [(top if max_length is None else -1,)]
    accepting = [i >= min_length for i in range(top + 1)]
    return DFA((UNIVERSE.ranges,), delta, accepting)


# --- operations -----------------------------------------------------------------------------


def intersect(first: DFA, second: DFA) -> DFA:
    """The product automaton of both languages, trimmed and minimised."""
    pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
    table_a, table_b = first._table, second._table
    i = j = 0
    while i < len(table_a) and j < len(table_b):
        lo, hi = max(table_a[i][0], table_b[j][0]), min(table_a[i][1], table_b[j][1])
        if lo <= hi:
            pairs.setdefault((table_a[i][2], table_b[j][2]), []).append((lo, hi))
        if table_a[i][1] < table_b[j][1]:
            i += 1
        else:
            j += 1
    symbols = list(pairs)
    alphabet = tuple(merge_ranges(pairs[p]) for p in symbols)
    # A pair of states (s, t) is numbered s * width + t: ints hash faster than tuples.
    width = len(second.delta)
    index = {0: 0}
    order = [0]
    delta: list[list[int]] = []
    first_delta, second_delta = first.delta, second.delta
    for pair in order:
        row_a, row_b = first_delta[pair // width], second_delta[pair % width]
        row = []
        for a, b in symbols:
            ns, nt = row_a[a], row_b[b]
            if ns < 0 or nt < 0:
                row.append(-1)
                continue
            key = ns * width + nt
            known = index.get(key)
            if known is None:
                known = _new_state(index, order, key, MAX_STATES)
            row.append(known)
        delta.append(row)
    accepting = [first.accepting[p // width] and second.accepting[p % width] for p in order]
    return minimize(DFA(alphabet, delta, accepting))


def _new_state(index: dict[K, int], order: list[K], key: K, limit: int) -> int:
    """Number a product state not seen before (``order`` lists them by number), within the
    state budget ``limit``."""
    if len(order) >= limit:
        raise TooLarge(limit)
    index[key] = number = len(order)
    order.append(key)
    return number


def without_words(dfa: DFA, words: Iterable[str]) -> DFA:
    """``dfa``'s language minus the finite set ``words``, minimised.

    The words' trie is read alongside ``dfa`` (each trie node knows the one state its prefix
    leads to), and a string that leaves the trie carries on in ``dfa``'s own states. The product
    with ``exclusion_dfa(words)`` comes to the same automaton the long way round.
    """
    unique = sorted(set(words))
    chars = sorted({ord(c) for w in unique for c in w})
    # The alphabet: each trie character on its own, then what is left of each old symbol.
    symbols: list[tuple[Range, ...]] = [((c, c),) for c in chars]
    old_of = [dfa.symbol(c) for c in chars]  # the old symbol each new one lies in (-1: none)
    for a, ranges in enumerate(dfa.symbols):
        rest = _without_points(ranges, chars)
        if rest:
            symbols.append(rest)
            old_of.append(a)
    # Trie nodes: (state of dfa, children by character symbol, a word ends here); prefixes that
    # dfa rejects on the way need no node.
    nodes: list[tuple[int, dict[int, int], bool]] = [(0, {}, False)]
    for word in unique:
        n = 0
        for ch in word:
            j = bisect_left(chars, ord(ch))
            child = nodes[n][1].get(j)
            if child is None:
                a = old_of[j]
                state = dfa.delta[nodes[n][0]][a] if a >= 0 else -1
                if state < 0:
                    break
                child = nodes[n][1][j] = len(nodes)
                nodes.append((state, {}, False))
            n = child
        else:
            state, children, _ = nodes[n]
            nodes[n] = (state, children, True)
    free = len(nodes)  # dfa's state s is state free + s
    source = dfa.delta
    moves = [[free + t if t >= 0 else -1 for t in ((source[s][a] if a >= 0 else -1)
                                                   for a in old_of)]
             for s in range(len(source))]
    delta = [[children.get(j, move) for j, move in enumerate(moves[state])]
             for state, children, _ in nodes] + moves
    accepting = [dfa.accepting[state] and not ends for state, _, ends in nodes] + list(dfa.accepting)
    return minimize(DFA(tuple(symbols), delta, accepting))


def _without_points(ranges: tuple[Range, ...], points: list[int]) -> tuple[Range, ...]:
    """``ranges`` minus the sorted code points ``points``."""
    out: list[Range] = []
    for lo, hi in ranges:
        i = bisect_left(points, lo)
        while i < len(points) and points[i] <= hi:
            if points[i] > lo:
                out.append((lo, points[i] - 1))
            lo = points[i] + 1
            i += 1
        if lo <= hi:
            out.append((lo, hi))
    return tuple(out)


def union_all(dfas: list[DFA]) -> DFA:
    """The minimal DFA of the union of the languages, merged pairwise in a balanced tree so that
    every intermediate product stays minimal and small."""
    while len(dfas) > 1:
        merged = [_union(dfas[i], dfas[i + 1]) for i in range(0, len(dfas) - 1, 2)]
        dfas = merged + dfas[len(dfas) - len(dfas) % 2:]
    return dfas[0]


#: Past every code point: a table that has run out.
_END = MAX_CODE_POINT + 2


def _union(first: DFA, second: DFA) -> DFA:
    """The product automaton accepting what either accepts. Unlike an intersection, a side may
    have left its automaton (-1) while the other goes on, and a code point that only one side
    reads is still a symbol."""
    pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
    table_a, table_b = first._table, second._table
    i = j = 0
    cp = 0  # the next code point not yet assigned to a pair of symbols
    while i < len(table_a) or j < len(table_b):
        lo_a, hi_a, a = table_a[i] if i < len(table_a) else (_END, _END, -1)
        lo_b, hi_b, b = table_b[j] if j < len(table_b) else (_END, _END, -1)
        cp = max(cp, min(lo_a, lo_b))
        in_a, in_b = lo_a <= cp, lo_b <= cp
        # The run of code points from cp on where membership in both tables stays the same.
        hi = min(hi_a if in_a else lo_a - 1, hi_b if in_b else lo_b - 1)
        pairs.setdefault((a if in_a else -1, b if in_b else -1), []).append((cp, hi))
        cp = hi + 1
        if in_a and hi == hi_a:
            i += 1
        if in_b and hi == hi_b:
            j += 1
    symbols = list(pairs)
    alphabet = tuple(merge_ranges(pairs[p]) for p in symbols)
    # A pair of states is numbered (s + 1) * width + (t + 1), -1 standing for "left".
    width = len(second.delta) + 1
    index = {width + 1: 0}
    order = [width + 1]
    delta: list[list[int]] = []
    first_delta, second_delta = first.delta, second.delta
    for pair in order:
        s, t = pair // width - 1, pair % width - 1
        row_a = first_delta[s] if s >= 0 else None
        row_b = second_delta[t] if t >= 0 else None
        row = []
        for a, b in symbols:
            ns = row_a[a] if row_a is not None and a >= 0 else -1
            nt = row_b[b] if row_b is not None and b >= 0 else -1
            if ns < 0 and nt < 0:
                row.append(-1)
                continue
            key = (ns + 1) * width + nt + 1
            known = index.get(key)
            if known is None:
                known = _new_state(index, order, key, MAX_STATES)
            row.append(known)
        delta.append(row)
    accepting = [(p // width > 0 and first.accepting[p // width - 1])
                 or (p % width > 0 and second.accepting[p % width - 1]) for p in order]
    return minimize(DFA(alphabet, delta, accepting))


def limit_length(dfa: DFA, min_length: int, max_length: int | None) -> DFA:
    """``dfa`` restricted to strings of ``min_length`` to ``max_length`` code points.

    The product with a counter, built directly: the counter saturates at ``min_length`` when
    there is no maximum, and pairs that cannot reach acceptance within the maximum are pruned.
    """
    reverse: list[list[int]] = [[] for _ in dfa.delta]
    for s, row in enumerate(dfa.delta):
        for t in set(row):
            if t >= 0:
                reverse[t].append(s)
    far = len(dfa.delta) + 1
    to_accept = [0 if acc else far for acc in dfa.accepting]
    frontier = [s for s, acc in enumerate(dfa.accepting) if acc]
    while frontier:
        nxt = []
        for t in frontier:
            for s in reverse[t]:
                if to_accept[s] == far:
                    to_accept[s] = to_accept[t] + 1
                    nxt.append(s)
        frontier = nxt
    index = {(0, 0): 0}
    order = [(0, 0)]
    delta: list[list[int]] = []
    # No maximum: an unreachable bound, so the pruning test below never fires.
    bound = max_length if max_length is not None else len(dfa.delta) + min_length + far + 2
    source = dfa.delta
    for s, c in order:
        nc = c + 1 if max_length is not None else min(c + 1, min_length)
        # Each distinct target once, in the order the symbols first reach it (which numbers
        # new pairs as a scan of every symbol would): many symbols lead to the same state.
        pair_of: dict[int, int] = {}
        for t in dict.fromkeys(source[s]):
            if t < 0 or nc + to_accept[t] > bound:
                pair_of[t] = -1
                continue
            pair = (t, nc)
            known = index.get(pair)
            if known is None:
                known = _new_state(index, order, pair, MAX_PRODUCT_STATES)
            pair_of[t] = known
        delta.append(list(map(pair_of.__getitem__, source[s])))
    accepting = [dfa.accepting[s] and c >= min_length for s, c in order]
    return minimize(DFA(dfa.symbols, delta, accepting))


def complement(dfa: DFA) -> DFA:
    """Every string over all code points that ``dfa`` rejects."""
    sink = len(dfa.delta)
    delta = [[t if t >= 0 else sink for t in row] for row in dfa.delta] + [[sink] * len(dfa.symbols)]
    accepting = [not a for a in dfa.accepting] + [True]
    # The complement of a minimal DFA, completed with its sink, is minimal: trimming suffices.
    return trim(DFA(dfa.symbols, delta, accepting))

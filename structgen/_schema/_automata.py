"""Finite automata over Unicode code points, for the string keywords a grammar alone cannot combine.

An NFA is built from a regex tree (Thompson-style, with ``^``/``$`` as assertion edges) and
determinised over *minterms*: the coarsest partition of the code points that the NFA's character
sets never split. A :class:`DFA` therefore has a small alphabet of disjoint :class:`CharSet` s, which
makes intersection (all patterns, formats, length bounds), complement (forbidden patterns and names),
minimisation and GBNF emission (``_emit_dfa``) cheap.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from .._errors import UnsupportedSchemaError
from ._charset import MAX_CODE_POINT, UNIVERSE, CharSet
from ._regex import Alt, Anchor, Chars, Node, Repeat, Seq

#: Above this many states a construction gives up with UnsupportedSchemaError.
MAX_STATES = 20_000
#: Length-bounded products get a smaller budget: each state becomes a grammar rule.
MAX_PRODUCT_STATES = 8_000
_MAX_NFA_STATES = 60_000


class TooLarge(Exception):
    """An automaton outgrew its state budget; callers turn it into UnsupportedSchemaError."""

    def __init__(self, limit: int = MAX_STATES) -> None:
        super().__init__(limit)
        self.limit = limit


def minterms(labels: Iterable[CharSet]) -> tuple[list[CharSet], dict[CharSet, list[int]]]:
    """The coarsest partition of all code points refining every label, and each label's parts."""
    distinct = list(dict.fromkeys(labels))
    points = {0, MAX_CODE_POINT + 1}
    for cs in distinct:
        for lo, hi in cs.ranges:
            points.add(lo)
            points.add(hi + 1)
    bounds = sorted(points)
    members: list[list[int]] = [[] for _ in range(len(bounds) - 1)]
    for li, cs in enumerate(distinct):
        for lo, hi in cs.ranges:
            k = bisect_right(bounds, lo) - 1  # bounds[k] == lo; bounds holds hi + 1 as well
            while bounds[k] <= hi:
                members[k].append(li)
                k += 1
    by_signature: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for k, member_of in enumerate(members):
        by_signature.setdefault(tuple(member_of), []).append((bounds[k], bounds[k + 1] - 1))
    parts: list[CharSet] = []
    of_label: dict[CharSet, list[int]] = {cs: [] for cs in distinct}
    for sig, ranges in by_signature.items():
        part = CharSet.from_ranges(ranges)
        if not part:
            continue  # only surrogates
        for li in sig:
            of_label[distinct[li]].append(len(parts))
        parts.append(part)
    return parts, of_label


@dataclass
class DFA:
    """A deterministic automaton; state 0 is the start, ``delta[s][a]`` is -1 for the dead state."""

    alphabet: list[CharSet]
    # Finished automata hold tuple rows: cached automata live for the whole process, and tuples
    # of ints drop out of the cyclic garbage collector's view where lists would be rescanned.
    delta: Sequence[Sequence[int]]
    accepting: list[bool]

    def __post_init__(self) -> None:
        # Tuples, like the rows: cached automata stay out of the garbage collector's scans.
        table = tuple(sorted((lo, hi, a) for a, cs in enumerate(self.alphabet) for lo, hi in cs.ranges))
        self._starts = tuple([lo for lo, _, _ in table])
        self._table = table

    def symbol(self, cp: int) -> int:
        i = bisect_right(self._starts, cp) - 1
        if i < 0 or self._table[i][1] < cp:
            return -1
        return self._table[i][2]

    def matches(self, value: str) -> bool:
        state = 0
        for ch in value:
            a = self.symbol(ord(ch))
            if a < 0:
                return False
            state = self.delta[state][a]
            if state < 0:
                return False
        return self.accepting[state]

    def is_empty(self) -> bool:
        return not any(self.accepting)

    def length_bounds(self) -> tuple[int, int | None]:
        """Shortest and longest accepted length (None: unbounded) of a trimmed DFA."""
        n = len(self.delta)
        dist = [-1] * n
        dist[0], frontier = 0, [0]
        while frontier:
            nxt = []
            for s in frontier:
                for t in self.delta[s]:
                    if t >= 0 and dist[t] < 0:
                        dist[t] = dist[s] + 1
                        nxt.append(t)
            frontier = nxt
        shortest = min(dist[s] for s in range(n) if self.accepting[s] and dist[s] >= 0)
        if n > 400:  # keeps the recursion shallow; unbounded is the safe answer
            return shortest, None
        return shortest, _longest(self.delta, self.accepting, 0, {}, set())


def _longest(delta: Sequence[Sequence[int]], accepting: list[bool], s: int, longest: dict[int, int],
             on_path: set[int]) -> int | None:
    """The longest path from ``s`` to acceptance; None on a cycle. A function with explicit
    state rather than a recursive closure, which would be a reference cycle."""
    if s in on_path:
        return None
    if s in longest:
        return longest[s]
    on_path.add(s)
    best = 0 if accepting[s] else -1
    for t in set(delta[s]):
        if t >= 0:
            sub = _longest(delta, accepting, t, longest, on_path)
            if sub is None:
                return None
            best = max(best, sub + 1)
    on_path.discard(s)
    longest[s] = best
    return best


# --- construction ---------------------------------------------------------------------------

_EPS, _CARET, _DOLLAR = 0, 1, 2


class _NFA:
    def __init__(self) -> None:
        self.chars: list[list[tuple[CharSet, int]]] = []
        self.special: list[list[tuple[int, int]]] = []  # (kind, target)

    def new(self) -> int:
        if len(self.chars) >= _MAX_NFA_STATES:
            raise TooLarge
        self.chars.append([])
        self.special.append([])
        return len(self.chars) - 1

    def link(self, src: int, dst: int, kind: int = _EPS) -> None:
        self.special[src].append((kind, dst))

    def build(self, node: Node, start: int, end: int) -> None:
        if isinstance(node, Chars):
            if node.chars:
                self.chars[start].append((node.chars, end))
        elif isinstance(node, Anchor):
            self.link(start, end, _CARET if node.kind == "^" else _DOLLAR)
        elif isinstance(node, Seq):
            cur = start
            for i, item in enumerate(node.items):
                nxt = end if i == len(node.items) - 1 else self.new()
                self.build(item, cur, nxt)
                cur = nxt
            if not node.items:
                self.link(start, end)
        elif isinstance(node, Alt):
            for option in node.options:
                a, b = self.new(), self.new()
                self.link(start, a)
                self.build(option, a, b)
                self.link(b, end)
        else:
            self._repeat(node, start, end)

    def _repeat(self, node: Repeat, start: int, end: int) -> None:
        cur = start
        for _ in range(node.min):
            nxt = self.new()
            self.build(node.item, cur, nxt)
            cur = nxt
        if node.max is None:
            a, b = self.new(), self.new()
            self.link(cur, a)
            self.build(node.item, a, b)
            self.link(b, a)
            self.link(a, end)
            return
        for _ in range(node.max - node.min):
            self.link(cur, end)
            nxt = self.new()
            self.build(node.item, cur, nxt)
            cur = nxt
        self.link(cur, end)


def regex_dfa(node: Node) -> DFA:
    """The minimal DFA of strings containing a match of ``node`` (JSON Schema's search semantics)."""
    nfa = _NFA()
    prefix, start, end, final = nfa.new(), nfa.new(), nfa.new(), nfa.new()
    nfa.chars[prefix].append((UNIVERSE, prefix))
    nfa.link(prefix, start)
    nfa.build(node, start, end)
    nfa.link(end, final)
    nfa.chars[final].append((UNIVERSE, final))
    return minimize(_determinize(nfa, final))


def _determinize(nfa: _NFA, final: int) -> DFA:
    """Subset construction. Items are ``2*state + ended``: an "ended" item has passed a ``$`` and
    may consume nothing more. A set holding the (unended) final state accepts every continuation
    (the final state loops on everything), so all such sets collapse into one."""
    parts, of_label = minterms(cs for edges in nfa.chars for cs, _ in edges)
    moves_of = [[(of_label[cs], 2 * t) for cs, t in edges] for edges in nfa.chars]
    item_closures: dict[int, frozenset[int]] = {}

    def closure_of(item: int, at_start: bool) -> frozenset[int]:
        if not at_start and item in item_closures:
            return item_closures[item]
        seen = {item}
        todo = [item]
        while todo:
            state, ended = divmod(todo.pop(), 2)
            for kind, target in nfa.special[state]:
                if kind == _CARET and not at_start:
                    continue
                nxt = 2 * target + (1 if kind == _DOLLAR else ended)
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        result = frozenset(seen)
        if not at_start:
            item_closures[item] = result
        return result

    done = frozenset({2 * final})
    first = closure_of(0, at_start=True)
    if 2 * final in first:
        first = done
    index = {first: 0}
    sets = [first]
    delta: list[list[int]] = []
    accepting: list[bool] = []
    # Many symbols move to the same items (the search prefix loops on everything), and a set of
    # items always leads to the same state: resolve each distinct set once.
    state_of_targets: dict[frozenset[int], int] = {}
    for current in sets:
        moves: dict[int, set[int]] = {}
        for item in current:
            if item % 2 == 0:
                for symbols, target in moves_of[item // 2]:
                    for a in symbols:
                        moves.setdefault(a, set()).add(target)
        row = [-1] * len(parts)
        for a, targets in moves.items():
            key = frozenset(targets)
            known = state_of_targets.get(key)
            if known is None:
                union: set[int] = set()
                for t in targets:
                    union |= closure_of(t, at_start=False)
                nxt = done if 2 * final in union else frozenset(union)
                if nxt not in index:
                    if len(sets) >= MAX_STATES:
                        raise TooLarge
                    index[nxt] = len(sets)
                    sets.append(nxt)
                known = state_of_targets[key] = index[nxt]
            row[a] = known
        delta.append(row)
        accepting.append(2 * final in current or 2 * final + 1 in current)
    return DFA(parts, delta, accepting)


def finite_dfa(values: Iterable[str]) -> DFA:
    """The DFA accepting exactly ``values`` (a trie; minimise it for sharing of suffixes)."""
    words = sorted(set(values))
    parts, of_label = minterms(CharSet.of((ord(c), ord(c))) for w in words for c in w)
    symbol = {cs.ranges[0][0]: idx[0] for cs, idx in of_label.items()}
    delta: list[list[int]] = [[-1] * len(parts)]
    accepting = [False]
    for word in words:
        state = 0
        for ch in word:
            a = symbol[ord(ch)]
            if delta[state][a] < 0:
                delta.append([-1] * len(parts))
                accepting.append(False)
                delta[state][a] = len(delta) - 1
            state = delta[state][a]
        accepting[state] = True
    return minimize(DFA(parts, delta, accepting))


def exclusion_dfa(values: Iterable[str]) -> DFA:
    """Every string except ``values``: their trie, where leaving the trie leads to a state that
    accepts everything. Built directly, without minimisation (it is small and almost minimal)."""
    words = sorted(set(values))
    parts, of_label = minterms(CharSet.of((ord(c), ord(c))) for w in words for c in w)
    symbol = {cs.ranges[0][0]: idx[0] for cs, idx in of_label.items()}
    free = 1  # state 0 is the root of the trie
    delta: list[list[int]] = [[free] * len(parts), [free] * len(parts)]
    accepting = [True, True]
    for word in words:
        state = 0
        for ch in word:
            a = symbol[ord(ch)]
            if delta[state][a] == free:
                delta.append([free] * len(parts))
                accepting.append(True)
                delta[state][a] = len(delta) - 1
            state = delta[state][a]
        accepting[state] = False
    return DFA(parts, [tuple(row) for row in delta], accepting)


def length_dfa(min_length: int, max_length: int | None) -> DFA:
    """Strings of ``min_length`` to ``max_length`` code points."""
    top = max_length if max_length is not None else min_length
    if top + 1 > MAX_STATES:
        raise TooLarge
    delta = [(i + 1,) for i in range(top)] + [(top if max_length is None else -1,)]
    accepting = [i >= min_length for i in range(top + 1)]
    return DFA([UNIVERSE], delta, accepting)


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
    alphabet = [CharSet.from_ranges(pairs[p]) for p in symbols]
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
                if len(order) >= MAX_STATES:
                    raise TooLarge
                known = index[key] = len(order)
                order.append(key)
            row.append(known)
        delta.append(row)
    accepting = [first.accepting[p // width] and second.accepting[p % width] for p in order]
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
        row = []
        nc = c + 1 if max_length is not None else min(c + 1, min_length)
        for t in source[s]:
            if t < 0 or nc + to_accept[t] > bound:
                row.append(-1)
                continue
            pair = (t, nc)
            known = index.get(pair)
            if known is None:
                if len(order) >= MAX_PRODUCT_STATES:
                    raise TooLarge(MAX_PRODUCT_STATES)
                known = index[pair] = len(order)
                order.append(pair)
            row.append(known)
        delta.append(row)
    accepting = [dfa.accepting[s] and c >= min_length for s, c in order]
    return minimize(DFA(list(dfa.alphabet), delta, accepting))


def complement(dfa: DFA) -> DFA:
    """Every string over all code points that ``dfa`` rejects."""
    sink = len(dfa.delta)
    delta = [[t if t >= 0 else sink for t in row] for row in dfa.delta] + [[sink] * len(dfa.alphabet)]
    accepting = [not a for a in dfa.accepting] + [True]
    # The complement of a minimal DFA, completed with its sink, is minimal: trimming suffices.
    return _trim(DFA(list(dfa.alphabet), delta, accepting))


def _trim(dfa: DFA) -> DFA:
    """Drop states that are unreachable or cannot reach acceptance (renumbered breadth-first)."""
    live = _coreachable(dfa)
    if 0 not in live:
        return DFA(list(dfa.alphabet), [(-1,) * len(dfa.alphabet)], [False])
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
    return DFA(list(dfa.alphabet), rows, [dfa.accepting[s] for s in order])


def minimize(dfa: DFA) -> DFA:
    """Trim dead and unreachable states, then merge equivalent ones (Hopcroft)."""
    live = _coreachable(dfa)
    if 0 not in live:
        return DFA(list(dfa.alphabet), [(-1,) * len(dfa.alphabet)], [False])
    n, k = len(dfa.delta), len(dfa.alphabet)
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
    stack = [(0, 0)]
    on_stack[0] = True
    while stack:
        s, i = stack[-1]
        row = delta[s]
        while i < len(row) and (row[i] == dead or classes[row[i]] >= 0):
            i += 1
        if i < len(row):
            t = row[i]
            if on_stack[t]:
                return None
            stack[-1] = (s, i + 1)
            stack.append((t, 0))
            on_stack[t] = True
            continue
        stack.pop()
        on_stack[s] = False
        key = (1 if accepting[s] else 0, *map(classes.__getitem__, row))
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
    return _merge_symbols(dfa.alphabet, rows, accepting)


def _merge_symbols(alphabet: Sequence[CharSet], rows: list[list[int]], accepting: list[bool]) -> DFA:
    """Fuse symbols that every state treats alike, keeping the alphabet small."""
    columns: dict[tuple[int, ...], list[int]] = {}
    for a, column in enumerate(zip(*rows)):
        columns.setdefault(column, []).append(a)
    merged = list(columns.values())
    new_alphabet = [CharSet.from_ranges(r for a in group for r in alphabet[a].ranges) for group in merged]
    # The first column of each group, transposed back into rows (tuples).
    new_rows: list[tuple[int, ...]] = list(zip(*columns)) if columns else [() for _ in rows]
    return DFA(new_alphabet, new_rows, accepting)


def too_large(keyword: str, pointer: str, what: str, limit: int = MAX_STATES) -> UnsupportedSchemaError:
    return UnsupportedSchemaError(
        f"{what} needs an automaton of more than {limit} states", pointer=pointer, keyword=keyword
    )

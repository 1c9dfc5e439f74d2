"""DFAs for regexes under JSON Schema's search semantics.

An NFA is built from a regex tree (Thompson-style, with ``^``/``$`` as assertion edges) around a
search prefix and suffix that loop on every code point, then determinised by subset construction
over the minterms of its character sets and minimised.
"""

from __future__ import annotations

from .charset import UNIVERSE, CharSet
from .dfa import DFA, MAX_STATES, TooLarge, minterms
from .minimize import minimize
from .regex import Choice, Anchor, Chars, Node, Quantified, Concat

__all__ = ["regex_dfa"]

_MAX_NFA_STATES = 60_000

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
        elif isinstance(node, Concat):
            cur = start
            for i, item in enumerate(node.items):
                nxt = end if i == len(node.items) - 1 else self.new()
                self.build(item, cur, nxt)
                cur = nxt
            if not node.items:
                self.link(start, end)
        elif isinstance(node, Choice):
            for option in node.options:
                a, b = self.new(), self.new()
                self.link(start, a)
                self.build(option, a, b)
                self.link(b, end)
        else:
            self._repeat(node, start, end)

    def _repeat(self, node: Quantified, start: int, end: int) -> None:
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
    alphabet, of_label = minterms(cs for edges in nfa.chars for cs, _ in edges)
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
        row = [-1] * len(alphabet)
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
    return DFA(alphabet, delta, accepting)

"""The DFA value shared by every automaton construction, with its alphabet and state budgets.

A :class:`DFA` runs over Unicode code points, but its alphabet is a short list of disjoint sets
of code points (kept as ranges): the *minterms* (:func:`minterms`), the coarsest partition of
the code points that the character sets involved never split. That keeps intersection,
complement, minimisation and GBNF emission (``to_gbnf``) cheap. Constructions that outgrow
``MAX_STATES`` raise :class:`TooLarge`, which callers turn into UnsupportedSchemaError with
:func:`too_large`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..._errors import UnsupportedSchemaError
from .charset import MAX_CODE_POINT, CharSet, Range, merge_ranges

__all__ = ["DFA", "MAX_PRODUCT_STATES", "MAX_STATES", "Symbols", "TooLarge", "minterms", "too_large"]

#: Above this many states a construction gives up with UnsupportedSchemaError.
MAX_STATES = 20_000
#: Length-bounded products get a smaller budget: each state becomes a grammar rule.
MAX_PRODUCT_STATES = 8_000


#: The alphabet of a DFA: each symbol's code points as a CharSet's ranges.
Symbols = tuple[tuple[Range, ...], ...]


class TooLarge(Exception):
    """An automaton outgrew its state budget; callers turn it into UnsupportedSchemaError."""

    def __init__(self, limit: int = MAX_STATES) -> None:
        super().__init__(limit)
        self.limit = limit


def minterms(labels: Iterable[CharSet]) -> tuple[Symbols, dict[CharSet, list[int]]]:
    """The coarsest partition of all code points refining every label (as a DFA's alphabet), and
    each label's parts."""
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
    parts: list[tuple[Range, ...]] = []
    of_label: dict[CharSet, list[int]] = {cs: [] for cs in distinct}
    for sig, ranges in by_signature.items():
        part = merge_ranges(ranges)
        if not part:
            continue  # only surrogates
        for li in sig:
            of_label[distinct[li]].append(len(parts))
        parts.append(part)
    return tuple(parts), of_label


@dataclass
class DFA:
    """A deterministic automaton; state 0 is the start, ``delta[s][a]`` is -1 for the dead state."""

    # Tuples of ints throughout (symbols as ranges, not CharSets; finished automata hold tuple
    # rows): cached automata are long-lived, and tuples of ints are untracked by the collector.
    symbols: Symbols
    delta: Sequence[Sequence[int]]
    accepting: list[bool]

    def __post_init__(self) -> None:
        table = tuple(sorted((lo, hi, a) for a, ranges in enumerate(self.symbols) for lo, hi in ranges))
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


def too_large(keyword: str, pointer: str, what: str, limit: int = MAX_STATES) -> UnsupportedSchemaError:
    return UnsupportedSchemaError(
        f"{what} needs an automaton of more than {limit} states", pointer=pointer, keyword=keyword
    )

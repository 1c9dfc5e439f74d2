"""A pure-Python recognizer that behaves like llama.cpp's grammar sampler, character by character.

Like llama.cpp it keeps a set of pushdown stacks of grammar positions, each with a terminal
on top (or empty: the grammar may end here); a character keeps the stacks whose top matches,
pops it and re-expands rule references until terminals are on top again. Stacks are interned
as integers (a stack is ``(top position, id of the rest)``), expansions are memoized per
stack and states (sets of stacks) are interned with a per-state transition cache, so a state
seen again costs one dictionary lookup per character.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

from .._errors import GrammarError
from ._compile import CharRanges, compile_grammar
from ._lint import check_safe
from ._tree import GbnfGrammar

__all__ = ["Recognizer", "State", "forced_text"]

FORCED_TEXT_LIMIT = 4096
# Highly ambiguous grammars make the number of stacks grow exponentially with the text (in
# llama.cpp as much as here); past this many in one state we stop with a clear error.
MAX_STACKS = 200_000


class State:
    """Where the recognizer is after some text: immutable, shared, compared by identity.

    States are interned per recognizer, so equal states are the same object."""

    __slots__ = ("_recognizer", "stacks", "_by_terminal", "_moves", "_allowed")

    def __init__(self, recognizer: Recognizer, stacks: frozenset[int]) -> None:
        self._recognizer = recognizer
        self.stacks = stacks
        groups: dict[int, list[int]] = defaultdict(list)
        for stack in stacks:
            if stack:
                groups[~recognizer._pos_symbol[recognizer._top[stack]]].append(stack)
        self._by_terminal = tuple((terminal, tuple(members)) for terminal, members in groups.items())
        self._moves: dict[str, State | None] = {}
        self._allowed: CharRanges | None = None

    def advance(self, ch: str) -> State | None:
        """The state after one more character, or None if the grammar rejects it here."""
        try:
            return self._moves[ch]
        except KeyError:
            pass
        following = self._recognizer._step(self, ord(ch))
        self._moves[ch] = following
        return following

    def advance_text(self, text: str) -> State | None:
        state: State | None = self
        for ch in text:
            if state is None:
                return None
            state = state.advance(ch)
        return state

    def is_accepting(self) -> bool:
        """May the text end here (llama.cpp allows end-of-generation)?"""
        return 0 in self.stacks

    def allowed_chars(self) -> CharRanges:
        """The code points that may come next, as ranges."""
        if self._allowed is None:
            terminals = self._recognizer._terminals
            ranges: list[tuple[int, int]] = []
            for terminal, _ in self._by_terminal:
                ranges.extend(terminals[terminal].ranges)
            self._allowed = CharRanges.of(ranges)
        return self._allowed

    def forced_text(self, limit: int = FORCED_TEXT_LIMIT) -> str:
        return forced_text(self, limit)

    def __repr__(self) -> str:
        return f"<State {len(self.stacks)} stacks{' accepting' if self.is_accepting() else ''}>"


class Recognizer:
    """Recognize text against a GBNF grammar from ``root``, as llama.cpp's sampler would.

    Raises GrammarError for grammars llama.cpp cannot run (see ``check_safe``) and for
    token references (``<...>``), which only exist for a tokenizer vocabulary."""

    def __init__(self, grammar: GbnfGrammar | str, root: str = "root", *, max_stacks: int = MAX_STACKS) -> None:
        tree = check_safe(grammar, root)
        self.max_stacks = max_stacks
        flat = compile_grammar(tree, root)
        self.grammar = tree
        self.root = root
        self._rule_alts = flat.rule_alts
        self._pos_symbol = flat.pos_symbol
        self._pos_next = flat.pos_next
        self._terminals = flat.terminals
        # Per terminal, the range starts and ends for a bisect membership test.
        self._starts = [tuple(low for low, _ in t.ranges) for t in flat.terminals]
        self._ends = [tuple(high for _, high in t.ranges) for t in flat.terminals]
        # Interned stacks: id 0 is the empty stack.
        self._top: list[int] = [-1]
        self._rest: list[int] = [0]
        self._stack_ids: dict[tuple[int, int], int] = {}
        self._expanded: dict[int, tuple[int, ...]] = {}
        self._states: dict[frozenset[int], State] = {}
        stacks: set[int] = set()
        for start in self._rule_alts[flat.root]:
            stacks.update(self._expand(self._push(0, start) if start >= 0 else 0))
        self._initial = self._intern(frozenset(stacks))

    def initial(self) -> State:
        return self._initial

    def accepts(self, text: str) -> bool:
        state = self._initial.advance_text(text)
        return state is not None and state.is_accepting()

    def first_rejected(self, text: str) -> int | None:
        """None if ``text`` is accepted; else the offset of the first character the grammar
        rejects, or ``len(text)`` if all characters pass but the text may not end there."""
        state: State | None = self._initial
        for offset, ch in enumerate(text):
            assert state is not None
            state = state.advance(ch)
            if state is None:
                return offset
        assert state is not None
        return None if state.is_accepting() else len(text)

    # -- the stack machine ------------------------------------------------------------------
    def _push(self, rest: int, position: int) -> int:
        key = (position, rest)
        found = self._stack_ids.get(key)
        if found is None:
            found = self._stack_ids[key] = len(self._top)
            self._top.append(position)
            self._rest.append(rest)
        return found

    def _expand(self, stack: int) -> tuple[int, ...]:
        """All stacks with a terminal on top (or empty) that ``stack`` expands to."""
        cached = self._expanded.get(stack)
        if cached is not None:
            return cached
        top, rest, symbols, following, alts = (
            self._top, self._rest, self._pos_symbol, self._pos_next, self._rule_alts,
        )
        result: set[int] = set()
        seen: set[int] = set()
        todo = [stack]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            if current == 0:
                result.add(0)
                continue
            position = top[current]
            symbol = symbols[position]
            if symbol < 0:
                result.add(current)
                continue
            known = self._expanded.get(current)
            if known is not None:
                result.update(known)
                continue
            base = rest[current]
            after = following[position]
            if after >= 0:
                base = self._push(base, after)
            for start in alts[symbol]:
                todo.append(self._push(base, start) if start >= 0 else base)
        expanded = tuple(result)
        self._expanded[stack] = expanded
        return expanded

    def _step(self, state: State, code: int) -> State | None:
        if code == 0:
            return None  # llama.cpp never sees NUL: its strings end there
        result: set[int] = set()
        starts, ends, top, rest, following = self._starts, self._ends, self._top, self._rest, self._pos_next
        for terminal, stacks in state._by_terminal:
            index = bisect.bisect_right(starts[terminal], code) - 1
            if index < 0 or code > ends[terminal][index]:
                continue
            for stack in stacks:
                base = rest[stack]
                after = following[top[stack]]
                if after >= 0:
                    base = self._push(base, after)
                result.update(self._expand(base))
        if not result:
            return None
        if len(result) > self.max_stacks:
            raise GrammarError(
                f"the grammar is too ambiguous here: {len(result)} simultaneous parse stacks "
                f"(limit {self.max_stacks}); llama.cpp would stall on it as well"
            )
        return self._intern(frozenset(result))

    def _intern(self, stacks: frozenset[int]) -> State:
        state = self._states.get(stacks)
        if state is None:
            state = self._states[stacks] = State(self, stacks)
        return state


def forced_text(state: State, limit: int = FORCED_TEXT_LIMIT) -> str:
    """The longest text the grammar forces from ``state``: while the state is not accepting
    and exactly one character is allowed, take it (at most ``limit`` characters)."""
    forced: list[str] = []
    current: State | None = state
    while current is not None and len(forced) < limit and not current.is_accepting():
        ch = current.allowed_chars().single()
        if ch is None:
            break
        forced.append(ch)
        current = current.advance(ch)
    return "".join(forced)

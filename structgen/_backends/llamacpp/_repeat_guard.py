"""Members written twice and loops: what the grammar cannot say, enforced while sampling.

A token that would write a member twice (a key its object already has, an item already in a
set; see ``JsonCursor.repeated``) is refused like a token the grammar rejects. When the model
loops (``_repeats.py``), what it is writing is closed at the first place the grammar allows —
the string, or the container whose members repeat — and reported (``Completion.loops``); if
the grammar does not allow closing within :data:`CLOSE_WITHIN` tokens, or every allowed token
would repeat a member, the completion ends with finish reason "repeat" (:class:`Repeating`).
"""

from __future__ import annotations

from collections import deque

import numpy as np
import numpy.typing as npt

from ._decoding import Decoding
from ._repeats import MAX_PERIOD, MIN_REPEATS, LoopDetector

#: How many tokens a loop's value may still take before the grammar lets it close.
CLOSE_WITHIN = 64


class Repeating(Exception):
    """The model keeps repeating itself and the grammar offers no way out."""


class _Loop:
    """A loop being closed: a string value (``string``) or the container at ``depth``."""

    def __init__(self, pointer: str, string: bool, depth: int, container: object, started: int,
                 period: int) -> None:
        self.pointer = pointer
        self.string = string
        self.depth = depth
        self.container = container  # the cursor's open container being closed
        self.started = started
        self.period = period


class RepeatGuard:
    """Watches what is written for repeated members and loops. ``guarded``: the answer is
    JSON from its first character, with member rules (otherwise a loop cannot be closed and
    ends the completion)."""

    def __init__(self, decoding: Decoding, *, guarded: bool) -> None:
        self.decoding = decoding
        self.guarded = guarded and decoding.cursor is not None
        self.closed: list[str] = []  # JSON pointers of values closed because the model looped
        self._detector = LoopDetector()
        # Per token, the fewest containers open while it was written: a loop's container is the
        # outermost one its repetitions pass through (items repeating close their list; a tree
        # nesting itself closes where the nesting began).
        self._depths: deque[int] = deque(maxlen=MAX_PERIOD * MIN_REPEATS)
        self._loop: _Loop | None = None
        self._loops_in: list[tuple[object, int]] = []  # containers, and loops closed inside them

    def heard(self, tokens: list[int]) -> None:
        """``tokens`` were just written (their text is in the cursor)."""
        cursor = self.decoding.cursor
        if cursor is not None:
            self._depths.extend([cursor.take_low_depth()] * len(tokens))
        for token in tokens:
            period = self._detector.push(token)
            if period is not None and self._loop is None:
                self._start_closing(period)

    def closer(self) -> str | None:
        """The character that closes what a loop is writing, once the loop has to end; None
        when it is closed, or while the next member has to be finished first (inside a key)."""
        loop, cursor = self._loop, self.decoding.cursor
        if loop is None or cursor is None:
            return None
        done = not cursor.in_value_string if loop.string else not cursor.holds(loop.container)
        if done:
            self._loop = None
            self._detector.forget(loop.period)
            return None
        waited = self.decoding.produced - loop.started
        if waited > CLOSE_WITHIN:
            raise Repeating(f"the model repeated itself at {loop.pointer} and the grammar "
                            f"did not allow closing it within {CLOSE_WITHIN} tokens")
        if cursor.in_value_string:
            # A looping text ends with its sentence, a looping list's item as the model ends it
            # (with the list then: no "," is allowed), each within one more repetition.
            if waited < loop.period and not (loop.string and self._text_ends_sentence()):
                return None
            return '"'
        if cursor.in_key:
            return None
        return cursor.closing_bracket

    def repeats(self, token: int) -> bool:
        """Whether ``token`` would write a member twice, or start another member of a
        container whose loop is being closed."""
        cursor = self.decoding.cursor
        if not self.guarded or cursor is None:
            return False
        try:
            text = self.decoding.tables.pieces[token].decode("utf-8")
        except UnicodeDecodeError:
            return False  # part of a character: it completes nothing
        loop = self._loop
        if loop is not None and not loop.string and cursor.separates(text, loop.depth):
            return True
        return cursor.would_repeat(text)

    def without_repeats(self, ids: npt.NDArray[np.intc], masked: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """``masked`` (logits of ``ids``) with tokens that would repeat a member masked too."""
        if not self.guarded:
            return masked
        for index in np.flatnonzero(np.isfinite(masked)):
            if self.repeats(int(ids[index])):
                masked[index] = -np.inf
        return masked

    def best_closer(self, closer: str, logits: npt.NDArray[np.float32]) -> int | None:
        """The likeliest token that starts with ``closer`` and that the grammar accepts
        (accepted by the grammar state when found)."""
        tables, state = self.decoding.tables, self.decoding.state
        single = tables.byte_tokens.get(ord(closer))
        if single is None:
            return None
        ids = np.append(tables.extensions(single), single).astype(np.intc)
        masked = self.without_repeats(ids, state.mask_subset(ids, logits[ids]))
        if not np.isfinite(masked).any():
            return None
        token = int(ids[int(np.argmax(masked))])
        return token if state.accept(token) else None

    def no_token_left(self) -> None:
        """No token is allowed here: raise :class:`Repeating` when that is the guard's doing."""
        if self._loop is not None:
            raise Repeating(f"the model repeated itself at {self._loop.pointer} and the "
                            "grammar does not allow closing it there")
        if self.guarded:
            cursor = self.decoding.cursor
            raise Repeating("every token the grammar allows would write a member twice at "
                            f"{cursor.pointer if cursor else ''}")

    def _start_closing(self, period: int) -> None:
        """The model loops: close the string it is in, or else the container whose members
        repeat, at the first place the grammar allows."""
        cursor = self.decoding.cursor
        if cursor is None or not self.guarded:
            raise Repeating(f"the model repeated a sequence of {period} tokens")
        latest = b"".join(self.decoding.tables.pieces[t] for t in self._detector.latest(period))
        string = cursor.in_value_string and b'"' not in latest
        if string:
            container, pointer, depth = None, cursor.pointer, cursor.depth
        elif cursor.depth < 1:  # between top-level values (tool-call formats): nothing to close
            raise Repeating(f"the model repeated a sequence of {period} tokens outside any container")
        else:
            depth = max(1, min(list(self._depths)[-period * MIN_REPEATS:], default=cursor.depth))
            container, pointer = cursor.container_at(depth)
        outer = depth if string else depth - 1
        if outer >= 1:
            parent, parent_pointer = cursor.container_at(outer)
            if self._count_loops(parent) >= MIN_REPEATS:
                # Loops closed again and again in one container's members (a run of digits in
                # every item, each cut short) are that container looping, whatever its period.
                string, container, pointer, depth = False, parent, parent_pointer, outer
        self._loop = _Loop(pointer or "/", string, depth, container, self.decoding.produced, period)
        self.closed.append(self._loop.pointer)

    def _count_loops(self, container: object) -> int:
        """How many loops have now been closed inside ``container``, this one included."""
        for i, (seen, count) in enumerate(self._loops_in):
            if seen is container:
                self._loops_in[i] = (seen, count + 1)
                return count + 1
        self._loops_in.append((container, 1))
        return 1

    def _text_ends_sentence(self) -> bool:
        text = self.decoding.text
        tail = text[-1] if text else ""
        return tail.rstrip(" ")[-1:] in (".", "!", "?", "\n")


__all__ = ["CLOSE_WITHIN", "RepeatGuard", "Repeating"]

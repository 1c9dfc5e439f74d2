"""The sequences of a context, handed out one per generation."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from ._runner import ModelRunner


class Slots:
    """Runners free for a generation: one per sequence of the context. A thread holds at most
    one at a time (a second would wait for itself when there is a single sequence)."""

    def __init__(self, runners: Sequence[ModelRunner]) -> None:
        self.runners = tuple(runners)
        self._free = list(reversed(self.runners))  # sequence 0 is handed out first
        self._holders: set[int] = set()
        self._changed = threading.Condition()

    def idle(self) -> bool:
        """Whether no runner is held."""
        with self._changed:
            return len(self._free) == len(self.runners)

    def held_here(self) -> bool:
        """Whether the calling thread holds a runner."""
        return threading.get_ident() in self._holders

    @contextmanager
    def taken(self, check: Callable[[], None]) -> Iterator[ModelRunner]:
        """A free runner (waiting for one), held by this thread for the duration; ``check``
        runs once it is taken and may refuse it by raising."""
        me = threading.get_ident()
        with self._changed:
            self._changed.wait_for(lambda: bool(self._free))
            runner = self._free.pop()
            self._holders.add(me)
        try:
            check()
            yield runner
        finally:
            with self._changed:
                self._holders.discard(me)
                self._free.append(runner)
                self._changed.notify_all()

    def when_idle(self, action: Callable[[], None]) -> None:
        """Wait until no runner is held, then run ``action`` (no runner is taken meanwhile)."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._free) == len(self.runners))
            action()

    def if_idle(self, action: Callable[[], None]) -> None:
        """Run ``action`` now if no runner is held."""
        with self._changed:
            if len(self._free) == len(self.runners):
                action()

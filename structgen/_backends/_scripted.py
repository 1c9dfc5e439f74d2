"""A backend that replays scripted answers: code built on :class:`LLM` tested without a model.

Each request takes the next answer of the script, in order:

- a ``str``: the whole answer, streamed in pieces and finished with "stop";
- a :class:`Completion`: its text streamed, then the completion itself (a "length" or "repeat"
  finish, usage, loops);
- a sequence of events (:class:`TextDelta` pieces ending with one :class:`Completion`):
  replayed exactly;
- an exception: raised at the request, as a failing backend would.

Answers are checked against the request's grammar with the pure-Python recognizer (a "length"
or "repeat" answer as a prefix), so a script cannot pass text the real sampler could never
produce; ``check_grammar=False`` turns that off (for lazy or token-level grammars it is off
anyway). A caller that stops a stream early (``StopGeneration``) gets the completion of the
text handed out so far. ``requests`` records what was asked, for assertions. It answers both sides of the
seam: ``complete`` and, for asyncio, ``acomplete``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Union

from .._errors import BackendError
from ._answer_check import grammar_mismatch
from ._seam import Completion, CompletionRequest, Event, StopGeneration, TextDelta, Usage

Answer = Union[str, Completion, Sequence[Event], BaseException]


class ScriptedBackend:
    """Answers each request with the next scripted answer (see the module doc)."""

    def __init__(self, *answers: Answer, check_grammar: bool = True, piece: int = 8) -> None:
        if piece < 1:
            raise ValueError("piece must be >= 1")
        self._answers = list(answers)
        self._check = check_grammar
        self._piece = piece
        self._lock = threading.Lock()
        self._closed = False
        self.requests: list[CompletionRequest] = []

    @property
    def remaining(self) -> int:
        """Answers not used yet."""
        return len(self._answers)

    def complete(self, request: CompletionRequest) -> Iterator[Event]:
        with self._lock:
            if self._closed:
                raise BackendError("the scripted backend is closed")
            self.requests.append(request)
            if not self._answers:
                raise BackendError(f"the script has no answer left for request {len(self.requests)}")
            answer = self._answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        events = self._events(answer)
        completion = events[-1]
        assert isinstance(completion, Completion)
        if self._check:
            mismatch = grammar_mismatch(request, completion)
            if mismatch is not None:
                raise BackendError(f"request {len(self.requests)}: the script answers {mismatch}")
        return self._stream(events)

    @staticmethod
    def _stream(events: list[Event]) -> Iterator[Event]:
        """``events``; stopped early (``StopGeneration``), the completion of the text handed
        out so far, one sampled token a character."""
        handed = ""
        for event in events:
            if isinstance(event, TextDelta):
                handed += event.text
            try:
                yield event
            except StopGeneration:
                yield Completion(handed, "stop", Usage(attempts=1, sampled_tokens=len(handed)))
                return

    async def acomplete(self, request: CompletionRequest) -> AsyncIterator[Event]:
        """:meth:`complete` for asyncio: the same script, the same checks."""
        stream = self.complete(request)
        for event in stream:
            await asyncio.sleep(0)  # a real server's pieces arrive between other tasks' work
            try:
                yield event
            except StopGeneration as stop:
                yield stream.throw(stop)  # type: ignore[attr-defined]
                return

    def _events(self, answer: str | Completion | Sequence[Event]) -> list[Event]:
        if isinstance(answer, str):
            answer = Completion(answer, "stop", Usage(attempts=1, sampled_tokens=len(answer)))
        if isinstance(answer, Completion):
            text = answer.text
            pieces: list[Event] = [TextDelta(text[i : i + self._piece]) for i in range(0, len(text), self._piece)]
            return [*pieces, answer]
        events = list(answer)
        if not events or not isinstance(events[-1], Completion):
            raise ValueError("a scripted sequence of events must end with a Completion")
        return events

    def close(self) -> None:
        self._closed = True

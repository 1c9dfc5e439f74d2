"""Operations written as generators of commands, and the bookkeeping every driver shares.

An operation yields items for its caller and commands for its driver. The driver answers a
command by sending a value back in, or by throwing in the error answering it raised, so the
operation sees the failure where it asked. :class:`Resume` keeps that answer until the
operation takes its next step; the drivers (the front end's blocking and asyncio ones, the
HTTP session's) only say how to answer each command.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

Y = TypeVar("Y")
R = TypeVar("R")
Errors = type[BaseException] | tuple[type[BaseException], ...]


@dataclass(frozen=True)
class Done(Generic[R]):
    """What an operation returned: the step after its last."""

    value: R


class Resume(Generic[R]):
    """One operation being driven. ``catch``: the errors of answering that are the
    operation's to handle (others end the drive)."""

    def __init__(self, steps: Generator[Any, Any, R], catch: Errors = Exception) -> None:
        self.steps = steps
        self._catch = catch
        self._reply: Any = None
        self._failed = False

    def step(self) -> Any:
        """The operation's next item or command, given the last answer; ``Done`` at its end."""
        reply, failed, self._reply, self._failed = self._reply, self._failed, None, False
        try:
            return self.steps.throw(reply) if failed else self.steps.send(reply)
        except StopIteration as stop:
            return Done(stop.value)

    def settle(self, answer: Callable[[], Any]) -> None:
        """Answer the last command with ``answer()``, or with the error it raises."""
        try:
            self._reply = answer()
        except self._catch as error:
            self._reply, self._failed = error, True

    async def asettle(self, answer: Callable[[], Awaitable[Any]]) -> None:
        """:meth:`settle` for an answer that is awaited."""
        try:
            self._reply = await answer()
        except self._catch as error:
            self._reply, self._failed = error, True


def finish(items: Generator[Any, None, R]) -> R:
    """Run ``items`` to its end, dropping what it yields; its result."""
    while True:
        try:
            next(items)
        except StopIteration as stop:
            result: R = stop.value
            return result


def drive(
    steps: Generator[Any, Any, R], command: type, answer: Callable[[Any], Any], catch: Errors = Exception
) -> Generator[Any, None, R]:
    """Yields the items of ``steps``, answering each instance of ``command`` with ``answer``;
    returns what ``steps`` returned."""
    run = Resume(steps, catch)
    while not isinstance(step := run.step(), Done):
        if isinstance(step, command):
            run.settle(lambda: answer(step))
        else:
            yield step
    result: R = step.value
    return result


async def adrive(
    steps: Generator[Any, Any, R], command: type, answer: Callable[[Any], Awaitable[Any]],
    catch: Errors = Exception,
) -> AsyncGenerator[Any, None]:
    """:func:`drive` with an awaited ``answer``; the last item is ``Done(what steps returned)``."""
    run = Resume(steps, catch)
    while not isinstance(step := run.step(), Done):
        if isinstance(step, command):
            await run.asettle(lambda: answer(step))
        else:
            yield step
    yield step


__all__ = ["Done", "Resume", "adrive", "drive", "finish"]

"""Generation under asyncio: in a worker thread, or natively on a backend's ``acomplete``.

``iterate_in_thread`` runs a blocking iterator in a thread and hands its items to ``async for``.
``drive`` runs a generation loop (a plain generator such as ``LLM._events``) on the event loop
itself: where the loop needs a completion it parks the request in an :class:`Exchange` and
yields :data:`SUSPEND`; ``drive`` streams the request through the backend's ``acomplete``,
passes its text on, parks the completion and resumes the loop. The loop's own work (grammar,
validation, retries) is the same code as for ``generate``; only the waiting is asynchronous.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from .._backends._seam import AsyncBackend, Completion, CompletionRequest, TextDelta

_DONE = object()
_NO_SKIP = object()
Y = TypeVar("Y")
R = TypeVar("R")

SUSPEND: Final = TextDelta("")  # yielded (by identity) where the loop waits for a completion


class Exchange:
    """Where a generation loop leaves its request for :func:`drive` and finds the completion."""

    def __init__(self) -> None:
        self.request: CompletionRequest | None = None
        self.completion: Completion | None = None

    def ask(self, request: CompletionRequest) -> Generator[TextDelta, None, Completion]:
        """``yield from`` this instead of draining ``backend.complete(request)``."""
        self.request, self.completion = request, None
        yield SUSPEND
        completion, self.request, self.completion = self.completion, None, None
        if completion is None:
            from .._errors import BackendError

            raise BackendError("the backend ended without a completion")
        return completion


@dataclass(frozen=True)
class Done(Generic[R]):
    """The last item of :func:`drive`: what the generation loop returned."""

    value: R


async def drive(
    steps: Generator[Y, None, R], exchange: Exchange, backend: AsyncBackend
) -> AsyncGenerator[Y | TextDelta | Done[R], None]:
    """The items of ``steps`` (with the backend's text deltas), then ``Done(its result)``."""
    try:
        item = next(steps)
        while True:
            if item is SUSPEND and exchange.request is not None:
                events = backend.acomplete(exchange.request)
                try:
                    async for event in events:
                        if isinstance(event, TextDelta):
                            yield event
                        elif isinstance(event, Completion):
                            exchange.completion = event
                except Exception as error:  # raised where the loop waits, as complete()'s would be
                    item = steps.throw(error)
                    continue
                finally:
                    await _close(events)  # a consumer that stops early ends the request at once
            else:
                yield item
            item = next(steps)
    except StopIteration as stop:
        yield Done(stop.value)
    finally:
        steps.close()


async def _close(events: AsyncIterator[Any]) -> None:
    aclose = getattr(events, "aclose", None)
    if callable(aclose):
        await aclose()


async def iterate_in_thread(
    make: Callable[[], Iterator[Any]], *, skip: object = _NO_SKIP
) -> AsyncIterator[Any]:
    """Items of ``make()``, produced in a thread; errors re-raised here; stopping early (or
    cancellation) closes the producer at its next item. Items that are ``skip`` are not handed
    over: they only let the producer notice a stop sooner."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[object, Any]] = asyncio.Queue()
    stop = threading.Event()

    def produce() -> None:
        iterator = make()
        try:
            for item in iterator:
                if stop.is_set():
                    break
                if item is skip:
                    continue
                loop.call_soon_threadsafe(queue.put_nowait, (None, item))
        except BaseException as error:  # handed to the consumer, not lost in the thread
            loop.call_soon_threadsafe(queue.put_nowait, (error, None))
            return
        finally:
            close = getattr(iterator, "close", None)
            if callable(close):
                close()
        loop.call_soon_threadsafe(queue.put_nowait, (_DONE, None))

    worker = asyncio.ensure_future(asyncio.to_thread(produce))
    try:
        while True:
            marker, item = await queue.get()
            if marker is _DONE:
                break
            if isinstance(marker, BaseException):
                raise marker
            yield item
    finally:
        stop.set()
        await asyncio.shield(worker)

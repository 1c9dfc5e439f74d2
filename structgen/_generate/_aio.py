"""Running a blocking iterator in a worker thread and consuming it with ``async for``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

_DONE = object()
_NO_SKIP = object()


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

"""Front-end operations written once, as generators of backend requests, and their two drivers.

An operation (a generation, a tool turn, an agent run) is a generator. It yields what its
caller sees (text deltas, argument deltas, calls; None where a retry starts) and, where it
needs the world outside, a :class:`Command`, whose answer is sent back into it:

- ``Open(request)`` starts a completion; ``PULL`` takes its next event (None once it ended);
  ``SHUT`` ends it early, answering its :class:`Completion` so far where the backend can give
  one (None otherwise; a driver also ends it when the operation stops);
- ``Rank(request)`` scores texts (None on a backend that cannot score);
- ``Run(calls)`` runs tool calls and answers their results, in order (a call whose tool
  raised answers :class:`Raised`, so that the operation decides what becomes of it).

A failure of the backend is raised inside the operation where it asked. The
operation never touches the backend, so :func:`run_blocking` (``backend.complete``, plain
calls) and :func:`run_async` (``acomplete`` on the event loop, or the blocking driver in a
worker thread for a backend without it) run the same code; only the waiting differs.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

from .._backends._seam import (
    AsyncBackend,
    Backend,
    Completion,
    CompletionRequest,
    Event,
    Score,
    ScoreRequest,
    ScoringBackend,
    StopGeneration,
    TextDelta,
)
from .._errors import BackendError
from .._resume import Done, adrive, drive, finish

Y = TypeVar("Y")
R = TypeVar("R")
_DONE = object()
_NO_SKIP = object()


class RunnableTool(Protocol):
    """What a driver reads of a call's tool: its function (None: none to run), to tell an
    async one."""

    @property
    def function(self) -> Callable[..., Any] | None: ...


class RunnableCall(Protocol):
    """What a ``Run`` command runs: a tool call (``structgen.ToolCall``), which runs its tool
    blocking (``invoke``) or on the event loop (``ainvoke``)."""

    @property
    def tool(self) -> RunnableTool: ...

    def invoke(self) -> Any: ...

    def ainvoke(self) -> Awaitable[Any]: ...


class Command:
    """What an operation asks of its driver (see the module doc)."""


@dataclass(frozen=True)
class Open(Command):
    request: CompletionRequest


@dataclass(frozen=True)
class Rank(Command):
    request: ScoreRequest


@dataclass(frozen=True)
class Run(Command):
    calls: Sequence[RunnableCall]


@dataclass(frozen=True)
class Raised:
    """What a ``Run`` answers in the place of a call whose tool raised: the exception."""

    error: Exception


class _Marker(Command):
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


PULL: Final = _Marker("PULL")
SHUT: Final = _Marker("SHUT")

#: An operation that yields items ``Y`` (and commands) and returns ``R``.
Steps = Generator[Y | Command, Any, R]


def complete(request: CompletionRequest) -> Generator[TextDelta | Command, Any, Completion]:
    """One completion: its text deltas re-yielded, its :class:`Completion` returned."""
    yield Open(request)
    completion: Completion | None = None
    while (event := (yield PULL)) is not None:  # to its end: a backend may finish work after it
        if isinstance(event, Completion):
            completion = event
        else:
            yield event
    if completion is None:
        raise BackendError("the backend ended without a completion")
    return completion


def score(request: ScoreRequest) -> Generator[Command, Any, tuple[Score, ...] | None]:
    """Each continuation's score, or None when the backend cannot score text."""
    scores: tuple[Score, ...] | None = yield Rank(request)
    return scores


def can_score() -> Generator[Command, Any, bool]:
    """Whether the backend scores text, asked without any model work (a request with no
    continuations is answered by the driver)."""
    return (yield Rank(ScoreRequest("", ()))) is not None



# -- the drivers ------------------------------------------------------------------------------


def run_blocking(
    steps: Steps[Y, R], backend: Backend, run_calls: Callable[[Sequence[RunnableCall]], list[Any]] | None = None
) -> Generator[Y, None, R]:
    """Yields the operation's items, answering its commands with the backend's blocking side;
    returns its result. ``run_calls`` runs tool calls (default: :func:`run_calls_here`)."""
    answers = _BlockingAnswers(backend, run_calls or run_calls_here)
    try:
        return (yield from drive(steps, Command, answers.answer))
    finally:
        answers.close()  # a consumer that stops early ends the request at once
        steps.close()


class _BlockingAnswers:
    """How :func:`run_blocking` answers each command (and the completion it has open)."""

    def __init__(self, backend: Backend, run_calls: Callable[[Sequence[RunnableCall]], list[Any]]) -> None:
        self.backend = backend
        self.run_calls = run_calls
        self.stream: Iterator[Event] | None = None

    def answer(self, step: Command) -> Any:
        if isinstance(step, Open):
            self.close()
            self.stream = iter(self.backend.complete(step.request))
        elif step is PULL:
            return None if self.stream is None else next(self.stream, None)
        elif step is SHUT:
            return self.shut()
        elif isinstance(step, Rank):
            if not isinstance(self.backend, ScoringBackend):
                return None
            return self.backend.score(step.request) if step.request.continuations else ()
        elif isinstance(step, Run):
            return self.run_calls(step.calls)
        return None

    def shut(self) -> Completion | None:
        """Ends the open stream; its completion so far, where the backend gives one."""
        stream, self.stream = self.stream, None
        completion = None
        throw = getattr(stream, "throw", None)
        if stream is not None and callable(throw):
            try:
                event = throw(StopGeneration())
                while not isinstance(event, Completion):
                    event = next(stream)
                completion = event
            except (StopGeneration, StopIteration):
                pass  # the stream cannot stop with a completion
        _close(stream)
        return completion

    def close(self) -> None:
        stream, self.stream = self.stream, None
        _close(stream)


def _close(stream: object) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()


def run_calls_here(calls: Sequence[RunnableCall]) -> list[Any]:
    """Tool calls' results (:class:`Raised` where a tool raised), from blocking code: one call
    runs here, several run concurrently (plain functions in threads); async tools get an event
    loop only when there is one."""
    if not any(inspect.iscoroutinefunction(c.tool.function) for c in calls):
        if len(calls) == 1:
            return [_outcome(calls[0])]
        with ThreadPoolExecutor(len(calls)) as pool:
            return list(pool.map(_outcome, calls))
    results: list[Any] = _in_own_loop(lambda: run_calls_async(calls))
    return results


async def run_calls_async(calls: Sequence[RunnableCall]) -> list[Any]:
    """Tool calls' results (:class:`Raised` where a tool raised), run concurrently on the event
    loop (plain functions in threads)."""
    return list(await asyncio.gather(*(_async_outcome(call) for call in calls)))


def _outcome(call: RunnableCall) -> Any:
    try:
        return call.invoke()
    except Exception as error:
        return Raised(error)


async def _async_outcome(call: RunnableCall) -> Any:
    try:
        return await call.ainvoke()
    except Exception as error:
        return Raised(error)


def _in_own_loop(make: Callable[[], Any]) -> Any:
    """``asyncio.run(make())``, in a thread of its own when this thread already runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


async def run_async(steps: Steps[Y, R], backend: Backend) -> AsyncGenerator[Y | Done[R], None]:
    """Yields the operation's items, then ``Done(its result)``. On a backend with ``acomplete``
    everything runs on the event loop; otherwise the blocking driver runs in a worker thread
    and tool calls are still run on the event loop."""
    if not isinstance(backend, AsyncBackend):
        async for item in _in_worker_thread(steps, backend):
            yield item
        return
    answers = _AsyncAnswers(backend)
    try:
        async for item in adrive(steps, Command, answers.answer):
            yield item
    finally:
        await answers.aclose()
        steps.close()


class _AsyncAnswers:
    """How :func:`run_async` answers each command on the event loop."""

    def __init__(self, backend: AsyncBackend) -> None:
        self.backend = backend
        self.stream: AsyncIterator[Event] | None = None

    async def answer(self, step: Command) -> Any:
        if isinstance(step, Open):
            await self.aclose()
            self.stream = aiter(self.backend.acomplete(step.request))
        elif step is PULL:
            return None if self.stream is None else await anext(self.stream, None)
        elif step is SHUT:
            return await self.shut()
        elif isinstance(step, Rank):
            if isinstance(self.backend, ScoringBackend):
                if not step.request.continuations:
                    return ()
                return await asyncio.to_thread(self.backend.score, step.request)
        elif isinstance(step, Run):
            return await run_calls_async(step.calls)
        return None

    async def shut(self) -> Completion | None:
        """Ends the open stream; its completion so far, where the backend gives one."""
        stream = self.stream
        completion = None
        athrow = getattr(stream, "athrow", None)
        if stream is not None and callable(athrow):
            try:
                event = await athrow(StopGeneration())
                while not isinstance(event, Completion):
                    event = await anext(stream)
                completion = event
            except (StopGeneration, StopAsyncIteration):
                pass  # the stream cannot stop with a completion
        await self.aclose()
        return completion

    async def aclose(self) -> None:
        stream, self.stream = self.stream, None
        aclose = getattr(stream, "aclose", None)
        if callable(aclose):
            await aclose()


def _in_worker_thread(steps: Steps[Y, R], backend: Backend) -> AsyncIterator[Any]:
    """:func:`run_blocking` in a worker thread, with tool calls sent back to this event loop."""
    loop = asyncio.get_running_loop()

    def run_calls(calls: Sequence[RunnableCall]) -> list[Any]:
        return asyncio.run_coroutine_threadsafe(run_calls_async(calls), loop).result()

    def blocking() -> Iterator[Any]:
        result = yield from run_blocking(steps, backend, run_calls)
        yield Done(result)

    return iterate_in_thread(blocking)


async def result_of(items: AsyncIterator[Any]) -> Any:
    """The value of the ``Done`` that ends ``items`` (the other items dropped)."""
    try:
        async for item in items:
            if isinstance(item, Done):
                return item.value
    finally:
        aclose = getattr(items, "aclose", None)
        if callable(aclose):  # now, while the loop runs, not when it shuts down
            await aclose()
    raise AssertionError("a driver always ends with Done")  # pragma: no cover


async def iterate_in_thread(
    make: Callable[[], Iterator[Any]], *, skip: object = _NO_SKIP
) -> AsyncIterator[Any]:
    """Items of ``make()``, produced in a thread; errors re-raised here; stopping early (or
    cancellation) closes the producer at its next item. Items that are ``skip`` are not handed
    over: they only let the producer notice a stop sooner.

    The thread is the stream's own, not one of the loop's default executor: a generation holds
    it from its first token to its last, and a backend that runs several at once
    (``LlamaCppBackend(sequences=N)``) needs a thread for each, however few the executor has."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[object, Any]] = asyncio.Queue()
    stop = threading.Event()

    def post(call: Callable[..., None], *args: Any) -> None:
        try:
            loop.call_soon_threadsafe(call, *args)
        except RuntimeError:  # the loop is closed: nobody waits any more
            stop.set()

    def produce() -> None:
        iterator = make()
        try:
            for item in iterator:
                if stop.is_set():
                    break
                if item is skip:
                    continue
                post(queue.put_nowait, (None, item))
        except BaseException as error:  # handed to the consumer, not lost in the thread
            post(queue.put_nowait, (error, None))
            return
        finally:
            _close(iterator)
        post(queue.put_nowait, (_DONE, None))

    finished: asyncio.Future[None] = loop.create_future()

    def in_thread() -> None:
        try:
            produce()
        finally:
            post(_settle, finished)

    threading.Thread(target=in_thread, name="structgen-stream").start()
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
        await asyncio.shield(finished)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


__all__ = [
    "PULL", "SHUT", "Command", "Done", "Open", "Rank", "Raised", "Run", "RunnableCall", "RunnableTool", "Steps",
    "complete", "finish", "iterate_in_thread", "result_of", "run_async", "run_blocking",
    "can_score", "run_calls_async", "run_calls_here", "score",
]

"""What a tool-calling turn returns: calls with validated arguments, or the model's text."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .._errors import ToolExecutionError
from ._tool import Tool

T = TypeVar("T")


@dataclass(frozen=True)
class ToolCall:
    """One call the model made: ``name``, validated ``arguments`` (an instance of the tool's
    arguments model, or a dict for dict tools), a unique ``id``, the :class:`Tool` and the
    arguments' JSON ``text`` as generated."""

    name: str
    arguments: Any
    id: str
    tool: Tool = field(repr=False)
    text: str = field(default="", repr=False)

    def invoke(self) -> Any:
        """Run the tool's function with these arguments (an async function is run to
        completion in a fresh event loop). Raises ToolExecutionError if it raises."""
        function = self._function()
        try:
            if inspect.iscoroutinefunction(function):
                return asyncio.run(function(**self.tool.keywords(self.arguments)))
            return function(**self.tool.keywords(self.arguments))
        except Exception as e:
            raise ToolExecutionError(f"tool {self.name} raised {type(e).__name__}: {e}", call=self) from e

    async def ainvoke(self) -> Any:
        """Run the tool: awaited if async, in a worker thread if not."""
        function = self._function()
        try:
            if inspect.iscoroutinefunction(function):
                return await function(**self.tool.keywords(self.arguments))
            return await asyncio.to_thread(function, **self.tool.keywords(self.arguments))
        except Exception as e:
            raise ToolExecutionError(f"tool {self.name} raised {type(e).__name__}: {e}", call=self) from e

    def _function(self) -> Any:
        if self.tool.function is None:
            raise ToolExecutionError(
                f"tool {self.name} was made from a model or a dict and has no function to run",
                call=self,
            )
        return self.tool.function


@dataclass(frozen=True)
class ToolTurn:
    """One turn of the model: the ``calls`` it made (possibly none) and ``text``, its reply when it
    answered in words instead. ``truncated`` says ``max_tokens`` ran out before the model ended
    the turn: the reply stops there, or the calls are the whole ones written before it (an
    unfinished call is never returned; with none whole, it is an ``IncompleteOutputError``).
    ``usage`` covers every step of the turn (calls tried, the reply, retries); ``raw`` is the
    generated text of the last step; ``reasoning`` what the model wrote in its reasoning
    section before it (``reasoning=``; "" without one)."""

    calls: list[ToolCall]
    text: str | None
    usage: Any = field(default=None, repr=False)
    raw: str = field(default="", repr=False)
    truncated: bool = False
    reasoning: str = field(default="", repr=False)


@dataclass(frozen=True)
class ArgumentsDelta:
    """A piece of call ``index``'s arguments JSON as it is generated (``stream_tools``)."""

    index: int
    name: str
    text: str


@dataclass(frozen=True)
class ToolRun(Generic[T]):
    """The end of ``run_tools``: the final ``output`` (typed when ``output_type`` was given, the
    model's text otherwise), every call made with its result, the whole conversation, the
    usage summed over every step, and each turn's reasoning in order (``reasoning=``)."""

    output: T
    calls: list[tuple[ToolCall, Any]]
    messages: Sequence[Any]
    usage: Any = field(default=None, repr=False)
    reasoning: tuple[str, ...] = field(default=(), repr=False)


__all__ = ["ArgumentsDelta", "ToolCall", "ToolRun", "ToolTurn"]

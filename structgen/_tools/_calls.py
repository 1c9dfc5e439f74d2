"""What a tool-calling turn returns: calls with validated arguments, or the model's text."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic_core import to_json

from .._backends._seam import Message
from .._errors import MCPServerError, ModelRetry, ToolExecutionError
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
        completion in a fresh event loop). Raises ToolExecutionError if it raises
        (:class:`~structgen.ModelRetry` passes through as it is: a request, not a failure; so
        does :class:`~structgen.MCPServerError`: the server that runs it is gone)."""
        function = self._function()
        try:
            if inspect.iscoroutinefunction(function):
                return asyncio.run(function(**self.tool.keywords(self.arguments)))
            return function(**self.tool.keywords(self.arguments))
        except (ModelRetry, MCPServerError):
            raise
        except Exception as e:
            raise ToolExecutionError(f"tool {self.name} raised {type(e).__name__}: {e}", call=self) from e

    async def ainvoke(self) -> Any:
        """Run the tool: awaited if async, in a worker thread if not."""
        function = self._function()
        try:
            if inspect.iscoroutinefunction(function):
                return await function(**self.tool.keywords(self.arguments))
            return await asyncio.to_thread(function, **self.tool.keywords(self.arguments))
        except (ModelRetry, MCPServerError):
            raise
        except Exception as e:
            raise ToolExecutionError(f"tool {self.name} raised {type(e).__name__}: {e}", call=self) from e

    def result_message(self, result: Any) -> Message:
        """The ``tool`` message that gives the model this call's ``result``: a string as it
        is, anything else as JSON; an exception the tool raised as its type and message
        (:class:`~structgen.ModelRetry`: its message, asking for a corrected call), so that
        the model can retry or change course."""
        return Message("tool", result_text(result), tool_call_id=self.id, name=self.name)

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

    @property
    def message(self) -> Message:
        """The assistant message that records this turn in a conversation: its calls, with
        their ids (which each call's :meth:`ToolCall.result_message` names), or its reply. A
        conversation continues with it, the calls' results and the next user message."""
        calls = tuple(
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.text}} for c in self.calls
        )
        return Message("assistant", self.text or "", calls)


@dataclass(frozen=True)
class ArgumentsDelta:
    """A piece of call ``index``'s arguments JSON as it is generated (``stream_tools``)."""

    index: int
    name: str
    text: str


RunEnd = Literal["answer", "final_result", "repeated"]
"""Why a ``run_tools`` run ended: the model answered in words; it called ``final_result`` (the
typed answer); or it repeated the calls of the step before, whose results it already had, and
was asked for its answer instead (the loop guard)."""


@dataclass(frozen=True)
class ToolRun(Generic[T]):
    """The end of ``run_tools``: the final ``output`` (typed when ``output_type`` was given, the
    model's text otherwise), every call made with its result (an exception a tool raised, where
    it was fed back), the whole conversation (``messages``: pass them, with the next user
    message, to ``run_tools`` again to continue), the usage summed over every step, each
    turn's reasoning in order (``reasoning=``), every step's :class:`ToolTurn` in order
    (``turns``: its calls and its own usage, such as the prompt tokens it evaluated) and why
    the run ended (``ended``)."""

    output: T
    calls: list[tuple[ToolCall, Any]]
    messages: Sequence[Any]
    usage: Any = field(default=None, repr=False)
    reasoning: tuple[str, ...] = field(default=(), repr=False)
    turns: tuple[ToolTurn, ...] = field(default=(), repr=False)
    ended: RunEnd = "answer"


#: How the result of a call whose tool raised begins (what grounding reads: such a call may be
#: made again as it was).
FAILED = "Error: "


def result_text(result: Any) -> str:
    """What the model reads of a call's result (see :meth:`ToolCall.result_message`)."""
    if isinstance(result, ModelRetry):
        return f"{result} Correct the call and try again."
    if isinstance(result, ToolExecutionError) and result.__cause__ is not None:
        result = result.__cause__
    if isinstance(result, BaseException):
        return f"{FAILED}{type(result).__name__}: {result}"
    if isinstance(result, str):
        return result
    try:
        return to_json(result).decode("utf-8")
    except Exception:  # pydantic cannot serialize it: its repr is what the model can read
        return json.dumps(repr(result))


def canonical(arguments: Any) -> str:
    """Arguments (JSON text or a value) in one spelling, to tell repeated calls."""
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else arguments
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return str(arguments)


CallKey = tuple[str, str]


def call_key(name: str, arguments: Any) -> CallKey:
    """What tells a call from another: its tool's name and its arguments in one spelling."""
    return name, canonical(arguments)


__all__ = [
    "FAILED", "ArgumentsDelta", "CallKey", "RunEnd", "ToolCall", "ToolRun", "ToolTurn", "call_key", "canonical",
    "result_text",
]

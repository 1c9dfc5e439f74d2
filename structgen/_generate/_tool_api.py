"""The tool-calling methods of :class:`~structgen.LLM`: ``call_tool``, ``call_tools``,
``stream_tools``, ``run_tools`` and their async twins.

``run_tools`` is the agent loop: call, run the calls (async tools awaited, a turn's calls run
concurrently), feed the results back as tool messages, repeat until the model answers. With
an ``output_type`` the answer is typed: a ``final_result`` tool whose arguments are the output
type joins the tools and the model must call a tool every round, so the run ends when it calls
``final_result`` (calls made beside it in that turn are not run).
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import replace
from collections.abc import AsyncIterator, Generator, Iterator, Mapping, Sequence
from typing import Any, Literal, TypeVar, overload

from pydantic import BaseModel, ConfigDict, create_model
from pydantic_core import to_json
from typing_extensions import TypeForm

from .._backends._seam import DEFAULT_SAMPLING, Backend, Message, SamplingSettings, TextDelta, Usage
from .._errors import MaxRoundsError, ToolExecutionError
from .._tools._calls import ArgumentsDelta, ToolCall, ToolRun, ToolTurn
from .._tools._tool import Tool, ToolSource, as_tools, from_model
from ._tool_calls import ToolChoice, TurnEvent, TurnSettings, call_message, run_turn
from ._tool_formats import ToolFormat, format_for
from ._copied import DEFAULT_ARGUMENTS, ArgumentsName
from ._tool_policy import DEFAULT_DECISION, DecisionName, Meanings
from .._embedding import SentenceEncoder, embedding_model_folder
from ._messages import as_messages

T = TypeVar("T")
FormatName = Literal["auto", "json", "hermes", "llama3", "mistral"]
PromptOrMessages = str | Sequence[Mapping[str, Any] | Message]
StreamEvent = TextDelta | ArgumentsDelta | ToolCall | ToolTurn

#: Most calls in one turn unless ``max_calls`` says otherwise.
DEFAULT_MAX_CALLS = 4
#: The name of the tool that carries ``run_tools``' typed final answer.
FINAL_TOOL = "final_result"


class ToolCalling:
    """Mixed into :class:`~structgen.LLM` (which provides backend, seed and budgets)."""

    backend: Backend
    seed: int
    max_tokens: int
    max_retries: int
    _local: threading.local
    _meanings: Meanings | None | Literal[False] = None  # False: looked for, not installed
    _meanings_lock = threading.Lock()

    # -- one turn ---------------------------------------------------------------------------

    def call_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        tool_choice: ToolChoice = "auto", parallel: bool = True, max_calls: int | None = None,
        system: str | None = None, tool_format: FormatName = "auto", max_tokens: int | None = None,
        temperature: float = DEFAULT_SAMPLING.temperature, top_p: float = DEFAULT_SAMPLING.top_p,
        top_k: int = DEFAULT_SAMPLING.top_k, min_p: float = DEFAULT_SAMPLING.min_p,
        seed: int | None = None, max_retries: int | None = None,
        decision: DecisionName = DEFAULT_DECISION, arguments: ArgumentsName = DEFAULT_ARGUMENTS,
    ) -> ToolTurn:
        """One turn: the calls the model makes with ``tools``, or its text reply.

        ``tool_choice``: "auto" (calling or answering, as ``decision`` decides), "required"
        (at least one call), "none" (a text answer) or a tool's name (a call to that tool).
        ``decision`` (under "auto"): "meaning" — tools scored against the request by meaning,
        the model's judgement and shared words; none fits: an answer in words — "words" (the
        word-overlap rules alone) or "model" (the model's own choice, never overruled); see
        docs/tools.md, "Calling or answering".
        ``arguments``: "free" (the model writes every value), "copied" (a free string — no
        ``enum``, ``const``, ``pattern`` or ``format`` — may only be a run of the words of the
        latest user message and the tool results after it) or "free_then_copied" (a call
        refused because none of its values was said is written again as under "copied").
        With ``parallel`` the model decides how many calls to make, at most ``max_calls``.
        A call whose arguments fail a validator is retried with the errors fed back, up to
        ``max_retries`` times, then ``OutputValidationError`` holds every attempt.
        """
        events = self._turn_events(
            prompt_or_messages, tools, tool_choice=tool_choice, parallel=parallel,
            max_calls=max_calls, system=system, tool_format=tool_format, max_tokens=max_tokens,
            temperature=temperature, top_p=top_p, top_k=top_k, min_p=min_p, seed=seed,
            max_retries=max_retries, decision=decision, arguments=arguments,
        )
        return _drain(events)

    def call_tool(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        tool_choice: Literal["required"] | str = "required", **options: Any,
    ) -> ToolCall:
        """Exactly one call (to any of ``tools``, or to the one named by ``tool_choice``)."""
        if tool_choice in ("auto", "none"):
            raise ValueError("call_tool always calls: tool_choice is 'required' or a tool's name")
        turn = self.call_tools(prompt_or_messages, tools, tool_choice=tool_choice, parallel=False, **options)
        return turn.calls[0]

    def stream_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], **options: Any
    ) -> Iterator[StreamEvent]:
        """:meth:`call_tools`, streamed: text deltas of a reply, :class:`ArgumentsDelta` pieces of
        the call being written, each :class:`ToolCall` once its JSON is complete and validated,
        and finally the :class:`ToolTurn`. ``None`` is never yielded; a retry starts the calls
        over (calls yielded before it are superseded by the final turn's)."""
        events = self._turn_events(prompt_or_messages, tools, **options)
        try:
            while True:
                try:
                    event = next(events)
                except StopIteration as stop:
                    yield stop.value
                    return
                if event is not None:
                    yield event
        finally:
            events.close()

    async def acall_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], **options: Any
    ) -> ToolTurn:
        """:meth:`call_tools` without blocking the event loop (the model runs in a thread)."""
        turn: ToolTurn = await asyncio.to_thread(self.call_tools, prompt_or_messages, tools, **options)
        self._local.usage = turn.usage
        return turn

    async def acall_tool(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], **options: Any
    ) -> ToolCall:
        """:meth:`call_tool` without blocking the event loop."""
        call: ToolCall = await asyncio.to_thread(self.call_tool, prompt_or_messages, tools, **options)
        return call

    def astream_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], **options: Any
    ) -> AsyncIterator[StreamEvent]:
        """:meth:`stream_tools` for ``async for``."""
        from ._aio import iterate_in_thread

        return iterate_in_thread(lambda: self.stream_tools(prompt_or_messages, tools, **options))

    # -- the agent loop -------------------------------------------------------------------------

    @overload
    def run_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: None = None, max_rounds: int = ..., **options: Any,
    ) -> ToolRun[str]: ...
    @overload
    def run_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: TypeForm[T], max_rounds: int = ..., **options: Any,
    ) -> ToolRun[T]: ...
    def run_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: Any = None, max_rounds: int = 8, **options: Any,
    ) -> ToolRun[Any]:
        """Call tools and run them until the model answers; the answer is typed with
        ``output_type`` (a turn that only repeats calls already made then asks for the final
        answer). Raises ToolExecutionError when a tool raises, MaxRoundsError after
        ``max_rounds`` rounds of calls."""
        loop = _Loop(self, prompt_or_messages, tools, output_type, max_rounds, options)
        while True:
            turn = loop.next_turn()
            if loop.done(turn):
                return loop.result(turn)
            results = _in_thread(loop.execute_all(turn.calls))
            loop.record(turn, results)

    @overload
    async def arun_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: None = None, max_rounds: int = ..., **options: Any,
    ) -> ToolRun[str]: ...
    @overload
    async def arun_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: TypeForm[T], max_rounds: int = ..., **options: Any,
    ) -> ToolRun[T]: ...
    async def arun_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: Any = None, max_rounds: int = 8, **options: Any,
    ) -> ToolRun[Any]:
        """:meth:`run_tools` on the event loop: async tools are awaited here, the model runs in
        a worker thread."""
        loop = _Loop(self, prompt_or_messages, tools, output_type, max_rounds, options)
        while True:
            turn = await asyncio.to_thread(loop.next_turn)
            if loop.done(turn):
                return loop.result(turn)
            loop.record(turn, await loop.execute_all(turn.calls))

    # -- shared -----------------------------------------------------------------------------

    def _turn_events(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        tool_choice: ToolChoice = "auto", parallel: bool = True, max_calls: int | None = None,
        system: str | None = None, tool_format: FormatName = "auto", max_tokens: int | None = None,
        temperature: float = DEFAULT_SAMPLING.temperature, top_p: float = DEFAULT_SAMPLING.top_p,
        top_k: int = DEFAULT_SAMPLING.top_k, min_p: float = DEFAULT_SAMPLING.min_p,
        seed: int | None = None, max_retries: int | None = None,
        decision: DecisionName = DEFAULT_DECISION, arguments: ArgumentsName = DEFAULT_ARGUMENTS,
    ) -> Generator[TurnEvent, None, ToolTurn]:
        settings = TurnSettings(
            tools=as_tools(tools), tool_choice=tool_choice, parallel=parallel,
            max_calls=DEFAULT_MAX_CALLS if max_calls is None else max_calls,
            max_tokens=self.max_tokens if max_tokens is None else max_tokens,
            max_retries=self.max_retries if max_retries is None else max_retries,
            sampling=SamplingSettings(
                temperature=temperature, top_p=top_p, top_k=top_k, min_p=min_p,
                seed=self.seed if seed is None else seed,
            ),
            format=self._tool_format(tool_format), decision=decision, arguments=arguments,
        )
        if settings.max_tokens < 1 or settings.max_retries < 0:
            raise ValueError("max_tokens must be >= 1 and max_retries >= 0")
        conversation = _conversation(prompt_or_messages, system)
        meanings = self.meanings() if settings.tool_choice in ("auto", "required") and decision == "meaning" else None
        turn = yield from run_turn(self.backend, conversation, settings, meanings)
        self._local.usage = turn.usage
        return turn

    def meanings(self) -> Meanings | None:
        """The sentence encoder that compares requests with tools by meaning, loaded on first
        use; None without the optional model (``structgen[embeddings]``: docs/tools.md)."""
        with self._meanings_lock:
            if self._meanings is None:
                folder = embedding_model_folder()
                self._meanings = False if folder is None else Meanings(SentenceEncoder(folder))
            return None if self._meanings is False else self._meanings

    def _tool_format(self, name: FormatName) -> ToolFormat:
        if name == "auto":
            template = getattr(getattr(self.backend, "template", None), "source", None)
            return format_for(template)
        return format_for(None, name)


class _Loop:
    """The state of one ``run_tools`` run, shared by the sync and async loops."""

    def __init__(
        self, llm: ToolCalling, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource],
        output_type: Any, max_rounds: int, options: dict[str, Any],
    ) -> None:
        if max_rounds < 1:
            raise ValueError("max_rounds must be >= 1")
        if "tool_choice" in options:
            raise TypeError("run_tools decides tool_choice itself")
        self.llm = llm
        self.tools = as_tools(tools)
        self.final: Tool | None = None
        self.wrapped = False
        if output_type is not None:
            self.final, self.wrapped = _final_tool(output_type)
            self.tools.append(self.final)
        self.system = options.pop("system", None)
        self.messages = _conversation(prompt_or_messages, self.system)
        self.options = options
        self.max_rounds = max_rounds
        self.rounds = 0
        self.usage = Usage()
        self.calls: list[tuple[ToolCall, Any]] = []

    def next_turn(self) -> ToolTurn:
        if self.rounds >= self.max_rounds:
            raise MaxRoundsError(
                f"max_rounds={self.max_rounds} rounds of calls ended without a final answer",
                messages=self.messages, usage=self.usage,
            )
        choice = "required" if self.final is not None else "auto"
        options = self.options
        if self.final is not None:  # every round offers every tool: final_result must stay callable
            options = {**options, "decision": "words"}
        turn = self.llm.call_tools(self.messages, self.tools, tool_choice=choice, **options)
        self.usage = self.usage + turn.usage
        if self.final is not None and turn.calls and all(self._made(call) for call in turn.calls):
            # Every call repeats one whose result the model already has: it is done calling.
            turn = self.llm.call_tools(self.messages, self.tools, tool_choice=FINAL_TOOL, **self.options)
            self.usage = self.usage + turn.usage
        return turn

    def _made(self, call: ToolCall) -> bool:
        return any(
            made.name == call.name and made.arguments == call.arguments for made, _ in self.calls
        )

    def done(self, turn: ToolTurn) -> bool:
        return not turn.calls or any(call.tool is self.final for call in turn.calls)

    def result(self, turn: ToolTurn) -> ToolRun[Any]:
        self.llm._local.usage = self.usage
        final = next((call for call in turn.calls if call.tool is self.final), None)
        if final is None:
            self.messages.append(Message("assistant", turn.text or ""))
            return ToolRun(turn.text or "", self.calls, self.messages, self.usage)
        self.messages.append(call_message(turn))
        output = final.arguments.result if self.wrapped else final.arguments
        return ToolRun(output, self.calls, self.messages, self.usage)

    async def execute_all(self, calls: Sequence[ToolCall]) -> list[Any]:
        """Every call's result, run concurrently; a raising tool ends the run."""
        try:
            return list(await asyncio.gather(*(call.ainvoke() for call in calls)))
        except ToolExecutionError as error:
            error.messages = [*self.messages, call_message(ToolTurn(list(calls), None))]
            error.usage = self.usage
            raise

    def record(self, turn: ToolTurn, results: Sequence[Any]) -> None:
        self.rounds += 1
        self.messages.append(call_message(turn))
        for call, result in zip(turn.calls, results):
            self.calls.append((call, result))
            self.messages.append(Message("tool", _result_text(result), tool_call_id=call.id, name=call.name))


def _final_tool(output_type: Any) -> tuple[Tool, bool]:
    """The tool that carries a typed final answer, and whether the answer is wrapped."""
    description = "Give the final answer."
    if isinstance(output_type, type) and issubclass(output_type, BaseModel):
        return replace(from_model(output_type), name=FINAL_TOOL, description=description), False
    model = create_model("FinalResult", __config__=ConfigDict(extra="forbid"), result=(output_type, ...))
    return replace(from_model(model), name=FINAL_TOOL, description=description), True


def _result_text(result: Any) -> str:
    if isinstance(result, str):
        return result
    try:
        return to_json(result).decode("utf-8")
    except Exception:  # pydantic cannot serialize it: its repr is what the model can read
        return json.dumps(repr(result))


def _conversation(prompt_or_messages: PromptOrMessages, system: str | None) -> list[Message]:
    if isinstance(prompt_or_messages, str):
        return as_messages(prompt_or_messages, system=system, messages=None)
    return as_messages(None, system=system, messages=prompt_or_messages)


def _drain(events: Generator[TurnEvent, None, ToolTurn]) -> ToolTurn:
    while True:
        try:
            next(events)
        except StopIteration as stop:
            turn: ToolTurn = stop.value
            return turn


def _in_thread(coroutine: Any) -> Any:
    """Run a coroutine to completion from sync code, even where an event loop is running."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = asyncio.run(coroutine)
        except BaseException as error:
            box["error"] = error

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


__all__ = ["DEFAULT_MAX_CALLS", "FINAL_TOOL", "ToolCalling"]

"""Tool calling as operations (see ``_generate._steps``): one turn (what ``LLM.call_tools``
and its streaming and async twins drive) and the agent loop (``LLM.run_tools``, ``arun_tools``).

``run_tools`` is the agent loop: call, run the calls (async tools awaited, a turn's calls run
concurrently), feed the results back as tool messages (a tool's error too, unless
``tool_errors="raise"``), repeat until the model answers. With an ``output_type`` the answer is
typed: a ``final_result`` tool whose arguments are the output type joins the tools and the
model must call a tool every round, any of them (the policy's decision is not asked which: it
would rank ``final_result`` against the request and could leave it out; its other rules apply
as set), so the run ends when it calls ``final_result`` (calls made beside it in that turn are
not run). A step whose every call asks again for a result the model
already has (the step before's, an error only once it came twice; a typed run's, any step's) is
not run: the model is asked for its answer instead, and the run says it ended so
(``ToolRun.ended == "repeated"``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, create_model
from typing_extensions import Unpack

from .._backends._seam import Backend, Message, Reasoning, ReasoningDelta, TextDelta, Usage, chat_template_of
from .._errors import MaxRoundsError, MCPServerError, ToolExecutionError
from ._calls import ArgumentsDelta, CallKey, RunEnd, ToolCall, ToolRun, ToolTurn, call_key
from ._tool import FINAL_TOOL, Tool, ToolSource, as_tools, from_model
from .._generate._attempts import Sampling, SamplingOptions
from .._generate._steps import Raised, Run, Steps
from ._turn import ToolChoice, TurnEvent, TurnSettings, run_turn
from ._formats import ToolFormat, format_for
from .policy._meanings import Meanings, MeaningsLoader
from .policy._policies import Policy, PolicyName, ResolvedPolicy, policy_rules
from .._generate._messages import as_messages
from .._generate._reasoning import ReasoningOption

ToolFormatName = Literal["auto", "json", "hermes", "llama3", "mistral"]
"""How calls are written: the model's own template family ("auto"), or a named one."""
PromptOrMessages = str | Sequence[Mapping[str, Any] | Message]
"""A user message, or a conversation (:class:`Message` values or OpenAI-style dicts)."""
ToolStreamEvent = TextDelta | ReasoningDelta | ArgumentsDelta | ToolCall | ToolTurn
"""What :meth:`LLM.stream_tools` yields; the last one is the :class:`ToolTurn`."""

#: Most calls in one turn unless ``max_calls`` says otherwise.
DEFAULT_MAX_CALLS = 4

ToolErrors = Literal["feed_back", "raise"]
"""What ``run_tools`` does when a tool raises: ``"feed_back"`` (the error, its type and message,
becomes the call's result, so that the model can retry or change course) or ``"raise"``
(:class:`~structgen.ToolExecutionError` ends the run)."""
TOOL_ERRORS: tuple[ToolErrors, ...] = ("feed_back", "raise")


class ToolOptions(SamplingOptions, total=False):
    """The keyword arguments every tool method of :class:`LLM` takes, as :class:`GenerateOptions`
    are :meth:`LLM.generate`'s. Each one left out has its default:

    - ``tool_choice="auto"``: calling or answering, as ``policy`` decides; ``"required"`` (at
      least one call), ``"none"`` (a text answer) or a tool's name. ``call_tool`` makes one
      call (``"required"`` unless a tool is named); ``run_tools`` decides it itself.
    - ``parallel=True`` and ``max_calls=None`` (at most 4): how many calls one turn may make.
    - ``system=None``: a system message.
    - ``tool_format="auto"``: how calls are written: the model's own template family, or one
      named: ``"json"``, ``"hermes"``, ``"llama3"``, ``"mistral"``.
    - ``reasoning=None``: a reasoning section before the turn, as for :meth:`LLM.generate`.

    The sampling keywords are :class:`SamplingOptions`'. Each tool method also takes
    ``policy="auto"``, the rules a turn decides by (docs/policy.md). :meth:`LLM.call_tools` says
    what each choice does.
    """

    tool_choice: ToolChoice
    parallel: bool
    max_calls: int | None
    system: str | None
    tool_format: ToolFormatName
    reasoning: ReasoningOption


NAMED_POLICIES: tuple[ResolvedPolicy, ...] = get_args(ResolvedPolicy)


def policy(name: ResolvedPolicy) -> Policy:
    """The rules of a named tool policy, ``"model"``, ``"tool-trained"`` or ``"small-model"``
    (docs/tools.md, "Calling or answering"), as the :class:`Policy` to pass as ``policy=`` with
    a rule of yours set::

        from dataclasses import replace

        words = replace(structgen.policy("small-model"), decision="words")
        turn = llm.call_tools("Weather in Oslo?", [get_forecast], policy=words)

    ``structgen.policy(llm.tool_policy)`` is what ``policy="auto"`` means for that model."""
    if name not in NAMED_POLICIES:
        raise ValueError(
            f"a named policy is one of {', '.join(map(repr, NAMED_POLICIES))}, not {name!r} (what "
            "'auto' means depends on the model: structgen.policy(llm.tool_policy))"
        )
    return policy_rules(name, False)


@dataclass(frozen=True)
class Caller:
    """What the tool operations need of the :class:`~structgen.LLM` that runs them: its
    sampling defaults, the tool format a name means on its backend, where the usage of a call
    is recorded, and the reasoning section a ``reasoning=`` value means on its model; and the
    sentence encoder of its turns (None without the extra), which the policy layer loads on
    first use (:class:`MeaningsLoader`)."""

    sampling: Callable[[SamplingOptions], Sampling]
    tool_format: Callable[[ToolFormatName], ToolFormat]
    record: Callable[[Usage], None]
    reasoning: Callable[[ReasoningOption], Reasoning | None]
    meanings: Callable[[], Meanings | None] = field(default_factory=MeaningsLoader)


def turn_steps(
    caller: Caller, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource],
    policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
) -> Steps[TurnEvent, ToolTurn]:
    """One turn as an operation (see ``_generate._steps``): its events and requests; returns it."""
    conversation, settings = prepare_turn(caller, prompt_or_messages, tools, **options)
    return (yield from decided_turn(caller, conversation, settings, policy_rules(policy, settings.format.native)))


def prepare_turn(
    caller: Caller, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
    tool_choice: ToolChoice = "auto", parallel: bool = True, max_calls: int | None = None,
    system: str | None = None, tool_format: ToolFormatName = "auto", reasoning: ReasoningOption = None, **sampling: Unpack[SamplingOptions],
) -> tuple[list[Message], TurnSettings]:
    """The conversation and the settings of a turn, from the keywords of :class:`ToolOptions`,
    whose defaults are stated here only (a foreign keyword is a TypeError, from ``Sampling.of``)."""
    fmt = caller.tool_format(tool_format)
    settings = TurnSettings(
        tools=as_tools(tools), tool_choice=tool_choice, parallel=parallel,
        max_calls=DEFAULT_MAX_CALLS if max_calls is None else max_calls,
        sampling=caller.sampling(sampling), format=fmt, reasoning=caller.reasoning(reasoning),
    )
    return _conversation(prompt_or_messages, system), settings


def decided_turn(
    caller: Caller, conversation: Sequence[Message], settings: TurnSettings, policy: Policy,
) -> Steps[TurnEvent, ToolTurn]:
    """One turn of ``conversation`` as ``settings`` and ``policy`` say (the sentence encoder
    loaded where the policy's decision compares meanings); its usage is recorded."""
    by_meaning = settings.asks_decision and policy.decision in ("meaning", "action")
    turn = yield from run_turn(conversation, settings, policy, caller.meanings() if by_meaning else None)
    caller.record(turn.usage)
    return turn


def run_steps(
    caller: Caller, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], output_type: Any,
    max_rounds: int, tool_errors: ToolErrors, policy: PolicyName | Policy, options: ToolOptions,
) -> Steps[TurnEvent, ToolRun[Any]]:
    """``run_tools`` as an operation: turns, and each turn's calls run (a ``Run`` command)."""
    run = _Loop(caller, prompt_or_messages, tools, output_type, max_rounds, tool_errors, policy, options)
    while True:
        turn = yield from run.next_turn()
        if run.done(turn):
            return run.result(turn)
        if run.repeats(turn):  # the loop guard: it has every result it asks for
            return run.result((yield from run.closing_turn()), ended="repeated")
        run.record(turn, (yield Run(turn.calls)))


def tool_format_for(backend: Backend, name: ToolFormatName) -> ToolFormat:
    """The tool format ``name`` means on ``backend`` ("auto": the family of its chat template,
    where the backend tells it; the generic JSON format otherwise)."""
    if name == "auto":
        return format_for(chat_template_of(backend))
    return format_for(None, name)


def one_call(options: ToolOptions) -> ToolOptions:
    """``call_tool``'s options for ``call_tools``: one call, to any tool or the one named."""
    tool_choice = options.get("tool_choice", "required")
    if tool_choice in ("auto", "none"):
        raise ValueError("call_tool always calls: tool_choice is 'required' or a tool's name")
    return {**options, "tool_choice": tool_choice, "parallel": False}


class _Loop:
    """The state of one ``run_tools`` run, shared by the sync and async loops."""

    def __init__(
        self, caller: Caller, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource],
        output_type: Any, max_rounds: int, tool_errors: ToolErrors, policy: PolicyName | Policy,
        options: ToolOptions,
    ) -> None:
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, int):
            raise TypeError(f"max_rounds must be an int, not {type(max_rounds).__name__}")
        if max_rounds < 1:
            raise ValueError("max_rounds must be >= 1")
        if "tool_choice" in options:
            raise TypeError("run_tools decides tool_choice itself")
        if tool_errors not in TOOL_ERRORS:
            raise ValueError(f"tool_errors must be one of {', '.join(map(repr, TOOL_ERRORS))}, not {tool_errors!r}")
        self.caller = caller
        self.messages, settings = prepare_turn(caller, prompt_or_messages, tools, **options)
        self.policy = policy_rules(policy, settings.format.native)
        self.final: Tool | None = None
        self.wrapped = False
        if output_type is None:  # a step calls or answers; the answer is a reply in words
            self.step, self.closing = settings, replace(settings, tool_choice="none")
        else:  # a step calls, any tool: final_result must stay callable; the answer is its call
            self.final, self.wrapped = _final_tool(output_type)
            settings = replace(settings, tools=[*settings.tools, self.final])
            self.step = replace(settings, tool_choice="required", every_tool_callable=True)
            self.closing = replace(settings, tool_choice=FINAL_TOOL)
        self.max_rounds = max_rounds
        self.tool_errors = tool_errors
        self.rounds = 0
        self.usage = Usage()
        self.calls: list[tuple[ToolCall, Any]] = []
        self.turns: list[ToolTurn] = []
        #: The (tool, arguments) of the calls whose results the model has (a call that failed in two
        #: steps in a row counts: its error): of the step before, and of every step (a typed run,
        #: where every step must call, is done when it repeats any); and the calls of the step before.
        self.known_last: set[CallKey] = set()
        self.tried_last: set[CallKey] = set()
        self.known: set[CallKey] = set()
        self.reasoning: list[str] = []

    def next_turn(self) -> Steps[TurnEvent, ToolTurn]:
        if self.rounds >= self.max_rounds:
            raise MaxRoundsError(
                f"max_rounds={self.max_rounds} rounds of calls ended without a final answer",
                messages=self.messages, usage=self.usage, calls=self.calls, turns=self.turns,
            )
        return (yield from self._turn(self.step))

    def closing_turn(self) -> Steps[TurnEvent, ToolTurn]:
        """The answer, asked for without tools: the typed one, or a reply in words."""
        return (yield from self._turn(self.closing))

    def _turn(self, settings: TurnSettings) -> Steps[TurnEvent, ToolTurn]:
        turn = yield from decided_turn(self.caller, list(self.messages), settings, self.policy)
        self.usage = self.usage + turn.usage
        self.turns.append(turn)
        if turn.reasoning:
            self.reasoning.append(turn.reasoning)
        return turn

    def repeats(self, turn: ToolTurn) -> bool:
        """Whether every call of ``turn`` asks again for a result the model already has."""
        known = self.known if self.final is not None else self.known_last
        return all(call_key(call.name, call.text) in known for call in turn.calls)

    def done(self, turn: ToolTurn) -> bool:
        return not turn.calls or any(call.tool is self.final for call in turn.calls)

    def result(self, turn: ToolTurn, ended: RunEnd | None = None) -> ToolRun[Any]:
        self.caller.record(self.usage)
        final = next((call for call in turn.calls if call.tool is self.final), None)
        self.messages.append(turn.message)
        if final is None:
            output: Any = turn.text or ""
        else:
            output = final.arguments.result if self.wrapped else final.arguments
        ended = ended or ("answer" if final is None else "final_result")
        return ToolRun(output, self.calls, self.messages, self.usage, tuple(self.reasoning), tuple(self.turns), ended)

    def record(self, turn: ToolTurn, results: Sequence[Any]) -> None:
        """The turn's calls and their results join the conversation; with
        ``tool_errors="raise"``, a tool that raised ends the run (a ModelRetry never does); an
        MCP server that is gone ends it after its results joined (MCPServerError)."""
        failed = [r.error for r in results if isinstance(r, Raised) and isinstance(r.error, ToolExecutionError)]
        if failed and self.tool_errors == "raise":
            failed[0].messages = [*self.messages, turn.message]
            failed[0].usage = self.usage
            raise failed[0]
        self.rounds += 1
        self.messages.append(turn.message)
        tried, self.tried_last, self.known_last = self.tried_last, set(), set()
        for call, result in zip(turn.calls, results):
            outcome = result.error if isinstance(result, Raised) else result
            self.calls.append((call, outcome))
            self.messages.append(call.result_message(outcome))
            key = call_key(call.name, call.text)
            self.tried_last.add(key)
            if not isinstance(result, Raised) or key in tried:  # failed once may pass; twice, it is known
                self.known_last.add(key)
        self.known |= self.known_last
        gone = [r.error for r in results if isinstance(r, Raised) and isinstance(r.error, MCPServerError)]
        if gone:  # every later call to it would fail too: the run ends, its conversation kept
            gone[0].messages, gone[0].usage = list(self.messages), self.usage
            raise gone[0]


def _final_tool(output_type: Any) -> tuple[Tool, bool]:
    """The tool that carries a typed final answer, and whether the answer is wrapped."""
    description = "Give the final answer."
    if isinstance(output_type, type) and issubclass(output_type, BaseModel):
        return replace(from_model(output_type), name=FINAL_TOOL, description=description), False
    model = create_model("FinalResult", __config__=ConfigDict(extra="forbid"), result=(output_type, ...))
    return replace(from_model(model), name=FINAL_TOOL, description=description), True


def _conversation(prompt_or_messages: PromptOrMessages, system: str | None) -> list[Message]:
    if isinstance(prompt_or_messages, str):
        return as_messages(prompt_or_messages, system=system, messages=None)
    return as_messages(None, system=system, messages=prompt_or_messages)


__all__ = [
    "DEFAULT_MAX_CALLS", "FINAL_TOOL", "NAMED_POLICIES", "TOOL_ERRORS", "Caller", "ToolErrors", "ToolFormatName",
    "ToolOptions", "PromptOrMessages", "ToolStreamEvent",
    "decided_turn", "one_call", "policy", "prepare_turn", "run_steps", "tool_format_for", "turn_steps",
]

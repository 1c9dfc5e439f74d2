"""One tool-calling turn: decide between calling and answering, constrain the calls, validate.

The turn runs the policy's rules phase by phase (``policy._table``; docs/policy.md):

1. **Decide** (``tool_choice="auto"`` or ``"required"``): which tools the step may call, best
   first — none: the model answers in words without trying — and how its calls are judged.
2. **Prompt**: which tools the call step's and the reply's prompts list.
3. **Call**: the grammar (the grammar phase: the tries, how many calls are written) is the
   union of the offered tools' call shapes; each call is judged as it streams (the keep phase)
   and the step ends before the first one not kept, or one that repeats an earlier call of the
   step (small models otherwise loop). With no call kept, or none fitting ``max_tokens``, the
   model answers in words (the reply phase: a call written there may stand).
4. **Validate**: each call's arguments go through its tool's model; a validator the grammar
   cannot express fails the turn into a retry, with the errors fed back.
"""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import ValidationError

from .._backends._seam import (
    Completion, CompletionRequest, MemberRules, Message, Reasoning, ReasoningDelta, TextDelta, Usage,
)
from .._errors import BackendError, IncompleteOutputError, ValidatorError
from ._calls import ArgumentsDelta, CallKey, ToolCall, ToolTurn, call_key
from ._tool import Tool
from .._generate._attempts import Attempts, Sampling
from .._generate._output import validation_errors
from .policy import _table as rules
from .policy._meanings import Meanings
from .policy._phases import CallShape, Candidate, Plan, Reply, TurnContext
from .policy._policies import Policy
from ._formats import JSON_FORMAT, ToolFormat
from .._generate._steps import PULL, SHUT, Open, Steps, complete
from .._generate._warnings import warn_looped

ToolChoice = Literal["auto", "required", "none"] | str
"""Whether a turn calls: "auto", "required", "none", or the name of the tool to call."""

_ID_CHARS = string.ascii_letters + string.digits

#: ``keep(call, earlier, offered)``: whether a call the model wrote after ``earlier`` of the same
#: step is kept (the keep phase's rules); ``offered``: the grammar made the model write it.
Keep = Callable[[ToolCall, Sequence[ToolCall], bool], bool]


@dataclass(frozen=True)
class TurnSettings:
    """What a caller asked of one turn."""

    tools: Sequence[Tool]
    tool_choice: ToolChoice
    parallel: bool
    max_calls: int
    sampling: Sampling
    format: ToolFormat = JSON_FORMAT
    reasoning: Reasoning | None = None
    #: Under ``tool_choice="required"``: every tool stays callable, the policy's decision not
    #: asked which (a typed run's steps, whose ``final_result`` tool must stay callable).
    every_tool_callable: bool = False

    def __post_init__(self) -> None:
        names = {t.name for t in self.tools}
        if self.tool_choice not in ("auto", "required", "none") and self.tool_choice not in names:
            raise ValueError(
                f"tool_choice must be 'auto', 'required', 'none' or a tool's name, not {self.tool_choice!r}"
            )
        if self.max_calls < 1:
            raise ValueError("max_calls must be >= 1")
        if self.every_tool_callable and self.tool_choice != "required":
            raise ValueError("every_tool_callable is a rule of tool_choice='required'")

    @property
    def asks_decision(self) -> bool:
        """Whether the policy's decision settles the turn: whether to call and which tools
        (under "auto"), or which tools a required call may use."""
        return self.tool_choice == "auto" or (self.tool_choice == "required" and not self.every_tool_callable)

    @property
    def callable_tools(self) -> list[Tool]:
        if self.tool_choice == "none":
            return []
        if self.tool_choice in ("auto", "required"):
            return list(self.tools)
        return [t for t in self.tools if t.name == self.tool_choice]


TurnEvent = TextDelta | ReasoningDelta | ArgumentsDelta | ToolCall | None  # None: a retry starts


def run_turn(
    conversation: Sequence[Message], settings: TurnSettings, policy: Policy, meanings: Meanings | None = None,
) -> Steps[TurnEvent, ToolTurn]:
    """Yields the turn's text deltas, argument deltas and calls as they complete, and its
    backend requests (see ``_generate._steps``); returns the turn. ``policy``'s rules decide it
    (``policy._table``); ``meanings`` compares requests and tools by meaning (None: without
    sentence embeddings)."""
    fmt = settings.format
    usage = Usage()
    most = settings.max_calls if settings.parallel else 1
    turn = TurnContext(conversation, settings.tools, settings.tool_choice, most, meanings,
                       Plan(settings.callable_tools, said_values="none"))
    if settings.asks_decision:
        turn = replace(turn, plan=(yield from rules.decide(turn, policy)))
    listed = rules.listing(turn, policy)
    if turn.plan.tools:
        # A native template lists the tools the prompt rules say (the grammar still calls only
        # the plan's); the generic format lists what may be called.
        messages, template_tools = fmt.render(conversation, listed.call if fmt.native else turn.plan.tools)
        shaped = rules.shape(turn, policy)

        def keep(call: ToolCall, earlier: Sequence[ToolCall], offered: bool) -> bool:
            return rules.keeps(turn, policy, Candidate(call, earlier, offered))

        for grammar_tools in shaped.tries:
            try:
                called = yield from _call_turn(messages, template_tools, settings, turn.plan, keep, shaped, grammar_tools)
            except IncompleteOutputError as error:
                if settings.tool_choice != "auto":
                    raise
                called, usage = None, usage + error.usage  # no call fits in the budget: answer instead
            if called is not None:
                # ``keep`` judged each call as it streamed; the first judged again here for a
                # backend that sends its text only at the end. A turn whose every call was
                # refused answers.
                refused = not called.calls and called.text is None
                if not refused and (not called.calls or keep(called.calls[0], (), False)):
                    return replace(called, usage=usage + called.usage)
                usage = usage + called.usage
            yield None  # what was streamed of the call is void
    # In the generic format the reply is written as if no tools were offered: told about
    # tools, small models write about calls instead of answering.
    reply_messages, reply_tools = fmt.render(conversation, listed.reply if fmt.native else ())
    request = CompletionRequest(
        messages=tuple(reply_messages), gbnf=_text_gbnf(fmt), max_tokens=settings.sampling.max_tokens,
        sampling=settings.sampling.settings, tools=reply_tools, reasoning=settings.reasoning,
    )
    completion = yield from complete(request)
    usage = usage + completion.usage
    thought = completion.reasoning.strip()
    answered = rules.reply(turn, policy, Reply(completion.text, _loose_calls(fmt, settings.tools, completion.text)))
    if answered.kept:  # the model called although the decision chose words: its call stands
        yield from answered.kept
        return ToolTurn(list(answered.kept), None, usage, completion.text, False, thought)
    return ToolTurn([], completion.text, usage, completion.text, completion.finish_reason != "stop", thought)


def _text_gbnf(fmt: ToolFormat) -> str:
    """Any text that does not open like a call (a model told about calls may start one)."""
    first = fmt.opener[:1]
    exclude = "".join(f"\\x{ord(c):02X}" for c in first if ord(c) < 128)
    return f"root ::= ([^{exclude}\\x00] [^\\x00]*)?\n"


def _call_turn(
    messages: list[Message], template_tools: tuple[dict[str, Any], ...], settings: TurnSettings, decided: Plan,
    keep: Keep, shaped: CallShape, grammar_tools: Sequence[Tool],
) -> Steps[TurnEvent, ToolTurn]:
    """The turn's calls; the turn ends before the first call ``keep`` refuses. Under a lazy
    plan the model may answer in words instead: the turn then holds its text."""
    fmt = settings.format
    budget = settings.sampling.max_tokens
    tools = decided.tools
    most = settings.max_calls if settings.parallel else 1
    offered = shaped.min_calls
    grammar, choices = fmt.grammar(grammar_tools, max_calls=most, min_calls=offered, lazy=decided.lazy)
    triggers = fmt.triggers(tools) if decided.lazy else ()
    attempts = Attempts(messages, settings.sampling.max_retries, "call")
    for attempt in attempts:
        truncated = False
        if attempt:
            yield None
        request = CompletionRequest(
            messages=tuple(attempts.conversation), gbnf=grammar.gbnf, root=grammar.root,
            max_tokens=budget, sampling=settings.sampling.settings,
            choices=choices if shaped.whole_alternatives else None,
            tools=template_tools, members=None if fmt.native or triggers else MemberRules(),
            triggers=triggers, reasoning=settings.reasoning,
        )
        reader = _CallReader(fmt, tools, keep, offered, lazy=decided.lazy)
        completion: Completion | None = None
        thought = ""
        yield Open(request)
        try:
            while (event := (yield PULL)) is not None:
                if isinstance(event, Completion):
                    completion = event
                    continue
                if isinstance(event, ReasoningDelta):
                    thought += event.text
                    yield event
                    continue
                yield from reader.feed(event.text)
                if reader.cut is not None:
                    break  # the turn ends before a repeated (or, under auto, ungrounded) call
        except ValidatorError as error:  # a tool's validator crashed: no retry can help
            error.usage = attempts.usage + Usage(attempts=1)  # this attempt's tokens are not counted yet
            raise
        stopped = yield SHUT  # the completion so far, where the backend can tell it
        if completion is None and isinstance(stopped, Completion):
            completion = stopped
        if reader.cut is not None:
            attempts.spend(completion.usage if completion is not None else Usage(attempts=1))
            if not reader.calls:
                return ToolTurn([], None, attempts.usage, reader.text, reasoning=thought.strip())
            text = reader.text[: reader.cut] + fmt.after
            opening = reader.origin or 0
        else:
            if completion is None:
                raise BackendError("the backend ended without a completion")
            attempts.spend(completion.usage)
            truncated = completion.finish_reason != "stop"
            opened = fmt.opening(completion.text, tools) if triggers else 0
            if opened is None:  # no trigger: the model answered in words, or wrote a call loosely
                loose = _loose_calls(fmt, tools, completion.text)
                if loose:
                    yield from loose
                    return ToolTurn(loose, None, attempts.usage, completion.text, truncated, thought.strip())
                yield from reader.flush()
                return ToolTurn([], completion.text, attempts.usage, completion.text, truncated, thought.strip())
            opening = opened
            if truncated and reader.calls:  # the budget ran out in a later call: keep the whole ones
                text = reader.text[: reader.unfinished_start()] + fmt.after
                truncated = reader.done >= offered  # not a call the model chose to write
            else:
                attempts.check(completion, budget)
                text = completion.text
            warn_looped(completion.loops)
        try:
            calls = _validated(fmt, tools, text[opening:], reader.calls)
        except ValidatorError as error:
            error.usage = attempts.usage
            raise
        except _InvalidCall as invalid:
            attempts.reject(text, invalid.errors)
            continue
        return ToolTurn(calls, None, attempts.usage, text, truncated, thought.strip())
    raise attempts.exhausted()


class _InvalidCall(Exception):
    def __init__(self, errors: list[dict[str, Any]]) -> None:
        self.errors = errors


def _validated(
    fmt: ToolFormat, tools: Sequence[Tool], text: str, streamed: Sequence[ToolCall] = ()
) -> list[ToolCall]:
    """The calls of ``text``, validated (the ones already streamed are reused as they are)."""
    by_name = {t.name: t for t in tools}
    known = {(c.name, c.text): c for c in streamed}
    calls: list[ToolCall] = []
    errors: list[dict[str, Any]] = []
    for index, (name, arguments) in enumerate(fmt.parse(text)):
        tool = by_name.get(name)
        if tool is None:  # the grammar allows only these names; a foreign backend might not
            errors.append({"loc": [index, "name"], "msg": f"no tool is named {name!r}", "type": "unknown_tool"})
            continue
        if (name, arguments) in known:
            calls.append(known.pop((name, arguments)))
            continue
        try:
            calls.append(ToolCall(name, tool.validate(arguments), new_call_id(), tool, arguments))
        except ValidationError as error:
            errors += [{**e, "loc": [index, name, *e["loc"]]} for e in validation_errors(error)]
        except ValueError as error:
            errors.append({"loc": [index, name], "msg": str(error), "type": "json_invalid"})
    if not calls and not errors:
        errors.append({"loc": [], "msg": "no call was found in the answer", "type": "no_call"})
    if errors:
        raise _InvalidCall(errors)
    return calls


def _loose_calls(fmt: ToolFormat, tools: Sequence[Tool], text: str) -> list[ToolCall]:
    """The calls of a reply that wrote them in a spelling no trigger matched (JSON spread over
    lines, say), where every call to a listed tool in it validates; else none."""
    names = {t.name for t in tools}
    if not any(name in names for name, _ in fmt.parse(text)):
        return []
    try:
        return _validated(fmt, tools, text)
    except _InvalidCall:
        return []


def new_call_id() -> str:
    """A fresh call id: nine letters and digits (what Mistral's templates require)."""
    return "".join(secrets.choice(_ID_CHARS) for _ in range(9))


class _CallReader:
    """Follows a call turn's text as it grows: argument deltas of the call being written and
    each call, validated, once its JSON is complete."""

    def __init__(
        self, fmt: ToolFormat, tools: Sequence[Tool], keep: Keep | None = None, offered: int = 1,
        *, lazy: bool = False,
    ) -> None:
        self.fmt = fmt
        self.tools = tools
        #: Where the calls start: 0 when the grammar holds from the first token; under a lazy
        #: grammar None until a trigger is seen, the text before it being a reply in words.
        self.origin: int | None = None if lazy else 0
        self.shown = 0  # characters of that reply already streamed
        self.keep = keep
        #: How many calls the grammar makes the model write: one it wrote only for that ends the
        #: turn when invalid, as a refused one does (the model did not choose to write it).
        self.offered = offered
        self.by_name = {t.name: t for t in tools}
        self.text = ""
        self.done = 0
        self.calls: list[ToolCall] = []  # the valid calls streamed so far
        self.seen: set[CallKey] = set()
        self.cut: int | None = None  # where the turn ends: a repeated call, or one not kept
        self.sent = 0  # characters of the current call's arguments already sent
        self._key = re.compile(r'"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"' + re.escape(fmt.arguments_key) + r'"\s*:\s*')

    def unfinished_start(self) -> int:
        """Where the call being written begins (the text's end when none is)."""
        openings = list(self._key.finditer(self.text, self.origin or 0))
        if len(openings) <= self.done:
            return len(self.text)
        return self.fmt.call_start(self.text, openings[self.done].start() - 1)  # its "{"

    def flush(self) -> Generator[TextDelta, None, None]:
        """The reply text held back (it might have opened a call; it did not)."""
        if len(self.text) > self.shown:
            yield TextDelta(self.text[self.shown :])
            self.shown = len(self.text)

    def _reply(self) -> Generator[TextDelta, None, None]:
        """The reply text before a trigger, streamed up to where a call might be opening."""
        self.origin = self.fmt.opening(self.text, self.tools)
        end = self.origin
        if end is None:
            held = [i for i in (self.text.find(c, self.shown) for c in "<`{") if i >= 0]
            end = min(held, default=len(self.text))
        if end > self.shown:
            yield TextDelta(self.text[self.shown : end])
            self.shown = end

    def feed(self, delta: str) -> Generator[TextDelta | ArgumentsDelta | ToolCall, None, None]:
        self.text += delta
        if self.origin is None:
            yield from self._reply()
            if self.origin is None:
                return
        origin = self.origin
        calls = [(n, a, start + origin) for n, a, start in self.fmt.parse_spans(self.text[origin:])]
        for name, arguments, start in calls[self.done :]:
            if call_key(name, arguments) in self.seen:
                self.cut = self.fmt.call_start(self.text, start)
                return
            tool = self.by_name.get(name)
            # A call the grammar made the model write after a valid one (it did not choose to).
            offered = 0 < self.done < self.offered and bool(self.calls)
            self.done += 1
            self.sent = 0
            if tool is None:
                continue
            try:
                call = ToolCall(name, tool.validate(arguments), new_call_id(), tool, arguments)
            except (ValidationError, ValueError):
                if offered:
                    self.cut = self.fmt.call_start(self.text, start)
                    return
                continue  # reported when the turn ends, with a retry
            if self.keep is not None and not self.keep(call, self.calls, offered):
                self.cut = self.fmt.call_start(self.text, start)
                return
            self.seen.add(call_key(name, arguments))  # an invalid call's repeat is no repeat
            self.calls.append(call)
            yield call
        openings = list(self._key.finditer(self.text, origin))
        if len(openings) > self.done:
            current = openings[self.done]
            arguments = self.text[current.end() :]
            if len(arguments) > self.sent:
                yield ArgumentsDelta(self.done, current.group(1), arguments[self.sent :])
                self.sent = len(arguments)


__all__ = ["ToolChoice", "TurnSettings", "run_turn"]

"""What a tool turn's rules read and write: the turn they judge (:class:`TurnContext`) and, for
each phase of the turn, the value its rules pass along — one hook signature per phase, so that
every rule of a phase is called alike (``_table`` runs them; docs/policy.md says what each does).

======== ================================================ =====================================
phase    hook                                             rules
======== ================================================ =====================================
decide   ``(turn, plan) -> Steps[None, Plan]``            later_steps, decision, channel,
                                                          offered_tools
prompt   ``(turn, listing) -> Listing``                   listed_tools, reply_tools
grammar  ``(turn, shape) -> CallShape``                   listed_values, arguments,
                                                          alternatives, second_call
keep     ``(turn, candidate) -> bool``                    later_steps, grounding, offered_call
reply    ``(turn, reply) -> Reply``                       call_in_reply
======== ================================================ =====================================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Union

from ..._backends._seam import Message
from ..._generate._steps import Steps
from .._calls import ToolCall
from .._tool import Tool

if TYPE_CHECKING:
    from ._meanings import Meanings

Phase = Literal["decide", "prompt", "grammar", "keep", "reply"]
PHASES: tuple[Phase, ...] = ("decide", "prompt", "grammar", "keep", "reply")

SaidValues = Literal["none", "some", "every"]


@dataclass(frozen=True)
class Evidence:
    """A tool's signals against the latest request, and its fitted score (with the channel
    score at its usual value until the ``channel`` rule weighs it); ``weights`` is the fitted
    score it was weighed by."""

    tool: Tool
    similarity: float | None
    channel: float | None
    words: int
    score: float
    action: float | None = None  # the request's action-or-answer signal, where it was weighed
    known: float = 0.0  # the score but for its channel term
    channel_weight: float = 0.0


@dataclass(frozen=True)
class Plan:
    """What the decide phase settled before any call is written.

    ``tools``: those the call step may use, best first (empty: answer in words). ``said_values``:
    how many of the values a first call chose must have been said for the ``grounding`` rule to
    keep it — "none" (its calls are not judged), "some" or "every". ``lazy``: the model writes freely and a call
    starts only where it opens one. ``asks_action``: the request was weighed as asking for an
    action. ``checked``: the step's calls are judged at all (unchecked, every call stands but a
    repeat of a known result). ``ranking``: every tool's evidence, best first, where a scored
    decision weighed them; ``scoring``: the backend scores text (the channel score can be had).
    ``settled``: no later rule of the phase changes the plan."""

    tools: list[Tool]
    said_values: SaidValues = "some"
    lazy: bool = False
    asks_action: bool = False
    checked: bool = True
    ranking: tuple[Evidence, ...] | None = None
    scoring: bool = False
    settled: bool = False

    @property
    def judged(self) -> bool:
        """Whether the keep phase judges this plan's calls by what was said."""
        return self.checked and (self.said_values != "none" or self.lazy)


@dataclass(frozen=True)
class TurnContext:
    """The turn the rules judge: the conversation so far, every tool of the turn, the caller's
    ``tool_choice`` and call limit, the sentence encoder (None without it) and, after the
    decide phase, its ``plan``. Which rules judge it is the policy the phases are run with."""

    conversation: Sequence[Message]
    tools: Sequence[Tool]
    tool_choice: str
    max_calls: int
    meanings: Meanings | None = None
    plan: Plan = field(default_factory=lambda: Plan([]))

    @property
    def required(self) -> bool:
        return self.tool_choice == "required"

    @property
    def follows_results(self) -> bool:
        """Whether the step follows tool results (of the same request: they come after it)."""
        return bool(self.conversation) and self.conversation[-1].role == "tool"

    @property
    def holds_calls(self) -> bool:
        """Whether the conversation holds a tool call or a tool's result."""
        return any(m.tool_calls or m.role == "tool" for m in self.conversation)


@dataclass(frozen=True)
class Listing:
    """Which tools the prompts list: ``call``, a call step's; ``reply``, a reply in words'
    (where the chat template renders tools)."""

    call: tuple[Tool, ...]
    reply: tuple[Tool, ...] = ()


@dataclass(frozen=True)
class CallShape:
    """What the call grammar allows: ``tries``, the tools of each grammar tried in turn (the
    next only where the calls under the one before were refused); ``min_calls``, how many calls
    it makes the model write; ``whole_alternatives``: tool names and listed values chosen by
    each whole spelling's likelihood, not token by token."""

    tries: tuple[tuple[Tool, ...], ...]
    min_calls: int = 1
    whole_alternatives: bool = False


@dataclass(frozen=True)
class Candidate:
    """A call the model wrote, after the ``earlier`` ones kept in the same step; ``offered``:
    the grammar made the model write it (it did not choose to)."""

    call: ToolCall
    earlier: Sequence[ToolCall] = ()
    offered: bool = False


@dataclass(frozen=True)
class Reply:
    """A reply in words: its ``text``, the calls ``written`` in it (in any spelling the format
    reads) and the ones ``kept`` as the turn's calls."""

    text: str
    written: Sequence[ToolCall] = ()
    kept: Sequence[ToolCall] = ()


DecideHook = Callable[[TurnContext, Plan], Steps[None, Plan]]
PromptHook = Callable[[TurnContext, Listing], Listing]
GrammarHook = Callable[[TurnContext, CallShape], CallShape]
KeepHook = Callable[[TurnContext, Candidate], bool]
ReplyHook = Callable[[TurnContext, Reply], Reply]
Hook = Union[DecideHook, PromptHook, GrammarHook, KeepHook, ReplyHook]


def settled(plan: Plan) -> Steps[None, Plan]:
    """A plan that needs no backend request, as steps (every decide hook is run alike)."""
    return plan
    yield  # pragma: no cover - makes this a generator


__all__ = [
    "CallShape", "Candidate", "DecideHook", "Evidence", "GrammarHook", "Hook", "KeepHook", "Listing",
    "PHASES", "Phase", "Plan", "PromptHook", "Reply", "ReplyHook", "SaidValues", "TurnContext", "settled",
]

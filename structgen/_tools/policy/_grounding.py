"""Which calls a step keeps: the keep phase's rules, each a small function of one signature
(``_phases.KeepHook``) that judges one call the model wrote.

- ``grounding`` judges a step's first call: ``"said"`` keeps it only where a value it chose
  was said (every value, where the plan asks that); ``"off"`` keeps it as written.
- ``offered_call`` judges every later call of the step (the offered second call, and any the
  model wrote after it): each value names what a later call must add.
- ``later_steps="model"`` keeps every call of a step after tool results but one asking again
  for a result the model already has.

A call "was said" (:func:`grounded`) when it repeats no call made since the latest user message
(but one whose tool raised) and a value it chose appears in what the conversation has said (any
user message or tool result: :func:`_words.heard_in`). A value the schema supplied (a default,
one of the listed values) was not chosen and counts for nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._backends._seam import Message
from .._calls import FAILED, CallKey, ToolCall, call_key
from ._phases import Candidate, TurnContext
from ._words import (
    adds, chosen_values, content_words, heard_in, latest_request, said, tool_text, was_heard, word_list, words,
)


def made_since_request(conversation: Sequence[Message]) -> set[CallKey]:
    """The calls made since the latest user message, but those whose tool raised (a call that
    failed may be made again as it was: the failure may have been passing)."""
    recent = conversation[latest_request(conversation):]
    failed = {m.tool_call_id for m in recent if m.role == "tool" and m.content.startswith(FAILED)}
    return {
        call_key(c["function"]["name"], c["function"]["arguments"])
        for m in recent for c in m.tool_calls
        if isinstance(c.get("function"), dict) and c.get("id") not in failed
    }


def grounded(
    calls: Sequence[ToolCall], conversation: Sequence[Message], *, fully: bool = False,
    earlier: Sequence[ToolCall] = (), across_tools: bool = False,
) -> bool:
    """Whether some call is new and grounded in what was said (:func:`heard_in`): it repeats no
    call made since the latest user message (but one whose tool raised), and one of the values
    it chose appears there as whole words or numbers (or its tool takes no arguments).

    ``fully``: every value the call chose appears there, and there is at least one.
    ``earlier``: the calls the same turn made before; a call after some of the same tool must
    also add a word of the latest request (or a tool result since) none of those chose (a
    second call that only changes a listed value, or repeats part of a place an earlier call
    named, adds nothing the user asked for; another tool may take the same values: "the median
    and the variance of 3, 4, 5"). With
    ``across_tools`` the word must be new to every earlier call, whatever its tool."""
    heard = words(heard_in(conversation))
    asked = words(said(conversation))
    made = made_since_request(conversation)
    for call in calls:
        if call_key(call.name, call.text) in made:
            continue
        properties = call.tool.parameters.get("properties") or {}
        if not properties:
            return True
        values = chosen_values(call)
        found = [was_heard(value, heard) for value in values]
        if not ((all(found) and values) if fully else any(found)):
            continue
        before = [c for c in earlier if across_tools or c.name == call.name]
        if not before:
            return True
        # A later call of the turn must add a word of this request (or a result since): words of
        # earlier turns ground a call, but do not make a second one asked for.
        used = {w for c in before for value in chosen_values(c) for w in word_list(value)}
        if any(ok and adds(value, asked, used) for value, ok in zip(values, found)):
            return True
    return False


def names_another_tool(call: ToolCall, earlier: Sequence[ToolCall], conversation: Sequence[Message]) -> bool:
    """Whether the latest request names ``call``'s tool by a content word (by stem) that no
    tool called by ``earlier`` has: after ``final_velocity``, "Also, compute the total distance"
    names ``distance_traveled``, which may take the same values."""
    heard = content_words(said(conversation, tool_results=False))
    theirs: set[str] = set().union(*(content_words(tool_text(c.tool)) for c in earlier))
    return bool(content_words(tool_text(call.tool)) & heard - theirs)


# -- grounding: a step's first call -------------------------------------------------------------


def _judges_first(turn: TurnContext, candidate: Candidate) -> bool:
    plan = turn.plan
    return plan.judged and plan.said_values != "none" and not candidate.earlier


def said_first_call(turn: TurnContext, candidate: Candidate) -> bool:
    """A first call is kept where a value it chose was said (every value, where the plan asks)."""
    if not _judges_first(turn, candidate):
        return True
    return grounded([candidate.call], turn.conversation, fully=turn.plan.said_values == "every")


def any_first_call(turn: TurnContext, candidate: Candidate) -> bool:
    """A first call is kept as written."""
    return True


# -- offered_call: every later call of a step ---------------------------------------------------


def _judges_later(turn: TurnContext, candidate: Candidate) -> bool:
    return turn.plan.judged and bool(candidate.earlier)


def same_tool(turn: TurnContext, candidate: Candidate) -> bool:
    """A later call adds a said word no earlier call of its own tool chose; the offered one must
    also call a tool the step already called."""
    if not _judges_later(turn, candidate):
        return True
    call, earlier = candidate.call, candidate.earlier
    if candidate.offered and all(c.name != call.name for c in earlier):
        return False
    return grounded([call], turn.conversation, fully=turn.plan.said_values == "every", earlier=earlier)


def new_word(turn: TurnContext, candidate: Candidate) -> bool:
    """A later call adds a said word no earlier call chose, whatever its tool."""
    if not _judges_later(turn, candidate):
        return True
    return grounded([candidate.call], turn.conversation, fully=turn.plan.said_values == "every",
                    earlier=candidate.earlier, across_tools=True)


def new_word_or_tool(turn: TurnContext, candidate: Candidate) -> bool:
    """:func:`new_word`, or a grounded call of a tool the request names by a word no earlier
    call's tool has ("the median and the variance of 3, 4, 5": the same data twice)."""
    if not _judges_later(turn, candidate) or new_word(turn, candidate):
        return True
    call, fully = candidate.call, turn.plan.said_values == "every"
    return names_another_tool(call, candidate.earlier, turn.conversation) and grounded(
        [call], turn.conversation, fully=fully)


# -- later_steps: a step after tool results -----------------------------------------------------


def judged_as_planned(turn: TurnContext, candidate: Candidate) -> bool:
    """``later_steps="gate"``: such a step's calls are judged as its plan says (the rules above)."""
    return True


def no_known_repeat(turn: TurnContext, candidate: Candidate) -> bool:
    """``later_steps="model"``: an unchecked step keeps every call but one asking again for a
    result the model already has (since the latest request, a failed call aside)."""
    if turn.plan.checked:
        return True
    call = candidate.call
    return call_key(call.name, call.text) not in made_since_request(turn.conversation)


__all__ = [
    "any_first_call", "grounded", "judged_as_planned", "made_since_request", "names_another_tool", "new_word",
    "new_word_or_tool", "no_known_repeat", "said_first_call", "same_tool",
]

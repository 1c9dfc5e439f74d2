"""Which call after the first of a turn is kept: one small function per ``offered_call`` rule,
dispatched from :data:`LATER_CALLS` with what else the rule asks of an offered call, so that
each rule reads alone and is measured alone (``bench.suites.bfcl --decision
DECISION/ARGUMENTS/RULE``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..._backends._seam import Message
from .._calls import ToolCall
from ._decision import grounded, names_another_tool

OfferedCall = Literal["same-tool", "new-word", "new-word-or-tool"]
"""Which second call, offered after the model's first, is kept (see :class:`Policy`)."""

#: ``rule(call, earlier, conversation, fully)``: whether ``call``, after ``earlier`` of the same
#: turn, is kept; ``fully``: every value it chose must have been said.
LaterCallRule = Callable[[ToolCall, Sequence[ToolCall], Sequence[Message], bool], bool]


def same_tool(call: ToolCall, earlier: Sequence[ToolCall], conversation: Sequence[Message], fully: bool) -> bool:
    """Grounded, and adding a said word no earlier call of its own tool chose (an offered call
    must also repeat an earlier call's tool: :attr:`LaterCalls.offered_repeats_tool`)."""
    return grounded([call], conversation, fully=fully, earlier=earlier)


def new_word(call: ToolCall, earlier: Sequence[ToolCall], conversation: Sequence[Message], fully: bool) -> bool:
    """Grounded, and adding a said word no earlier call chose, whatever its tool."""
    return grounded([call], conversation, fully=fully, earlier=earlier, across_tools=True)


def new_word_or_tool(call: ToolCall, earlier: Sequence[ToolCall], conversation: Sequence[Message], fully: bool) -> bool:
    """:func:`new_word`, or a grounded call of a tool the request names by a word no earlier
    call's tool has ("the median and the variance of 3, 4, 5": the same data twice)."""
    if new_word(call, earlier, conversation, fully):
        return True
    return bool(earlier) and names_another_tool(call, earlier, conversation) and grounded(
        [call], conversation, fully=fully)


@dataclass(frozen=True)
class LaterCalls:
    """One ``offered_call`` rule: ``keeps`` judges every call after a turn's first; with
    ``offered_repeats_tool`` the call the grammar offers must also call a tool the turn already
    called (calls the model chose to write itself need not)."""

    keeps: LaterCallRule
    offered_repeats_tool: bool = False


LATER_CALLS: dict[OfferedCall, LaterCalls] = {
    "same-tool": LaterCalls(same_tool, offered_repeats_tool=True),
    "new-word": LaterCalls(new_word),
    "new-word-or-tool": LaterCalls(new_word_or_tool),
}

__all__ = ["LATER_CALLS", "LaterCallRule", "LaterCalls", "OfferedCall", "new_word", "new_word_or_tool", "same_tool"]

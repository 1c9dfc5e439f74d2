"""The policy's phases run alone, for tests of one rule (no model): what the decide phase
settles for a decision, and the grammar tries of an ``arguments`` setting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from structgen._backends._seam import Message
from structgen._generate._steps import finish, run_blocking
from structgen._tools._tool import Tool
from structgen._tools.policy import _table
from structgen._tools.policy._meanings import Meanings
from structgen._tools.policy._phases import Plan, TurnContext
from structgen._tools.policy._policies import Policy
from structgen.testing import ScriptedBackend


def decided(
    decision: Any, tools: Sequence[Tool], conversation: Sequence[Message], meanings: Meanings | None, *,
    required: bool = False, offered_tools: Any = "close", channel: Any = "every", backend: Any = None,
) -> Plan:
    """The plan the decide phase settles under ``decision`` and the two rules that shape it."""
    policy = Policy(decision=decision, offered_tools=offered_tools, channel=channel)
    turn = TurnContext(conversation, tools, "required" if required else "auto", 1, meanings,
                       Plan(list(tools), said_values="none"))
    return finish(run_blocking(_table.decide(turn, policy), backend or ScriptedBackend()))


def argument_tries(
    setting: Any, tools: Sequence[Tool], conversation: Sequence[Message], *, asks_action: bool = False,
    listed_values: Any = "named",
) -> list[list[Tool]]:
    """The tools of each grammar the grammar phase tries under ``arguments=setting``."""
    policy = Policy(arguments=setting, listed_values=listed_values)
    turn = TurnContext(conversation, tools, "auto", 1, None, Plan(list(tools), asks_action=asks_action))
    return [list(tried) for tried in _table.shape(turn, policy).tries]


#: The topic words of the stand-in encoder, one line per tool of the policy tests.
TOPICS = ("rain weather forecast umbrella", "email write message")


class TopicEncoder:
    """Vectors by topic words: a text is near a tool when it uses that tool's topic words."""

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        rows = []
        for text in texts:
            row = [sum(w in text.lower() for w in topic.split()) for topic in TOPICS] + [0.1]
            rows.append(np.array(row, dtype=np.float32) / np.linalg.norm(row))
        return np.stack(rows) if rows else np.zeros((0, 3), dtype=np.float32)

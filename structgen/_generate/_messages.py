"""From what a caller says to the messages a request carries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._backends._seam import Message, Role

_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}


def as_message(item: Mapping[str, Any] | Message) -> Message:
    """A :class:`Message` from itself or from an OpenAI-style message dict."""
    if isinstance(item, Message):
        return item
    if not isinstance(item, Mapping):
        raise TypeError("each message is a Message or a dict with a role and str content")
    role, content = item.get("role"), item.get("content")
    calls = item.get("tool_calls") or ()
    if content is None and calls:
        content = ""
    if role not in _ROLES or not isinstance(content, str):
        raise TypeError("each message needs a role (system, user, assistant, tool) and str content")
    if not isinstance(calls, (list, tuple)) or not all(isinstance(c, Mapping) for c in calls):
        raise TypeError("tool_calls must be a list of dicts")
    call_id, name = item.get("tool_call_id"), item.get("name")
    if (call_id is not None and not isinstance(call_id, str)) or (name is not None and not isinstance(name, str)):
        raise TypeError("tool_call_id and name must be strings")
    return Message(_ROLES[role], content, tuple(calls), call_id, name)


def as_messages(
    prompt: str | None,
    *,
    system: str | None,
    messages: Sequence[Mapping[str, Any] | Message] | None,
) -> list[Message]:
    """Normalize the ways a caller can say what to ask into a list of messages."""
    result: list[Message] = []
    if system is not None:
        if not isinstance(system, str):
            raise TypeError("system must be a str")
        result.append(Message("system", system))
    for item in messages or ():
        result.append(as_message(item))
    if prompt is not None:
        if not isinstance(prompt, str):
            raise TypeError("prompt must be a str")
        result.append(Message("user", prompt))
    if not any(m.role == "user" for m in result):
        raise ValueError("give a prompt or at least one user message")
    return result

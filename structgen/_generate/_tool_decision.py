"""Calling or answering in words (``tool_choice="auto"``): which tools a conversation is about,
and whether a proposed call is grounded in it.

Small models propose a call for almost any request, so the model's own wish to call decides
little (its likelihood barely tells relevant requests from irrelevant ones: docs/benchmarks.md).
Two checks on what the user wrote decide instead, both measured on BFCL's dev cases:

- **relevance**, before anything is generated: a tool is relevant when the user's words and
  the tool's own text (name, description, parameter names, descriptions and enum values)
  share a content word. Only relevant tools may be called. Text in another script than the
  tools' abstains: every tool counts as relevant.
- **grounding**, after each call is written: the call repeats no earlier call, and one of its
  argument values appears in what the user said or a tool returned (or the tool takes no
  arguments). When no tool is relevant, a call must be *fully* grounded: every value it
  chose appears there ("What is 12 plus 30?" for ``add(a, b)``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from .._backends._seam import Message
from .._tools._calls import ToolCall
from .._tools._tool import Tool

_STEM = 5  # words compare by their first letters once common suffixes are gone
_SUFFIXES = ("ing", "ed", "es", "s")
_STOP_WORDS = frozenset(
    "about also and any are can could did does for from get give have how into its may might "
    "must not now our please shall should show some tell than that the their them then there "
    "these they this those use using want was were what when where which who why will with "
    "would you your".split()
)


def said(conversation: Sequence[Message]) -> str:
    """What the user said and the tools returned, the text calls are grounded in."""
    return " ".join(m.content for m in conversation if m.role in ("user", "tool"))


def relevant_tools(tools: Sequence[Tool], conversation: Sequence[Message]) -> list[Tool]:
    """The tools the conversation is about (every tool when its script is not the tools')."""
    text = said(conversation)
    if _foreign_script(text):
        return list(tools)
    words = _content_words(text)
    return [t for t in tools if words & _content_words(_tool_text(t))]


def grounded(calls: Sequence[ToolCall], conversation: Sequence[Message], *, fully: bool = False) -> bool:
    """Whether some call is new and grounded in what the user said: it repeats no call made
    earlier in the conversation, and one of its argument values (a string or a number)
    appears in the user's messages and tool results, or its tool takes no arguments.

    ``fully``: every value the call chose appears there (a default or one of the values the
    schema lists is not chosen from the request), and there is at least one."""
    plain = _plain(said(conversation))
    made = {
        (c["function"]["name"], canonical(c["function"]["arguments"]))
        for m in conversation for c in m.tool_calls if isinstance(c.get("function"), dict)
    }
    for call in calls:
        if (call.name, canonical(call.text)) in made:
            continue
        properties = call.tool.parameters.get("properties") or {}
        keywords = call.tool.keywords(call.arguments) if call.arguments is not None else {}
        if fully:
            values = [v for name, value in keywords.items() if _chosen(properties.get(name), value)
                      for v in _leaves(value)]
            if values and all(value and value in plain for value in values):
                return True
        elif not properties or any(value and value in plain for value in _leaves(keywords)):
            return True
    return False


def _chosen(spec: Any, value: Any) -> bool:
    """Whether ``value`` was chosen from the request, not from the schema (its default, or
    one of the values it lists)."""
    if not isinstance(spec, dict):
        return True
    return not ("enum" in spec or "const" in spec or ("default" in spec and spec["default"] == value))


def canonical(arguments: Any) -> str:
    """Arguments (JSON text or a value) in one spelling, to tell repeated calls."""
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else arguments
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return str(arguments)


def _tool_text(tool: Tool) -> str:
    parts = [tool.name, tool.description]
    for name, spec in (tool.parameters.get("properties") or {}).items():
        if isinstance(spec, dict):
            parts += [name, str(spec.get("description", "")), *map(str, spec.get("enum") or ())]
    return " ".join(parts)


def _content_words(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()
    return {_stem(w) for w in re.findall(r"[a-z]{3,}", spaced) if w not in _STOP_WORDS}


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:_STEM]


def _foreign_script(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return sum(not c.isascii() for c in letters) * 2 > len(letters)


def _leaves(value: Any) -> Iterable[str]:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return [_plain(str(value))]


def _plain(text: str) -> str:
    return re.sub(r"[\s,./\-_*^'\"]+", "", text.lower())


__all__ = ["canonical", "grounded", "relevant_tools", "said"]

"""What the user said, in words: the request, what grounds a call, the words a request shares
with a tool, and the values a call chose.

Words compare by their stems (``_fitted.STEM``, ``SUFFIXES``), stop words aside. A value "was
heard" when at least half its words (all of a one- or two-word value) are whole words or numbers
of what was said, one of them not a stop word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ..._backends._seam import Message
from .._calls import ToolCall
from .._tool import Tool
from ._fitted import STEM, STOP_WORDS, SUFFIXES


def said(conversation: Sequence[Message], *, tool_results: bool = True) -> str:
    """The request: the latest user message and the tool results after it (words of older
    turns no longer make a tool relevant)."""
    roles = ("user", "tool") if tool_results else ("user",)
    return " ".join(m.content for m in conversation[latest_request(conversation):] if m.role in roles)


def heard_in(conversation: Sequence[Message]) -> str:
    """What calls are grounded in: every user message and tool result of the conversation, so
    that a value an earlier turn said or a tool returned grounds a call of a later step."""
    return " ".join(m.content for m in conversation if m.role in ("user", "tool"))


def latest_request(conversation: Sequence[Message]) -> int:
    return max((i for i, m in enumerate(conversation) if m.role == "user"), default=0)


def shared_words(text: str, tool: Tool) -> int:
    """How many content words (by stem) ``text`` shares with the tool's own text."""
    return len(content_words(text) & content_words(tool_text(tool)))


def relevant_tools(tools: Sequence[Tool], conversation: Sequence[Message]) -> list[Tool]:
    """The tools the conversation is about (every tool when its script is not the tools')."""
    text = said(conversation)
    if _foreign_script(text):
        return list(tools)
    asked = content_words(text)
    return [t for t in tools if asked & content_words(tool_text(t))]


def adds(value: str, heard: frozenset[str], used: set[str]) -> bool:
    """Whether ``value`` holds a said word (not a stop word) that no earlier call chose."""
    return any(w in heard and w not in STOP_WORDS and w not in used for w in word_list(value))


def chosen_values(call: ToolCall) -> list[str]:
    """The scalar values a call chose itself, as text (not the schema's defaults or listed
    values, not booleans)."""
    properties = call.tool.parameters.get("properties") or {}
    keywords = call.tool.keywords(call.arguments) if call.arguments is not None else {}
    return [leaf for name, value in keywords.items() if _chosen(properties.get(name), value)
            for leaf in _leaves(value)]


def was_heard(value: str, heard: frozenset[str]) -> bool:
    """Whether a value was said: at least half its words (all of a one- or two-word value),
    each a whole word or number of what was said, and one of them not a stop word."""
    words = word_list(value)
    hits = [w for w in words if w in heard]
    return bool(words) and 2 * len(hits) >= len(words) and (len(words) > 2 or len(hits) == len(words)) \
        and any(w not in STOP_WORDS for w in hits)


def _chosen(spec: Any, value: Any) -> bool:
    """Whether ``value`` was chosen from the request, not from the schema (its default, or
    one of the values it lists)."""
    if not isinstance(spec, dict):
        return True
    return not ("enum" in spec or "const" in spec or ("default" in spec and spec["default"] == value))


def tool_text(tool: Tool) -> str:
    """A tool's own words: name, description, and each parameter's name, description and
    listed values."""
    parts = [tool.name, tool.description]
    for name, spec in (tool.parameters.get("properties") or {}).items():
        if isinstance(spec, dict):
            parts += [name, str(spec.get("description", "")), *map(str, spec.get("enum") or ())]
    return " ".join(parts)


def content_words(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()
    return {_stem(w) for w in re.findall(r"[a-z]{3,}", spaced) if w not in STOP_WORDS}


def _stem(word: str) -> str:
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:STEM]


def _foreign_script(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return sum(not c.isascii() for c in letters) * 2 > len(letters)


def _leaves(value: Any) -> list[str]:
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
    return [str(value)]


# A placeholder spelled as an identifier ("Your_Email_To") is one word, which nobody said.
_WORD = re.compile(r"\d+(?:\.\d+)?|[^\W\d]+")


def word_list(text: str) -> list[str]:
    """Lower-case words and numbers (digit groups joined: "1,000" is 1000; "3.50" is 3.5)."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text.lower())
    return [_number(w) if w[0].isdigit() else w for w in _WORD.findall(text)]


def _number(word: str) -> str:
    return word.rstrip("0").rstrip(".") if "." in word else (word.lstrip("0") or "0")


def words(text: str) -> frozenset[str]:
    return frozenset(word_list(text))


__all__ = [
    "adds", "chosen_values", "content_words", "heard_in", "latest_request", "relevant_tools", "said",
    "shared_words", "tool_text", "was_heard", "word_list", "words",
]

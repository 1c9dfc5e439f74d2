"""Arguments copied from what was said: free string arguments limited to runs of the request's words.

A small model asked for ``get_stock_price(symbol)`` after "Where is IBM trading today?" tends to
write the example of the tool's own text (``"AAPL"``), not the company the user named. Under
``arguments="copied"`` each free string of a call — a ``"type": "string"`` schema with no
``enum``, ``const``, ``pattern`` or ``format`` — may only be a run of whole words of what was
said (:func:`._tool_decision.said`: the latest user message and the tool results after it),
punctuation trimmed at its two ends. The model still chooses which run; the grammar keeps it
from inventing one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from .._backends._seam import Message
from .._tools._tool import Tool
from ._tool_decision import said

ArgumentsName = Literal["auto", "free", "copied", "free_then_copied"]
ARGUMENTS: tuple[ArgumentsName, ...] = ("auto", "free", "copied", "free_then_copied")
#: "free_then_copied" where the turn's decision weighed whether the request asks for an action
#: (``decision="action"`` with its signal: that is where it was measured), "free" elsewhere:
#: without that signal a copied call would ground requests that only share a tool's topic.
DEFAULT_ARGUMENTS: ArgumentsName = "auto"

#: The longest run of words a copied string may be.
MAX_WORDS = 16
#: The most words of what was said that runs are taken from (the last ones are kept).
MAX_SOURCE_WORDS = 200

_EDGE = "\"'“”‘’()[]{}<>.,;:!?"
# Keywords that already limit a string; such a string is left as the schema says.
_LIMITED = ("enum", "const", "pattern", "format", "contentEncoding", "contentMediaType")
_VALUES = frozenset({"const", "enum", "default", "examples"})


def argument_tries(
    setting: ArgumentsName, tools: Sequence[Tool], conversation: Sequence[Message], *, action_weighed: bool = False,
) -> list[list[Tool]]:
    """The tools whose call grammars a turn tries in order, the next one only when the calls
    written under the one before were refused as not said: ``"free"``, the tools as they are;
    ``"copied"``, their free strings limited to runs of what was said; ``"free_then_copied"``,
    the first, then the second; ``"auto"``, ``"free_then_copied"`` when ``action_weighed`` (the
    decision weighed the action-or-answer signal), else ``"free"``."""
    if setting == "auto":
        setting = "free_then_copied" if action_weighed else "free"
    if setting == "free":
        return [list(tools)]
    copied = copied_tools(tools, said(conversation))
    if setting == "copied" or all(a is b for a, b in zip(copied, tools)):
        return [copied]
    return [list(tools), copied]


def copied_tools(tools: Sequence[Tool], said: str) -> list[Tool]:
    """``tools`` whose free strings may only be runs of words of ``said`` (a tool without free
    strings, or nothing said, is returned as it is)."""
    pattern = spans_pattern(said)
    if pattern is None:
        return list(tools)
    out = []
    for tool in tools:
        parameters = _limited(tool.parameters, pattern)
        out.append(tool if parameters == tool.parameters else replace(tool, parameters=parameters))
    return out


def spans_pattern(text: str) -> str | None:
    """A regular expression (JSON Schema's dialect) matching exactly the runs of 1 to
    :data:`MAX_WORDS` whole words of ``text``, joined by one space, with the punctuation at
    the run's two ends trimmed (None when ``text`` has no word)."""
    words = [w for w in text.split() if w.strip(_EDGE)][-MAX_SOURCE_WORDS:]
    if not words:
        return None
    starts = []
    for i in range(len(words)):
        last = min(len(words), i + MAX_WORDS) - 1
        starts.append(_run(words, i, last))
    return "^(?:" + "|".join(dict.fromkeys(starts)) + ")$"


def _run(words: list[str], i: int, last: int) -> str:
    """The runs that start at word ``i`` and end by word ``last``: the word alone, trimmed at
    both ends, or trimmed at its start and followed by :func:`_tail`."""
    alone = _escape(words[i].strip(_EDGE))
    if i == last:
        return alone
    return f"(?:{alone}|{_escape(words[i].lstrip(_EDGE))} {_tail(words, i + 1, last)})"


def _tail(words: list[str], k: int, last: int) -> str:
    """Words ``k`` to ``j`` for any ``j`` up to ``last``, the last one trimmed at its end."""
    rest = _escape(words[last].rstrip(_EDGE))
    for m in range(last - 1, k - 1, -1):
        word, trimmed = _escape(words[m]), _escape(words[m].rstrip(_EDGE))
        rest = f"{word}(?: {rest})?" if word == trimmed else f"(?:{trimmed}|{word} {rest})"
    return rest


def _escape(word: str) -> str:
    return re.sub(r"([\\^$.|?*+()\[\]{}/])", r"\\\1", word)


def _limited(schema: Any, pattern: str) -> Any:
    if isinstance(schema, list):
        return [_limited(item, pattern) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: value if key in _VALUES else _limited(value, pattern) for key, value in schema.items()}
    if out.get("type") == "string" and not any(key in out for key in _LIMITED):
        out["pattern"] = pattern
    return out


__all__ = ["ARGUMENTS", "DEFAULT_ARGUMENTS", "ArgumentsName", "argument_tries", "MAX_SOURCE_WORDS", "MAX_WORDS", "copied_tools", "spans_pattern"]

"""The call grammar's arguments: the grammar phase's rules that limit what a call may write
(``_phases.GrammarHook``), and the schema rewrites they apply.

- ``listed_values="named"``: a small model copies the first value a tool listing shows (asked
  for the weather "in fahrenheit", it writes ``unit="celsius"``). Where the latest user message
  names exactly one of a parameter's listed values (:func:`named_tools`), that value is the only
  one the grammar allows there, and the parameter is written even when optional. The request
  must say it as whole words, and the value must belong to no other parameter of the tool
  ("convert 300 kelvin" names a value of both ``from_unit`` and ``to_unit``).
- ``arguments="copied"``: a small model asked for ``get_stock_price(symbol)`` after "Where is IBM
  trading today?" tends to write the example of the tool's own text. Each free string — a
  ``"type": "string"`` schema with no ``enum``, ``const``, ``pattern`` or ``format`` — may then
  only be a run of whole words of what was said (:func:`_words.said`), punctuation trimmed at
  its two ends (:func:`copied_tools`). ``"free_then_copied"`` tries the free grammar first and the
  copied one where the free calls were refused; ``"auto"`` is that where the request was
  weighed as asking for an action, ``"free"`` elsewhere.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from .._tool import FINAL_TOOL, Tool
from ._fitted import MAX_SOURCE_WORDS, MAX_WORDS, SHORT_WORDS, STOP_WORDS
from ._phases import CallShape, TurnContext
from ._words import said, word_list

_EDGE = "\"'“”‘’()[]{}<>.,;:!?"
# Keywords that already limit a string; such a string is left as the schema says.
_LIMITED = ("enum", "const", "pattern", "format", "contentEncoding", "contentMediaType")
_VALUES = frozenset({"const", "enum", "default", "examples"})


# -- listed_values -------------------------------------------------------------------------------


def named_values(turn: TurnContext, shape: CallShape) -> CallShape:
    """Where the latest user message names exactly one of a parameter's listed values, only that
    one (:func:`named_tools`; tool results do not count)."""
    request = said(turn.conversation, tool_results=False)
    return replace(shape, tries=tuple(tuple(named_tools(tools, request)) for tools in shape.tries))


def any_value(turn: TurnContext, shape: CallShape) -> CallShape:
    """Every value the schema lists: the model picks."""
    return shape


# -- arguments -----------------------------------------------------------------------------------


def _each_try(shape: CallShape, tries: Callable[[Sequence[Tool]], list[Sequence[Tool]]]) -> CallShape:
    return replace(shape, tries=tuple(tuple(tools) for one in shape.tries for tools in tries(one)))


def free_arguments(turn: TurnContext, shape: CallShape) -> CallShape:
    """The tools as they are."""
    return shape


def copied_arguments(turn: TurnContext, shape: CallShape) -> CallShape:
    """The tools with their free strings limited to runs of what was said."""
    heard = said(turn.conversation)
    return _each_try(shape, lambda tools: [copied_tools(tools, heard)])


def free_then_copied_arguments(turn: TurnContext, shape: CallShape) -> CallShape:
    """The tools as they are, then copied (once, where copying changes no tool)."""
    heard = said(turn.conversation)

    def tries(tools: Sequence[Tool]) -> list[Sequence[Tool]]:
        copied = copied_tools(tools, heard)
        return [copied] if all(a is b for a, b in zip(copied, tools)) else [tools, copied]

    return _each_try(shape, tries)


def auto_arguments(turn: TurnContext, shape: CallShape) -> CallShape:
    """:func:`free_then_copied_arguments` where the decision weighed the action-or-answer signal
    and the request asks for an action, else :func:`free_arguments` (a copied call would ground
    requests that only share a tool's topic)."""
    return (free_then_copied_arguments if turn.plan.asks_action else free_arguments)(turn, shape)


# -- the schema rewrites -------------------------------------------------------------------------


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


def named_tools(tools: Sequence[Tool], said: str) -> list[Tool]:
    """``tools`` where each parameter with listed values, exactly one of which ``said`` names,
    allows only that value and is required (a tool naming none is returned as it is, and so is
    ``run_tools``' final answer: "Is this review positive?" names a value it must judge)."""
    heard = word_list(said.replace("_", " "))
    out = []
    for tool in tools:
        parameters = tool.parameters if tool.name == FINAL_TOOL else _narrowed(tool.parameters, heard)
        out.append(tool if parameters is tool.parameters else replace(tool, parameters=parameters))
    return out


def _narrowed(parameters: dict[str, Any], heard: list[str]) -> dict[str, Any]:
    sites = list(_listed(parameters, parameters, (), None, ()))
    lists = Counter(value for _, _, values, _ in sites for value in set(values))
    uses = Counter(_refs(parameters))
    picks = []
    for path, field, values, refs in sites:
        named = [value for value in values if _names(heard, value)]
        # A definition used elsewhere too (an array's items, another property) stays as it is.
        if len(named) == 1 and lists[named[0]] == 1 and all(uses[ref] == 1 for ref in refs):
            picks.append((path, field, named[0]))
    if not picks:
        return parameters
    out = copy.deepcopy(parameters)
    for path, field, value in picks:
        _at(out, path)["enum"] = [value]
        if field is not None:
            holder = _at(out, field[0])
            required = holder.get("required") or []
            if field[1] not in required:
                holder["required"] = [*required, field[1]]
    return out


def _listed(
    root: dict[str, Any], node: Any, path: tuple[Any, ...], field: tuple[tuple[Any, ...], str] | None,
    refs: tuple[str, ...],
) -> Iterator[tuple[tuple[Any, ...], tuple[tuple[Any, ...], str] | None, list[str], tuple[str, ...]]]:
    """(path of a string enum, (path of its object, property name) or None, its values, the
    ``$ref`` it was reached through), for every enum an object property holds (through ``$ref``, ``anyOf``, ``oneOf``, ``allOf``;
    not inside arrays, whose items may each take another value)."""
    if not isinstance(node, dict):
        return
    enum = node.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        yield path, field, enum, refs
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/") and ref not in refs:
        target: Any = root
        steps = tuple(step.replace("~1", "/").replace("~0", "~") for step in ref[2:].split("/"))
        for step in steps:
            target = target.get(step) if isinstance(target, dict) else None
        yield from _listed(root, target, steps, field, (*refs, ref))
    for keyword in ("anyOf", "oneOf", "allOf"):
        for i, branch in enumerate(node.get(keyword) or ()):
            yield from _listed(root, branch, (*path, keyword, i), field, refs)
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, spec in properties.items():
            yield from _listed(root, spec, (*path, "properties", name), (path, name), refs)


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _names(heard: list[str], value: str) -> bool:
    """Whether ``heard`` (words) says ``value`` as whole words; a value of only stop words,
    short function words, numbers or single letters is never said (too easily said by chance)."""
    words = word_list(value.replace("_", " "))
    if not any(len(w) > 1 and not w[0].isdigit() and w not in STOP_WORDS and w not in SHORT_WORDS for w in words):
        return False
    n = len(words)
    return any(heard[i : i + n] == words for i in range(len(heard) - n + 1))


def _at(schema: dict[str, Any], path: tuple[Any, ...]) -> Any:
    node: Any = schema
    for step in path:
        node = node[step]
    return node


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


__all__ = [
    "any_value", "auto_arguments", "copied_arguments", "copied_tools", "free_arguments", "free_then_copied_arguments",
    "named_tools", "named_values", "spans_pattern",
]

"""What the user said, and the two word-level checks of a tool turn: which tools a request
shares words with, and whether a proposed call is grounded in what was said.

- **words shared**: a request and a tool's own text (name, description, parameter names,
  descriptions and enum values) compared by the stems of their content words. The ``"words"``
  decision lets only such tools be called (text in another script than the tools' abstains:
  every tool counts); ``"meaning"`` counts shared words as one signal among others
  (``_gate``).
- **grounding**, after each call is written: the call repeats no call made since the latest
  user message, and a value it chose itself (not a default, not one the schema lists) appears
  as whole words or numbers in what the conversation has said: any user message or tool
  result (:func:`heard_in`: a file name an earlier ``ls`` returned, a booking id from an earlier
  turn), or the tool takes no arguments; a later call of a tool in the same turn also adds a
  said word no earlier call of that tool chose.
  *Fully* grounded: every value it chose appears there ("What is 12 plus 30?" for ``add(a, b)``).
  Whether a turn's first call is checked so is the ``grounding`` rule (:data:`GROUNDINGS`); its
  later calls are judged by the ``offered_call`` rule (``_later_calls``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from ..._backends._seam import Message
from .._calls import FAILED, ToolCall
from .._tool import Tool

_STEM = 5  # words compare by their first letters once common suffixes are gone
_SUFFIXES = ("ing", "ed", "es", "s")
STOP_WORDS = frozenset(
    "about also and any are can could did does for from get give have how into its may might "
    "must not now our please shall should show some tell than that the their them then there "
    "these they this those use using want was were what when where which who why will with "
    "would you your".split()
)


def said(conversation: Sequence[Message], *, tool_results: bool = True) -> str:
    """The request: the latest user message and the tool results after it (words of older
    turns no longer make a tool relevant)."""
    roles = ("user", "tool") if tool_results else ("user",)
    return " ".join(m.content for m in conversation[_latest_request(conversation):] if m.role in roles)


def heard_in(conversation: Sequence[Message]) -> str:
    """What calls are grounded in: every user message and tool result of the conversation, so
    that a value an earlier turn said or a tool returned grounds a call of a later step."""
    return " ".join(m.content for m in conversation if m.role in ("user", "tool"))


def _latest_request(conversation: Sequence[Message]) -> int:
    return max((i for i, m in enumerate(conversation) if m.role == "user"), default=0)


def made_since_request(conversation: Sequence[Message]) -> set[CallKey]:
    """The calls made since the latest user message, but those whose tool raised (a call that
    failed may be made again as it was: the failure may have been passing)."""
    recent = conversation[_latest_request(conversation):]
    failed = {m.tool_call_id for m in recent if m.role == "tool" and m.content.startswith(FAILED)}
    return {
        call_key(c["function"]["name"], c["function"]["arguments"])
        for m in recent for c in m.tool_calls
        if isinstance(c.get("function"), dict) and c.get("id") not in failed
    }


def shared_words(text: str, tool: Tool) -> int:
    """How many content words (by stem) ``text`` shares with the tool's own text."""
    return len(_content_words(text) & _content_words(tool_text(tool)))


def relevant_tools(tools: Sequence[Tool], conversation: Sequence[Message]) -> list[Tool]:
    """The tools the conversation is about (every tool when its script is not the tools')."""
    text = said(conversation)
    if _foreign_script(text):
        return list(tools)
    words = _content_words(text)
    return [t for t in tools if words & _content_words(tool_text(t))]


def grounded(
    calls: Sequence[ToolCall], conversation: Sequence[Message], *, fully: bool = False,
    earlier: Sequence[ToolCall] = (), across_tools: bool = False,
) -> bool:
    """Whether some call is new and grounded in what was said (:func:`heard_in`): it repeats no
    call made since the latest user message (but one whose tool raised), and one of the values it chose appears there as
    whole words or numbers (or its tool takes no arguments). A value the schema supplied —
    the parameter's default, or one of the values it lists — was not chosen and counts for
    nothing.

    ``fully``: every value the call chose appears there, and there is at least one.
    ``earlier``: the calls the same turn made before; a call after some of the same tool must
    also add a word of the latest request (or a tool result since) none of those chose (a
    second call that only changes a listed value, or repeats part of a place an earlier call
    named, adds nothing the user asked for; another tool may take the same values: "the median
    and the variance of 3, 4, 5"). With
    ``across_tools`` the word must be new to every earlier call, whatever its tool."""
    heard = _words(heard_in(conversation))
    asked = _words(said(conversation))
    made = made_since_request(conversation)
    for call in calls:
        if call_key(call.name, call.text) in made:
            continue
        properties = call.tool.parameters.get("properties") or {}
        if not properties:
            return True
        values = chosen_values(call)
        found = [_heard(value, heard) for value in values]
        if not ((all(found) and values) if fully else any(found)):
            continue
        before = [c for c in earlier if across_tools or c.name == call.name]
        if not before:
            return True
        # A later call of the turn must add a word of this request (or a result since): words of
        # earlier turns ground a call, but do not make a second one asked for.
        used = {w for c in before for value in chosen_values(c) for w in word_list(value)}
        if any(ok and _adds(value, asked, used) for value, ok in zip(values, found)):
            return True
    return False


def said_grounding(calls: Sequence[ToolCall], conversation: Sequence[Message], fully: bool) -> bool:
    """:func:`grounded`: some call chose a value that was said (every value, with ``fully``)."""
    return grounded(calls, conversation, fully=fully)


def no_grounding(calls: Sequence[ToolCall], conversation: Sequence[Message], fully: bool) -> bool:
    """Every call is kept as written."""
    return True


GroundingName = Literal["said", "off"]
"""Whether a turn's first call is kept only where it chose a value that was said (see ``Policy``)."""
#: ``rule(calls, conversation, fully)``: whether a turn whose decision checks its calls keeps
#: ``calls`` (its first, as it streams; all of them, once written), one small function per
#: ``grounding`` value. A decision that checks none (a call required, the model's own) is not asked.
GroundingRule = Callable[[Sequence[ToolCall], Sequence[Message], bool], bool]
GROUNDINGS: dict[GroundingName, GroundingRule] = {"said": said_grounding, "off": no_grounding}


def names_another_tool(call: ToolCall, earlier: Sequence[ToolCall], conversation: Sequence[Message]) -> bool:
    """Whether the latest request names ``call``'s tool by a content word (by stem) that no
    tool called by ``earlier`` has: after ``final_velocity``, "Also, compute the total distance"
    names ``distance_traveled``, which may take the same values."""
    heard = _content_words(said(conversation, tool_results=False))
    theirs: set[str] = set().union(*(_content_words(tool_text(c.tool)) for c in earlier))
    return bool(_content_words(tool_text(call.tool)) & heard - theirs)


def _adds(value: str, heard: frozenset[str], used: set[str]) -> bool:
    """Whether ``value`` holds a said word (not a stop word) that no earlier call chose."""
    return any(w in heard and w not in STOP_WORDS and w not in used for w in word_list(value))


def chosen_values(call: ToolCall) -> list[str]:
    """The scalar values a call chose itself, as text (not the schema's defaults or listed
    values, not booleans)."""
    properties = call.tool.parameters.get("properties") or {}
    keywords = call.tool.keywords(call.arguments) if call.arguments is not None else {}
    return [leaf for name, value in keywords.items() if _chosen(properties.get(name), value)
            for leaf in _leaves(value)]


def _heard(value: str, heard: frozenset[str]) -> bool:
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


def canonical(arguments: Any) -> str:
    """Arguments (JSON text or a value) in one spelling, to tell repeated calls."""
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else arguments
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return str(arguments)


CallKey = tuple[str, str]


def call_key(name: str, arguments: Any) -> CallKey:
    """What tells a call from another: its tool's name and its arguments in one spelling."""
    return name, canonical(arguments)


def tool_text(tool: Tool) -> str:
    """A tool's own words: name, description, and each parameter's name, description and
    listed values."""
    parts = [tool.name, tool.description]
    for name, spec in (tool.parameters.get("properties") or {}).items():
        if isinstance(spec, dict):
            parts += [name, str(spec.get("description", "")), *map(str, spec.get("enum") or ())]
    return " ".join(parts)


def _content_words(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()
    return {_stem(w) for w in re.findall(r"[a-z]{3,}", spaced) if w not in STOP_WORDS}


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:_STEM]


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


def _words(text: str) -> frozenset[str]:
    return frozenset(word_list(text))


__all__ = [
    "CallKey", "GROUNDINGS", "GroundingName", "GroundingRule", "STOP_WORDS", "call_key", "canonical", "chosen_values",
    "grounded", "heard_in", "made_since_request", "names_another_tool", "no_grounding", "relevant_tools", "said",
    "said_grounding", "shared_words", "tool_text", "word_list",
]

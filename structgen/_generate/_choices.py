"""Positions in a JSON answer whose value is one of a few whole alternatives.

A small model under a grammar picks a value by its first token, which goes wrong when the
alternatives differ late ("get_weather" vs "get_time"). For positions where the schema leaves
only a few spellings (Literal/Enum values, const discriminators, the opening of each branch of a
union of objects, the refusal branch), the sampler can instead score every alternative by its
full likelihood. This module finds those positions in a JSON Schema (:func:`choice_table`) and
tracks where a growing JSON text stands (:class:`JsonCursor`).

A path is a tuple of property names and ``None`` for "any array item".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Path = tuple[str | None, ...]


@dataclass(frozen=True)
class Alternative:
    """One spelling a value may start with. ``complete``: the whole value, not just its opening.

    ``cues`` are natural-language openings that express the same intent: a small model that would
    say "I'm sorry" cannot say it under a JSON grammar, so the refusal branch also counts the
    likelihood of its usual refusal phrases, and when it is chosen, the most likely of them
    opens its free text (the reason), which the model then continues.

    ``per_token`` alternatives are compared by their mean log-likelihood per token: the total
    favours short spellings, which decides between tool names more by length than by meaning.
    """

    text: str
    complete: bool
    cues: tuple[str, ...] = ()
    per_token: bool = False  # scored by mean log-likelihood per token (names of unequal length)


#: How models usually begin a refusal (scored for the refusal branch; the likeliest opens the reason).
REFUSAL_CUES = ("I'm sorry", "Sorry", "I cannot", "I can't", "I am unable", "Unfortunately")


ChoiceTable = Mapping[Path, tuple[Alternative, ...]]

_FREE = object()  # marks a path where some branch allows unboundedly many values


def choice_table(
    schema: Mapping[str, Any], *, separators: tuple[str, str], refusal: bool
) -> dict[Path, tuple[Alternative, ...]]:
    """Every path of ``schema`` whose value opens with one of at least two known spellings.

    ``separators`` are the (item, key) separators of the grammar's whitespace mode; objects are
    assumed closed (no undeclared keys), as ``Grammar.from_type`` makes them.
    """
    walker = _Walker(schema, separators)
    found: dict[Path, Any] = {}
    walker.collect(schema, (), found, depth=0)
    if refusal:
        root = walker.openers(schema, depth=0)
        opener = Alternative("{" + json.dumps("refusal") + separators[1], False, REFUSAL_CUES)
        found[()] = _FREE if root is None else (*root, opener)
    table: dict[Path, tuple[Alternative, ...]] = {}
    for path, alts in found.items():
        if alts is _FREE:
            continue
        unique = tuple({a.text: a for a in alts}.values())
        if len(unique) >= 2:
            table[path] = unique
    return table


class _Walker:
    def __init__(self, root: Mapping[str, Any], separators: tuple[str, str]) -> None:
        self.root = root
        self.item_sep, self.key_sep = separators

    def resolve(self, schema: Any) -> Mapping[str, Any]:
        seen = 0
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and seen < 32:
            ref = schema["$ref"]
            if not ref.startswith("#"):
                return {}
            target: Any = self.root
            for part in ref[1:].split("/")[1:]:
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, Mapping) else None
            schema, seen = target, seen + 1
        if isinstance(schema, Mapping) and isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            return {**self.resolve(schema["allOf"][0]), **merged}
        return schema if isinstance(schema, Mapping) else {}

    def spell(self, value: Any) -> str:
        return json.dumps(value, separators=(self.item_sep, self.key_sep))

    def openers(self, schema: Any, depth: int) -> list[Alternative] | None:
        """The finite set of ways a value of ``schema`` starts, or None if not finite."""
        node = self.resolve(schema)
        if depth > 16:
            return None
        if "const" in node:
            return [Alternative(self.spell(node["const"]), True)]
        if isinstance(node.get("enum"), list):
            return [Alternative(self.spell(v), True) for v in node["enum"]]
        branches = node.get("anyOf") or node.get("oneOf")
        if isinstance(branches, list):
            result: list[Alternative] = []
            for branch in branches:
                more = self.openers(branch, depth + 1)
                if more is None:
                    return None
                result.extend(more)
            return result
        kind = node.get("type")
        if kind == "null":
            return [Alternative("null", True)]
        if kind == "boolean":
            return [Alternative("true", True), Alternative("false", True)]
        if kind == "object" and isinstance(node.get("properties"), Mapping):
            return self._object_openers(node)
        return None

    def _object_openers(self, node: Mapping[str, Any]) -> list[Alternative]:
        required = set(node.get("required") or ())
        result: list[Alternative] = []
        for name in node["properties"]:
            result.append(Alternative("{" + json.dumps(name) + self.key_sep, False))
            if name in required:
                return result
        result.append(Alternative("{}", True))
        return result

    def collect(self, schema: Any, path: Path, found: dict[Path, Any], depth: int) -> None:
        if depth > 16:
            return
        node = self.resolve(schema)
        alts = self.openers(node, depth)
        previous = found.get(path)
        if alts is None:
            found[path] = _FREE
        elif previous is not _FREE:
            found[path] = (*(previous or ()), *alts)
        for branch in node.get("anyOf") or node.get("oneOf") or ():
            self.collect(branch, path, found, depth + 1)
        props = node.get("properties")
        if isinstance(props, Mapping):
            for name, sub in props.items():
                self.collect(sub, (*path, name), found, depth + 1)
        if "items" in node and isinstance(node["items"], Mapping):
            self.collect(node["items"], (*path, None), found, depth + 1)


class JsonCursor:
    """Follows a JSON text as it grows and says where a value is about to start.

    It trusts the text to be a prefix of valid JSON (the grammar guarantees that) and only
    tracks nesting, keys and string state. ``closed`` lists the top-level members completed
    so far (keys of a root object, indices of a root array), for streaming.
    """

    def __init__(self) -> None:
        self._frames: list[list[Any]] = []  # [kind, key-or-index, expecting_value]
        self._in_string = False
        self._escape = False
        self._string_is_key = False
        self._key_chars: list[str] = []
        self._pending_key: str | None = None
        self._expect_value = True
        self._in_scalar = False
        self.closed: list[str | int] = []
        self.done = False

    def copy(self) -> JsonCursor:
        twin = JsonCursor.__new__(JsonCursor)
        twin.__dict__.update(self.__dict__)
        twin._frames = [list(f) for f in self._frames]
        twin._key_chars = list(self._key_chars)
        twin.closed = list(self.closed)
        return twin

    def feed(self, text: str) -> None:
        for ch in text:
            self._feed_char(ch)

    @property
    def value_path(self) -> Path | None:
        """The path of the value that may start at the next character (whitespace may still
        come first), or None."""
        if not self._expect_value or self._in_string or self._in_scalar or self.done:
            return None
        return tuple(None if f[0] == "arr" else f[1] for f in self._frames)

    def _reopen(self) -> None:
        """A container opening after the top-level value ended starts a new value: tool-call
        formats write several top-level JSON values, with plain text between them."""
        if not self._frames and self.done:
            self.done = False
            self.closed = []

    def _close_value(self) -> None:
        self._in_scalar = False
        self._expect_value = False
        if len(self._frames) == 1:
            frame = self._frames[0]
            self.closed.append(frame[1])
        if not self._frames:
            self.done = True

    def _feed_char(self, ch: str) -> None:
        if self._in_string:
            if self._escape:
                self._escape = False
            elif ch == "\\":
                self._escape = True
            elif ch == '"':
                self._in_string = False
                if self._string_is_key:
                    self._pending_key = json.loads('"' + "".join(self._key_chars) + '"')
                    return
                self._close_value()
                return
            if self._string_is_key:
                self._key_chars.append(ch)
            return
        if self._in_scalar and (ch.isalnum() or ch in "+-."):
            return
        if self._in_scalar:
            self._close_value()
        if ch in " \t\r\n":
            return
        top = self._frames[-1] if self._frames else None
        if ch == '"':
            self._in_string = True
            self._string_is_key = top is not None and top[0] == "obj" and not self._expect_value
            self._key_chars = []
            if not self._string_is_key:
                self._expect_value = False
        elif ch == ":" and top is not None:
            top[1] = self._pending_key
            self._expect_value = True
        elif ch == ",":
            if top is not None and top[0] == "arr":
                top[1] += 1
                self._expect_value = True
        elif ch == "{":
            self._reopen()
            self._frames.append(["obj", None])
            self._expect_value = False
        elif ch == "[":
            self._reopen()
            self._frames.append(["arr", 0])
            self._expect_value = True
        elif ch in "}]":
            if self._frames:
                self._frames.pop()
            self._close_value()
        else:
            self._in_scalar = True
            self._expect_value = False

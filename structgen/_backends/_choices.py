"""Positions in a JSON answer whose value is one of a few whole alternatives, and a cursor
that follows a growing JSON text.

A small model under a grammar picks a value by its first token, which goes wrong when the
alternatives differ late ("get_weather" vs "get_time"). For positions where the schema leaves
only a few spellings (Literal/Enum values, const discriminators, the opening of each branch of a
union of objects, the refusal branch), the sampler can instead score every alternative by its
full likelihood. A :class:`ChoiceTable` names those positions (the front end builds it from a
JSON Schema); :class:`JsonCursor` tracks where a growing JSON text stands, including which keys
and items each open container already holds, so the sampler can refuse to write one twice
(:class:`MemberRules`). The table and the rules are values of the backend seam
(``_seam``): they travel in a :class:`~structgen.backends.CompletionRequest`.
"""

from __future__ import annotations

import json
from typing import Any

from ._seam import Alternative, ChoiceTable, JsonPath, MemberRules

class _Frame:
    """One open container: its kind, the current key or index, and the members seen in it."""

    __slots__ = ("kind", "at", "path", "seen", "unique", "limit")

    def __init__(self, kind: str, path: JsonPath, rules: MemberRules) -> None:
        self.kind = kind  # "obj" or "arr"
        self.at: str | int | None = None if kind == "obj" else 0
        self.path = path
        self.seen: set[Any] = set()  # keys of an object; scalar items of a unique array
        self.unique = kind == "obj" or path in rules.unique
        self.limit = rules.finite.get(path)

    def copy(self) -> _Frame:
        twin = _Frame.__new__(_Frame)
        twin.kind, twin.at, twin.path, twin.unique, twin.limit = (
            self.kind, self.at, self.path, self.unique, self.limit)
        twin.seen = set(self.seen)
        return twin


_NO_RULES = MemberRules()


class JsonCursor:
    """Follows a JSON text as it grows and says where a value is about to start.

    It trusts the text to be a prefix of valid JSON (the grammar guarantees that) and only
    tracks nesting, keys, string state and what each container holds. ``closed`` lists the
    top-level members completed so far (keys of a root object, indices of a root array), for
    streaming. ``repeated`` describes the first member written twice against ``rules`` (a key
    closed that its object already has, say), or is None.
    """

    def __init__(self, rules: MemberRules = _NO_RULES) -> None:
        self.rules = rules
        self._frames: list[_Frame] = []
        self._in_string = False
        self._escape = False
        self._string_is_key = False
        self._capture = False  # the current string or scalar is a key or a unique array's item
        self._chars: list[str] = []
        self._pending_key: str | None = None
        self._expect_value = True
        self._in_scalar = False
        self.closed: list[str | int] = []
        self.done = False
        self.repeated: str | None = None
        self._watch = 0  # see separates()
        self._watched = False
        self._low = 0  # the fewest open containers since take_low_depth()

    def copy(self) -> JsonCursor:
        twin = JsonCursor.__new__(JsonCursor)
        twin.__dict__.update(self.__dict__)
        twin._frames = [f.copy() for f in self._frames]
        twin._chars = list(self._chars)
        twin.closed = list(self.closed)
        return twin

    def feed(self, text: str) -> None:
        for ch in text:
            self._feed_char(ch)

    def would_repeat(self, text: str) -> bool:
        """Whether appending ``text`` would write a member twice (see ``repeated``)."""
        if not self._frames or not text:
            return False
        if '"' not in text and "," not in text and not (self._in_scalar and self._capture):
            return False  # completes no key or item and opens no member
        probe = self.copy()
        probe.repeated = None
        probe.feed(text)
        return probe.repeated is not None

    def separates(self, text: str, depth: int) -> bool:
        """Whether appending ``text`` would write a ``,`` between members of the container at
        ``depth`` (1 for the root container)."""
        if "," not in text:
            return False
        probe = self.copy()
        probe._watch = depth
        probe.feed(text)
        return probe._watched

    @property
    def value_path(self) -> JsonPath | None:
        """The path of the value that may start at the next character (whitespace may still
        come first), or None."""
        if not self._expect_value or self._in_string or self._in_scalar or self.done:
            return None
        return self._path()

    @property
    def pointer(self) -> str:
        """The JSON pointer of where the text stands (the innermost key or item being written)."""
        return _pointer(self._frames)

    @property
    def container_pointer(self) -> str:
        """The JSON pointer of the innermost open container."""
        return _pointer(self._frames[:-1]) or "/"

    def container_at(self, depth: int) -> tuple[object, str]:
        """The open container at ``depth`` (1 for the root), as a token for :meth:`holds`, and
        its JSON pointer."""
        return self._frames[depth - 1], _pointer(self._frames[: depth - 1]) or "/"

    def holds(self, container: object) -> bool:
        """Whether ``container`` (from :meth:`container_at`) is still open."""
        return any(frame is container for frame in self._frames)

    def take_low_depth(self) -> int:
        """The fewest containers open at any point since the last call (or the start): a
        container closed and another opened within one piece of text still counts."""
        low, self._low = min(self._low, len(self._frames)), len(self._frames)
        return low

    @property
    def in_value_string(self) -> bool:
        """Whether the text stands inside a string that is a value, not a key."""
        return self._in_string and not self._string_is_key

    @property
    def in_key(self) -> bool:
        """Whether the text stands inside an object's key."""
        return self._in_string and self._string_is_key

    @property
    def closing_bracket(self) -> str | None:
        """The character that closes the innermost open container."""
        if not self._frames:
            return None
        return "}" if self._frames[-1].kind == "obj" else "]"

    @property
    def depth(self) -> int:
        return len(self._frames)

    def _path(self) -> JsonPath:
        return tuple(None if f.kind == "arr" else f.at for f in self._frames)  # type: ignore[misc]

    def _reopen(self) -> None:
        """A container opening after the top-level value ended starts a new value: tool-call
        formats write several top-level JSON values, with plain text between them."""
        if not self._frames and self.done:
            self.done = False
            self.closed = []

    def _close_value(self, item: Any = None) -> None:
        self._in_scalar = False
        self._expect_value = False
        if self._capture:
            self._capture = False
            top = self._frames[-1]
            if item is None:
                item = ("value", "".join(self._chars))
            self._remember(top, item, f"item {item[1]!r}")
        if len(self._frames) == 1:
            self.closed.append(self._frames[0].at)  # type: ignore[arg-type]
        if not self._frames:
            self.done = True

    def _remember(self, frame: _Frame, member: Any, what: str) -> None:
        if member in frame.seen:
            self.repeated = self.repeated or f"{what} written twice in {self.container_pointer}"
        frame.seen.add(member)

    def _start_member(self, frame: _Frame) -> None:
        """A ``,`` opens another member: a repeat if the finite set of members is used up."""
        if frame.limit is not None and len(frame.seen) >= frame.limit:
            self.repeated = self.repeated or (
                f"all {frame.limit} possible members already written in {self.container_pointer}")

    def _feed_char(self, ch: str) -> None:
        if self._in_string:
            if self._escape:
                self._escape = False
            elif ch == "\\":
                self._escape = True
            elif ch == '"':
                self._in_string = False
                text = "".join(self._chars)
                if self._string_is_key:
                    self._pending_key = json.loads('"' + text + '"')
                    self._capture = False
                    if self._pending_key in self._frames[-1].seen:
                        self.repeated = self.repeated or (
                            f"key {self._pending_key!r} written twice in {self.container_pointer}")
                    return
                self._close_value(("string", json.loads('"' + text + '"')) if self._capture else None)
                return
            if self._capture:
                self._chars.append(ch)
            return
        if self._in_scalar and (ch.isalnum() or ch in "+-."):
            if self._capture:
                self._chars.append(ch)
            return
        if self._in_scalar:
            self._close_value(_scalar("".join(self._chars)) if self._capture else None)
        if ch in " \t\r\n":
            return
        top = self._frames[-1] if self._frames else None
        if ch == '"':
            self._in_string = True
            self._string_is_key = top is not None and top.kind == "obj" and not self._expect_value
            self._capture = self._string_is_key or self._captures_item(top)
            self._chars = []
            if not self._string_is_key:
                self._expect_value = False
        elif ch == ":" and top is not None:
            top.at = self._pending_key
            top.seen.add(self._pending_key)
            self._expect_value = True
        elif ch == ",":
            if len(self._frames) == self._watch:
                self._watched = True
            if top is not None:
                self._start_member(top)
                if top.kind == "arr":
                    top.at = top.at + 1  # type: ignore[operator]
                    self._expect_value = True
        elif ch in "{[":
            self._reopen()
            path = self._path() if self._frames else ()
            self._frames.append(_Frame("obj" if ch == "{" else "arr", path, self.rules))
            self._expect_value = ch == "["
        elif ch in "}]":
            if self._frames:
                self._frames.pop()
                self._low = min(self._low, len(self._frames))
            self._close_value()
        else:
            self._in_scalar = True
            self._expect_value = False
            self._capture = self._captures_item(top)
            self._chars = [ch]

    def _captures_item(self, top: _Frame | None) -> bool:
        return top is not None and top.kind == "arr" and top.unique


def _pointer(frames: list[_Frame]) -> str:
    from .._pointers import escape_pointer_token

    parts = [escape_pointer_token(str(f.at)) for f in frames if f.at is not None]
    return "/" + "/".join(parts) if parts else ""


def _scalar(text: str) -> Any:
    """How a scalar item is compared: numbers by value (``1`` and ``1.0`` are one set member)."""
    try:
        return ("number", float(text)) if text[:1] in "-0123456789" else ("literal", text)
    except ValueError:
        return ("literal", text)

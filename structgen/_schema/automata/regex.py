"""A parser for ECMA-262 regular expressions as JSON Schema's ``pattern`` uses them.

The result is a small tree of :data:`Node` values over :class:`CharSet` s. Only the regular subset is
accepted; backreferences, lookarounds, word boundaries and lazy or possessive quantifiers raise
:class:`UnsupportedSchemaError`, malformed patterns :class:`SchemaError` (both with
``keyword="pattern"``). Characters are Unicode code points (the ``u`` flag's view), ``$`` matches
only at the very end (no multiline flag), and Annex B's lenient literals (a lone ``]``, ``}``, or a
``{`` that starts no quantifier) are accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ..._errors import SchemaError, UnsupportedSchemaError
from ..._memo import memo, register
from .charset import LINE_TERMINATORS, UNIVERSE, CharSet, property_charset


@dataclass(frozen=True)
class Chars:
    """One character from a set."""

    chars: CharSet


@dataclass(frozen=True)
class Concat:
    """Concatenation; ``Concat(())`` is the empty string."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Choice:
    options: tuple[Node, ...]


@dataclass(frozen=True)
class Quantified:
    item: Node
    min: int
    max: int | None


@dataclass(frozen=True)
class Anchor:
    """``^`` (start of input) or ``$`` (end of input)."""

    kind: str


Node = Union[Chars, Concat, Choice, Quantified, Anchor]

#: One node per character set, shared by every parsed pattern: parses are cached, and a few
#: hundred sets (single letters, ``\d``, ``.``) make up almost all of them.
_CHARS_NODES: dict[CharSet, Chars] = {}
register(_CHARS_NODES)
_MAX_CHARS_NODES = 4096


def _chars(chars: CharSet) -> Chars:
    node = _CHARS_NODES.get(chars)
    if node is None:
        if len(_CHARS_NODES) >= _MAX_CHARS_NODES:
            _CHARS_NODES.clear()
        node = _CHARS_NODES[chars] = Chars(chars)
    return node


#: The two anchors, shared likewise.
_ANCHORS = {"^": Anchor("^"), "$": Anchor("$")}


DIGITS = CharSet.of((0x30, 0x39))
WORD = CharSet.of((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
#: ECMA WhiteSpace plus LineTerminator.
SPACES = CharSet.chars("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | CharSet.of(
    (0x2000, 0x200A)
)
_CLASS_ESCAPES = {
    "d": DIGITS,
    "D": DIGITS.complement(),
    "w": WORD,
    "W": WORD.complement(),
    "s": SPACES,
    "S": SPACES.complement(),
}
_CONTROL_ESCAPES = {"t": 9, "n": 10, "v": 11, "f": 12, "r": 13}
_SYNTAX_CHARS = set("^$\\.*+?()[]{}|/-")
_HEX = set("0123456789abcdefABCDEF")
#: Characters that cannot start a term because they are quantifiers.
_QUANTIFIERS = set("*+?")


class _Reject(Exception):
    """Raised inside the cached parser; turned into a typed error carrying the caller's pointer."""

    def __init__(self, message: str, unsupported: bool) -> None:
        super().__init__(message)
        self.unsupported = unsupported


def _malformed(message: str) -> _Reject:
    return _Reject(message, unsupported=False)


def _unsupported(message: str) -> _Reject:
    return _Reject(message, unsupported=True)


class _Parser:
    def __init__(self, pattern: str, dotall: bool) -> None:
        self.src = pattern
        self.pos = 0
        self.dotall = dotall

    def peek(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.src[i] if i < len(self.src) else ""

    def startswith(self, text: str) -> bool:
        return self.src.startswith(text, self.pos)

    def parse(self) -> Node:
        node = self.disjunction()
        if self.pos < len(self.src):
            raise _malformed(f"unmatched ')' at offset {self.pos}")
        return node

    def disjunction(self) -> Node:
        options = [self.alternative()]
        while self.peek() == "|":
            self.pos += 1
            options.append(self.alternative())
        return options[0] if len(options) == 1 else Choice(tuple(options))

    def alternative(self) -> Node:
        items: list[Node] = []
        while self.pos < len(self.src) and self.peek() not in "|)":
            items.append(self.term())
        return items[0] if len(items) == 1 else Concat(tuple(items))

    def term(self) -> Node:
        ch = self.peek()
        if ch in "^$":
            self.pos += 1
            self._no_quantifier()
            return _ANCHORS[ch]
        if ch in _QUANTIFIERS or (ch == "{" and self._quantifier_braces() is not None):
            raise _malformed(f"nothing to repeat at offset {self.pos}")
        atom = self.atom()
        return self.quantified(atom)

    def _no_quantifier(self) -> None:
        if self.peek() in _QUANTIFIERS or (self.peek() == "{" and self._quantifier_braces() is not None):
            raise _malformed(f"nothing to repeat at offset {self.pos}")

    def _quantifier_braces(self) -> tuple[int, int | None, int] | None:
        """``{m}``, ``{m,}`` or ``{m,n}`` at the cursor as (min, max, length), else None."""
        src, i = self.src, self.pos + 1
        j = i
        while j < len(src) and src[j].isdigit():
            j += 1
        if j == i:
            return None
        low = int(src[i:j])
        if j < len(src) and src[j] == "}":
            return low, low, j + 1 - self.pos
        if j >= len(src) or src[j] != ",":
            return None
        k = j + 1
        while k < len(src) and src[k].isdigit():
            k += 1
        if k >= len(src) or src[k] != "}":
            return None
        high = int(src[j + 1 : k]) if k > j + 1 else None
        return low, high, k + 1 - self.pos

    def quantified(self, atom: Node) -> Node:
        ch = self.peek()
        if ch == "*":
            low, high, length = 0, None, 1
        elif ch == "+":
            low, high, length = 1, None, 1
        elif ch == "?":
            low, high, length = 0, 1, 1
        elif ch == "{" and (braces := self._quantifier_braces()) is not None:
            low, high, length = braces
        else:
            return atom
        self.pos += length
        if high is not None and high < low:
            raise _malformed(f"numbers out of order in {{{low},{high}}} quantifier")
        if self.peek() == "?":
            raise _unsupported("lazy quantifiers are not supported")
        if self.peek() == "+":
            raise _unsupported("possessive quantifiers are not supported")
        self._no_quantifier()
        return Quantified(atom, low, high)

    def atom(self) -> Node:
        ch = self.peek()
        if ch == ".":
            self.pos += 1
            return _chars(UNIVERSE if self.dotall else UNIVERSE - LINE_TERMINATORS)
        if ch == "(":
            return self.group()
        if ch == "[":
            return _chars(self.char_class())
        if ch == "\\":
            return self.atom_escape()
        self.pos += 1
        return _chars(CharSet.of((ord(ch), ord(ch))))

    def group(self) -> Node:
        start = self.pos
        self.pos += 1
        if self.startswith("?"):
            if self.startswith("?:"):
                self.pos += 2
            elif self.startswith("?=") or self.startswith("?!"):
                raise _unsupported("lookahead assertions are not supported")
            elif self.startswith("?<=") or self.startswith("?<!"):
                raise _unsupported("lookbehind assertions are not supported")
            elif self.startswith("?<"):
                end = self.src.find(">", self.pos)
                name = self.src[self.pos + 2 : end]
                if end < 0 or not name or not (name[0].isalpha() or name[0] in "_$"):
                    raise _malformed(f"bad group name at offset {start}")
                self.pos = end + 1
            elif self.peek(1).isalpha() or self.peek(1) == "-":
                # Python's (?P<name>...), (?P=name) and inline flags such as (?i)
                raise _malformed(f"(?{self.peek(1)}... is not ECMA-262 syntax (offset {start})")
            else:
                raise _malformed(f"invalid group at offset {start}")
        inner = self.disjunction()
        if self.peek() != ")":
            raise _malformed(f"unterminated group at offset {start}")
        self.pos += 1
        return inner

    def atom_escape(self) -> Node:
        ch = self.peek(1)
        if ch == "b" or ch == "B":
            raise _unsupported("word boundary assertions (\\b, \\B) are not supported")
        if ch.isdigit() and ch != "0":
            raise _unsupported("backreferences are not supported")
        if ch == "k" and self.peek(2) == "<":
            raise _unsupported("named backreferences are not supported")
        return _chars(self.class_escape(in_class=False))

    def class_escape(self, *, in_class: bool) -> CharSet:
        """The set denoted by the escape at the cursor (a single character is a one-element set)."""
        self.pos += 1
        ch = self.peek()
        if not ch:
            raise _malformed("pattern ends with a backslash")
        self.pos += 1
        if ch in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[ch]
        if ch in _CONTROL_ESCAPES:
            return _one(_CONTROL_ESCAPES[ch])
        if ch == "b" and in_class:
            return _one(8)
        if ch == "0" and not self.peek().isdigit():
            return _one(0)
        if ch == "c" and self.peek().isascii() and self.peek().isalpha():
            self.pos += 1
            return _one(ord(self.src[self.pos - 1]) % 32)
        if ch == "x":
            return _one(self._hex_digits(2))
        if ch == "u":
            return _one(self._unicode_escape())
        if ch in "pP":
            return self._property(negate=ch == "P")
        if ch.isascii() and ch.isalnum():
            # \a, \A, \Z, \z, \h, ...: not ECMA-262 (other dialects give them meanings)
            raise _malformed(f"\\{ch} is not an ECMA-262 escape")
        return _one(ord(ch))

    def _hex_digits(self, count: int) -> int:
        digits = self.src[self.pos : self.pos + count]
        if len(digits) != count or not set(digits) <= _HEX:
            raise _malformed(f"bad hexadecimal escape at offset {self.pos - 2}")
        self.pos += count
        return int(digits, 16)

    def _unicode_escape(self) -> int:
        if self.peek() == "{":
            end = self.src.find("}", self.pos)
            digits = self.src[self.pos + 1 : end] if end > 0 else ""
            if not digits or not set(digits) <= _HEX or int(digits, 16) > 0x10FFFF:
                raise _malformed(f"bad \\u{{...}} escape at offset {self.pos - 2}")
            self.pos = end + 1
            return int(digits, 16)
        code = self._hex_digits(4)
        # A surrogate pair written as two escapes denotes one astral character.
        if 0xD800 <= code <= 0xDBFF and self.startswith("\\u"):
            save = self.pos
            self.pos += 2
            try:
                low = self._hex_digits(4)
            except _Reject:
                low = -1
            if 0xDC00 <= low <= 0xDFFF:
                return 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            self.pos = save
        return code

    def _property(self, *, negate: bool) -> CharSet:
        if self.peek() != "{":
            raise _malformed(f"\\p needs a {{property}} at offset {self.pos - 2}")
        end = self.src.find("}", self.pos)
        if end < 0:
            raise _malformed(f"unterminated \\p{{...}} at offset {self.pos - 2}")
        name = self.src[self.pos + 1 : end]
        self.pos = end + 1
        found = property_charset(name)
        if isinstance(found, str):
            raise _unsupported(found) if found.startswith("unsupported") else _malformed(found)
        return found.complement() if negate else found

    def char_class(self) -> CharSet:
        start = self.pos
        self.pos += 1
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        while self.peek() != "]":
            if not self.peek():
                raise _malformed(f"unterminated character class at offset {start}")
            first, first_is_set = self._class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                second, second_is_set = self._class_atom()
                if first_is_set or second_is_set:
                    # Annex B: a range next to a class escape is a literal hyphen.
                    ranges += first.ranges + second.ranges + ((ord("-"), ord("-")),)
                    continue
                lo, hi = first.ranges[0][0], second.ranges[0][0]
                if lo > hi:
                    raise _malformed(f"range out of order in character class at offset {start}")
                ranges.append((lo, hi))
            else:
                ranges += first.ranges
        self.pos += 1
        result = CharSet.from_ranges(ranges)
        return result.complement() if negate else result

    def _class_atom(self) -> tuple[CharSet, bool]:
        """(set, is_multi_char_escape) for the class atom at the cursor."""
        ch = self.peek()
        if ch != "\\":
            self.pos += 1
            return _one(ord(ch)), False
        nxt = self.peek(1)
        if nxt == "-":
            self.pos += 2
            return _one(ord("-")), False
        if nxt == "B":
            raise _malformed("\\B is not allowed in a character class")
        if nxt.isdigit() and nxt != "0":
            raise _unsupported("octal escapes and backreferences are not supported")
        multi = nxt in _CLASS_ESCAPES or nxt in "pP"
        cs = self.class_escape(in_class=True)
        # A lone surrogate escape denotes no character at all.
        return cs, multi or cs.single() is None


def _one(cp: int) -> CharSet:
    return CharSet.of((cp, cp))


@memo(2048)
def _parse_cached(pattern: str, dotall: bool) -> Node | _Reject:
    try:
        return _Parser(pattern, dotall).parse()
    except _Reject as reject:
        # Cached for the life of the process: without its traceback, which would keep every
        # frame of the conversion that first met the pattern (and all it holds) alive.
        return reject.with_traceback(None)
    except RecursionError:
        return _unsupported("pattern nests too deeply")


def parse_regex(pattern: str, *, dotall: bool = False, pointer: str = "", keyword: str = "pattern") -> Node:
    """Parse ``pattern``; errors carry ``pointer`` and ``keyword``."""
    result = _parse_cached(pattern, dotall)
    if isinstance(result, _Reject):
        cls = UnsupportedSchemaError if result.unsupported else SchemaError
        raise cls(f"{result} in pattern {pattern!r}", pointer=pointer, keyword=keyword)
    return result


def length_bounds(node: Node) -> tuple[int, int | None]:
    """Smallest and largest number of characters a match of ``node`` spans (None: unbounded)."""
    if isinstance(node, Chars):
        return 1, 1
    if isinstance(node, Anchor):
        return 0, 0
    if isinstance(node, Concat):
        low, high = 0, 0  # type: tuple[int, int | None]
        for item in node.items:
            a, b = length_bounds(item)
            low += a
            high = None if high is None or b is None else high + b
        return low, high
    if isinstance(node, Choice):
        bounds = [length_bounds(o) for o in node.options]
        highs = [b for _, b in bounds]
        return min(a for a, _ in bounds), None if None in highs else max(h for h in highs if h is not None)
    a, b = length_bounds(node.item)
    return a * node.min, None if node.max is None or b is None else b * node.max

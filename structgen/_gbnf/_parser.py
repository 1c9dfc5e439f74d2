"""GBNF text → :class:`GbnfGrammar`, accepting and rejecting exactly what llama.cpp's parser does.

The structure follows llama.cpp's recursive-descent parser (``src/llama-grammar.cpp``:
parse_rule / parse_alternates / parse_sequence / parse_space) so that its quirks carry over:
newlines only end a rule outside parentheses and not right after ``|`` or ``::=``; a
repetition operator needs a preceding item that emitted something (``""*`` is an error);
``{m,n}`` rejects m > 2000 and silently makes n > 2000 unbounded; and the count of rules a
repetition would generate is limited (see ``_Parser.repeat``). One deliberate difference:
``{m,n}`` with n < m is an error here, where llama.cpp loops forever.
"""

from __future__ import annotations

import bisect
import re

from .._errors import GrammarError
from ._tree import Alt, AnyChar, CharClass, Expr, GbnfGrammar, LiteralText, Repeat, RuleRef, Seq, Span, Token

__all__ = ["MAX_REPETITION", "parse_gbnf", "excerpt_at"]

# llama.cpp's MAX_REPETITION_THRESHOLD.
MAX_REPETITION = 2000
_UINT64_LIMIT = 2**64

_SIMPLE_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-"}
_HEX_WIDTH = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
# Building the named tuple directly skips its Python-level __new__ (hot: one per item).
_new_span = tuple.__new__
_NAME = re.compile(r"[a-zA-Z0-9-]+")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
# llama.cpp's parse_space: blanks and comments, and newlines where the context allows them.
_SPACE = re.compile(r"(?:[ \t]+|#[^\r\n]*)*")
_SPACE_OR_NEWLINE = re.compile(r"(?:[ \t\r\n]+|#[^\r\n]*)*")
# A string without hex escapes (the common case) is matched and unescaped in one go.
_SIMPLE_STRING = re.compile(r'"((?:[^"\\]|\\[tnr\\"\[\]\-])*)"')
_SIMPLE_ESCAPE = re.compile(r"\\(.)")
_PLAIN_STRING_RUN = re.compile(r'[^"\\]+')


def _unescape(match: re.Match[str]) -> str:
    return _SIMPLE_ESCAPES[match.group(1)]


_SURROGATE = re.compile("[\ud800-\udfff]")


def excerpt_at(text: str, line: int, column: int) -> str:
    """The ``line``-th line of ``text`` and a caret under ``column`` (a lone surrogate shown as
    U+FFFD, so the message itself can be printed)."""
    lines = text.split("\n")
    source_line = lines[line - 1].rstrip("\r") if 0 < line <= len(lines) else ""
    return f"{_SURROGATE.sub(chr(0xFFFD), source_line)}\n{' ' * (column - 1)}^"


# A parsed sequence element plus what llama.cpp's repetition logic needs to know of it:
# (expression, did it emit grammar elements? (``""`` and ``[]`` do not), llama.cpp's
# ``n_prev_rules`` for a repetition applied to it, where the item starts).
_Item = tuple[Expr, bool, int, Span]


class _Parser:
    def __init__(self, text: str, *, check_undefined: bool) -> None:
        self.text = text
        self.end = len(text)
        self.check_undefined = check_undefined
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._line = 1  # the line of the last span: positions mostly grow, so look there first
        # Mirrors llama.cpp's symbol table size: rule names in order of first mention plus
        # one generated symbol per group and per repetition helper rule.
        self.known_names: set[str] = set()
        self.n_symbols = 0
        self.rules: dict[str, Expr] = {}
        self.rule_spans: dict[str, Span] = {}
        self.duplicates: list[tuple[str, Span]] = []
        self.references: list[RuleRef] = []

    # -- positions and errors ------------------------------------------------------------
    def span(self, pos: int) -> Span:
        starts, line = self._line_starts, self._line
        if not (starts[line - 1] <= pos and (line == len(starts) or pos < starts[line])):
            line = self._line = bisect.bisect_right(starts, pos)
        return _new_span(Span, (line, pos - starts[line - 1] + 1))

    def error(self, message: str, pos: int) -> GrammarError:
        at = self.span(min(pos, self.end))
        return GrammarError(
            message, line=at.line, column=at.column, excerpt=excerpt_at(self.text, at.line, at.column)
        )

    def offset(self, at: Span) -> int:
        return self._line_starts[at.line - 1] + at.column - 1

    def char(self, pos: int) -> str:
        return self.text[pos] if pos < self.end else ""

    def mention(self, name: str) -> None:
        if name not in self.known_names:
            self.known_names.add(name)
            self.n_symbols += 1

    # -- lexical pieces --------------------------------------------------------------------
    def skip_space(self, pos: int, newline_ok: bool) -> int:
        return (_SPACE_OR_NEWLINE if newline_ok else _SPACE).match(self.text, pos).end()  # type: ignore[union-attr]

    def parse_name(self, pos: int) -> int:
        match = _NAME.match(self.text, pos)
        if match is None:
            raise self.error("expecting a rule name", pos)
        return match.end()

    def parse_int(self, pos: int) -> tuple[int, int]:
        start = pos
        while pos < self.end and "0" <= self.text[pos] <= "9":
            pos += 1
        if pos == start:
            raise self.error("expecting an integer", pos)
        value = int(self.text[start:pos])
        if value >= _UINT64_LIMIT:
            raise self.error("integer out of range", start)
        return value, pos

    def parse_char(self, pos: int) -> tuple[int, int]:
        """One possibly escaped character (as a code point) and the position after it."""
        if pos >= self.end:
            raise self.error("unexpected end of input", pos)
        ch = self.text[pos]
        if ch != "\\":
            return ord(ch), pos + 1
        kind = self.char(pos + 1)
        if kind in _HEX_WIDTH:
            width = _HEX_WIDTH[kind]
            digits = self.text[pos + 2 : pos + 2 + width]
            if len(digits) != width or not set(digits) <= _HEX_DIGITS:
                raise self.error(f"expecting {width} hex digits after \\{kind}", pos)
            return int(digits, 16), pos + 2 + width
        if kind in _SIMPLE_ESCAPES:
            return ord(_SIMPLE_ESCAPES[kind]), pos + 2
        raise self.error(f"unknown escape \\{kind}" if kind else "unexpected end of input", pos)

    # -- grammar structure ---------------------------------------------------------------
    def parse(self) -> GbnfGrammar:
        pos = self.skip_space(0, True)
        while pos < self.end:
            pos = self.parse_rule(pos)
        if not self.rules:
            raise GrammarError("the grammar defines no rules", line=1, column=1, excerpt=excerpt_at(self.text, 1, 1))
        if self.check_undefined:
            for ref in self.references:
                if ref.name not in self.rules:
                    assert ref.at is not None
                    raise GrammarError(
                        f"undefined rule '{ref.name}'",
                        line=ref.at.line,
                        column=ref.at.column,
                        excerpt=excerpt_at(self.text, ref.at.line, ref.at.column),
                    )
        return GbnfGrammar(self.rules, self.rule_spans, tuple(self.duplicates), self.text)

    def parse_rule(self, pos: int) -> int:
        start = pos
        name_end = self.parse_name(pos)
        name = self.text[start:name_end]
        self.mention(name)
        pos = self.skip_space(name_end, False)
        if self.text[pos : pos + 3] != "::=":
            raise self.error("expecting '::='", pos)
        pos = self.skip_space(pos + 3, True)
        body, pos = self.parse_alternates(pos, nested=False)
        if pos < self.end:
            if self.text[pos] == "\r":
                pos += 2 if self.char(pos + 1) == "\n" else 1
            elif self.text[pos] == "\n":
                pos += 1
            else:
                raise self.error("expecting newline or end of input", pos)
        if name in self.rules:
            self.duplicates.append((name, self.span(start)))
        else:
            self.rule_spans[name] = self.span(start)
        self.rules[name] = body
        return self.skip_space(pos, True)

    def parse_alternates(self, pos: int, *, nested: bool) -> tuple[Expr, int]:
        start = pos
        options = []
        seq, pos = self.parse_sequence(pos, nested=nested)
        options.append(seq)
        while pos < self.end and self.text[pos] == "|":
            pos = self.skip_space(pos + 1, True)
            seq, pos = self.parse_sequence(pos, nested=nested)
            options.append(seq)
        if len(options) == 1:
            return options[0], pos
        return Alt(tuple(options), at=self.span(start)), pos

    def parse_sequence(self, pos: int, *, nested: bool) -> tuple[Expr, int]:
        start = pos
        items: list[_Item] = []
        text, end = self.text, self.end
        # Hot loop: the blank skipper and name matcher are bound once per sequence.
        space = (_SPACE_OR_NEWLINE if nested else _SPACE).match
        while pos < end:
            ch = text[pos]
            at = self.span(pos)
            if ch in _WORD_CHARS:
                name_match = _NAME.match(text, pos)
                assert name_match is not None
                name = name_match.group()
                if name not in self.known_names:
                    self.mention(name)
                ref = RuleRef(name, at=at)
                self.references.append(ref)
                items.append((ref, True, 1, at))
                pos = space(text, name_match.end()).end()  # type: ignore[union-attr]
            elif ch == '"':
                plain = _SIMPLE_STRING.match(text, pos)
                if plain is not None:
                    literal = plain.group(1)
                    if "\\" in literal:
                        literal = _SIMPLE_ESCAPE.sub(_unescape, literal)
                    items.append((LiteralText(literal, at=at), bool(literal), 1, at))
                    pos = space(text, plain.end()).end()  # type: ignore[union-attr]
                    continue
                chars, pos = [], pos + 1
                while self.char(pos) != '"':
                    if pos >= end:
                        raise self.error("unexpected end of input in a string", pos)
                    run = _PLAIN_STRING_RUN.match(text, pos)
                    if run is not None:  # fast path: no escapes
                        chars.append(run.group())
                        pos = run.end()
                        continue
                    code, pos = self.parse_char(pos)
                    if code > 0x10FFFF:
                        raise self.error("code point out of range in a string", pos)
                    chars.append(chr(code))
                items.append((LiteralText("".join(chars), at=at), bool(chars), 1, at))
                pos = self.skip_space(pos + 1, nested)
            elif ch == "[":
                expr, pos = self.parse_class(pos, at)
                items.append((expr, bool(expr.ranges), 1, at))
                pos = self.skip_space(pos, nested)
            elif ch == "<" or ch == "!":
                token, pos = self.parse_token(pos, at)
                items.append((token, True, 1, at))
                pos = self.skip_space(pos, nested)
            elif ch == "(":
                before = self.n_symbols
                self.n_symbols += 1  # the group's own synthesized rule
                inner, pos = self.parse_alternates(self.skip_space(pos + 1, True), nested=True)
                if pos >= self.end or text[pos] != ")":
                    raise self.error("expecting ')'", pos)
                items.append((inner, True, max(1, self.n_symbols - before), at))
                pos = self.skip_space(pos + 1, nested)
            elif ch == ".":
                items.append((AnyChar(at=at), True, 1, at))
                pos = self.skip_space(pos + 1, nested)
            elif ch in "*+?":
                pos = self.skip_space(pos + 1, nested)
                low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch]
                self.repeat(items, low, high, high, at)
            elif ch == "{":
                pos = self.parse_braces(items, pos, at, nested)
            else:
                break
        exprs = tuple(item[0] for item in items)
        if len(exprs) == 1:
            return exprs[0], pos
        return Seq(exprs, at=self.span(start)), pos

    def parse_class(self, pos: int, at: Span) -> tuple[CharClass, int]:
        pos += 1
        negated = self.char(pos) == "^"
        if negated:
            pos += 1
        ranges = []
        while self.char(pos) != "]":
            if pos >= self.end:
                raise self.error("unexpected end of input in a character class", pos)
            low, pos = self.parse_char(pos)
            high = low
            if self.char(pos) == "-" and self.char(pos + 1) != "]":
                if pos + 1 >= self.end:
                    raise self.error("unexpected end of input in a character class", pos + 1)
                high, pos = self.parse_char(pos + 1)
            ranges.append((low, high))
        return CharClass(tuple(ranges), negated, at=at), pos + 1

    def parse_token(self, pos: int, at: Span) -> tuple[Token, int]:
        negated = self.text[pos] == "!"
        if negated:
            pos += 1
        if self.char(pos) != "<":
            raise self.error("expecting '<' after '!'", pos)
        pos += 1
        if self.char(pos) == "[":
            token_id, pos = self.parse_int(pos + 1)
            if self.char(pos) != "]":
                raise self.error("expecting ']'", pos)
            if self.char(pos + 1) != ">":
                raise self.error("expecting '>'", pos + 1)
            return Token(token_id, negated, at=at), pos + 2
        close = self.text.find(">", pos)
        if close < 0:
            raise self.error("expecting '>'", self.end)
        return Token(self.text[pos:close], negated, at=at), close + 1

    def parse_braces(self, items: list[_Item], pos: int, at: Span, nested: bool) -> int:
        pos = self.skip_space(pos + 1, nested)
        if not ("0" <= self.char(pos) <= "9"):
            raise self.error("expecting an integer after '{'", pos)
        low, pos = self.parse_int(pos)
        pos = self.skip_space(pos, nested)
        high: int | None
        if self.char(pos) == "}":
            high = low
        elif self.char(pos) == ",":
            pos = self.skip_space(pos + 1, nested)
            high = None
            if "0" <= self.char(pos) <= "9":
                high, pos = self.parse_int(pos)
                pos = self.skip_space(pos, nested)
            if self.char(pos) != "}":
                raise self.error("expecting '}'", pos)
        else:
            raise self.error("expecting ',' or '}'", pos)
        end = self.skip_space(pos + 1, nested)
        if low > MAX_REPETITION:
            raise self.error(f"repetition count {low} exceeds llama.cpp's limit of {MAX_REPETITION}", self.offset(at))
        if high is not None and high < low:
            raise self.error(f"repetition maximum {high} is below the minimum {low}", self.offset(at))
        effective = None if high is not None and high > MAX_REPETITION else high
        self.repeat(items, low, high, effective, at)
        return end

    def repeat(self, items: list[_Item], low: int, high: int | None, effective_high: int | None, at: Span) -> None:
        """Apply a repetition to the last item, with llama.cpp's checks."""
        if not items or not items[-1][1]:
            raise self.error("expecting an item before the repetition operator", self.offset(at))
        last_expr, _, n_prev_rules, last_start = items[-1]
        # llama.cpp bounds the number of rules a repetition makes (times those the repeated
        # item already made); beyond it the grammar is refused.
        total = effective_high if effective_high else (low if low > 0 else 1)
        if n_prev_rules * total > MAX_REPETITION:
            raise self.error(
                f"repetition would generate {n_prev_rules * total} rules, "
                f"more than llama.cpp's limit of {MAX_REPETITION}",
                self.offset(at),
            )
        self.n_symbols += 1 if effective_high is None else effective_high - low
        emits = not (low == 0 and effective_high == 0)
        items[-1] = (Repeat(last_expr, low, high, at=last_start), emits, n_prev_rules * total, last_start)


def parse_gbnf(text: str, *, check_undefined: bool = True) -> GbnfGrammar:
    """Parse GBNF ``text``. Raises :class:`GrammarError` (1-based line and column, caret
    excerpt) wherever llama.cpp's parser would fail, including references to undefined rules
    (``check_undefined=False`` defers those to :func:`lint`)."""
    if not isinstance(text, str):
        raise TypeError(f"GBNF text must be str, not {type(text).__name__}")
    parser = _Parser(text, check_undefined=check_undefined)
    surrogate = _SURROGATE.search(text)
    if surrogate is not None:  # llama.cpp reads UTF-8, which cannot hold one
        raise parser.error("a lone surrogate code point (the text cannot be encoded as UTF-8)",
                           surrogate.start())
    try:
        return parser.parse()
    except RecursionError:
        raise GrammarError("parentheses are nested too deeply") from None

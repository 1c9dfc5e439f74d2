"""The ``portable`` lint: constructs that xgrammar or llguidance read otherwise than llama.cpp.

xgrammar (the grammar engine of vLLM and SGLang, ``Grammar.from_ebnf``) and llguidance (its
GBNF reader, ``grammar_from("gbnf", ...)``, which rewrites GBNF as its Lark dialect) accept
most of llama.cpp's GBNF, but not all of it alike. What differs, from their parsers' sources
(xgrammar 0.2.9's ``grammar_parser.cc``, llguidance 1.9's ``gbnf_to_lark.py`` and Lark parser):

- ``\\xHH`` followed by a hex digit: xgrammar reads every hex digit after ``\\x``.
- ``\\u0HHH`` and any ``\\UHHHHHHHH``: llguidance drops the leading zeros (``\\u00E9`` becomes
  ``\\uE9``): it refuses the grammar, or before more hex digits reads another character.
- ``\\-`` (llguidance refuses it), and ``\\[``/``\\]`` in a string literal (both refuse them).
- A raw control character in a string literal: xgrammar ends a literal at a newline,
  llguidance's Lark strings refuse controls.
- ``&&``, ``~~`` or ``--`` in a class: llguidance hands classes to Rust's regex crate, where
  they are set operations.
- ``.`` (any character): xgrammar reads it as a rule name, which is undefined.
- An empty alternative (``ws ::= | " "``): xgrammar wants an element (``()`` is one).
- ``<token>`` / ``<[id]>`` tokens: llama.cpp's alone.
- Rule names: a leading digit (both want a letter); ``true``/``false`` (xgrammar's booleans);
  ``start`` (llguidance's name for the root); names that llguidance's renaming (``-`` to ``_``,
  ``fooBar`` to ``foo_bar``, lower case) makes equal; xgrammar's macro names (``Regex``...).
- Groups nested more than ``MAX_GROUP_DEPTH`` deep: llguidance stops at 30 levels, and its
  Lark text may double the parentheses of a repeated group.
- A repetition maximum above 2000: llama.cpp repeats without bound, the others do not.
- A repetition of a group holding only a repetition, ``("x"*)?``: llguidance refuses it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .._escapes import MAX_GROUP_DEPTH
from ._parser import MAX_REPETITION
from ._tree import GbnfGrammar, Repeat, RuleRef, Span, walk

__all__ = ["PORTABLE_CODE", "PortableIssue", "portable_issues"]

PORTABLE_CODE = "portable"
_XGRAMMAR_MACROS = frozenset(
    {"TagDispatch", "TokenTagDispatch", "Regex", "Substring", "Token", "ExcludeToken"})
_XGRAMMAR_BOOLEANS = frozenset({"true", "false"})

# The text of a grammar, piece by piece: comments, literals, classes, tokens, names, groups.
_PIECE = re.compile(
    r'(?P<comment>#[^\r\n]*)'
    r'|(?P<literal>"(?:[^"\\]|\\.)*"?)'
    r'|(?P<cls>\[(?:[^\]\\]|\\.)*\]?)'
    r'|(?P<token>!?<[^>\s]*>)'
    r'|(?P<name>[a-zA-Z0-9_-]+)'
    r'|(?P<open>\()|(?P<close>\))|(?P<any>\.)|(?P<assign>::=)|(?P<bar>\|)',
    re.DOTALL,
)
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}(?=[0-9A-Fa-f])|u0|U|-|\[|\]|.)", re.DOTALL)
_RAW_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SET_OPERATION = re.compile(r"&&|~~|--")


@dataclass(frozen=True)
class PortableIssue:
    """One construct read otherwise elsewhere: at ``offset`` in the text, or at ``span`` where
    only the tree knows the place (``offset`` is then -1)."""

    offset: int
    message: str
    span: Span | None = None


def portable_issues(text: str, grammar: GbnfGrammar) -> Iterator[PortableIssue]:
    """Every construct of ``text`` (whose tree is ``grammar``) read otherwise elsewhere."""
    yield from _text_issues(text)
    yield from _name_issues(grammar)
    yield from _repetition_issues(grammar)


def _text_issues(text: str) -> Iterator[PortableIssue]:
    depth, previous = 0, ""
    for match in _PIECE.finditer(text):
        kind, piece, at = match.lastgroup, match.group(), match.start()
        if (kind == "bar" and previous in ("assign", "open", "bar")
                or kind == "close" and previous == "bar"):
            yield _empty_alternative(at)
        previous = kind or ""
        if kind == "literal":
            yield from _escape_issues(piece, at, literal=True)
            raw = _RAW_CONTROL.search(piece)
            if raw is not None:
                yield PortableIssue(at + raw.start(), "a raw control character in a string "
                                    "literal: xgrammar and llguidance refuse it (escape it)")
        elif kind == "cls":
            yield from _escape_issues(piece, at, literal=False)
            operation = _SET_OPERATION.search(_unescaped(piece))
            if operation is not None:
                yield PortableIssue(at, f"'{operation.group()}' in a class is a set operation "
                                    "in llguidance (Rust regex syntax): escape one of them")
        elif kind == "token":
            yield PortableIssue(at, f"the token {piece} is llama.cpp's syntax alone")
        elif kind == "any":
            yield PortableIssue(at, "'.' (any character) is a rule name to xgrammar: write "
                                "the class of the characters you mean")
        elif kind == "open":
            depth += 1
            if depth == MAX_GROUP_DEPTH + 1:
                yield PortableIssue(at, f"groups nested more than {MAX_GROUP_DEPTH} deep: "
                                    "llguidance stops at 30 levels (its Lark text may double "
                                    "the parentheses); make the inner group a rule")
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif kind == "name" and _starts_rule(text, match.end()):
            depth = 0
    if previous == "bar":
        yield _empty_alternative(len(text.rstrip()) - 1)


def _empty_alternative(at: int) -> PortableIssue:
    return PortableIssue(at, "an empty alternative: xgrammar refuses it (write () for nothing)")


def _starts_rule(text: str, end: int) -> bool:
    """Whether the name ending at ``end`` is followed by ``::=`` (a new rule: depth starts over)."""
    return text[end:end + 8].lstrip(" \t").startswith("::=")


def _unescaped(piece: str) -> str:
    """A class's text with its escapes removed (an escaped '-' is no set operation)."""
    return re.sub(r"\\(?:x..|u....|U........|.)", "\x00", piece, flags=re.DOTALL)


def _escape_issues(piece: str, at: int, *, literal: bool) -> Iterator[PortableIssue]:
    for escape in _ESCAPE.finditer(piece):
        which = escape.group(1)
        offset = at + escape.start()
        if which.startswith("x") and len(which) == 3:
            yield PortableIssue(offset, f"\\{which} followed by a hex digit: xgrammar reads it "
                                "as part of the escape (escape that digit too)")
        elif which == "u0":
            yield PortableIssue(offset, "a \\u escape with a leading zero: llguidance drops it "
                                "(write \\xHH below U+0100, or the character itself)")
        elif which == "U":
            yield PortableIssue(offset, "a \\U escape: llguidance drops its leading zeros "
                                "(write the character itself)")
        elif which == "-":
            yield PortableIssue(offset, "\\- is llama.cpp's alone (llguidance refuses it): "
                                "write \\x2D")
        elif literal and which in "[]":
            yield PortableIssue(offset, f"\\{which} in a string literal: xgrammar and "
                                f"llguidance refuse it (write {which} as itself)")


def _name_issues(grammar: GbnfGrammar) -> Iterator[PortableIssue]:
    seen: dict[str, str] = {}
    for name in grammar.rules:
        problem = _name_problem(name)
        if problem:
            yield PortableIssue(-1, f"rule name '{name}': {problem}", grammar.span_of(name))
        renamed = _llguidance_name(name)
        if renamed in seen and seen[renamed] != name:
            yield PortableIssue(-1, f"rules '{seen[renamed]}' and '{name}' are both "
                                f"'{renamed}' to llguidance (it renames rules)",
                                grammar.span_of(name))
        seen.setdefault(renamed, name)


def _name_problem(name: str) -> str:
    if name[:1].isdigit():
        return "starts with a digit (xgrammar and llguidance want a letter)"
    if name in _XGRAMMAR_BOOLEANS:
        return "xgrammar reads it as a boolean"
    if name in _XGRAMMAR_MACROS:
        return "xgrammar reads it as its macro"
    if name == "start":
        return "llguidance renames the root rule to 'start'"
    return ""


def _llguidance_name(name: str) -> str:
    # What gbnf_to_lark makes of a name (upper case for terminals: the same clash either way).
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name.replace("-", "_")).lower()


def _repetition_issues(grammar: GbnfGrammar) -> Iterator[PortableIssue]:
    for name, body in grammar.rules.items():
        for node in walk(body):
            if isinstance(node, Repeat) and node.max is not None and node.max > MAX_REPETITION:
                yield PortableIssue(-1, f"a maximum of {node.max} repetitions: llama.cpp "
                                    f"repeats without bound above {MAX_REPETITION}, xgrammar "
                                    "and llguidance stop at the maximum",
                                    node.at or grammar.span_of(name))
            if isinstance(node, Repeat) and isinstance(node.item, Repeat):
                yield PortableIssue(-1, "a repetition of a group that holds only a repetition "
                                    "(x* )*: llguidance's reader writes x** and refuses it "
                                    "(make the inner one a rule)", node.at or grammar.span_of(name))
            elif isinstance(node, RuleRef) and node.name in _XGRAMMAR_MACROS:
                yield PortableIssue(-1, f"'{node.name}' is a macro call to xgrammar",
                                    node.at or grammar.span_of(name))

"""GBNF toolkit: parser, formatter, lint, pure-Python recognizer and random samples."""

from __future__ import annotations

from ._format import format_gbnf
from ._parser import parse_gbnf
from ._tree import Alt, Any, CharClass, Expr, GbnfGrammar, Literal, Repeat, RuleRef, Seq, Span, Token

__all__ = [
    "Alt",
    "Any",
    "CharClass",
    "Expr",
    "GbnfGrammar",
    "Literal",
    "Repeat",
    "RuleRef",
    "Seq",
    "Span",
    "Token",
    "format_gbnf",
    "parse_gbnf",
]

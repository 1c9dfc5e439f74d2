"""The GBNF toolkit: built-in grammars, and the parser, formatter, lint and recognizer that
``structgen`` itself uses on every grammar it writes or is given.

Each ``*_GBNF`` constant is plain GBNF text with a ``root`` rule; wrap one with
``Grammar.from_string``. :func:`parse_gbnf` gives an immutable :class:`GbnfGrammar` (or raises
``GrammarError`` with line, column and a caret excerpt wherever llama.cpp's parser fails);
:func:`format_gbnf` prints it back canonically; :func:`lint` lists problems
(:func:`lint_portable` those other engines such as xgrammar and llguidance read otherwise) and
:func:`check_safe` raises for the fatal ones; :class:`Recognizer` follows llama.cpp's sampler
character by character.
"""

from __future__ import annotations

from ._builtins import (
    ARITHMETIC_GBNF,
    C_GBNF,
    CHESS_GBNF,
    ENGLISH_GBNF,
    JAPANESE_GBNF,
    JSON_ARR_GBNF,
    JSON_GBNF,
    LIST_GBNF,
)
from ._gbnf import GbnfGrammar, LintFinding, Recognizer, check_safe, format_gbnf, lint, lint_portable, parse_gbnf

__all__ = [
    "ARITHMETIC_GBNF",
    "CHESS_GBNF",
    "C_GBNF",
    "ENGLISH_GBNF",
    "GbnfGrammar",
    "JAPANESE_GBNF",
    "JSON_ARR_GBNF",
    "JSON_GBNF",
    "LIST_GBNF",
    "LintFinding",
    "Recognizer",
    "check_safe",
    "format_gbnf",
    "lint",
    "lint_portable",
    "parse_gbnf",
]

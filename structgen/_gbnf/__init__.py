"""GBNF: the toolkit (parser, formatter, lint, pure-Python recognizer and random samples) and the
rule registry the schema converter writes with (``_rules``: unique names, shared bodies, portable
nesting; ``_expr``, ``_factor``), which knows nothing of JSON Schema.

``parse_gbnf(text)`` gives an immutable :class:`GbnfGrammar` (or raises GrammarError with line,
column and a caret excerpt wherever llama.cpp's parser fails); ``format_gbnf`` prints it back
canonically; ``lint`` lists problems (``lint_portable`` those of grammars other engines such as
xgrammar and llguidance read otherwise), ``check_safe`` raises for the fatal ones; ``Recognizer``
follows llama.cpp's sampler character by character; ``gbnf_samples`` is a hypothesis strategy
of strings of the language.
"""

from __future__ import annotations

from ._compile import CharRanges
from ._format import format_gbnf
from ._lint import LintFinding, check, check_safe, lint, lint_portable
from ._parser import parse_gbnf
from ._recognizer import Recognizer, State, forced_text
from ._samples import Sampler, gbnf_samples, random_derivation
from ._tree import Alt, AnyChar, CharClass, Expr, GbnfGrammar, LiteralText, Repeat, RuleRef, Seq, Span, Token

__all__ = [
    "CharRanges",
    "LintFinding",
    "Recognizer",
    "Sampler",
    "State",
    "check",
    "check_safe",
    "forced_text",
    "gbnf_samples",
    "random_derivation",
    "lint",
    "lint_portable",
    "Alt",
    "AnyChar",
    "CharClass",
    "Expr",
    "GbnfGrammar",
    "LiteralText",
    "Repeat",
    "RuleRef",
    "Seq",
    "Span",
    "Token",
    "format_gbnf",
    "parse_gbnf",
]

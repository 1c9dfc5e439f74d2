"""The immutable syntax tree of a GBNF grammar.

Nodes compare by structure only: the source position each parsed node carries (``at``) is
left out of equality, so ``parse_gbnf(format_gbnf(tree)) == tree`` holds although the
formatted text puts things at other places.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple, Union

__all__ = [
    "Alt",
    "AnyChar",
    "CharClass",
    "Expr",
    "GbnfGrammar",
    "LiteralText",
    "RuleRef",
    "Repeat",
    "Seq",
    "Span",
    "Token",
    "walk",
]


class Span(NamedTuple):
    """A 1-based line and column (in code points) in the grammar text."""

    line: int
    column: int


@dataclass(frozen=True, slots=True)
class LiteralText:
    """A quoted string: its characters in order. ``""`` matches the empty string."""

    text: str
    at: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class CharClass:
    """``[...]``: inclusive code point ranges as written (``(lo, hi)``, possibly lo > hi).

    llama.cpp emits nothing for an empty class (``[]`` or ``[^]``), so it matches the empty
    string there; the recognizer mirrors that.
    """

    ranges: tuple[tuple[int, int], ...]
    negated: bool = False
    at: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class AnyChar:
    """``.``: any single character."""

    at: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RuleRef:
    """A reference to the rule ``name``."""

    name: str
    at: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Token:
    """``<[id]>`` (``value`` is the int id) or ``<text>`` (``value`` is the text between the
    angle brackets); ``!`` in front negates. Tokens only exist for a vocabulary, so text-level
    tools (recognizer, samples) refuse them."""

    value: int | str
    negated: bool = False
    at: Span | None = field(default=None, compare=False, repr=False)

    @property
    def spelling(self) -> str:
        inner = f"[{self.value}]" if isinstance(self.value, int) else self.value
        return f"{'!' if self.negated else ''}<{inner}>"


@dataclass(frozen=True, slots=True)
class Seq:
    """Items one after the other; ``Seq(())`` is the empty sequence."""

    items: tuple[Expr, ...]
    at: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Alt:
    """Alternatives ``a | b | ...`` (at least two)."""

    options: tuple[Expr, ...]
    at: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Repeat:
    """``item{min,max}``; ``max`` None means unbounded. ``*`` is (0, None), ``+`` (1, None),
    ``?`` (0, 1). Counts are kept as written; llama.cpp treats ``max`` > 2000 as unbounded."""

    item: Expr
    min: int
    max: int | None
    at: Span | None = field(default=None, compare=False, repr=False)


Expr = Union[LiteralText, CharClass, AnyChar, RuleRef, Token, Seq, Alt, Repeat]


@dataclass(frozen=True)
class GbnfGrammar:
    """Rules by name, in order of first definition. A later definition of the same name
    replaces the earlier one, as in llama.cpp (``duplicates`` remembers where that happened)."""

    rules: Mapping[str, Expr]
    rule_spans: Mapping[str, Span] = field(default_factory=dict, compare=False, repr=False)
    duplicates: tuple[tuple[str, Span], ...] = field(default=(), compare=False, repr=False)
    source: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Freeze the mappings: a grammar is a value that can be shared and cached.
        object.__setattr__(self, "rules", MappingProxyType(dict(self.rules)))
        object.__setattr__(self, "rule_spans", MappingProxyType(dict(self.rule_spans)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GbnfGrammar):
            return NotImplemented
        return dict(self.rules) == dict(other.rules)

    def __hash__(self) -> int:
        return hash(frozenset(self.rules.items()))

    def span_of(self, name: str) -> Span | None:
        return self.rule_spans.get(name)


def children(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Seq):
        return expr.items
    if isinstance(expr, Alt):
        return expr.options
    if isinstance(expr, Repeat):
        return (expr.item,)
    return ()


def walk(expr: Expr) -> list[Expr]:
    """Every node of ``expr``, parents before children (iterative: trees can be deep)."""
    nodes: list[Expr] = []
    todo: list[Expr] = [expr]
    while todo:
        node = todo.pop()
        nodes.append(node)
        kind = type(node)
        if kind is Seq:
            todo.extend(reversed(node.items))  # type: ignore[union-attr]
        elif kind is Alt:
            todo.extend(reversed(node.options))  # type: ignore[union-attr]
        elif kind is Repeat:
            todo.append(node.item)  # type: ignore[union-attr]
    return nodes

"""Flatten a tree into llama.cpp's rule layout: rules of alternatives of symbol positions.

A group becomes a rule of its own, ``S{m,n}`` becomes m copies of S followed by a chain of
n-m optional helper rules, ``S{m,}`` m copies followed by ``S' ::= S S' |`` — the rewrite
llama.cpp's parser performs, so a stack machine over this layout behaves like its sampler.
Terminals are character sets over code points; U+0000 is never in one, because llama.cpp
sees text as NUL-terminated strings.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from .._errors import GrammarError
from ._analysis import effective_max, reachable_rules
from ._tree import Alt, AnyChar, CharClass, Expr, GbnfGrammar, LiteralText, Repeat, RuleRef, Seq, Token

__all__ = ["CharRanges", "FlatGrammar", "compile_grammar"]

MAX_CODE_POINT = 0x10FFFF


@dataclass(frozen=True)
class CharRanges:
    """A set of code points as sorted, disjoint, non-adjacent inclusive ranges."""

    ranges: tuple[tuple[int, int], ...]
    _starts: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_starts", tuple(low for low, _ in self.ranges))

    @staticmethod
    def of(ranges: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> CharRanges:
        """Normalize arbitrary ranges (reversed ones are empty, as in llama.cpp)."""
        merged: list[tuple[int, int]] = []
        for low, high in sorted((max(low, 1), min(high, MAX_CODE_POINT)) for low, high in ranges):
            if low > high:
                continue
            if merged and low <= merged[-1][1] + 1:
                if high > merged[-1][1]:
                    merged[-1] = (merged[-1][0], high)
            else:
                merged.append((low, high))
        return CharRanges(tuple(merged))

    def complement(self) -> CharRanges:
        result, next_low = [], 1
        for low, high in self.ranges:
            if low > next_low:
                result.append((next_low, low - 1))
            next_low = high + 1
        if next_low <= MAX_CODE_POINT:
            result.append((next_low, MAX_CODE_POINT))
        return CharRanges(tuple(result))

    def union(self, other: CharRanges) -> CharRanges:
        return CharRanges.of(self.ranges + other.ranges)

    def __contains__(self, item: object) -> bool:
        code = ord(item) if isinstance(item, str) else item
        if not isinstance(code, int):
            return False
        index = bisect.bisect_right(self._starts, code) - 1
        return index >= 0 and code <= self.ranges[index][1]

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def size(self) -> int:
        return sum(high - low + 1 for low, high in self.ranges)

    def single(self) -> str | None:
        """The one character in the set, if it has exactly one."""
        if len(self.ranges) == 1 and self.ranges[0][0] == self.ranges[0][1]:
            return chr(self.ranges[0][0])
        return None


ANY_CHAR = CharRanges(((1, MAX_CODE_POINT),))


@dataclass
class FlatGrammar:
    """``rule_alts[r]``: start position of each alternative of rule r (-1 for an empty one).
    ``pos_symbol[p]``: a rule index (>= 0) or ``~terminal`` (< 0); ``pos_next[p]``: the
    following position in the same alternative, or -1 at its end."""

    rule_alts: list[list[int]] = field(default_factory=list)
    rule_names: list[str] = field(default_factory=list)
    pos_symbol: list[int] = field(default_factory=list)
    pos_next: list[int] = field(default_factory=list)
    terminals: list[CharRanges] = field(default_factory=list)
    root: int = 0


class _Compiler:
    def __init__(self, grammar: GbnfGrammar) -> None:
        self.grammar = grammar
        self.flat = FlatGrammar()
        self.index = {name: i for i, name in enumerate(grammar.rules)}
        self.flat.rule_alts = [[] for _ in grammar.rules]
        self.flat.rule_names = list(grammar.rules)
        self.terminal_ids: dict[CharRanges, int] = {}
        self.char_terminals: dict[str, int] = {}  # literal characters are most terminals

    def terminal(self, chars: CharRanges) -> int:
        found = self.terminal_ids.get(chars)
        if found is None:
            found = self.terminal_ids[chars] = len(self.flat.terminals)
            self.flat.terminals.append(chars)
        return ~found

    def new_rule(self, name: str) -> int:
        self.flat.rule_alts.append([])
        self.flat.rule_names.append(name)
        return len(self.flat.rule_alts) - 1

    def define(self, rule: int, alternatives: list[list[int]]) -> None:
        starts = []
        for symbols in alternatives:
            if not symbols:
                starts.append(-1)
                continue
            first = len(self.flat.pos_symbol)
            starts.append(first)
            for offset, symbol in enumerate(symbols):
                self.flat.pos_symbol.append(symbol)
                self.flat.pos_next.append(first + offset + 1 if offset + 1 < len(symbols) else -1)
        self.flat.rule_alts[rule] = starts

    def body(self, name: str, expr: Expr) -> None:
        options = expr.options if isinstance(expr, Alt) else (expr,)
        alternatives = []
        for option in options:
            out: list[int] = []
            self.emit(name, option, out)
            alternatives.append(out)
        self.define(self.index[name], alternatives)

    def emit(self, name: str, expr: Expr, out: list[int]) -> None:
        if isinstance(expr, LiteralText):
            for ch in expr.text:
                symbol = self.char_terminals.get(ch)
                if symbol is None:
                    code = ord(ch)
                    symbol = self.char_terminals[ch] = self.terminal(CharRanges.of([(code, code)]))
                out.append(symbol)
        elif isinstance(expr, CharClass):
            if expr.ranges:  # llama.cpp emits nothing for [] and [^]
                chars = CharRanges.of(expr.ranges)
                out.append(self.terminal(chars.complement() if expr.negated else chars))
        elif isinstance(expr, AnyChar):
            out.append(self.terminal(ANY_CHAR))
        elif isinstance(expr, RuleRef):
            if expr.name not in self.index:
                raise GrammarError(f"undefined rule '{expr.name}'")
            out.append(self.index[expr.name])
        elif isinstance(expr, Seq):
            for item in expr.items:
                self.emit(name, item, out)
        elif isinstance(expr, Alt):
            group = self.new_rule(name)
            alternatives = []
            for option in expr.options:
                symbols: list[int] = []
                self.emit(name, option, symbols)
                alternatives.append(symbols)
            self.define(group, alternatives)
            out.append(group)
        elif isinstance(expr, Repeat):
            self.repeat(name, expr, out)
        elif isinstance(expr, Token):
            raise GrammarError(
                f"token {expr.spelling} in rule '{name}' matches a tokenizer token, not text; "
                "text-level tools cannot handle it",
                line=expr.at.line if expr.at else None,
                column=expr.at.column if expr.at else None,
            )
        else:
            raise TypeError(f"not a GBNF expression: {expr!r}")

    def repeat(self, name: str, expr: Repeat, out: list[int]) -> None:
        item: list[int] = []
        self.emit(name, expr.item, item)
        for _ in range(expr.min):
            out.extend(item)
        high = effective_max(expr)
        if high is None:
            loop = self.new_rule(name)
            self.define(loop, [item + [loop], []])
            out.append(loop)
            return
        previous: int | None = None
        for _ in range(high - expr.min):
            link = self.new_rule(name)
            self.define(link, [item + ([previous] if previous is not None else []), []])
            previous = link
        if previous is not None:
            out.append(previous)


def compile_grammar(grammar: GbnfGrammar, root: str) -> FlatGrammar:
    """The flat layout of the rules reachable from ``root`` (others are left empty)."""
    compiler = _Compiler(grammar)
    if root not in grammar.rules:
        raise GrammarError(f"the grammar has no '{root}' rule")
    for name in reachable_rules(grammar, root):
        compiler.body(name, grammar.rules[name])
    compiler.flat.root = compiler.index[root]
    return compiler.flat

"""A reasoning section written into the grammar, for engines that take a grammar but cannot be
told to stop at a marker and continue (OpenAI-compatible chat APIs).

The grammar is: the opening marker, free text of at most :data:`CHARS_PER_TOKEN` characters per
token of the budget that never holds the closing marker's first character, the closing marker,
the separator, then the answer's own grammar. The section is bounded in characters, not tokens
(a grammar cannot count tokens); the answer's token budget is raised by the section's.
"""

from __future__ import annotations

import dataclasses

from .._gbnf._format import format_gbnf
from .._gbnf._parser import parse_gbnf
from .._gbnf._tree import Alt, CharClass, Expr, GbnfGrammar, LiteralText, Repeat, RuleRef, Seq
from ._seam import Reasoning, ReasoningDelta, TextDelta

#: Characters a section may hold per token of its budget (English prose averages about four).
CHARS_PER_TOKEN = 4


def section_grammar(gbnf: str, root: str, section: Reasoning) -> str:
    """``gbnf`` (starting at ``root``) preceded by ``section``, as one grammar starting at
    ``root``."""
    tree = parse_gbnf(gbnf)
    answer = _fresh("answer", tree.rules)
    start = answer if root == "root" else root
    rules: dict[str, Expr] = {
        (answer if name == "root" else name): _renamed(body, "root", answer) for name, body in tree.rules.items()
    }
    text = _fresh("reasoning", rules)
    # Marked reasoning stops at its closing marker's first character; a worked reply (no opening
    # marker) may hold any text, its closing text ending it where the model writes it.
    stop = ord(section.close[0]) if section.open else 0
    rules[text] = Repeat(CharClass(((stop, stop),), negated=True), 0, CHARS_PER_TOKEN * section.budget)
    rules["root"] = Seq((
        LiteralText(section.open), RuleRef(text), LiteralText(section.close + section.separator), RuleRef(start),
    ))
    return format_gbnf(GbnfGrammar({"root": rules.pop("root"), **rules}))


class SectionReader:
    """Splits the streamed text of a :func:`section_grammar` answer into the section's
    :class:`ReasoningDelta` pieces and the answer's :class:`TextDelta` pieces."""

    def __init__(self, section: Reasoning) -> None:
        self.section = section
        self.reasoning = ""
        self.answer = ""
        self._seen = ""  # everything until the answer starts
        self._shown = 0  # characters of the section already handed out
        self._started = False

    def feed(self, text: str) -> list[ReasoningDelta | TextDelta]:
        if self._started:
            self.answer += text
            return [TextDelta(text)]
        self._seen += text
        opening, closing = self.section.open, self.section.close + self.section.separator
        body = self._seen[len(opening):] if self._seen.startswith(opening) else ""
        out: list[ReasoningDelta | TextDelta] = []
        end = body.find(closing)
        # Where no closing marker is yet, one may be on its way: what could begin it is held back.
        visible = len(body) - held_back(body, closing) if end < 0 else end
        if visible > self._shown:
            out.append(ReasoningDelta(body[self._shown:visible]))
            self._shown = visible
        if end >= 0:
            self._started = True
            self.reasoning = body[:end]
            self.answer = body[end + len(closing):]
            if self.answer:
                out.append(TextDelta(self.answer))
        return out


def held_back(text: str, marker: str) -> int:
    """How many characters at the end of ``text`` could begin ``marker`` (not to be shown
    yet: the marker may be on its way)."""
    for size in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0


def _fresh(stem: str, taken: object) -> str:
    name, n = stem, 1
    while name in taken:  # type: ignore[operator]
        n += 1
        name = f"{stem}-{n}"
    return name


def _renamed(expr: Expr, old: str, new: str) -> Expr:
    """``expr`` with references to rule ``old`` pointing at ``new``."""
    if isinstance(expr, RuleRef):
        return dataclasses.replace(expr, name=new) if expr.name == old else expr
    if isinstance(expr, Seq):
        return dataclasses.replace(expr, items=tuple(_renamed(e, old, new) for e in expr.items))
    if isinstance(expr, Alt):
        return dataclasses.replace(expr, options=tuple(_renamed(e, old, new) for e in expr.options))
    if isinstance(expr, Repeat):
        return dataclasses.replace(expr, item=_renamed(expr.item, old, new))
    return expr


__all__ = ["CHARS_PER_TOKEN", "SectionReader", "held_back", "section_grammar"]

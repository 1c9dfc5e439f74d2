"""A lazy grammar as vLLM and SGLang take one: an xgrammar structural tag.

A lazy request (``CompletionRequest.triggers``) lets the model write freely until a trigger
appears; from the trigger on, the rest must match the grammar, which starts with the
trigger's text. llama.cpp takes that as it is (regex triggers). vLLM and SGLang compile
constraints with xgrammar, whose structural tags say the same with literal triggers: a
``triggered_tags`` format whose each tag begins with a trigger's text and goes on with a
``grammar`` (EBNF) format, ``stop_after_first`` (the grammar is the rest of the answer):

.. code-block:: json

    {"type": "structural_tag",
     "format": {"type": "triggered_tags", "triggers": ["<tool_call>\\n"],
                "tags": [{"type": "tag", "begin": "<tool_call>\\n",
                          "content": {"type": "grammar", "grammar": "root ::= ..."}, "end": ""}],
                "stop_after_first": true}}

Each tag's grammar is the request's grammar after the trigger's text (:func:`grammar_after`).
A trigger is a regex; a structural tag's trigger is literal text, so each pattern becomes the
literal text it starts with (:func:`literal_prefix`): ``(<tool_call>\\n)`` exactly, Hermes's
``(```json\\n\\{\\s{0,20}"name"...)`` as ````json\\n{`` (a wider trigger: a fenced JSON object
that is no call is held to the call's grammar). A pattern whose literal start is a single
character (a bare ``{``) would trigger on too much free text and is left out; token-id triggers
have no text and are refused. Checked against xgrammar's documented structural tag format
(``docs/structural_tag/structural_tag.md``, xgrammar 0.2.x; vLLM compiles a ``structural_tag``
without ``structures`` with it, SGLang takes the same object as ``response_format``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..._errors import BackendError
from ..._gbnf._format import format_gbnf
from ..._gbnf._parser import parse_gbnf
from ..._gbnf._tree import Alt, AnyChar, CharClass, Expr, GbnfGrammar, LiteralText, Repeat, RuleRef, Seq, Token
from .._seam import Reasoning

_EMPTY = Seq(())
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "0": "\0"}
_CLASSES = set("dDwWsSbBpPuxck")  # escapes that are not one literal character
_QUANTIFIERS = set("*+?{")
_SPECIAL = set(".^$|()[]") | _QUANTIFIERS
_DEPTH = 400  # rule expansions followed for one trigger's text


def structural_tag(gbnf: str, root: str, triggers: tuple[str | int, ...], server: str) -> dict[str, Any]:
    """The structural tag (``{"type": "structural_tag", "format": ...}``) of a lazy grammar."""
    texts: list[str] = []
    for trigger in triggers:
        if isinstance(trigger, int):
            raise BackendError(f"{server} cannot take a lazy grammar triggered by a token id ({trigger})")
        text = literal_prefix(trigger)
        if len(text) > 1 and text not in texts:
            texts.append(text)
    if not texts:
        raise BackendError(
            f"{server} takes only literal text as a lazy grammar's trigger, and none of "
            f"{list(triggers)!r} begins with more than one literal character"
        )
    # A trigger that starts another would make the choice of tag ambiguous: keep the shorter.
    texts = [t for t in texts if not any(o != t and t.startswith(o) for o in texts)]
    tags = [{"type": "tag", "begin": t, "content": {"type": "grammar", "grammar": grammar_after(gbnf, root, t)},
             "end": ""} for t in texts]
    return {"type": "structural_tag", "format": {
        "type": "triggered_tags", "triggers": texts, "tags": tags, "stop_after_first": True,
    }}


def with_section(tag: dict[str, Any], section: Reasoning, opened: bool = False) -> dict[str, Any]:
    """``tag`` after a reasoning section (its opening marker left out where the prompt already
    opens it): free text up to the closing marker and the separator."""
    reasoning = {"type": "tag", "begin": "" if opened else section.open, "content": {"type": "any_text"},
                 "end": section.close + section.separator}
    return {"type": "structural_tag", "format": {"type": "sequence", "elements": [reasoning, tag["format"]]}}


def literal_prefix(pattern: str) -> str:
    """The literal text every match of the regex ``pattern`` starts with (up to its first
    part that is not one literal character; one outer group is looked through)."""
    if pattern.startswith("(") and not pattern.startswith("(?"):
        pattern = pattern[1:]
    text: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            e = pattern[i + 1]
            if e in _CLASSES or e.isdigit() and e != "0":
                break
            char, i = _ESCAPES.get(e, e), i + 2
        elif c in _SPECIAL:
            break
        else:
            char, i = c, i + 1
        if i < len(pattern) and pattern[i] in _QUANTIFIERS:
            break  # this character may repeat or be left out: the literal text ends before it
        text.append(char)
    return "".join(text)


def grammar_after(gbnf: str, root: str, text: str) -> str:
    """A grammar (starting at ``root``) of the texts that complete ``text`` to a text of
    ``gbnf`` (starting at ``root``): what may follow once ``text`` is written."""
    tree = parse_gbnf(gbnf)
    rest = _Derivative(tree.rules).of(RuleRef(root), text, 0)
    options = list(dict.fromkeys(r for r, left in rest if left == ""))
    if not options:
        raise BackendError(f"the grammar cannot start with its trigger's text {text!r}")
    start = _fresh("after", tree.rules)
    rules: dict[str, Expr] = {name: body for name, body in tree.rules.items()}
    if "root" in rules:  # the new start rule is "root": the old one is renamed
        renamed = _fresh("root", rules)
        rules = {(renamed if n == "root" else n): _renamed(b, "root", renamed) for n, b in rules.items()}
        options = [_renamed(o, "root", renamed) for o in options]
    rules[start] = options[0] if len(options) == 1 else Alt(tuple(options))
    return format_gbnf(GbnfGrammar({"root": RuleRef(start), **rules}))


class _Derivative:
    """Consumes a text from the start of expressions of one grammar."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules

    def of(self, expr: Expr, text: str, depth: int) -> list[tuple[Expr, str]]:
        """Each way ``expr`` can begin ``text``: (what is left of ``expr``, what is left of
        ``text``), where either the text is used up or the expression is (empty)."""
        if not text:
            return [(expr, "")]
        if depth > _DEPTH:
            raise BackendError("the grammar nests too deeply at its start to follow a trigger's text")
        if isinstance(expr, LiteralText):
            if text.startswith(expr.text):
                return [(_EMPTY, text[len(expr.text):])]
            if expr.text.startswith(text):
                return [(LiteralText(expr.text[len(text):]), "")]
            return []
        if isinstance(expr, (CharClass, AnyChar)):
            return [(_EMPTY, text[1:])] if _matches(expr, text[0]) else []
        if isinstance(expr, Token):
            raise BackendError("a grammar of token references cannot follow a trigger's text")
        if isinstance(expr, RuleRef):
            if expr.name not in self.rules:
                raise BackendError(f"the grammar has no rule {expr.name!r}")
            return self.of(self.rules[expr.name], text, depth + 1)
        if isinstance(expr, Alt):
            return [r for option in expr.options for r in self.of(option, text, depth + 1)]
        if isinstance(expr, Seq):
            return self._sequence(expr.items, text, depth)
        return self._repeat(expr, text, depth)

    def _sequence(self, items: tuple[Expr, ...], text: str, depth: int) -> list[tuple[Expr, str]]:
        if not items:
            return [(_EMPTY, text)]
        found: list[tuple[Expr, str]] = []
        for left, rest in self.of(items[0], text, depth + 1):
            if rest == "":
                found.append((_joined(left, items[1:]), ""))
            else:  # the item is used up (it may have taken nothing): the rest of the text goes on
                found.extend(self._sequence(items[1:], rest, depth + 1))
        return found

    def _repeat(self, expr: Repeat, text: str, depth: int) -> list[tuple[Expr, str]]:
        found: list[tuple[Expr, str]] = [(_EMPTY, text)] if expr.min == 0 else []
        if expr.max == 0:
            return found
        more = Repeat(expr.item, max(expr.min - 1, 0), None if expr.max is None else expr.max - 1)
        tail: Expr = _EMPTY if more.max == 0 else more
        for left, rest in self.of(expr.item, text, depth + 1):
            if rest == "":
                found.append((_joined(left, (tail,)), ""))
            elif len(rest) < len(text):  # an item that took nothing would repeat forever
                found.extend(self.of(tail, rest, depth + 1))
        return found


def _joined(first: Expr, rest: tuple[Expr, ...]) -> Expr:
    items = [i for i in (first, *rest) if i != _EMPTY]
    if len(items) == 1:
        return items[0]
    return Seq(tuple(items))


def _matches(expr: CharClass | AnyChar, char: str) -> bool:
    if isinstance(expr, AnyChar):
        return True
    inside = any(lo <= ord(char) <= hi for lo, hi in expr.ranges)
    return inside != expr.negated


def _fresh(base: str, taken: Any) -> str:
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def _renamed(expr: Expr, old: str, new: str) -> Expr:
    if isinstance(expr, RuleRef):
        return RuleRef(new) if expr.name == old else expr
    if isinstance(expr, Seq):
        return Seq(tuple(_renamed(i, old, new) for i in expr.items))
    if isinstance(expr, Alt):
        return Alt(tuple(_renamed(o, old, new) for o in expr.options))
    if isinstance(expr, Repeat):
        return dataclasses.replace(expr, item=_renamed(expr.item, old, new))
    return expr


__all__ = ["grammar_after", "literal_prefix", "structural_tag", "with_section"]

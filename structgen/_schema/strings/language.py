"""JSON string languages: the GBNF of a :class:`~structgen._schema.ir.atoms.StringSpec`
(:func:`json_string_rule`) and its membership test (:func:`string_matches`), which agree exactly.

Four routes, cheapest first:

1. no pattern, format or exclusion: ``"\\"" char{m,n} "\\""``;
2. only excluded names (undeclared property keys): straight from the trie of the names
   (``key_trie``);
3. one fully anchored, structurally simple regex: GBNF written straight from the regex tree, with
   ``{m,n}`` counts (small grammars that llama.cpp runs fast); length bounds fold into the one
   variable-length part when there is exactly one;
4. anything else: a minimal DFA of the intersection of every constraint, one rule per state.
   Alternative strings of this kind (``anyOf`` over patterns) share one DFA, their union.

Every route accepts every JSON spelling of an allowed string (raw, short escapes, ``\\uHHHH`` in
either case, surrogate pairs) and never a raw control character; with ``escapes="needed"`` (the
generation presets), only the one spelling Pydantic writes (``RuleSet.escapes_needed``).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import partial
from typing import Literal

from ..._errors import StructgenError, UnsupportedSchemaError
from ..._escapes import gbnf_literal
from ..._memo import memo
from ..automata.charset import UNIVERSE, json_char_ref, raw_char_ref
from ..automata.dfa import DFA, TooLarge, too_large
from ..automata.operations import (
    complement, exclusion_dfa, finite_dfa, intersect, length_dfa, limit_length, union_all,
    without_words,
)
from ..automata.regex import Choice, Anchor, Chars, Node, Quantified, Concat, length_bounds, parse_regex
from ..automata.regex_dfa import regex_dfa
from ..automata.to_gbnf import emit_dfa
from ..._gbnf._expr import alt, repeat, seq
from ..._gbnf._rules import RuleSet
from ..ir.atoms import StringSpec
from .formats import format_regex
from .key_trie import QUOTE, CharSetRef, exclusion_body, json_exclusion_body


# --- regexes and their automata -------------------------------------------------------------


def _format_regex(name: str, pointer: str) -> str:
    regex = format_regex(name)
    if regex is None:
        raise UnsupportedSchemaError(f"format {name!r} cannot be enforced", pointer=pointer, keyword="format")
    return regex


def _regexes(spec: StringSpec, pointer: str, dotall: bool) -> list[tuple[str, str]]:
    """(regex, keyword) for every pattern and format, each checked to parse."""
    found = [(p, "pattern") for p in spec.patterns]
    found += [(_format_regex(f, pointer), "format") for f in spec.formats]
    for regex, keyword in found + [(p, "pattern") for p in spec.not_patterns]:
        parse_regex(regex, dotall=dotall, pointer=pointer, keyword=keyword)
    return found


@memo(2048)
def _cached_dfa(regex: str, dotall: bool) -> DFA | None:
    try:
        return regex_dfa(parse_regex(regex, dotall=dotall))
    except TooLarge:
        return None


def _pattern_dfa(regex: str, keyword: str, dotall: bool, pointer: str) -> DFA:
    dfa = _cached_dfa(regex, dotall)
    if dfa is None:
        raise too_large(keyword, pointer, f"pattern {regex!r}")
    return dfa


_SURROGATE = re.compile("[\ud800-\udfff]")


def _scalar(value: str) -> bool:
    """Strings holding a lone surrogate have no JSON spelling our grammars produce (checked
    for every excluded key name: ASCII, known without a look at the characters, is most)."""
    return value.isascii() or _SURROGATE.search(value) is None


def string_matches(spec: StringSpec, value: str, *, dotall: bool = False) -> bool:
    """Whether the decoded string ``value`` is in the language of ``spec`` (the grammar's semantics)."""
    if not _scalar(value) or len(value) < spec.min_length:
        return False
    if spec.max_length is not None and len(value) > spec.max_length:
        return False
    if (spec.only is not None and value not in spec.only) or value in spec.exclude:
        return False
    for regex, keyword in _regexes(spec, "", dotall):
        if not _pattern_dfa(regex, keyword, dotall, "").matches(value):
            return False
    return not any(_pattern_dfa(p, "pattern", dotall, "").matches(value) for p in spec.not_patterns)


def spec_dfa(spec: StringSpec, *, dotall: bool = False, pointer: str = "") -> DFA:
    """The DFA of every string ``spec`` allows (minimal unless it is a plain exclusion trie)."""
    _regexes(spec, pointer, dotall)  # parse and format errors carry the caller's pointer
    result = _spec_dfa(spec, dotall)
    if isinstance(result, tuple):
        keyword, limit = result
        raise too_large(keyword, pointer, "this combination of string constraints", limit)
    return result


@memo(4096)
def _spec_dfa(spec: StringSpec, dotall: bool) -> DFA | tuple[str, int]:
    """The DFA, or (keyword, state limit) when it grows too large. Cached: real schemas repeat
    the same key sets and patterns many times."""
    if spec.only is not None:
        rest = replace(spec, only=None)
        return finite_dfa(v for v in spec.only if string_matches(rest, v, dotall=dotall))
    dfa: DFA | None = None
    keyword = "pattern"
    try:
        steps = tuple((regex, kw, False) for regex, kw in _regexes(spec, "", dotall))
        steps += tuple((regex, "pattern", True) for regex in spec.not_patterns)
        if steps:
            product = _regex_product(steps, dotall)
            if isinstance(product, tuple):
                return product
            dfa = product
        excluded = [v for v in spec.exclude if _scalar(v)]
        if excluded:
            dfa = exclusion_dfa(excluded) if dfa is None else without_words(dfa, excluded)
        keyword = "maxLength" if spec.max_length is not None else "minLength"
        if dfa is None:
            return length_dfa(spec.min_length, spec.max_length)
        return _within_lengths(dfa, spec.min_length, spec.max_length)
    except TooLarge as error:
        return keyword, error.limit


def _within_lengths(dfa: DFA, min_length: int, max_length: int | None) -> DFA | tuple[str, int]:
    """``dfa`` cut to the length bounds where it does not keep them already, or (keyword,
    state limit) when the cut grows too large."""
    if dfa.is_empty():
        return dfa
    need_min, need_max = _lengths_to_cut(dfa.length_bounds(), min_length, max_length)
    if not (need_min or need_max):
        return dfa
    try:
        return limit_length(dfa, min_length if need_min else 0, max_length if need_max else None)
    except TooLarge as error:
        return ("maxLength" if need_max else "minLength"), error.limit


def _lengths_to_cut(bounds: tuple[int, int | None], min_length: int, max_length: int | None
                    ) -> tuple[bool, bool]:
    """Whether a language whose lengths lie within ``bounds`` (longest None: unbounded) still
    needs cutting to ``min_length`` and to ``max_length``."""
    low, high = bounds
    return min_length > low, max_length is not None and (high is None or high > max_length)


def union_groups(specs: list[StringSpec], dotall: bool) -> list[tuple[StringSpec, ...]]:
    """The specs better written as one automaton: those that take route 4 by a pattern, format
    or forbidden pattern, grouped by their length bounds, in groups of two or more. Cut to
    length one by one, such alternatives can take a hundred times the states of their union
    cut once (``not``/``anyOf`` nests over patterns), and each leaves the sampler one more
    branch to follow."""
    groups: dict[tuple[int, int | None], list[StringSpec]] = {}
    for spec in specs:
        if spec.only is None and (spec.patterns or spec.formats or spec.not_patterns):
            try:
                if _direct_tree(spec, _regexes(spec, "", dotall), dotall) is not None:
                    continue
            except StructgenError:
                continue  # its error comes when it is written on its own
            groups.setdefault((spec.min_length, spec.max_length), []).append(spec)
    return [tuple(g) for g in groups.values() if len(g) > 1]


def json_union_rule(rules: RuleSet, specs: tuple[StringSpec, ...], *, hint: str,
                    dotall: bool = False) -> str | None | Literal[False]:
    """One rule for every string any of ``specs`` (a group from ``union_groups``, whose
    patterns and formats are known to be valid) allows, None if none; False when their union
    has no automaton within budget (write them one by one)."""
    memo = rules.memo
    key = ("union", specs, dotall)
    if key not in memo:
        dfa = _union_dfa(specs, dotall)
        memo[key] = False if dfa is None else _emit_string_dfa(
            rules, dfa, hint, partial(json_char_ref, rules), QUOTE + " ", QUOTE)
    result: str | None | Literal[False] = memo[key]
    return result


@memo(256)
def _union_dfa(specs: tuple[StringSpec, ...], dotall: bool) -> DFA | None:
    """The union's DFA (lengths cut once, after the union), or None when writing the specs one
    by one is better: the union has more states than its parts together (unrelated patterns
    multiply where related ones share), or it grows too large."""
    parts = []
    for spec in specs:
        part = _spec_dfa(replace(spec, min_length=0, max_length=None), dotall)
        if isinstance(part, tuple):
            return None
        parts.append(part)
    try:
        dfa = union_all(parts)
    except TooLarge:
        return None
    if len(dfa.delta) > sum(len(part.delta) for part in parts):
        return None
    cut = _within_lengths(dfa, specs[0].min_length, specs[0].max_length)
    return None if isinstance(cut, tuple) else cut


@memo(4096)
def _regex_product(steps: tuple[tuple[str, str, bool], ...], dotall: bool) -> DFA | tuple[str, int]:
    """The intersection of the regexes' DFAs (complemented where the flag is set), taken left
    to right, or (keyword, state limit) of the step that grew too large. Cached per prefix:
    many specs share their patterns and differ only in excluded names or lengths."""
    regex, keyword, negated = steps[-1]
    before: DFA | None = None
    if len(steps) > 1:
        earlier = _regex_product(steps[:-1], dotall)
        if isinstance(earlier, tuple):
            return earlier
        before = earlier
    try:
        part = _cached_dfa(regex, dotall)
        if part is None:
            raise TooLarge
        if negated:
            part = complement(part)
        return part if before is None else intersect(before, part)
    except TooLarge as error:
        return keyword, error.limit


# --- GBNF ------------------------------------------------------------------------------------

@memo(16384)
def string_literal(value: str, escapes_needed: bool = False) -> str:
    """Every JSON spelling of the string ``value`` (raw, or with non-ASCII as ``\\u`` escapes;
    ``escapes_needed``: raw only). Cached: property names recur across the objects of a schema
    and across schemas."""
    ascii_spelling = json.dumps(value)
    if value.isascii():  # the only spelling (ensure_ascii changes nothing)
        return gbnf_literal(ascii_spelling)
    if escapes_needed:
        return gbnf_literal(json.dumps(value, ensure_ascii=False))
    spellings = {ascii_spelling, json.dumps(value, ensure_ascii=False)}
    return alt([gbnf_literal(s) for s in sorted(spellings)]) or '""'


def json_string_rule(
    rules: RuleSet, spec: StringSpec, *, hint: str, pointer: str, dotall: bool = False, raw: bool = False
) -> str | None:
    """A rule matching every JSON spelling (quotes included) of every string ``spec`` allows;
    None if it allows none. ``raw=True``: the bare characters, no quotes and no escaping."""
    memo = rules.memo
    key = ("string", spec, dotall, raw)
    if key not in memo:
        memo[key] = _string_rule(rules, spec, hint, pointer, dotall, raw)
    result: str | None = memo[key]
    return result


def _string_rule(
    rules: RuleSet, spec: StringSpec, hint: str, pointer: str, dotall: bool, raw: bool
) -> str | None:
    if spec.min_length < 0 or (spec.max_length is not None and spec.max_length < spec.min_length):
        return None
    char: CharSetRef = raw_char_ref if raw else partial(json_char_ref, rules)
    quote, final = ("", "") if raw else (QUOTE + " ", QUOTE)
    regexes = _regexes(spec, pointer, dotall)
    excluded = sorted(v for v in spec.exclude if _scalar(v))
    simple = spec.only is None and not spec.not_patterns and not excluded
    if simple and not regexes:
        body = repeat(char(UNIVERSE), spec.min_length, spec.max_length, rules=rules, hint=hint)
        return rules.add(hint, seq(quote.strip(), body, final) or '""')
    only_exclusion = not (regexes or spec.not_patterns or spec.min_length or spec.max_length is not None)
    if excluded and spec.only is None and only_exclusion:
        if raw:
            body, refs, nesting = exclusion_body(excluded, rules, hint, char)
            return rules.add(hint, body, refs, nesting)
        body, refs, nesting = json_exclusion_body(excluded, rules, hint)
        return rules.add(hint, f"{quote}({body})", refs, nesting + 1)
    direct = _direct_tree(spec, regexes, dotall)
    if isinstance(direct, str):  # no string is left
        return None
    if direct is not None:
        body, _ = _RegexWriter(char, rules, hint).emit(direct)
        return rules.add(hint, f"{quote}{body} {final}".strip())
    dfa = spec_dfa(spec, dotall=dotall, pointer=pointer)
    return _emit_string_dfa(rules, dfa, hint, char, quote, final)


def _emit_string_dfa(rules: RuleSet, dfa: DFA, hint: str, char: CharSetRef, quote: str,
                     final: str) -> str | None:
    start = emit_dfa(dfa, rules, f"{hint}-s", char, final)
    if start is None:
        return None
    return rules.add(hint, f"{quote}{start}") if quote else start


def _direct_tree(spec: StringSpec, regexes: list[tuple[str, str]], dotall: bool
                 ) -> Node | str | None:
    """Route 3: the regex tree to write straight as GBNF (lengths folded in), "" when no string
    is left, or None when the spec needs another route."""
    if len(regexes) != 1 or spec.only is not None or spec.not_patterns \
            or any(_scalar(v) for v in spec.exclude):
        return None
    return _direct_body(regexes[0][0], dotall, spec.min_length, spec.max_length)


@memo(2048)
def _direct_body(regex: str, dotall: bool, min_length: int, max_length: int | None
                 ) -> Node | str | None:
    """The tree of a regex (already known to parse) anchored at both ends, or None when the
    DFA route is needed. Returns "" when the language is empty. Cached: the checks walk the
    whole tree, and formats and patterns recur across grammars.
    """
    node = parse_regex(regex, dotall=dotall)
    options = node.options if isinstance(node, Choice) else (node,)
    inners: list[Node] = []
    for option in options:
        if not (isinstance(option, Concat) and len(option.items) >= 2):
            return None
        first, last = option.items[0], option.items[-1]
        if first != Anchor("^") or last != Anchor("$"):
            return None
        inner = Concat(option.items[1:-1])
        if not _is_plain(inner):
            return None
        inners.append(inner.items[0] if len(inner.items) == 1 else inner)
    body: Node = inners[0] if len(inners) == 1 else Choice(tuple(inners))
    if any(_lengths_to_cut(length_bounds(body), min_length, max_length)):
        return _merge_lengths(body, min_length, max_length)
    return body


_MAX_SPLIT = 32


def _merge_lengths(body: Node, min_length: int, max_length: int | None) -> Node | str | None:
    """Fold length bounds into the regex when every branch has at most one variable-length part
    and that part repeats one character class: its count absorbs the bounds exactly.
    None if the regex has another shape; "" if no string is left."""
    branches: list[Node] = []
    for option in body.options if isinstance(body, Choice) else (body,):
        for items in _split_by_length(_flatten(option)):
            fixed = sum(length_bounds(i)[0] for i in items if _fixed(i))
            variable = [k for k, i in enumerate(items) if not _fixed(i)]
            if not variable:
                if min_length <= fixed and (max_length is None or fixed <= max_length):
                    branches.append(Concat(items))
                continue
            part = items[variable[0]]
            if len(variable) > 1 or not (isinstance(part, Quantified) and isinstance(part.item, Chars)):
                return None
            low = max(part.min, min_length - fixed)
            room = None if max_length is None else max_length - fixed
            highs = [h for h in (part.max, room) if h is not None]
            high = min(highs) if highs else None
            if high is None or high >= low:
                k = variable[0]
                branches.append(Concat(items[:k] + (Quantified(part.item, low, high),) + items[k + 1 :]))
    if not branches:
        return ""
    return branches[0] if len(branches) == 1 else Choice(tuple(branches))


def _fixed(node: Node) -> bool:
    low, high = length_bounds(node)
    return low == high


def _flatten(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Concat):
        return tuple(x for item in node.items for x in _flatten(item))
    return (node,)


def _split_by_length(items: tuple[Node, ...]) -> list[tuple[Node, ...]]:
    """Distribute alternations of fixed-length options over the sequence, one copy per length,
    so that ``(jpg|jpeg)`` stops being a variable-length part (bounded to a few copies)."""
    out: list[tuple[Node, ...]] = [()]
    for item in items:
        if isinstance(item, Choice) and not _fixed(item) and all(_fixed(o) for o in item.options):
            by_length: dict[int, list[Node]] = {}
            for o in item.options:
                by_length.setdefault(length_bounds(o)[0], []).append(o)
            groups = [g[0] if len(g) == 1 else Choice(tuple(g)) for g in by_length.values()]
            if len(out) * len(groups) <= _MAX_SPLIT:
                out = [prefix + _flatten(g) for prefix in out for g in groups]
                continue
        out = [prefix + (item,) for prefix in out]
    return out


def _is_plain(node: Node) -> bool:
    """No anchors, no empty class, and no unbounded repetition of something that may be empty
    (which would become left recursion in llama.cpp)."""
    if isinstance(node, Anchor):
        return False
    if isinstance(node, Chars):
        return bool(node.chars)
    if isinstance(node, (Concat, Choice)):
        children = node.items if isinstance(node, Concat) else node.options
        return all(_is_plain(c) for c in children)
    if node.max is None and length_bounds(node.item)[0] == 0:
        return False
    return _is_plain(node.item)


class _RegexWriter:
    """GBNF for a plain regex tree. A repeated group becomes a rule of its own: llama.cpp limits
    (rules generated inside a group) x (repetition count) to 2000, a rule reference counts as one."""

    def __init__(self, char: CharSetRef, rules: RuleSet, hint: str) -> None:
        self.char = char
        self.rules = rules
        self.hint = hint

    def emit(self, node: Node) -> tuple[str, bool]:
        """(GBNF, is_single_item)."""
        if isinstance(node, Chars):
            return self.char(node.chars), True
        if isinstance(node, Concat):
            if not node.items:
                return "()", True
            parts = [self.emit(item) for item in node.items]
            return " ".join(p for p, _ in parts), len(parts) == 1 and parts[0][1]
        if isinstance(node, Choice):
            sets = [o.chars for o in node.options if isinstance(o, Chars)]
            others = [o for o in node.options if not isinstance(o, Chars)]
            alts = []
            if sets:
                union = sets[0]
                for cs in sets[1:]:
                    union = union | cs
                alts.append(self.char(union))
            alts += [self.emit(o)[0] for o in others]
            return ("(" + " | ".join(alts) + ")", True) if len(alts) > 1 else (alts[0], True)
        if isinstance(node, Anchor):
            raise TypeError("anchors are removed before direct emission")
        inner, single = self.emit(node.item)
        if not single or inner.startswith("("):
            inner = self.rules.add(f"{self.hint}-part", inner[1:-1] if single else inner)
        text = repeat(inner, node.min, node.max, rules=self.rules, hint=self.hint) or "()"
        return text, text == inner

"""Left-factoring of unions: ``a | b`` whose rules begin alike, written as their shared
beginning followed by a group of what differs.

llama.cpp's grammar sampler keeps one parser stack for every alternative still alive, so two
objects that differ only after a nested value (``{"children": [...], "kind": "a"}`` against
``"kind": "b"``) are both followed through the whole value; nested in one another (a tree) the
stacks multiply with every level. Factored, the shared part is read once. The language is the
same: ``P x | P y`` and ``P (x | y)`` accept the same texts.

Alternatives are factored in groups that begin with the same text, and only by a shared
beginning that holds a rule reference (a value that can be long): a shared ``"{"`` alone saves
nothing worth changing the text for.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .._memo import memo

__all__ = ["factored_union"]

# One symbol of a sequence: a literal, a class, a group (its parentheses balanced by the
# caller), or a name; each may carry a repetition suffix.
_ATOM = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(\[(?:[^\]\\]|\\.)*\])|([a-zA-Z0-9-]+)|(\())')
_SUFFIX = re.compile(r"[?*+]|\{\d*(?:,\d*)?\}")
# A union as the emitter writes one: each alternative a rule name or a literal.
_ONE_SYMBOL = r'(?:[a-zA-Z0-9-]+|"(?:[^"\\]|\\.)*")'
_UNION = re.compile(f"{_ONE_SYMBOL}(?: \\| {_ONE_SYMBOL})+")
_ALTERNATIVE = re.compile(_ONE_SYMBOL)
# For telling a sequence from a union cheaply: literals and classes blanked, then groups
# dropped innermost first; a "|" left over is a top-level one.
_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]')
_GROUP = re.compile(r"\([^()]*\)")
#: Rules whose sharing is not worth a rewrite: whitespace.
_TRIVIAL = frozenset({"ws"})
#: Names expanded per union at most: the bodies followed are short (object members).
MAX_EXPANSIONS = 64


@memo(16384)
def _alternatives(body: str) -> tuple[tuple[str, ...], ...] | None:
    """The top-level alternatives of a body, each as its symbols (None if it cannot be read
    here). Cached: the same bodies are opened in union after union."""
    out: list[list[str]] = [[]]
    i, n = 0, len(body)
    while True:
        while i < n and body[i] == " ":
            i += 1
        if i == n:
            return tuple(map(tuple, out)) if all(out) else None
        if body[i] == "|":
            out.append([])
            i += 1
            continue
        m = _ATOM.match(body, i)
        if m is None:
            return None
        if m.group(4):  # a group: find its closing parenthesis
            end = _group_end(body, m.end())
            if end is None:
                return None
        else:
            end = m.end()
        suffix = _SUFFIX.match(body, end)
        if suffix:
            end = suffix.end()
        out[-1].append(body[m.start():end].strip())
        i = end


def _sequence(body: str | None) -> tuple[str, ...] | None:
    """The symbols of a body that is one sequence (None for a union, or nothing to read)."""
    if body is None or _head(body) is None:
        return None
    alternatives = _alternatives(body)
    return alternatives[0] if alternatives is not None and len(alternatives) == 1 else None


@memo(65536)
def _head(body: str) -> str | None:
    """The first symbol of a body that is one sequence; None for a union (or an unreadable
    body). Cheaper than reading the whole body: most unions part at their first character."""
    if "|" in body:
        skeleton = _LITERAL.sub('""', body)
        while "(" in skeleton:
            reduced = _GROUP.sub("", skeleton)
            if reduced == skeleton:
                return None
            skeleton = reduced
        if "|" in skeleton:
            return None
    m = _ATOM.match(body)
    if m is None:
        return None
    end = _group_end(body, m.end()) if m.group(4) else m.end()
    if end is None:
        return None
    suffix = _SUFFIX.match(body, end)
    return body[m.start():suffix.end() if suffix else end].strip()


def _group_end(body: str, i: int) -> int | None:
    """The index just past the parenthesis closing the group opened before ``i``."""
    depth = 1
    n = len(body)
    while i < n:
        c = body[i]
        if c == '"' or c == "[":
            close = '"' if c == '"' else "]"
            i += 1
            while i < n and body[i] != close:
                i += 2 if body[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def factored_union(body: str, rule_body: Callable[[str], str | None]) -> str | None:
    """``body`` with the alternatives that begin alike written as their shared beginning and a
    group of what differs, or None when nothing is worth factoring. Alternatives are grouped by
    where their text begins (rules that are one sequence opened up to see it); a group is
    factored when its shared beginning holds a rule reference. ``rule_body`` gives a rule's
    body by name (None for a name that is not a rule)."""
    if not _UNION.fullmatch(body):
        return None
    alternatives = [[symbol] for symbol in _ALTERNATIVE.findall(body)]
    groups: dict[str, list[int]] = {}
    for index, alternative in enumerate(alternatives):
        groups.setdefault(_first_symbol(alternative, rule_body), []).append(index)
    written: list[str] = []
    changed = False
    for members in groups.values():
        if len(members) > 1:
            factored = _factored([list(alternatives[i]) for i in members], rule_body)
            if factored is not None:
                written.append(factored)
                changed = True
                continue
        written += [" ".join(alternatives[i]) for i in members]
    return " | ".join(written) if changed else None


def _first_symbol(alternative: list[str], rule_body: Callable[[str], str | None]) -> str:
    """The symbol an alternative's text begins with, rules that are one sequence opened up."""
    first = alternative[0]
    for _ in range(MAX_EXPANSIONS):
        body = rule_body(first)
        head = _head(body) if body is not None else None
        if head is None:
            return first
        first = head
    return first


def _factored(alternatives: list[list[str]], rule_body: Callable[[str], str | None]) -> str | None:
    """``P (x | y ...)`` for alternatives ``P x``, ``P y``..., factored again inside the group
    where some of them share more; None if no shared part holds a rule reference."""
    text, worth = _trie(alternatives, 0, rule_body, [MAX_EXPANSIONS])
    return text if worth else None


def _trie(alternatives: list[list[str]], start: int, rule_body: Callable[[str], str | None],
          budget: list[int]) -> tuple[str, bool]:
    """The alternatives (alike up to ``start``) written from ``start`` on as their shared part
    and a group of the rest, the rest grouped again by how it begins; and whether a shared part
    anywhere holds a rule reference. ``budget``: the rules that may still be opened up."""
    shared = start
    while True:
        # Extend the shared part as far as every alternative agrees.
        while all(len(a) > shared for a in alternatives) and \
                all(a[shared] == alternatives[0][shared] for a in alternatives):
            shared += 1
        # Where they part, open up the rules that are one sequence and look again.
        opened = False
        for a in alternatives:
            if len(a) > shared and budget[0] > 0:
                parts = _sequence(rule_body(a[shared]))
                if parts:
                    a[shared:shared + 1] = list(parts)
                    budget[0] -= 1
                    opened = True
        if not opened:
            break
    prefix = alternatives[0][start:shared]
    worth = any(rule_body(s) is not None and s not in _TRIVIAL for s in prefix)
    by_start: dict[str, list[list[str]]] = {}
    for a in alternatives:
        by_start.setdefault(a[shared] if len(a) > shared else "", []).append(a)
    rests: list[str] = []
    for first, members in by_start.items():
        if first and len(members) > 1:
            text, below = _trie(members, shared, rule_body, budget)
            if below:
                rests.append(text)
                worth = True
                continue
        rests += [" ".join(a[shared:]) for a in members]
    rests = list(dict.fromkeys(rests))
    present = [r for r in rests if r]
    if not present:
        return " ".join(prefix), worth
    if len(present) == 1 and len(rests) == 1:
        return " ".join([*prefix, present[0]]), worth
    tail = f"( {' | '.join(present)} )" + ("?" if len(present) < len(rests) else "")
    return " ".join([*prefix, tail]), worth

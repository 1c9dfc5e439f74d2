"""A registry of GBNF rules under construction: unique names, shared bodies, forward references."""

from __future__ import annotations

import re
from typing import Any

from .._escapes import MAX_GROUP_DEPTH
from .._memo import memo
from ._factor import factored_union

_INVALID_NAME_CHARS = re.compile(r"[^a-zA-Z0-9-]+")
_RULE_NAME = re.compile(r"[a-zA-Z0-9-]+")
# A body's tokens: literals and classes (skipped), or a bare word that may name a rule.
# Possessive runs: a literal or class never needs backtracking, and scanning every body of every
# grammar for reachability is a visible part of the conversion time.
_REF = re.compile(r'"(?:[^"\\]++|\\.)*+"|\[(?:[^\]\\]++|\\.)*+\]|([a-zA-Z0-9-]+)')
# A body's text up to and including its next parenthesis (or its end), literals and classes
# skipped: one match per parenthesis, however many literals lie between; and its text that is
# not a parenthesis.
_TO_PAREN = re.compile(r'(?:"(?:[^"\\]++|\\.)*+"|\[(?:[^\]\\]++|\\.)*+\]|[^()"\[]++)*+([()]|$)')
_NOT_PAREN = re.compile(r'"(?:[^"\\]++|\\.)*+"|\[(?:[^\]\\]++|\\.)*+\]|[^()"\[]++')


#: Names that ``add_named`` defines with a fixed body: ``ws``, and the character rules
#: (``char``, ``char-...``, ``chars-...``: see ``_charset.char_rule_name``), whose names say
#: what they match so that text using them is the same in every grammar. Generated names keep
#: out, so a definition called "char" cannot stand in for a character rule.
FIXED_NAMES = frozenset({"ws", "char"})
_FIXED_PREFIXES = ("char-", "chars-")
#: Names other engines read otherwise: xgrammar reads ``true``/``false`` as booleans,
#: llguidance renames ``root`` to ``start`` (names are lower case: xgrammar's macros, ``Regex``,
#: ``Token``..., cannot be taken).
_RESERVED_ELSEWHERE = frozenset({"true", "false", "start"})


@memo(65536)
def rule_name_hint(text: str) -> str:
    """A valid GBNF rule name derived from arbitrary text (property names, titles...), outside
    the fixed names."""
    # Most hints (hint-child-...) hold nothing to replace: skip the regex for them.
    valid = text.isascii() and text.replace("-", "").isalnum()
    name = (text if valid else _INVALID_NAME_CHARS.sub("-", text)).strip("-").lower()
    name = name[:40].rstrip("-") or "r"
    # A leading digit: xgrammar and llguidance want a letter first (and digits alone would
    # read like the counts of ``x{2,16}`` to the reachability scan).
    fixed = (name in FIXED_NAMES or name.startswith(_FIXED_PREFIXES) or name[0].isdigit()
             or name in _RESERVED_ELSEWHERE)
    return f"def-{name}" if fixed else name


def child_hint(hint: str, child: str) -> str:
    """A short rule name hint for a part of ``hint`` (the last word of the parent, then child)."""
    parent = hint.rsplit("-", 1)[-1] if len(hint) > 24 else hint
    return f"{parent}-{child}"


class RuleSet:
    """Rules by name. Equal bodies share one rule, so repeated sub-schemas cost nothing.

    ``reserve`` hands out a name before its body is known, for recursion through ``$ref``;
    ``define`` fills it in later.
    """

    def __init__(self, *, escapes_needed: bool = False) -> None:
        #: Strings are spelled with only the escapes JSON needs (``GrammarOptions.escapes``):
        #: the character references of every string writer follow it.
        self.escapes_needed = escapes_needed
        self._bodies: dict[str, str | None] = {}
        self._by_body: dict[str, str] = {}
        #: The names a body refers to, where the caller knew them: the reachability walk then
        #: need not scan that body's text (state machines and key tries are most of it).
        self._refs: dict[str, tuple[str, ...]] = {}
        self._next_suffix: dict[str, int] = {}
        #: Per-grammar caches of other modules (string rules, character references), keyed by
        #: a tuple whose first item names the cache. An entry may only hold what asking again
        #: would return: rules are shared by body, so asking again adds nothing.
        self.memo: dict[tuple[Any, ...], Any] = {}
        #: How deep groups nest in a body, where the caller knew it from building the text
        #: (key tries, state machines): ``_shallow`` then need not scan it.
        self._nesting: dict[str, int] = {}
        #: The rules made of groups nested too deep (in order, see ``_shallow``).
        self._hoisted: dict[str, None] = {}
        #: The unions of values (``anyOf`` and the like), which ``to_gbnf`` factors
        #: (``factor.py``).
        self._unions: dict[str, None] = {}

    def _fresh(self, hint: str) -> str:
        base = rule_name_hint(hint)
        name, n = base, self._next_suffix.get(base, 1)
        if n > 1:
            name = f"{base}-{n}"
        while name in self._bodies:  # a suffixed name may clash with another hint's base
            n += 1
            name = f"{base}-{n}"
        self._next_suffix[base] = n + 1
        return name

    def add(self, hint: str, body: str, refs: tuple[str, ...] | None = None,
            nesting: int | None = None) -> str:
        """Return the name of a rule with this body, creating it if no rule has it yet.
        ``refs``, if given, are all the rule names ``body`` uses (see ``expr_refs``);
        ``nesting``, if given, is how deep its groups nest (see ``group_depth``)."""
        existing = self._by_body.get(body)
        if existing is not None:
            return existing
        name = self._fresh(hint)
        self._bodies[name] = body
        self._by_body[body] = name
        self._record(name, refs, nesting)
        return name

    def add_union(self, hint: str, options: list[str]) -> str:
        """``add`` for a union of values: ``options | ...``, whose alternatives that begin
        alike ``to_gbnf`` writes as their shared beginning and what differs."""
        name = self.add(hint, " | ".join(options))
        self._unions[name] = None
        return name

    def _record(self, name: str, refs: tuple[str, ...] | None, nesting: int | None) -> None:
        """What the caller knew of the body of ``name``: its rule names, its nesting."""
        if refs is not None:
            self._refs[name] = refs
        if nesting is not None:
            self._nesting[name] = nesting

    def add_named(self, name: str, body: str, refs: tuple[str, ...] | None = None) -> str:
        """Define a rule under exactly ``name`` (a fixed name, see ``FIXED_NAMES``, or one that
        nothing else can have taken yet); idempotent. ``refs`` as for ``add``."""
        current = self._bodies.get(name)
        if current is None:
            self._bodies[name] = body
            self._by_body.setdefault(body, name)
            self._record(name, refs, None)
        elif current != body:
            raise ValueError(f"rule {name!r} already defined with another body")
        return name

    def unaliased(self, expr: str) -> str:
        """``expr``, or the body of the rule it merely names: ``name ::= other-rule`` would only
        add a hop."""
        if _RULE_NAME.fullmatch(expr):
            return self._bodies.get(expr) or expr
        return expr

    def reserve(self, hint: str) -> str:
        name = self._fresh(hint)
        self._bodies[name] = None
        return name

    def define(self, name: str, body: str, refs: tuple[str, ...] | None = None,
               nesting: int | None = None) -> None:
        """Give a reserved name its body (``refs`` and ``nesting`` as for ``add``)."""
        if self._bodies.get(name, "") is not None:
            raise ValueError(f"rule {name!r} was not reserved or is already defined")
        if self._by_body.get(body) in self._unions:  # a union's body, unaliased (see there)
            self._unions[name] = None
        self._bodies[name] = body
        self._by_body.setdefault(body, name)
        self._record(name, refs, nesting)

    def __contains__(self, name: object) -> bool:
        return name in self._bodies

    def body(self, name: str) -> str | None:
        return self._bodies.get(name)

    def to_gbnf(self, root: str = "root") -> str:
        """The grammar text: ``root`` first, then the other rules by name, unused ones dropped."""
        if None in self._bodies.values():
            missing = [n for n, b in self._bodies.items() if b is None]
            raise ValueError(f"rules reserved but never defined: {missing}")
        reachable = self._reachable(root)
        if self._factor_unions(reachable):
            reachable = self._reachable(root)
        # In order (the set's is not stable), so that hoisted groups get the same names each time.
        names = sorted(reachable - {root})
        own, shallow = self._bodies, self._shallow
        # Most bodies have too few groups to nest too deep: those skip the call.
        bodies = {name: body if (body := own[name] or "").count("(") <= MAX_GROUP_DEPTH
                  else shallow(name) for name in [root, *names]}
        # Hoisting may share a body with a rule outside ``reachable``; it is emitted too.
        todo = [n for n in self._hoisted if n not in bodies]
        grew = bool(todo)
        while todo:
            name = todo.pop()
            bodies[name] = self._shallow(name)
            todo += [n for n in self._hoisted if n not in bodies and n not in todo]
        lines = [f"{root} ::= {bodies.pop(root)}"]
        lines += [f"{n} ::= {bodies[n]}" for n in (sorted(bodies) if grew else names)]
        return "\n".join(lines) + "\n"

    def _factor_unions(self, names: set[str]) -> bool:
        """Rewrite the unions of values among ``names`` whose alternatives begin alike
        (``factor.py``); whether any changed."""
        changed = False
        bodies = self._bodies
        # In order: a union's factoring reads the bodies of its alternatives, which may be
        # factored unions themselves.
        for name in sorted(n for n in self._unions if n in names):
            body = bodies[name]
            if body:
                factored = factored_union(body, bodies.get)
                if factored is not None:
                    self._bodies[name] = factored
                    self._refs.pop(name, None)
                    self._nesting.pop(name, None)
                    changed = True
        return changed

    def _shallow(self, name: str) -> str:
        """The body of ``name`` with its groups nested at most ``MAX_GROUP_DEPTH`` deep: a group
        deeper than that becomes a rule of its own (llama.cpp makes a rule of every group
        anyway, so it parses the same grammar)."""
        body = self._bodies[name] or ""
        if body.count("(") <= MAX_GROUP_DEPTH:
            return body
        known = self._nesting.get(name)
        deep = known > MAX_GROUP_DEPTH if known is not None else _too_deep(body)
        if not deep:
            return body
        pieces, nestings = split_deep_groups(body)
        if len(pieces) == 1:
            return body
        # Even pieces are the body's own text, odd ones the groups that go.
        return "".join(p if i % 2 == 0 else self._hoist(name, p, nestings[i // 2])
                       for i, p in enumerate(pieces))

    def _hoist(self, parent: str, body: str, nesting: int) -> str:
        """A rule for a group's ``body`` (its groups nesting ``nesting`` deep), or the rule
        that already has it."""
        name = self.add(f"{parent}-nest", body, nesting=nesting)
        self._hoisted.setdefault(name, None)
        return name

    def _reachable(self, root: str) -> set[str]:
        seen = {root}
        todo = [root]
        bodies, known = self._bodies, self._refs
        while todo:
            name = todo.pop()
            refs = known.get(name)
            for ref in expr_refs(bodies[name] or "") if refs is None else refs:
                if ref not in seen and ref in bodies:
                    seen.add(ref)
                    todo.append(ref)
        return seen


@memo(65536)
def _too_deep(body: str) -> bool:
    """Whether groups nest more than ``MAX_GROUP_DEPTH`` deep in ``body``: its parentheses alone,
    less one level per pass (the innermost pairs), leave some after that many passes. Cached:
    the bodies with many groups (any JSON value, number ranges) recur across grammars."""
    parens = _NOT_PAREN.sub("", body)
    for _ in range(MAX_GROUP_DEPTH):
        parens = parens.replace("()", "")
        if not parens:
            return False
    return True


@memo(16384)
def group_depth(text: str) -> int:
    """How deep groups nest in ``text`` (its parentheses outside literals and classes): for
    the short pieces (character references) that writers of long bodies put together, so that
    they know their body's nesting without a scan of the whole (see ``RuleSet.add``)."""
    depth = deepest = 0
    for paren in _NOT_PAREN.sub("", text):
        depth += 1 if paren == "(" else -1
        deepest = max(deepest, depth)
    return deepest


@memo(65536)
def split_deep_groups(body: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """``body`` cut around its groups that open ``MAX_GROUP_DEPTH`` groups deep: its text and
    each such group's content, alternately (``(body,)`` when there is none); and how deep
    groups nest in each such group's content (known from the cut, so the hoisted rules need no
    nesting check of their own). Cached: the same deep bodies (number ranges) recur across
    grammars."""
    pieces, nestings, depth, start, last, deepest = [], [], 0, 0, 0, 0
    cut = MAX_GROUP_DEPTH + 1  # the depth of the groups that go
    for match in _TO_PAREN.finditer(body):
        paren = match.group(1)
        if paren == "(":
            depth += 1
            if depth == cut:
                start, deepest = match.end() - 1, depth
            elif depth > deepest:
                deepest = depth
        elif paren == ")":
            if depth == cut:
                pieces += [body[last:start], body[start + 1:match.end() - 1].strip()]
                nestings.append(deepest - cut)
                last = match.end()
            depth -= 1
    return (*pieces, body[last:]), tuple(nestings)


@memo(65536)
def expr_refs(body: str) -> tuple[str, ...]:
    """The distinct bare words of an expression, in order: the rule names it may use. Cached
    because the same bodies (character classes, shared sub-rules) recur across many grammars."""
    words = dict.fromkeys(_REF.findall(body))
    words.pop("", None)  # literals and classes match with an empty group
    return tuple(words)

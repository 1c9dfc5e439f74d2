"""Objects: declared keys in order, optional ones skippable, undeclared keys between them.

Grammar shape (no chained optionals, no left recursion): for declared keys k0..kn-1,

    D(i, c)  the members from declared index i on, after c members were written
             = sep kv_i G(i+1, c+1)  |  D(i+1, c)         (the second only if k_i is optional)
    G(i, c)  = (sep extra)* D(i, c)                         undeclared keys after a present key
    F(i)     = kv_i G(i+1, 1)  |  F(i+1)                    the first member

The member count c only matters for minProperties/maxProperties; without them it is always 0,
so a plain object costs one D and one G rule per declared key.
"""

from __future__ import annotations

import itertools

from ..._pointers import escape_pointer_token
from ..._gbnf._expr import Expr, alt, repeat, seq
from ..._gbnf._rules import child_hint
from ..ir.atoms import ANY, IR, NOTHING, ConstAtom, KeyCond, Need, ObjAtom, StrAtom, StringSpec
from ..strings.language import string_literal
from .context import EmitContext

#: More (patternProperties + additionalProperties) conditions than this are not partitioned.
MAX_KEY_CONDITIONS = 6
#: Count states (declared keys × counts) above which min/maxProperties are not built.
MAX_COUNT_STATES = 6000

#: Required keys that no ``properties`` declares may come in any order up to this many.
MAX_FLOATING_KEYS = 6


def _ordered_keys(em: EmitContext, atom: ObjAtom) -> tuple[list[str], list[str]]:
    """(keys in grammar order, keys that may come in any order among the undeclared ones).

    Required keys that ``properties`` does not declare float; with key_order "any" every key
    floats, as long as there are few enough for the subset states.
    """
    declared = [k for k, _ in atom.props]
    floating = sorted(atom.required - set(declared))
    if em.options.key_order == "any" and len(declared) + len(floating) <= MAX_FLOATING_KEYS:
        return [], declared + floating
    if len(floating) > MAX_FLOATING_KEYS:
        declared, floating = declared + floating, []
    first = [k for k in em.options.prop_order if k in declared]
    keys = first + [k for k in declared if k not in first]
    if em.options.key_order == "required-first":
        keys = [k for k in keys if k in atom.required] + [k for k in keys
                                                           if k not in atom.required]
    return keys, floating


def emit_object(em: EmitContext, atom: ObjAtom, hint: str, pointer: str) -> str | None:
    norm = em.norm
    members: list[tuple[str, bool]] = []  # (kv expression, required)
    floating: list[tuple[str, bool]] = []
    keys, floating_keys = _ordered_keys(em, atom)
    for key in keys + floating_keys:
        value = norm.algebra.value_for_key(atom, key)
        if atom.names is not None and not norm.accepts(atom.names, key):
            value = NOTHING
        required = key in atom.required
        value_expr = em.emit(value, child_hint(hint, key),
                             f"{pointer}/properties/{escape_pointer_token(key)}") if value else None
        if value_expr is None:
            if required:
                return None
            continue
        kv = f"{string_literal(key, em.rules.escapes_needed)} {em.colon} {value_expr}"
        (floating if key in floating_keys else members).append((kv, required))
    declared = frozenset(keys + floating_keys)
    for need in atom.needs:
        member = _needed_member(em, atom, need, declared, hint, pointer)
        if member is None:
            return None
        floating.append((member, True))
    extra = _extra_member(em, atom, declared, hint, pointer)
    min_props, max_props = atom.min_props, atom.max_props
    if extra is None:
        # Closed: each member at most once, so a bound beyond their number says nothing more
        # (exact, and no member counts to track however large the bound).
        most = len(members) + len(floating)
        if min_props > most:
            return None
        if max_props is not None and max_props >= most:
            max_props = None
    if not members and not floating and extra is not None and (min_props or max_props is not None):
        content = _undeclared_run(em, extra, min_props, max_props, hint)
    else:
        content = _ObjectBuilder(em, members, floating, extra, min_props, max_props, hint,
                                 pointer).content()
    if content is None:
        return None
    return em.rules.add(hint, em.container(em.open_obj, content or None, '"}"', optional=False))


def _undeclared_run(em: EmitContext, extra: str, low: int, high: int | None, hint: str) -> Expr:
    """The members of an object that declares none: one run of undeclared members, counted as
    array items are (exact at any bound, where tracking counts member by member is not)."""

    if high == 0:
        return ""
    more = repeat(f"{em.sep} {extra}", max(low - 1, 0), None if high is None else high - 1,
                  rules=em.rules, hint=f"{hint}-members")
    run = seq(extra, more)
    return run if low > 0 else alt([run, ""])


def _needed_member(em: EmitContext, atom: ObjAtom, need: Need, declared: frozenset[str],
                   hint: str, pointer: str) -> str | None:
    """An undeclared member that meets ``need`` (and the object's own rules for such keys)."""
    cond = need.cond
    # Keys outside the need's condition are ruled out by extra "forbidden" conditions.
    if cond.match is not None:
        outside = [(KeyCond(nomatch=(cond.match,)), NOTHING)]
    else:
        outside = [(KeyCond(match=p), NOTHING) for p in cond.nomatch]
    names = atom.names
    if need.key_names is not None:
        names = need.key_names if names is None else em.norm.algebra.intersect(names,
                                                                               need.key_names)
    narrowed = ObjAtom(atom.props, atom.required,
                       atom.extras + tuple(outside) + ((cond, need.ir),), names)
    return _extra_member(em, narrowed, declared | need.excluded, child_hint(hint, "need"),
                         pointer)


def _name_specs(em: EmitContext, names: IR | None) -> list[StringSpec]:
    """The key languages ``propertyNames`` allows (one spec per string alternative)."""
    if names is None or names == ANY:
        return [StringSpec()]
    specs: list[StringSpec] = []
    for atom in em.norm.expand_all(names):
        if isinstance(atom, StrAtom):
            specs.append(atom.spec)
        elif isinstance(atom, ConstAtom) and isinstance(atom.value, str):
            specs.append(StringSpec(only=frozenset({atom.value})))
    return specs


def _extra_member(em: EmitContext, atom: ObjAtom, declared: frozenset[str], hint: str,
                  pointer: str) -> str | None:
    """One undeclared member ``"key": value``, keys partitioned by the conditions they meet."""
    conds = [(c, ir) for c, ir in atom.extras if ir != ANY]
    if len(conds) > MAX_KEY_CONDITIONS:
        em.norm.unsupported(pointer, "patternProperties",
                            f"more than {MAX_KEY_CONDITIONS} overlapping key patterns")
        return None
    name_specs = _name_specs(em, atom.names)
    options: list[str] = []
    for truth in itertools.product((True, False), repeat=len(conds)):
        key_spec = _key_spec(conds, truth)
        if key_spec is None:
            continue
        patterns, not_patterns = key_spec
        value: IR = ANY
        for (_, ir), holds in zip(conds, truth):
            if holds:
                value = em.norm.algebra.intersect(value, ir, nested=True)
        if not value:
            continue
        value_expr = em.emit(value, child_hint(hint, "value"), f"{pointer}/additionalProperties")
        if value_expr is None:
            continue
        for names in name_specs:
            only = None if names.only is None else names.only - declared
            spec = StringSpec(names.patterns + patterns, names.not_patterns + not_patterns,
                              names.min_length, names.max_length, names.formats,
                              names.exclude | declared, only)
            if only is not None and not only:
                continue
            key_expr = em.string(spec, f"{hint}-key", f"{pointer}/propertyNames")
            if key_expr is not None:
                options.append(f"{key_expr} {em.colon} {value_expr}")
    if not options:
        return None
    return em.rules.add(f"{hint}-extra", " | ".join(dict.fromkeys(options)))


def _key_spec(conds: list[tuple[KeyCond, IR]], truth: tuple[bool, ...]
              ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    patterns: list[str] = []
    not_patterns: list[str] = []
    for (cond, _), holds in zip(conds, truth):
        if cond.match is not None:
            (patterns if holds else not_patterns).append(cond.match)
        elif holds:
            not_patterns.extend(cond.nomatch)
        elif not cond.nomatch:
            return None  # "matches none of no patterns" is always true
        else:
            patterns.append("|".join(f"(?:{p})" for p in cond.nomatch))
    return tuple(dict.fromkeys(patterns)), tuple(dict.fromkeys(not_patterns))


class _ObjectBuilder:
    """The D/G/F rules of the module docstring, indexed by (declared index, count, mask of the
    floating required keys already written)."""

    def __init__(self, em: EmitContext, members: list[tuple[str, bool]],
                 floating: list[tuple[str, bool]],
                 extra: str | None, min_props: int, max_props: int | None, hint: str,
                 pointer: str) -> None:
        self.em, self.members, self.floating, self.extra = em, members, floating, extra
        self.full = (1 << len(floating)) - 1
        self.need = sum(1 << j for j, (_, required) in enumerate(floating) if required)
        self.lo, self.hi = min_props, max_props
        self.cap = max_props if max_props is not None else min_props
        self.hint, self.pointer = hint, pointer
        self.memo: dict[tuple[str, int, int, int], Expr] = {}
        states = (len(members) + 1) * (self.cap + 1) * (self.full + 1)
        if states > MAX_COUNT_STATES:
            em.norm.unsupported(pointer, "maxProperties" if max_props is not None
                                else "minProperties", "too many member counts to track")
            self.lo, self.hi, self.cap = 0, None, 0

    def _next(self, c: int) -> int | None:
        if self.hi is not None:
            return c + 1 if c + 1 <= self.hi else None
        return min(c + 1, self.cap)

    def _rule(self, kind: str, i: int, body: Expr) -> Expr:
        if not body or " " not in body:
            return body
        return self.em.rules.add(f"{self.hint}-{kind}{i}", body)

    def _undeclared(self, i: int, c: int, mask: int, sep: str,
                    with_extra: bool = True) -> list[Expr]:
        """Members that are not the next declared key: an extra key or a floating required key."""
        nxt = self._next(c)
        if nxt is None:
            return []
        options: list[Expr] = []
        if self.extra is not None and with_extra:
            options.append(seq(sep, self.extra, self.gap(i, nxt, mask)))
        for j, (kv, _) in enumerate(self.floating):
            if not mask & (1 << j):
                options.append(seq(sep, kv, self.gap(i, nxt, mask | (1 << j))))
        return options

    def content(self) -> Expr:
        if self.cap == 0 and self.hi is None and self.lo == 0 and self.full == 0:
            return self._plain_content()
        # Build from the last declared key backwards so that recursion depth stays constant
        # however many keys an object declares.
        counts = range(self.cap, -1, -1)
        for i in range(len(self.members), -1, -1):
            for c in counts:
                for mask in range(self.full, -1, -1):
                    self.gap(i, c, mask)
            self.first(i)
        return alt([self.first(0)] + self._undeclared(0, 0, 0, ""))

    def _plain_content(self) -> Expr:
        """``content`` for the usual object (no member counts, no floating keys): the same
        D/G/F rules (those that are used), added in the same order, with ``seq``/``alt``
        /``_rule`` spelled out for the shapes that occur (every object runs this loop once per
        key)."""
        sep, extra, members = self.em.sep, self.extra, self.members
        loop = f"( {sep} {extra} )*"
        rule = self._rule
        after_d: Expr = ""  # D(i + 1), G(i + 1) and F(i + 1) of the key after the current one
        after_g: Expr = "" if extra is None else rule("g", len(members), loop)
        after_f: Expr = ""
        # Only rules something refers to are made: F(i) past the first required key (the
        # first member is at latest that key) and, without undeclared keys, D(0) (no member
        # comes before it).
        first_required = next((i for i, (_, req) in enumerate(members) if req), len(members))
        for i in range(len(members) - 1, -1, -1):
            kv, required = members[i]
            if after_g is None:
                with_sep: Expr = None
                alone: Expr = None
            elif after_g:
                with_sep, alone = f"{sep} {kv} {after_g}", f"{kv} {after_g}"
            else:
                with_sep, alone = f"{sep} {kv}", kv
            d: Expr = None
            if i or extra is not None:
                d = rule("d", i, with_sep if required else alt([with_sep, after_d]))
            if extra is None:
                g = d
            else:
                g = rule("g", i, None if d is None else f"{loop} {d}" if d else loop)
            f: Expr = None
            if i <= first_required:
                f = rule("f", i, alone if required else alt([alone, after_f]))
            after_d, after_g, after_f = d, g, f
        extras = [seq("", extra, after_g)] if extra is not None else []
        return alt([after_f] + extras)

    def first(self, i: int) -> Expr:
        key = ("F", i, 0, 0)
        if key in self.memo:
            return self.memo[key]
        if i == len(self.members):
            result: Expr = "" if self.lo == 0 and self.need == 0 else None
        else:
            kv, required = self.members[i]
            nxt = self._next(0)
            options = [seq(kv, self.gap(i + 1, nxt, 0)) if nxt is not None else None]
            if not required:
                options.append(self.first(i + 1))
            result = self._rule("f", i, alt(options))
        self.memo[key] = result
        return result

    def declared(self, i: int, c: int, mask: int) -> Expr:
        key = ("D", i, c, mask)
        if key in self.memo:
            return self.memo[key]
        if i == len(self.members):
            result: Expr = "" if c >= self.lo and mask & self.need == self.need else None
        else:
            kv, required = self.members[i]
            nxt = self._next(c)
            options = [seq(self.em.sep, kv, self.gap(i + 1, nxt, mask)) if nxt is not None
                       else None]
            if not required:
                options.append(self.declared(i + 1, c, mask))
            result = self._rule("d", i, alt(options))
        self.memo[key] = result
        return result

    def gap(self, i: int, c: int, mask: int) -> Expr:
        if self.extra is None and not self.floating:
            return self.declared(i, c, mask)
        key = ("G", i, c, mask)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # guards the recursion below; replaced at the end
        after = self.declared(i, c, mask)
        if self.hi is None and c == self.cap and self.extra is not None:
            # Counts no longer matter: extra keys loop, floating keys still advance the mask.
            rest = alt([after] + self._undeclared(i, c, mask, self.em.sep, with_extra=False))
            result = seq(f"( {self.em.sep} {self.extra} )*", rest)
        else:
            result = alt([after] + self._undeclared(i, c, mask, self.em.sep))
        result = self._rule("g", i, result)
        self.memo[key] = result
        return result

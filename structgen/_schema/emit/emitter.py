"""IR → GBNF: one rule per reference target, one expression per atom.

Objects and arrays are in ``_emit_objects.py`` / ``_emit_arrays.py``; this module holds the
dispatcher, literal values, primitive types, references and the whitespace tokens.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import replace
from decimal import Decimal
from typing import Any

from ..._errors import SchemaError, UnsupportedSchemaError
from ..._escapes import escape_code_point, gbnf_literal
from ..._gbnf._expr import alt, seq
from ..._gbnf._rules import RuleSet
from ..ir.atoms import (
    ANY, IR, ArrAtom, Atom, BoolAtom, ConstAtom, Irreducible, NullAtom, NumAtom, ObjAtom, RefAtom,
    StrAtom, StringSpec, decimal_lcm,
)
from ..normalize.normalizer import Normalizer
from ..options import FLEXIBLE_WHITESPACE_LIMIT, SEPARATORS, GrammarOptions
from ..strings.language import json_string_rule, json_union_rule, string_literal, union_groups
from .arrays import emit_array
from .integers import integer_bounds, integer_rule
from .numbers import number_rule
from .objects import emit_object

#: Constant objects with at most this many keys are accepted in every key order.
MAX_PERMUTED_KEYS = 4


def number_spellings(value: int | float) -> list[str]:
    """What ``json.dumps`` writes for this number as an int and as a float (1 == 1.0): the
    same spellings for equal values (1e20 and 10**20 both take "1e+20" and the 21 digits)."""
    spellings = [json.dumps(value)]
    if isinstance(value, float) and value.is_integer():
        spellings.append(str(int(value)))
    if isinstance(value, int) and _float_twin(value):
        spellings.append(repr(float(value)))
    if value == 0:
        spellings += ["0", "0.0", "-0.0"]
    return list(dict.fromkeys(spellings))


class Emitter:
    def __init__(self, norm: Normalizer, options: GrammarOptions) -> None:
        self.norm = norm
        self.options = options
        self.rules = RuleSet(escapes_needed=options.escapes == "needed")
        self._ref_names: dict[str, str] = {}
        self._ref_state: dict[str, str] = {}  # key -> "busy" | "done"
        self._containers: dict[tuple[Atom, str | None], tuple[Atom, str | None]] = {}
        self._any_value: str | None = None
        if options.whitespace == "flexible":
            self.rules.add_named("ws", f"[ \\t\\n\\r]{{0,{FLEXIBLE_WHITESPACE_LIMIT}}}")
            self.sep, self.colon, self.tail = 'ws "," ws', 'ws ":" ws', "ws"
            self.open_obj, self.open_arr = '"{" ws', '"[" ws'
        else:
            comma, colon = SEPARATORS[options.whitespace]
            self.sep, self.colon, self.tail = gbnf_literal(comma), gbnf_literal(colon), ""
            self.open_obj, self.open_arr = '"{"', '"["'

    # ------------------------------------------------------------------ dispatch
    def emit(self, ir: IR, hint: str, pointer: str, head: frozenset[str] = frozenset()
             ) -> str | None:
        """An expression for the JSON texts of the values in ``ir``; None if there are none."""
        if ir == ANY:
            return self.any_value()
        united = self._string_unions(ir, hint) if len(ir) > 1 else {}
        options = []
        for atom in ir:
            if isinstance(atom, StrAtom) and atom.spec in united:
                expr = united[atom.spec]
            else:
                expr = self.emit_atom(atom, hint, pointer, head)
            if expr is not None:
                options.append(expr)
        if len(options) > 1:
            return self.rules.add_union(hint, list(dict.fromkeys(options)))
        return options[0] if options else None

    def _string_unions(self, ir: IR, hint: str) -> dict[StringSpec, str | None]:
        """The string atoms written as one automaton (``union_groups``): the first of each group
        maps to the union's rule, the others to None."""
        specs = [a.spec for a in ir if isinstance(a, StrAtom)]
        if len(specs) < 2:
            return {}
        united: dict[StringSpec, str | None] = {}
        for group in union_groups(specs, self.options.dotall):
            rule = json_union_rule(self.rules, group, hint=hint, dotall=self.options.dotall)
            if rule is not False:
                united.update(dict.fromkeys(group, None))
                united[group[0]] = rule
        return united

    def emit_atom(self, atom: Atom, hint: str, pointer: str, head: frozenset[str]) -> str | None:
        if isinstance(atom, RefAtom):
            return self.ref_rule(atom.key, head)
        if isinstance(atom, ConstAtom):
            return self.literal(atom.value, hint)
        if isinstance(atom, NullAtom):
            return '"null"'
        if isinstance(atom, BoolAtom):
            return alt([f'"{str(v).lower()}"' for v in (True, False) if v in atom.values])
        if isinstance(atom, NumAtom):
            return self.number(atom, hint, pointer)
        if isinstance(atom, StrAtom):
            return self.string(atom.spec, hint, pointer)
        # Containers start over with an empty ``head``, and every rule they create is either
        # shared by body or memoized (references, strings), so emitting the same atom again
        # would make the same calls and get the same names back: remember the answer instead.
        # Atom equality is JSON equality for constants (1 == 1.0) and numeric for bounds, while
        # their spellings differ, so a hit must also have the same repr. Without strict mode,
        # dropped keywords are reported per pointer, so it is part of the key.
        key = (atom, None if self.options.strict else pointer)
        known = self._containers.get(key)
        if known is not None and (known[0] is atom or repr(known[0]) == repr(atom)):
            return known[1]
        try:
            if isinstance(atom, ArrAtom):
                expr = emit_array(self, atom, hint, pointer)
            elif isinstance(atom, ObjAtom):
                expr = emit_object(self, atom, hint, pointer)
            else:
                raise TypeError(f"unknown atom {atom!r}")
        except Irreducible as exc:
            # A set operation needed only now (splitting items by contains, the members an
            # object may hold) has no exact form; non-strict leaves the atom out (stricter).
            keyword = "contains" if isinstance(atom, ArrAtom) else "additionalProperties"
            self.norm.unsupported(pointer, keyword, str(exc))
            expr = None
        self._containers[key] = (atom, expr)
        return expr

    # ------------------------------------------------------------------ references
    def ref_rule(self, key: str, head: frozenset[str]) -> str | None:
        if key in head:
            raise SchemaError("a $ref cycle that consumes no input (left recursion)",
                              pointer=self.norm._ref_pointer.get(key, "#"), keyword="$ref")
        state = self._ref_state.get(key)
        if state == "done":
            return self._ref_names.get(key)
        if state == "busy":
            return self._ref_names[key]
        ir = self.norm.expand(key)
        if not ir:
            self._ref_state[key] = "done"
            return None
        hint = _ref_hint(self.norm.hints.get(key, key))
        if len(ir) == 1 and isinstance(ir[0], RefAtom):
            # A pure alias: share the target's rule (cycles of aliases are caught by ``head``).
            target = self.ref_rule(ir[0].key, head | {key})
            if target is not None:
                self._ref_names[key] = target
            self._ref_state[key] = "done"
            return target
        name = self.rules.reserve(hint)
        self._ref_names[key] = name
        self._ref_state[key] = "busy"
        body = self.emit(ir, hint, self.norm._ref_pointer.get(key, "#"), head | {key})
        self._ref_state[key] = "done"
        if body is None:
            # Empty after all (e.g. only through impossible recursion): keep the name defined.
            self.rules.define(name, f'"\\x00" [^\\x00-{escape_code_point(0x10FFFF)}]')
            return name
        self.rules.define(name, self.rules.unaliased(body))
        return name

    # ------------------------------------------------------------------ primitives
    def any_value(self) -> str:
        """The rule for any JSON value, made once per grammar. Its name is remembered, not
        assumed: a definition called "value" may have taken that name first."""
        if self._any_value is not None:
            return self._any_value
        value = self._any_value = self.rules.reserve("value")
        string = self.string(StringSpec(), "string", "#")
        number = number_rule(self.rules, minimum=None, exclusive_minimum=None, maximum=None,
                             exclusive_maximum=None, multiple_of=None, integer=False,
                             hint="number", pointer="#")
        kv = seq(string, self.colon, value)
        obj = self.rules.add("object", self.container(self.open_obj, f"{kv} ( {self.sep} {kv} )*",
                                                      '"}"', optional=True))
        arr = self.rules.add("array", self.container(self.open_arr,
                                                     f"{value} ( {self.sep} {value} )*", '"]"',
                                                     optional=True))
        self.rules.define(value, f'{obj} | {arr} | {string} | {number} | "true" | "false" '
                                 '| "null"')
        return value

    def container(self, open_token: str, content: str | None, close: str, optional: bool) -> str:
        if content is None:
            return seq(open_token, close)
        inner = seq(content, self.tail)
        return seq(open_token, f"( {inner} )?" if optional else inner, close)

    def string(self, spec: StringSpec, hint: str, pointer: str, raw: bool = False) -> str | None:
        limit = self.options.max_string_length
        if limit is not None and spec.max_length is None and _free_text(spec):
            spec = replace(spec, max_length=max(limit, spec.min_length))
        while True:
            try:
                return json_string_rule(self.rules, spec, hint=hint, pointer=pointer,
                                        dotall=self.options.dotall, raw=raw)
            except UnsupportedSchemaError as exc:
                # A combination whose automaton grows too large: non-strict drops the keyword
                # that made it grow (and says so), which only widens the string.
                keyword = exc.keyword or "pattern"
                wider = _without(spec, keyword)
                if wider == spec:
                    raise
                self.norm.unsupported(exc.pointer or pointer, keyword, exc.message)
                spec = wider

    def number(self, atom: NumAtom, hint: str, pointer: str) -> str | None:
        if atom.fraction:
            return self.fraction_number(atom, hint, pointer)
        lo = atom.lower[0] if atom.lower and not atom.lower[1] else None
        ex_lo = atom.lower[0] if atom.lower and atom.lower[1] else None
        hi = atom.upper[0] if atom.upper and not atom.upper[1] else None
        ex_hi = atom.upper[0] if atom.upper and atom.upper[1] else None
        if atom.integer:
            low, high = integer_bounds(lo, ex_lo, hi, ex_hi)
            multiple = None
            if atom.multiple_of is not None:
                step = decimal_lcm(atom.multiple_of, Decimal(1))
                multiple = int(step)
            return integer_rule(self.rules, minimum=low, maximum=high, multiple_of=multiple,
                                hint=hint, pointer=pointer,
                                allow_zero_fraction=atom.float_integers
                                and self.options.integer_zero_fraction)
        return number_rule(self.rules, minimum=lo, exclusive_minimum=ex_lo, maximum=hi,
                           exclusive_maximum=ex_hi, multiple_of=atom.multiple_of,
                           integer=False, hint=hint, pointer=pointer)

    def fraction_number(self, atom: NumAtom, hint: str, pointer: str) -> str | None:
        """Numbers that are not integers (what ``not: {type: integer}`` leaves): a fraction with
        a nonzero digit, or a normalized mantissa with a negative exponent (what ``json.dumps``
        writes below 1e-4); bounds on such numbers are not supported."""
        if atom.lower is not None or atom.upper is not None or atom.multiple_of is not None:
            self.norm.unsupported(pointer, "not", "bounds on numbers that must not be integers")
            return None
        body = ('"-"? ("0" | [1-9] [0-9]{0,19}) "." [0-9]{0,19} [1-9] [0-9]{0,19} '
                '| "-"? [1-9] ("." [0-9]{1,19})? [eE] "-" [0-9]{1,3}')
        return self.rules.add(f"{hint}-fraction", body)

    def literal(self, value: Any, hint: str) -> str:
        """The JSON spellings of exactly ``value`` in the current whitespace mode."""
        if value is None or isinstance(value, bool):
            return gbnf_literal(json.dumps(value))
        if isinstance(value, (int, float)):
            return alt([gbnf_literal(s) for s in number_spellings(value)]) or '"0"'
        if isinstance(value, str):
            return string_literal(value, self.rules.escapes_needed)
        if isinstance(value, list):
            items = [self.literal(v, hint) for v in value]
            content = f" {self.sep} ".join(items) if items else None
            return self.rules.add(hint, self.container(self.open_arr, content, '"]"', False))
        if isinstance(value, dict):
            pairs = [seq(self.literal(k, hint), self.colon, self.literal(v, hint))
                     for k, v in value.items()]
            # Key order does not change an object: small ones are accepted in any order.
            orders = itertools.permutations(pairs) if len(pairs) <= MAX_PERMUTED_KEYS else [pairs]
            options = [self.container(self.open_obj, f" {self.sep} ".join(order) or None, '"}"',
                                      False) for order in orders]
            return self.rules.add(hint, " | ".join(options))
        raise TypeError(f"not a JSON value: {value!r}")


def _float_twin(value: int) -> bool:
    """Whether a float equals the int ``value`` exactly."""
    try:
        return float(value) == value
    except OverflowError:
        return False


def _ref_hint(key: str) -> str:
    if "#" not in key:  # a synthetic intersection or complement
        return key.split("-")[0]
    fragment = key.split("@", 1)[0].rsplit("#", 1)[-1]  # "@..." is a dynamic scope
    last = fragment.rstrip("/").rsplit("/", 1)[-1] if fragment else ""
    # Long definition names ("io.k8s.api.apps.v1.StatefulSetSpec") keep their last word.
    words = [w for w in re.split(r"[^A-Za-z0-9]+", last) if w]
    return words[-1][:32] if words else "root-ref"


def _free_text(spec: StringSpec) -> bool:
    """Whether ``spec`` is free text: no pattern, format, value list or excluded values, where a
    length cap stays a cheap ``char{m,n}`` (times a pattern's automaton, or the trie of the names
    an undeclared key must avoid, it could grow the grammar a hundredfold)."""
    return not (spec.patterns or spec.not_patterns or spec.formats or spec.exclude
                or spec.only is not None)


def _without(spec: StringSpec, keyword: str) -> StringSpec:
    """``spec`` without the constraint ``keyword`` stands for (wider)."""
    if keyword == "maxLength":
        return replace(spec, max_length=None)
    if keyword == "minLength":
        return replace(spec, min_length=0)
    if keyword == "format":
        return replace(spec, formats=())
    return replace(spec, patterns=(), not_patterns=())

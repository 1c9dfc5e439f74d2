"""GBNF for JSON numbers under bounds and multipleOf, built digit by digit.

Spellings (decisions the rest of structgen relies on):

- No leading zeros in integer parts (JSON forbids them); ``"0"`` is the only spelling starting with 0.
- Negative zero: ``integer_rule`` never accepts the bare ``"-0"`` (``json.dumps`` never writes it for an
  int); with ``allow_zero_fraction`` it accepts ``"-0.0"`` (what ``json.dumps(-0.0)`` writes).
  ``number_rule`` treats numbers by value: ``"-0"``, ``"-0.0"``… are accepted wherever 0 is.
- Digit caps: an integer part has at most ``MAX_INTEGER_DIGITS`` digits, or as many as the lower
  bound's magnitude if that is longer (so ``minimum: 1e30`` stays satisfiable); a fraction has at
  most ``MAX_FRACTION_DIGITS`` digits; an exponent at most ``MAX_EXPONENT_DIGITS`` (leading zeros
  allowed, as JSON allows). Values needing more digits are rejected, never accepted wrongly.
- Exponent notation: an unconstrained number accepts every JSON spelling within the caps. A number
  with bounds is compared exactly, but its exponent spellings are restricted to a normalized mantissa
  (one nonzero digit before the point: ``1.5e+300``, ``1e-05``, what ``json.dumps`` writes); ``10e5``
  or ``0.5e3`` are rejected there. With ``multipleOf`` only plain decimal notation is accepted.

Ranges become unions of blocks "fixed prefix, one digit class, n free digits" (the usual min/max
integer decomposition). ``multipleOf k`` runs a k-state residue automaton over the same blocks; the
free-digit tails become rules indexed by (digits left, residue), so the cost is about k·digits rules,
capped by ``MAX_AUTOMATON_STATES``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import Decimal, localcontext
from functools import lru_cache

from .._errors import SchemaError, UnsupportedSchemaError
from ._rules import RuleSet

__all__ = [
    "MAX_AUTOMATON_STATES",
    "MAX_ENUMERATED_MULTIPLES",
    "MAX_EXPONENT_DIGITS",
    "MAX_FRACTION_DIGITS",
    "MAX_INTEGER_DIGITS",
    "integer_bounds",
    "integer_rule",
    "number_rule",
]

#: Digits of an integer part on an unbounded side (2**64 has 20 digits).
MAX_INTEGER_DIGITS = 20
#: Digits after the decimal point (``json.dumps`` of a float writes at most 20 in plain notation).
MAX_FRACTION_DIGITS = 20
#: Digits of an exponent (``json.dumps`` writes at most 3: ``5e-324``, ``1e+308``).
MAX_EXPONENT_DIGITS = 3
#: (modulus × digit positions) above which multipleOf is not built as an automaton.
MAX_AUTOMATON_STATES = 4000
#: A bounded range with at most this many multiples is spelled as a plain alternation instead.
MAX_ENUMERATED_MULTIPLES = 256

Block = tuple[str, int, int, int]  # prefix digits, class low digit, class high digit (-1: none), free digits


def _cls(lo: int, hi: int) -> str:
    if lo == hi:
        return f'"{lo}"'
    return "[0-9]" if (lo, hi) == (0, 9) else f"[{lo}-{hi}]"


def _rep(atom: str, m: int, n: int) -> str:
    if n <= 0:
        return ""
    if m == n:
        return atom if n == 1 else f"{atom}{{{n}}}"
    return f"{atom}?" if (m, n) == (0, 1) else f"{atom}{{{m},{n}}}"


def _seq(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _alt(options: list[str | None]) -> str | None:
    """Alternation of the non-None options; "" is the empty spelling; None if nothing matches."""
    seen: list[str] = []
    for o in options:
        if o is not None and o not in seen:
            seen.append(o)
    if not seen:
        return None
    rest = [o for o in seen if o]
    if not rest:
        return ""
    body = rest[0] if len(rest) == 1 else "(" + " | ".join(rest) + ")"
    if len(rest) < len(seen):
        simple = " " not in body and not body.endswith(("?", "}"))
        return body + "?" if simple else f"({body})?"
    return body


# --- integer ranges as blocks ---------------------------------------------------------------


def _same_length_blocks(a: str, b: str) -> Iterator[Block]:
    """Blocks covering the digit strings of a's length between a and b (a <= b, leading zeros kept)."""
    if a == b:
        yield (a, 0, -1, 0)
        return
    i = 0
    while a[i] == b[i]:
        i += 1
    prefix, x, y, n = a[:i], int(a[i]), int(b[i]), len(a) - i - 1
    if a[i + 1 :] != "0" * n:
        for p, lo, hi, free in _same_length_blocks(a[i + 1 :], "9" * n):
            yield (prefix + a[i] + p, lo, hi, free)
        x += 1
    upper = b[i + 1 :] != "9" * n
    if x <= y - upper:
        yield (prefix, x, y - upper, n)
    if upper:
        for p, lo, hi, free in _same_length_blocks("0" * n, b[i + 1 :]):
            yield (prefix + b[i] + p, lo, hi, free)


def _magnitude_blocks(a: int, b: int, point: int) -> Iterator[Block]:
    """Blocks for the digit strings of integers a..b (0 <= a) written with at least point+1 digits.

    point > 0 means the number is shown divided by 10**point, so small values keep leading zeros
    ("0" "05" for 0.05); the point itself is inserted later by the emitter.
    """
    width = point + 1
    while a <= b:
        top = 10**width - 1
        if a <= top:
            yield from _same_length_blocks(str(a).zfill(width), str(min(b, top)).zfill(width))
            a = top + 1
        width += 1


class _Spelling:
    """Emits blocks as GBNF, inserting the decimal point and intersecting with a residue automaton."""

    def __init__(self, rules: RuleSet, hint: str, modulus: int, point: int) -> None:
        self.rules, self.hint, self.k, self.point = rules, hint, modulus, point
        self._tails: dict[tuple[int, int], str | None] = {}

    def _dot(self, left: int) -> str:
        return '"."' if self.point and left == self.point else ""

    def free(self, n: int, residue: int) -> str | None:
        """n digits that take the automaton from ``residue`` to 0 (the point placed as needed)."""
        if self.k == 1:
            if self.point and n >= self.point:
                return _seq(_rep("[0-9]", n - self.point, n - self.point), '"."', _rep("[0-9]", self.point, self.point))
            return _rep("[0-9]", n, n)
        key = (n, residue)
        if key not in self._tails:
            if n == 0:
                self._tails[key] = "" if residue == 0 else None
            else:
                body = _alt(self._digit_options(range(10), n, residue))
                self._tails[key] = None if body is None else self.rules.add(f"{self.hint}-mod", body)
        return self._tails[key]

    def _digit_options(self, digits: range, n: int, residue: int) -> list[str | None]:
        """Options "one digit from ``digits``, then n-1 digits ending at residue 0"."""
        by_next: dict[int, list[int]] = {}
        for d in digits:
            by_next.setdefault((10 * residue + d) % self.k, []).append(d)
        options: list[str | None] = []
        for nxt, ds in by_next.items():
            tail = self.free(n - 1, nxt)
            if tail is not None:
                options.append(_seq(self._dot(n), _digit_class(ds), tail))
        return options

    def block(self, block: Block) -> str | None:
        prefix, lo, hi, free = block
        left = len(prefix) + (hi >= 0) + free
        parts, residue = [], 0
        for ch in prefix:
            parts.append(_seq(self._dot(left), f'"{ch}"'))
            residue, left = (10 * residue + int(ch)) % self.k, left - 1
        if hi < 0:
            return None if residue else _merge_literals(parts)
        if self.k == 1:
            rest: str | None = _seq(self._dot(left), _cls(lo, hi), self.free(free, 0) or "")
        else:
            rest = _alt(self._digit_options(range(lo, hi + 1), left, residue))
        return None if rest is None else _seq(_merge_literals(parts), rest)


def _digit_class(ds: list[int]) -> str:
    if len(ds) == 1:
        return f'"{ds[0]}"'
    if ds == list(range(ds[0], ds[-1] + 1)):
        return _cls(ds[0], ds[-1])
    return "[" + "".join(map(str, ds)) + "]"


def _merge_literals(parts: list[str]) -> str:
    """'"1" "2" "." "5"' -> '"12.5"'."""
    text = "".join(p.replace('"', "").replace(" ", "") for p in parts)
    return f'"{text}"' if text else ""


def _magnitudes(rules: RuleSet, hint: str, a: int, b: int, modulus: int, point: int) -> str | None:
    """Spellings of the multiples of ``modulus`` in a..b (0 <= a), divided by 10**point."""
    if a > b:
        return None
    spell = _Spelling(rules, hint, modulus, point)
    return _alt([spell.block(bl) for bl in _magnitude_blocks(a, b, point)])


def _digits_cap(lower_magnitude: int) -> int:
    return 10 ** max(MAX_INTEGER_DIGITS, len(str(lower_magnitude))) - 1


def _signed(rules: RuleSet, hint: str, lo: int, hi: int, modulus: int, point: int, neg_zero: bool) -> str | None:
    """Spellings of the multiples of ``modulus`` in lo..hi, scaled by 10**-point, both signs."""
    positive = _magnitudes(rules, hint, max(lo, 0), hi, modulus, point) if hi >= 0 else None
    negative = None
    if lo <= 0:
        low = 0 if neg_zero and hi >= 0 else 1
        mags = _magnitudes(rules, hint, max(low, -hi), -lo, modulus, point)
        negative = None if mags is None else _seq('"-"', mags)
    return _alt([negative, positive])


# --- integers ------------------------------------------------------------------------------


def _to_decimal(value: Decimal | int | float) -> Decimal:
    if isinstance(value, bool):
        raise TypeError("a numeric bound must not be a bool")
    result = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if result.is_nan():
        raise SchemaError("a numeric bound must not be NaN")
    return result


def integer_bounds(
    minimum: Decimal | int | float | None,
    exclusive_minimum: Decimal | int | float | None,
    maximum: Decimal | int | float | None,
    exclusive_maximum: Decimal | int | float | None,
) -> tuple[int | None, int | None]:
    """The inclusive integer range (None: unbounded) that the four keywords allow.

    Fractional and exclusive bounds round inward: exclusiveMinimum 1.5 -> 2, exclusiveMaximum 3 -> 2.
    An empty range comes back as lo > hi; infinite bounds are unbounded or empty as appropriate.
    """
    lows: list[int] = []
    highs: list[int] = []
    for value, exclusive, out, sign in (
        (minimum, False, lows, 1),
        (exclusive_minimum, True, lows, 1),
        (maximum, False, highs, -1),
        (exclusive_maximum, True, highs, -1),
    ):
        if value is None:
            continue
        d = _to_decimal(value)
        if d.is_infinite():
            if (d > 0) == (sign > 0):  # +inf minimum or -inf maximum: nothing passes
                return 1, 0
            continue
        if sign > 0:
            bound = math.floor(d) + 1 if exclusive else math.ceil(d)
        else:
            bound = math.ceil(d) - 1 if exclusive else math.floor(d)
        out.append(bound)
    return (max(lows) if lows else None), (min(highs) if highs else None)


def _capped(lo: int | None, hi: int | None) -> tuple[int, int]:
    """Apply the digit caps to both sides (see the module docstring)."""
    pos_floor = max(lo or 0, 0)
    neg_floor = max(-(hi if hi is not None else 0), 0)
    hi_cap = _digits_cap(pos_floor)
    lo_cap = -_digits_cap(neg_floor)
    return max(lo if lo is not None else lo_cap, lo_cap), min(hi if hi is not None else hi_cap, hi_cap)


def integer_rule(
    rules: RuleSet,
    *,
    minimum: int | None,
    maximum: int | None,
    multiple_of: int | None,
    hint: str,
    pointer: str,
    allow_zero_fraction: bool = False,
) -> str | None:
    """A rule for the JSON spellings of the integers in [minimum, maximum] divisible by multiple_of.

    None if no integer qualifies. ``allow_zero_fraction`` also accepts "3.0", "3.00"… (JSON Schema
    counts 3.0 as an integer), up to MAX_FRACTION_DIGITS zeros.
    """
    lo, hi = _capped(minimum, maximum)
    k = abs(multiple_of) if multiple_of else 1
    if lo > hi:
        return None
    body = _integer_body(rules, hint, lo, hi, k, pointer)
    if body is None:
        return None
    if allow_zero_fraction:
        zeros = _seq('"."', _rep('"0"', 1, MAX_FRACTION_DIGITS))
        negative_zero = _seq('"-0"', zeros) if lo <= 0 <= hi else None
        body = _alt([_seq(body, f"({zeros})?"), negative_zero])
        assert body is not None
    return rules.add(hint, body)


def _integer_body(rules: RuleSet, hint: str, lo: int, hi: int, k: int, pointer: str) -> str | None:
    # A factor 10**j of k only says "ends in j zeros": strip it instead of growing the automaton.
    j = 0
    while k % 10 == 0:
        k, j = k // 10, j + 1
    if j:
        scale = 10**j
        lo_s, hi_s = -((-lo) // scale), hi // scale
        if lo_s > hi_s:
            return None
        nonzero = _alt([_integer_body(rules, hint, a, b, k, pointer) for a, b in ((lo_s, min(hi_s, -1)), (max(lo_s, 1), hi_s)) if a <= b])
        zero = '"0"' if lo_s <= 0 <= hi_s else None
        return _alt([None if nonzero is None else _seq(nonzero, _rep('"0"', j, j)), zero])
    if k > 1:
        first, last = lo + (-lo) % k, hi - hi % k
        if first > last:
            return None
        count = (last - first) // k + 1
        if count <= MAX_ENUMERATED_MULTIPLES:
            return _alt([f'"{v}"' for v in range(first, last + 1, k)])
        digits = len(str(max(abs(lo), abs(hi))))
        if k * digits > MAX_AUTOMATON_STATES:
            raise UnsupportedSchemaError(
                f"multipleOf {k} over integers of {digits} digits needs too large a grammar",
                pointer=pointer,
                keyword="multipleOf",
            )
    return _signed(rules, hint, lo, hi, k, 0, neg_zero=False)


"""GBNF for JSON numbers under bounds and multipleOf, built digit by digit.

Spellings (decisions the rest of structgen relies on):

- No leading zeros in integer parts (JSON forbids them); ``"0"`` is the only spelling starting with 0.
- Negative zero: ``integer_rule`` never accepts the bare ``"-0"`` (``json.dumps`` never writes it for an
  int); with ``allow_zero_fraction`` it accepts ``"-0.0"`` (what ``json.dumps(-0.0)`` writes).
  ``number_rule`` treats numbers by value: ``"-0"``, ``"-0.0"``… are accepted wherever 0 is, except
  where it only allows integers (``integer=True`` or an integral multipleOf): there it uses
  ``integer_rule(..., allow_zero_fraction=True)``.
- Digit caps: an integer part has at most ``MAX_INTEGER_DIGITS`` digits, or as many as the lower
  bound's magnitude if that is longer (so ``minimum: 1e30`` stays satisfiable); a fraction has at
  most ``MAX_FRACTION_DIGITS`` digits; an exponent at most ``MAX_EXPONENT_DIGITS`` (leading zeros
  allowed, as JSON allows). Values needing more digits are rejected, never accepted wrongly.
- Exponent notation: an unconstrained number accepts every JSON spelling within the caps. A number
  with bounds is compared exactly, but its exponent spellings are restricted to a normalized mantissa
  (one nonzero digit before the point: ``1.5e+300``, ``1e-05``, what ``json.dumps`` writes); ``10e5``
  or ``0.5e3`` are rejected there. With ``multipleOf``, and for integers, only plain decimal notation
  is accepted (so the float ``1e+16`` is not accepted as an integer).

Ranges become unions of blocks "fixed prefix, one digit class, n free digits" (the usual min/max
integer decomposition). ``multipleOf k`` runs a k-state residue automaton over the same blocks; the
free-digit tails become rules indexed by (digits left, residue), so the cost is about k·digits rules,
capped by ``MAX_AUTOMATON_STATES``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, localcontext
from functools import lru_cache

from .._errors import SchemaError, UnsupportedSchemaError
from ._rules import RuleSet

__all__ = [
    "MAX_AUTOMATON_STATES",
    "MAX_BOUND_DIGITS",
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
#: Integers (and plain decimals with multipleOf) whose smallest magnitude (minimum > 0, maximum < 0)
#: has more digits than this are unsupported: llama.cpp copies a repeated item once per count. Without
#: multipleOf, such numbers keep only their exponent spellings.
MAX_BOUND_DIGITS = 310

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

    def __init__(self, rules: RuleSet | None, hint: str, modulus: int, point: int) -> None:
        assert rules is not None or modulus == 1, "only an automaton needs rules"
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
                # A distinct name per state: equal bodies still share one rule.
                name = f"{self.hint}-m{self.k}-{n}-{residue}"
                assert self.rules is not None
                self._tails[key] = None if body is None else self.rules.add(name, body)
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
        """The block's spellings whose value is a multiple of k (None if there are none)."""
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


def _magnitudes(spell: _Spelling, a: int, b: int) -> str | None:
    """Spellings of the multiples of ``spell.k`` in a..b (0 <= a), divided by 10**spell.point."""
    if a > b:
        return None
    modulus, point = spell.k, spell.point
    options: list[str | None] = []
    if modulus == 1 and point == 0 and a == 0:  # "0" apart, so that 1-9 joins the longer widths
        options.append('"0"')
        a = 1
    run: list[int] = []  # free-digit counts of consecutive "[1-9] then n free digits" blocks
    for block in [*_magnitude_blocks(a, b, point), None]:
        if modulus == 1 and block is not None and block[:3] == ("", 1, 9) and (not run or block[3] == run[-1] + 1):
            run.append(block[3])
            continue
        if run:  # every number of these widths: one counted repetition instead of one block each
            dot = _seq('"."', _rep("[0-9]", point, point)) if point else ""
            options.append(_seq("[1-9]", _rep("[0-9]", run[0] - point, run[-1] - point), dot))
            run = []
        if block is not None:
            options.append(spell.block(block))
    return _alt(options)


def _digits_cap(lower_magnitude: int) -> int:
    """The largest magnitude allowed on a side whose smallest magnitude is ``lower_magnitude``."""
    return int(10 ** max(MAX_INTEGER_DIGITS, len(str(lower_magnitude)))) - 1


def _signed(rules: RuleSet, hint: str, lo: int, hi: int, modulus: int, point: int, neg_zero: bool) -> str | None:
    """Spellings of the multiples of ``modulus`` in lo..hi, scaled by 10**-point, both signs."""
    if modulus == 1:
        return _plain_signed(lo, hi, point, neg_zero)
    return _signed_with(_Spelling(rules, hint, modulus, point), lo, hi, neg_zero)


@lru_cache(maxsize=1024)
def _plain_signed(lo: int, hi: int, point: int, neg_zero: bool) -> str | None:
    """_signed without multipleOf: no rules involved, so the text is cached (schemas repeat bounds)."""
    return _signed_with(_Spelling(None, "", 1, point), lo, hi, neg_zero)


def _signed_with(spell: _Spelling, lo: int, hi: int, neg_zero: bool) -> str | None:
    """Nonnegative and "-"-prefixed magnitudes; negative zero only if ``neg_zero``."""
    positive = _magnitudes(spell, max(lo, 0), hi) if hi >= 0 else None
    negative = None
    if lo <= 0:
        low = 0 if neg_zero and hi >= 0 else 1
        mags = _magnitudes(spell, max(low, -hi), -lo)
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
    if multiple_of is not None and multiple_of <= 0:
        raise SchemaError("multipleOf must be greater than 0", pointer=pointer, keyword="multipleOf")
    _check_digits(minimum, maximum, ("minimum", "maximum"), pointer)
    lo, hi = _capped(minimum, maximum)
    k = multiple_of or 1
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


def _check_digits(lo: Decimal | int | None, hi: Decimal | int | None, keywords: tuple[str, str], pointer: str) -> None:
    """UnsupportedSchemaError if the smallest magnitude allowed on a side needs > MAX_BOUND_DIGITS digits."""
    for magnitude, keyword in ((lo, keywords[0]), (None if hi is None else -hi, keywords[1])):
        if magnitude is not None and magnitude >= 10**MAX_BOUND_DIGITS:
            raise UnsupportedSchemaError(
                f"values beyond {keyword} need more than {MAX_BOUND_DIGITS} digits", pointer=pointer, keyword=keyword
            )


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
        sides = ((lo_s, min(hi_s, -1)), (max(lo_s, 1), hi_s))
        nonzero = _alt([_integer_body(rules, hint, a, b, k, pointer) for a, b in sides if a <= b])
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


# --- decimal numbers -----------------------------------------------------------------------

_EXPONENT_MAX = 10**MAX_EXPONENT_DIGITS - 1
#: Negative exponents of bounded numbers stop where doubles do: 1e-400 > 0 is true in JSON
#: Schema, but Python, Pydantic and most JSON readers read it as 0.0, which breaks an exclusive
#: bound at zero. A decimal reads as 0.0 iff its magnitude is below 2.4703e-324, so exponent
#: -324 is kept for mantissas from 3 on (json.dumps' smallest subnormal is "5e-324").
SCIENTIFIC_EXPONENT_MIN = -324
_SMALLEST_MANTISSA_AT_MIN = Decimal(3)
_ZERO = Decimal(0)


@dataclass(frozen=True)
class _Interval:
    """Values between lo and hi (None: unbounded), each end inclusive or not."""

    lo: Decimal | None
    lo_incl: bool
    hi: Decimal | None
    hi_incl: bool

    def is_empty(self) -> bool:
        if self.lo is None or self.hi is None:
            return False
        return self.lo > self.hi or (self.lo == self.hi and not (self.lo_incl and self.hi_incl))


def _split(value: Decimal) -> tuple[int, str]:
    """Integer part and fraction digits (trailing zeros dropped) of a value >= 0."""
    whole = int(value)
    return whole, format(value - whole, "f").partition(".")[2].rstrip("0")


def _fraction(lo: str | None, lo_incl: bool, hi: str | None, hi_incl: bool, m: int, n: int) -> str | None:
    """Digit strings x, m <= len(x) <= n, with 0.x >=/> 0.lo and <=/< 0.hi (None: no bound).

    Compared as zero-padded digit strings one digit at a time, so the grammar stays linear.
    """
    lo = None if lo is None or (lo.rstrip("0") == "" and lo_incl) else lo.rstrip("0")
    hi = None if hi is None else hi.rstrip("0")
    if hi == "" and not hi_incl:
        return None
    if lo is None and hi is None:
        return _rep("[0-9]", m, n)
    if lo is None and hi == "":  # at most zero: only zeros
        return _rep('"0"', m, n)
    options: list[str | None] = ["" if m == 0 and lo is None else None]
    d, last_digit = (int(lo[0]) if lo else 0), (9 if hi is None else int(hi[0]) if hi else 0)
    while n > 0 and d <= last_digit:
        next_lo = lo[1:] if lo is not None and d == (int(lo[0]) if lo else 0) else None
        next_hi = hi[1:] if hi is not None and d == last_digit else None
        # Digits strictly between the two bounds' digits leave no constraint: one class for all.
        upto = d if next_lo is not None or next_hi is not None else last_digit - (hi is not None)
        sub = _fraction(next_lo, lo_incl, next_hi, hi_incl, max(m - 1, 0), n - 1)
        options.append(None if sub is None else _seq(_cls(d, upto), sub))
        d = upto + 1
    return _alt(options)


def _fraction_tail(lo: str | None, lo_incl: bool, hi: str | None, hi_incl: bool) -> str | None:
    """The optional ``"." digits`` part of a spelling whose fraction must lie between lo and hi."""
    digits = _fraction(lo, lo_incl, hi, hi_incl, 1, MAX_FRACTION_DIGITS)
    empty_ok = _fraction(lo, lo_incl, hi, hi_incl, 0, 0) == ""
    if digits is None:
        return "" if empty_ok else None
    dotted = _seq('"."', digits)
    return f"({dotted})?" if empty_ok else dotted


def _plain(iv: _Interval, cap: int | None = None) -> str | None:
    """Plain decimal spellings (no exponent) of the magnitudes in iv (iv.lo >= 0).

    Integer part above lo's and below hi's: any fraction; equal to either: the fraction compared.
    """
    assert iv.lo is not None
    if iv.lo >= 10**MAX_BOUND_DIGITS:
        return None
    cap = _digits_cap(int(iv.lo)) if cap is None else cap
    hi = None if iv.hi is not None and iv.hi >= cap + 1 else iv.hi
    if iv.is_empty():
        return None
    li, lf = _split(iv.lo)
    hi_i, hf = _split(hi) if hi is not None else (cap, "")
    if hi is not None and li == hi_i:
        tail = _fraction_tail(lf, iv.lo_incl, hf, iv.hi_incl)
        return None if tail is None else _seq(f'"{li}"', tail)
    any_tail = _fraction_tail(None, True, None, True) or ""
    lower_tail = _fraction_tail(lf, iv.lo_incl, None, True)
    start = li if lower_tail == any_tail else li + 1
    options: list[str | None] = []
    if start > li and lower_tail is not None:
        options.append(_seq(f'"{li}"', lower_tail))
    middle = _magnitudes(_Spelling(None, "", 1, 0), start, hi_i if hi is None else hi_i - 1)
    options.append(None if middle is None else _seq(middle, any_tail))
    if hi is not None:
        upper_tail = _fraction_tail(None, True, hf, iv.hi_incl)
        options.append(None if upper_tail is None else _seq(f'"{hi_i}"', upper_tail))
    return _alt(options)


def _exponent(a: int, b: int) -> str | None:
    """``e``/``E``, a sign and up to MAX_EXPONENT_DIGITS digits (leading zeros allowed) for a..b."""
    a, b = max(a, SCIENTIFIC_EXPONENT_MIN), min(b, _EXPONENT_MAX)
    if a > b:
        return None
    spell = _Spelling(None, "", 1, 0)

    def padded(x: int, y: int) -> str | None:
        if x == 0 and y >= _EXPONENT_MAX:
            return _rep("[0-9]", 1, MAX_EXPONENT_DIGITS)
        tops = [min(y, 10**width - 1) for width in range(1, MAX_EXPONENT_DIGITS + 1)]
        return _alt(
            [
                spell.block(block)
                for width, top in enumerate(tops, 1)
                if x <= top
                for block in _same_length_blocks(str(x).zfill(width), str(top).zfill(width))
            ]
        )

    positive = padded(max(a, 0), b) if b >= 0 else None
    negative = padded(max(-b, 0), -a) if a <= 0 else None
    signs = _alt([
        None if positive is None else _seq('"+"?', positive),
        None if negative is None else _seq('"-"', negative),
    ])
    return None if signs is None else _seq("[eE]", signs)


def _scientific(iv: _Interval) -> str | None:
    """Spellings d[.ddd]e±x (normalized mantissa, 1 <= d <= 9) of the magnitudes in iv (iv.lo >= 0).

    With q the exponent of a bound's leading digit: exponents strictly between the bounds' take any
    mantissa; an exponent equal to a bound's compares the mantissa with the bound's digits.
    """
    assert iv.lo is not None
    if iv.hi is not None and iv.hi <= 0:
        return None

    def part(lo: Decimal, lo_incl: bool, hi: Decimal | None, hi_incl: bool, e_lo: int, e_hi: int) -> str | None:
        mantissa = _plain(_Interval(lo, lo_incl, hi, hi_incl), cap=9)
        exponent = _exponent(e_lo, e_hi)
        return None if mantissa is None or exponent is None else _seq(mantissa, exponent)

    one = Decimal(1)
    q_lo = iv.lo.adjusted() if iv.lo > 0 else None
    q_hi = iv.hi.adjusted() if iv.hi is not None else None
    if iv.hi is not None and q_lo is not None and q_lo == q_hi:
        return part(iv.lo.scaleb(-q_lo), iv.lo_incl, iv.hi.scaleb(-q_lo), iv.hi_incl, q_lo, q_lo)
    options = []
    if q_lo is not None:
        options.append(part(iv.lo.scaleb(-q_lo), iv.lo_incl, None, True, q_lo, q_lo))
    e_lo = -_EXPONENT_MAX if q_lo is None else q_lo + 1
    e_hi = _EXPONENT_MAX if q_hi is None else q_hi - 1
    options.append(part(one, True, None, True, max(e_lo, SCIENTIFIC_EXPONENT_MIN + 1), e_hi))
    if e_lo <= SCIENTIFIC_EXPONENT_MIN <= e_hi:
        options.append(part(_SMALLEST_MANTISSA_AT_MIN, True, None, True,
                            SCIENTIFIC_EXPONENT_MIN, SCIENTIFIC_EXPONENT_MIN))
    if iv.hi is not None and q_hi is not None:
        options.append(part(one, True, iv.hi.scaleb(-q_hi), iv.hi_incl, q_hi, q_hi))
    return _alt(options)


#: The largest finite double. Numbers stay within ±MAX_DOUBLE: ``1e999`` is a JSON number, but
#: Python, Pydantic and most readers turn it into infinity, which finite floats refuse.
MAX_DOUBLE = Decimal("1.7976931348623157e308")


def _finite(iv: _Interval) -> _Interval:
    """``iv`` intersected with [-MAX_DOUBLE, MAX_DOUBLE]."""
    lo, lo_incl = (iv.lo, iv.lo_incl) if iv.lo is not None and iv.lo > -MAX_DOUBLE else (-MAX_DOUBLE, True)
    hi, hi_incl = (iv.hi, iv.hi_incl) if iv.hi is not None and iv.hi < MAX_DOUBLE else (MAX_DOUBLE, True)
    return _Interval(lo, lo_incl, hi, hi_incl)


@lru_cache(maxsize=1024)
def _bounded_number(iv: _Interval) -> str | None:
    """Nonnegative and "-"-prefixed spellings (plain and scientific) of the values in iv.

    Pure text (no rules), so cached: real schemas repeat the same bounds many times.
    """
    options: list[str | None] = []
    if iv.hi is None or iv.hi > 0 or (iv.hi == 0 and iv.hi_incl):
        nonnegative = iv if iv.lo is not None and iv.lo >= 0 else _Interval(_ZERO, True, iv.hi, iv.hi_incl)
        options += [_plain(nonnegative), _scientific(nonnegative)]
    if iv.lo is None or iv.lo < 0 or (iv.lo == 0 and iv.lo_incl):
        # Magnitudes of the values <= 0; magnitude 0 gives "-0", "-0.0": the value 0, by value semantics.
        below_zero = iv.hi is not None and iv.hi <= 0
        negated = _Interval(
            -iv.hi if below_zero and iv.hi is not None else _ZERO,
            iv.hi_incl if below_zero else True,
            None if iv.lo is None else -iv.lo,
            iv.lo_incl,
        )
        body = _alt([_plain(negated), _scientific(negated)])
        options.append(None if body is None else _seq('"-"', body))
    return _alt(options)


def _decimal_multiples(rules: RuleSet, hint: str, pointer: str, iv: _Interval, step: Decimal) -> str | None:
    """Plain spellings of the multiples of a non-integral step in iv, one alternative per fraction length.

    Written with exactly f fraction digits a value is N / 10**f; it is a multiple of c / 10**s iff N
    is a multiple of c / gcd(c, 10**(s-f)). From f = s on, further fraction digits can only be zeros.
    """
    c, s = _coefficient(step)
    lengths = range(min(s, MAX_FRACTION_DIGITS) + 1)
    moduli = [c // math.gcd(c, 10 ** (s - f)) for f in lengths]
    if sum(moduli) * (MAX_INTEGER_DIGITS + lengths[-1]) > MAX_AUTOMATON_STATES:
        raise UnsupportedSchemaError(
            f"multipleOf {step} needs too large a grammar", pointer=pointer, keyword="multipleOf"
        )
    options: list[str | None] = []
    for f, k in zip(lengths, moduli):
        scale = Decimal(10) ** f
        top = (_digits_cap(max(math.floor(iv.lo), 0) if iv.lo is not None else 0) + 1) * 10**f - 1
        bottom = -(_digits_cap(max(-math.ceil(iv.hi), 0) if iv.hi is not None else 0) + 1) * 10**f + 1
        if iv.lo is not None:
            bottom = max(bottom, math.ceil(iv.lo * scale) if iv.lo_incl else math.floor(iv.lo * scale) + 1)
        if iv.hi is not None:
            top = min(top, math.floor(iv.hi * scale) if iv.hi_incl else math.ceil(iv.hi * scale) - 1)
        body = _signed(rules, f"{hint}-f{f}", bottom, top, k, f, neg_zero=True) if bottom <= top else None
        zeros = _rep('"0"', 0, MAX_FRACTION_DIGITS - s) if f == s else ""
        options.append(None if body is None else _seq(body, zeros))
    return _alt(options)


def _coefficient(step: Decimal) -> tuple[int, int]:
    """(c, s) with step == c / 10**s, c an integer and s as small as possible (may be negative)."""
    _, digit_tuple, exponent = step.normalize().as_tuple()
    assert isinstance(exponent, int)
    return int("".join(map(str, digit_tuple))), -exponent


def _tightest(candidates: list[tuple[Decimal | int | float | None, bool]], lower: bool) -> tuple[Decimal | None, bool]:
    """The tightest of some (bound, inclusive) pairs; on equal values the exclusive one is tighter."""
    found = [(_to_decimal(v), incl) for v, incl in candidates if v is not None]
    if not found:
        return None, True
    if lower:
        return max(found, key=lambda b: (b[0], not b[1]))
    return min(found, key=lambda b: (b[0], b[1]))


def number_rule(
    rules: RuleSet,
    *,
    minimum: Decimal | None,
    exclusive_minimum: Decimal | None,
    maximum: Decimal | None,
    exclusive_maximum: Decimal | None,
    multiple_of: Decimal | None,
    integer: bool,
    hint: str,
    pointer: str,
) -> str | None:
    """A rule for the JSON number spellings whose value satisfies the bounds (None if none does).

    ``integer`` restricts to integral values (type "integer"), written as integers or with a zero
    fraction ("3.0"). See the module docstring for the spellings accepted.
    """
    step = None if multiple_of is None else _to_decimal(multiple_of)
    if step is not None and step <= 0:
        raise SchemaError("multipleOf must be greater than 0", pointer=pointer, keyword="multipleOf")
    lo, lo_incl = _tightest([(minimum, True), (exclusive_minimum, False)], lower=True)
    hi, hi_incl = _tightest([(maximum, True), (exclusive_maximum, False)], lower=False)
    if (lo is not None and lo == Decimal("Infinity")) or (hi is not None and hi == Decimal("-Infinity")):
        return None
    iv = _Interval(
        None if lo is None or lo.is_infinite() else lo,
        lo_incl,
        None if hi is None or hi.is_infinite() else hi,
        hi_incl,
    )
    keywords = ("minimum" if lo_incl else "exclusiveMinimum", "maximum" if hi_incl else "exclusiveMaximum")
    if integer or step is not None:
        _check_digits(iv.lo, iv.hi, keywords, pointer)
    if integer or (step is not None and step == step.to_integral_value()):
        k = None
        if step is not None:  # the integers that are multiples of c / 10**s: multiples of c / gcd(c, 10**s)
            c, s = _coefficient(step)
            k = c * 10**-s if s <= 0 else c // math.gcd(c, 10**s)
        int_lo, int_hi = integer_bounds(minimum, exclusive_minimum, maximum, exclusive_maximum)
        return integer_rule(
            rules, minimum=int_lo, maximum=int_hi, multiple_of=k, hint=hint, pointer=pointer, allow_zero_fraction=True
        )
    if iv.is_empty():
        return None
    with localcontext() as ctx:
        ctx.prec = 4 * (MAX_INTEGER_DIGITS + MAX_FRACTION_DIGITS + _EXPONENT_MAX)
        if step is not None:
            body = _decimal_multiples(rules, hint, pointer, iv, step)
        else:
            finite = _finite(iv)
            body = None if finite.is_empty() else _bounded_number(finite)
    return None if body is None else rules.add(hint, body)

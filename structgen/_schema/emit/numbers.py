"""GBNF for JSON numbers under bounds and multipleOf, built digit by digit.

Decimals are spelled here, integers in ``integers``, both with the block machinery of ``digits``.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext

from ..._errors import SchemaError, UnsupportedSchemaError
from ..._memo import memo
from ..._gbnf._expr import alt, repeat, seq
from ..._gbnf._rules import RuleSet
from .digits import (
    DIGIT, MAX_AUTOMATON_STATES, MAX_BOUND_DIGITS, MAX_FRACTION_DIGITS, MAX_INTEGER_DIGITS, Spelling,
    digit_range, digits_cap, magnitudes, same_length_blocks, signed,
)
from .integers import bound_decimal, check_digits, integer_bounds, integer_rule

__all__ = ["MAX_EXPONENT_DIGITS", "number_rule"]

#: Digits of an exponent (``json.dumps`` writes at most 3: ``5e-324``, ``1e+308``).
MAX_EXPONENT_DIGITS = 3
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
        return repeat(DIGIT, m, n)
    if lo is None and hi == "":  # at most zero: only zeros
        return repeat('"0"', m, n)
    options: list[str | None] = ["" if m == 0 and lo is None else None]
    d, last_digit = (int(lo[0]) if lo else 0), (9 if hi is None else int(hi[0]) if hi else 0)
    while n > 0 and d <= last_digit:
        next_lo = lo[1:] if lo is not None and d == (int(lo[0]) if lo else 0) else None
        next_hi = hi[1:] if hi is not None and d == last_digit else None
        # Digits strictly between the two bounds' digits leave no constraint: one class for all.
        upto = d if next_lo is not None or next_hi is not None else last_digit - (hi is not None)
        sub = _fraction(next_lo, lo_incl, next_hi, hi_incl, max(m - 1, 0), n - 1)
        options.append(seq(digit_range(d, upto), sub))
        d = upto + 1
    return alt(options)


def _fraction_tail(lo: str | None, lo_incl: bool, hi: str | None, hi_incl: bool) -> str | None:
    """The optional ``"." digits`` part of a spelling whose fraction must lie between lo and hi."""
    digits = _fraction(lo, lo_incl, hi, hi_incl, 1, MAX_FRACTION_DIGITS)
    empty_ok = _fraction(lo, lo_incl, hi, hi_incl, 0, 0) == ""
    if digits is None:
        return "" if empty_ok else None
    dotted = seq('"."', digits)
    return f"({dotted})?" if empty_ok else dotted


def _plain(iv: _Interval, cap: int | None = None) -> str | None:
    """Plain decimal spellings (no exponent) of the magnitudes in iv (iv.lo >= 0).

    Integer part above lo's and below hi's: any fraction; equal to either: the fraction compared.
    """
    assert iv.lo is not None
    if iv.lo >= 10**MAX_BOUND_DIGITS:
        return None
    cap = digits_cap(int(iv.lo)) if cap is None else cap
    hi = None if iv.hi is not None and iv.hi >= cap + 1 else iv.hi
    if iv.is_empty():
        return None
    li, lf = _split(iv.lo)
    hi_i, hf = _split(hi) if hi is not None else (cap, "")
    if hi is not None and li == hi_i:
        tail = _fraction_tail(lf, iv.lo_incl, hf, iv.hi_incl)
        return seq(f'"{li}"', tail)
    any_tail = _fraction_tail(None, True, None, True) or ""
    lower_tail = _fraction_tail(lf, iv.lo_incl, None, True)
    start = li if lower_tail == any_tail else li + 1
    options: list[str | None] = []
    if start > li and lower_tail is not None:
        options.append(seq(f'"{li}"', lower_tail))
    middle = magnitudes(Spelling(None, "", 1, 0), start, hi_i if hi is None else hi_i - 1)
    options.append(seq(middle, any_tail))
    if hi is not None:
        upper_tail = _fraction_tail(None, True, hf, iv.hi_incl)
        options.append(seq(f'"{hi_i}"', upper_tail))
    return alt(options)


def _exponent(a: int, b: int) -> str | None:
    """``e``/``E``, a sign and up to MAX_EXPONENT_DIGITS digits (leading zeros allowed) for a..b."""
    a, b = max(a, SCIENTIFIC_EXPONENT_MIN), min(b, _EXPONENT_MAX)
    if a > b:
        return None
    spell = Spelling(None, "", 1, 0)

    def padded(x: int, y: int) -> str | None:
        if x == 0 and y >= _EXPONENT_MAX:
            return repeat(DIGIT, 1, MAX_EXPONENT_DIGITS)
        tops = [min(y, 10**width - 1) for width in range(1, MAX_EXPONENT_DIGITS + 1)]
        return alt(
            [
                spell.block(block)
                for width, top in enumerate(tops, 1)
                if x <= top
                for block in same_length_blocks(str(x).zfill(width), str(top).zfill(width))
            ]
        )

    positive = padded(max(a, 0), b) if b >= 0 else None
    negative = padded(max(-b, 0), -a) if a <= 0 else None
    signs = alt([
        seq('"+"?', positive),
        seq('"-"', negative),
    ])
    return seq("[eE]", signs)


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
        return seq(mantissa, exponent)

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
    return alt(options)


#: The largest finite double. Numbers stay within ±MAX_DOUBLE: ``1e999`` is a JSON number, but
#: Python, Pydantic and most readers turn it into infinity, which finite floats refuse.
MAX_DOUBLE = Decimal("1.7976931348623157e308")


def _finite(iv: _Interval) -> _Interval:
    """``iv`` intersected with [-MAX_DOUBLE, MAX_DOUBLE]."""
    lo, lo_incl = (iv.lo, iv.lo_incl) if iv.lo is not None and iv.lo > -MAX_DOUBLE else (-MAX_DOUBLE, True)
    hi, hi_incl = (iv.hi, iv.hi_incl) if iv.hi is not None and iv.hi < MAX_DOUBLE else (MAX_DOUBLE, True)
    return _Interval(lo, lo_incl, hi, hi_incl)


@memo(1)
def _any_number() -> str:
    """The body for every JSON number (``_bounded_number`` of no bounds, without the decimal
    context it needs for bounds)."""
    with localcontext() as ctx:
        ctx.prec = 4 * (MAX_INTEGER_DIGITS + MAX_FRACTION_DIGITS + _EXPONENT_MAX)
        body = _bounded_number(_finite(_Interval(None, True, None, True)))
    assert body is not None
    return body


@memo(1024)
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
        body = alt([_plain(negated), _scientific(negated)])
        options.append(seq('"-"', body))
    return alt(options)


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
        top = (digits_cap(max(math.floor(iv.lo), 0) if iv.lo is not None else 0) + 1) * 10**f - 1
        bottom = -(digits_cap(max(-math.ceil(iv.hi), 0) if iv.hi is not None else 0) + 1) * 10**f + 1
        if iv.lo is not None:
            bottom = max(bottom, math.ceil(iv.lo * scale) if iv.lo_incl else math.floor(iv.lo * scale) + 1)
        if iv.hi is not None:
            top = min(top, math.floor(iv.hi * scale) if iv.hi_incl else math.ceil(iv.hi * scale) - 1)
        body = signed(rules, f"{hint}-f{f}", bottom, top, k, f, neg_zero=True) if bottom <= top else None
        zeros = repeat('"0"', 0, MAX_FRACTION_DIGITS - s) if f == s else ""
        options.append(seq(body, zeros))
    return alt(options)


def _coefficient(step: Decimal) -> tuple[int, int]:
    """(c, s) with step == c / 10**s, c an integer and s as small as possible (may be negative)."""
    _, digit_tuple, exponent = step.normalize().as_tuple()
    assert isinstance(exponent, int)
    return int("".join(map(str, digit_tuple))), -exponent


def _tightest(candidates: list[tuple[Decimal | int | float | None, bool]], lower: bool) -> tuple[Decimal | None, bool]:
    """The tightest of some (bound, inclusive) pairs; on equal values the exclusive one is tighter."""
    found = [(bound_decimal(v), incl) for v, incl in candidates if v is not None]
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
    bounds = (minimum, exclusive_minimum, maximum, exclusive_maximum, multiple_of)
    if not integer and all(bound is None for bound in bounds):
        return rules.add(hint, _any_number(), ())  # every grammar of an open object has one
    step = None if multiple_of is None else bound_decimal(multiple_of)
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
        check_digits(iv.lo, iv.hi, keywords, pointer)
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
    if body is None:
        return None
    return rules.add(hint, body, None if step is not None else ())  # bounds alone: no sub-rules

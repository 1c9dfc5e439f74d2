"""GBNF for JSON integers: the integer range the bound keywords allow and its spellings.

:func:`integer_bounds` turns the four bound keywords into an inclusive integer range and
:func:`integer_rule` spells the integers of that range (divisible by ``multipleOf``) with the
machinery of ``digits``: large multiples of 10 as trailing zeros, few multiples as a plain
alternation, otherwise the residue automaton. The spellings accepted (no ``-0``, digit caps, no
exponent notation) are the decisions listed in ``numbers``' docstring.
"""

from __future__ import annotations

import math
from decimal import Decimal

from ..._errors import SchemaError, UnsupportedSchemaError
from ..._gbnf._expr import alt, repeat, seq
from ..._gbnf._rules import RuleSet
from ..ir.atoms import to_decimal
from .digits import MAX_AUTOMATON_STATES, MAX_BOUND_DIGITS, MAX_FRACTION_DIGITS, digits_cap, signed

__all__ = ["MAX_ENUMERATED_MULTIPLES", "bound_decimal", "check_digits", "integer_bounds", "integer_rule"]

#: A bounded range with at most this many multiples is spelled as a plain alternation instead.
MAX_ENUMERATED_MULTIPLES = 256


def bound_decimal(value: Decimal | int | float) -> Decimal:
    """A numeric bound as the exact decimal it spells (bools and NaN refused)."""
    if isinstance(value, bool):
        raise TypeError("a numeric bound must not be a bool")
    result = value if isinstance(value, Decimal) else to_decimal(value)
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
        d = bound_decimal(value)
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
    """Apply the digit caps to both sides (see ``numbers``' docstring)."""
    pos_floor = max(lo or 0, 0)
    neg_floor = max(-(hi if hi is not None else 0), 0)
    hi_cap = digits_cap(pos_floor)
    lo_cap = -digits_cap(neg_floor)
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
    check_digits(minimum, maximum, ("minimum", "maximum"), pointer)
    lo, hi = _capped(minimum, maximum)
    k = multiple_of or 1
    if lo > hi:
        return None
    body = _integer_body(rules, hint, lo, hi, k, pointer)
    if body is None:
        return None
    if allow_zero_fraction:
        zeros = seq('"."', repeat('"0"', 1, MAX_FRACTION_DIGITS))
        negative_zero = seq('"-0"', zeros) if lo <= 0 <= hi else None
        body = alt([seq(body, f"({zeros})?"), negative_zero])
        assert body is not None
    return rules.add(hint, body)


def check_digits(lo: Decimal | int | None, hi: Decimal | int | None, keywords: tuple[str, str], pointer: str) -> None:
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
        nonzero = alt([_integer_body(rules, hint, a, b, k, pointer) for a, b in sides if a <= b])
        zero = '"0"' if lo_s <= 0 <= hi_s else None
        return alt([seq(nonzero, repeat('"0"', j, j)), zero])
    if k > 1:
        first, last = lo + (-lo) % k, hi - hi % k
        if first > last:
            return None
        count = (last - first) // k + 1
        if count <= MAX_ENUMERATED_MULTIPLES:
            return alt([f'"{v}"' for v in range(first, last + 1, k)])
        digits = len(str(max(abs(lo), abs(hi))))
        if k * digits > MAX_AUTOMATON_STATES:
            raise UnsupportedSchemaError(
                f"multipleOf {k} over integers of {digits} digits needs too large a grammar",
                pointer=pointer,
                keyword="multipleOf",
            )
    return signed(rules, hint, lo, hi, k, 0, neg_zero=False)

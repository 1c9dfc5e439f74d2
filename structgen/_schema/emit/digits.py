"""Digit-by-digit spelling machinery shared by ``integers`` and ``numbers``.

It holds the digit caps, small helpers that write GBNF text (repetitions, sequences,
alternations, digit ranges) and the range decomposition: ranges become unions of blocks "fixed
prefix, one digit class, n free digits" (the usual min/max integer decomposition). ``multipleOf k``
runs a k-state residue automaton over the same blocks (:class:`Spelling`); the free-digit tails
become rules indexed by (digits left, residue), so the cost is about k·digits rules, capped by
``MAX_AUTOMATON_STATES``. What the caps mean for accepted spellings is in ``numbers``' docstring.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..._memo import memo
from ..._gbnf._expr import alt, repeat, seq
from ..._gbnf._rules import RuleSet

__all__ = [
    "MAX_AUTOMATON_STATES",
    "MAX_BOUND_DIGITS",
    "MAX_FRACTION_DIGITS",
    "MAX_INTEGER_DIGITS",
    "DIGIT",
    "Block",
    "Spelling",
    "digit_range",
    "digits_cap",
    "magnitudes",
    "same_length_blocks",
    "signed",
]

#: Digits of an integer part on an unbounded side (2**64 has 20 digits).
MAX_INTEGER_DIGITS = 20
#: Digits after the decimal point (``json.dumps`` of a float writes at most 20 in plain notation).
MAX_FRACTION_DIGITS = 20
#: (modulus × digit positions) above which multipleOf is not built as an automaton.
MAX_AUTOMATON_STATES = 4000
#: Integers (and plain decimals with multipleOf) whose smallest magnitude (minimum > 0, maximum < 0)
#: has more digits than this are unsupported: llama.cpp copies a repeated item once per count. Without
#: multipleOf, such numbers keep only their exponent spellings.
MAX_BOUND_DIGITS = 310

#: Any one decimal digit.
DIGIT = "[0-9]"

Block = tuple[str, int, int, int]  # prefix digits, class low digit, class high digit (-1: none), free digits


def digit_range(lo: int, hi: int) -> str:
    if lo == hi:
        return f'"{lo}"'
    return DIGIT if (lo, hi) == (0, 9) else f"[{lo}-{hi}]"


# --- integer ranges as blocks ---------------------------------------------------------------


def same_length_blocks(a: str, b: str) -> Iterator[Block]:
    """Blocks covering the digit strings of a's length between a and b (a <= b, leading zeros kept)."""
    if a == b:
        yield (a, 0, -1, 0)
        return
    i = 0
    while a[i] == b[i]:
        i += 1
    prefix, x, y, n = a[:i], int(a[i]), int(b[i]), len(a) - i - 1
    if a[i + 1 :] != "0" * n:
        for p, lo, hi, free in same_length_blocks(a[i + 1 :], "9" * n):
            yield (prefix + a[i] + p, lo, hi, free)
        x += 1
    upper = b[i + 1 :] != "9" * n
    if x <= y - upper:
        yield (prefix, x, y - upper, n)
    if upper:
        for p, lo, hi, free in same_length_blocks("0" * n, b[i + 1 :]):
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
            yield from same_length_blocks(str(a).zfill(width), str(min(b, top)).zfill(width))
            a = top + 1
        width += 1


class Spelling:
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
                return seq(repeat(DIGIT, n - self.point, n - self.point), '"."', repeat(DIGIT, self.point, self.point))
            return repeat(DIGIT, n, n)
        key = (n, residue)
        if key not in self._tails:
            if n == 0:
                self._tails[key] = "" if residue == 0 else None
            else:
                body = alt(self._digit_options(range(10), n, residue))
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
                options.append(seq(self._dot(n), _digit_class(ds), tail))
        return options

    def block(self, block: Block) -> str | None:
        """The block's spellings whose value is a multiple of k (None if there are none)."""
        prefix, lo, hi, free = block
        left = len(prefix) + (hi >= 0) + free
        parts, residue = [], 0
        for ch in prefix:
            parts.append(seq(self._dot(left), f'"{ch}"'))
            residue, left = (10 * residue + int(ch)) % self.k, left - 1
        if hi < 0:
            return None if residue else _merge_literals(parts)
        if self.k == 1:
            rest: str | None = seq(self._dot(left), digit_range(lo, hi), self.free(free, 0) or "")
        else:
            rest = alt(self._digit_options(range(lo, hi + 1), left, residue))
        return seq(_merge_literals(parts), rest)


def _digit_class(ds: list[int]) -> str:
    if len(ds) == 1:
        return f'"{ds[0]}"'
    if ds == list(range(ds[0], ds[-1] + 1)):
        return digit_range(ds[0], ds[-1])
    return "[" + "".join(map(str, ds)) + "]"


def _merge_literals(parts: list[str]) -> str:
    """'"1" "2" "." "5"' -> '"12.5"'."""
    text = "".join(p.replace('"', "").replace(" ", "") for p in parts)
    return f'"{text}"' if text else ""


def magnitudes(spell: Spelling, a: int, b: int) -> str | None:
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
            dot = seq('"."', repeat(DIGIT, point, point)) if point else ""
            options.append(seq("[1-9]", repeat(DIGIT, run[0] - point, run[-1] - point), dot))
            run = []
        if block is not None:
            options.append(spell.block(block))
    return alt(options)


def digits_cap(lower_magnitude: int) -> int:
    """The largest magnitude allowed on a side whose smallest magnitude is ``lower_magnitude``."""
    return int(10 ** max(MAX_INTEGER_DIGITS, len(str(lower_magnitude)))) - 1


def signed(rules: RuleSet, hint: str, lo: int, hi: int, modulus: int, point: int, neg_zero: bool) -> str | None:
    """Spellings of the multiples of ``modulus`` in lo..hi, scaled by 10**-point, both signs."""
    if modulus == 1:
        return _plain_signed(lo, hi, point, neg_zero)
    return _signed_with(Spelling(rules, hint, modulus, point), lo, hi, neg_zero)


@memo(1024)
def _plain_signed(lo: int, hi: int, point: int, neg_zero: bool) -> str | None:
    """signed without multipleOf: no rules involved, so the text is cached (schemas repeat bounds)."""
    return _signed_with(Spelling(None, "", 1, point), lo, hi, neg_zero)


def _signed_with(spell: Spelling, lo: int, hi: int, neg_zero: bool) -> str | None:
    """Nonnegative and "-"-prefixed magnitudes; negative zero only if ``neg_zero``."""
    positive = magnitudes(spell, max(lo, 0), hi) if hi >= 0 else None
    negative = None
    if lo <= 0:
        low = 0 if neg_zero and hi >= 0 else 1
        mags = magnitudes(spell, max(low, -hi), -lo)
        negative = seq('"-"', mags)
    return alt([negative, positive])

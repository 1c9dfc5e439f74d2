"""Sets of Unicode scalar values and their GBNF spellings, raw and JSON-encoded.

A :class:`CharSet` is a sorted tuple of disjoint, non-adjacent inclusive code point ranges inside
U+0000..U+10FFFF minus the surrogates U+D800..U+DFFF (they are not characters; inside JSON they only
appear as the two halves of a ``\\uD83D\\uDE00`` pair).

:func:`json_char_body` is the heart of string support: the GBNF alternatives matching every JSON
spelling of one character of a set — the raw character (never a control, ``"`` or ``\\``), its short
escape, ``\\u`` with four hex digits in either case, and for astral characters the surrogate pair.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from hashlib import blake2b

from ..._escapes import escape_code_point, gbnf_literal, separate_hex_escapes
from ..._frozen import cached_hash
from ..._memo import memo
from ..._gbnf._rules import RuleSet

MAX_CODE_POINT = 0x10FFFF
SURROGATE_LOW, SURROGATE_HIGH = 0xD800, 0xDFFF

Range = tuple[int, int]


def merge_ranges(ranges: Iterable[Range]) -> tuple[Range, ...]:
    """Sort and merge overlapping or adjacent ranges, dropping surrogates and empty ranges."""
    if not isinstance(ranges, (list, tuple)):
        ranges = list(ranges)
    if len(ranges) == 1:
        lo, hi = ranges[0]
        if hi < SURROGATE_LOW or lo > SURROGATE_HIGH:
            return ((lo, hi),) if lo <= hi else ()
    out: list[list[int]] = []
    for lo, hi in sorted(r for r in ranges if r[0] <= r[1]):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return _without_surrogates(out)


def _without_surrogates(ranges: Iterable[Range] | Iterable[list[int]]) -> tuple[Range, ...]:
    """Sorted, disjoint, non-adjacent ``ranges`` with the surrogate block cut out (a range may
    straddle it)."""
    result: list[Range] = []
    for lo, hi in ranges:
        if lo < SURROGATE_LOW:
            result.append((lo, min(hi, SURROGATE_LOW - 1)))
        if hi > SURROGATE_HIGH:
            result.append((max(lo, SURROGATE_HIGH + 1), hi))
    return tuple(result)


@cached_hash
@dataclass(frozen=True)
class CharSet:
    """An immutable set of Unicode scalar values (hashable, so usable as a cache key)."""

    ranges: tuple[Range, ...] = ()

    @staticmethod
    def of(*ranges: Range) -> CharSet:
        return CharSet(merge_ranges(ranges))

    @staticmethod
    def from_ranges(ranges: Iterable[Range]) -> CharSet:
        return CharSet(merge_ranges(ranges))

    @staticmethod
    def chars(text: str) -> CharSet:
        return CharSet(merge_ranges((ord(c), ord(c)) for c in text))

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def __contains__(self, cp: object) -> bool:
        if not isinstance(cp, int):
            return False
        i = bisect_right(self.ranges, (cp, MAX_CODE_POINT + 1)) - 1
        return i >= 0 and self.ranges[i][0] <= cp <= self.ranges[i][1]

    def size(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.ranges)

    def single(self) -> int | None:
        """The code point if this set has exactly one, else None."""
        if len(self.ranges) == 1 and self.ranges[0][0] == self.ranges[0][1]:
            return self.ranges[0][0]
        return None

    def __or__(self, other: CharSet) -> CharSet:
        return CharSet(merge_ranges(self.ranges + other.ranges))

    def __and__(self, other: CharSet) -> CharSet:
        # A merge of the two sorted lists, the current range of each in locals (the character
        # sets of every trie and pattern go through here).
        out: list[Range] = []
        a, b = self.ranges, other.ranges
        if not a or not b:
            return CharSet(())
        i = j = 0
        (a_lo, a_hi), (b_lo, b_hi) = a[0], b[0]
        while True:
            lo = a_lo if a_lo > b_lo else b_lo
            hi = a_hi if a_hi < b_hi else b_hi
            if lo <= hi:
                out.append((lo, hi))
            if a_hi < b_hi:
                i += 1
                if i == len(a):
                    break
                a_lo, a_hi = a[i]
            else:
                j += 1
                if j == len(b):
                    break
                b_lo, b_hi = b[j]
        return CharSet(tuple(out))

    def complement(self) -> CharSet:
        # The gaps are sorted and apart already: only the surrogates are left to cut.
        gaps: list[Range] = []
        prev = 0
        for lo, hi in self.ranges:
            if lo > prev:
                gaps.append((prev, lo - 1))
            prev = hi + 1
        if prev <= MAX_CODE_POINT:
            gaps.append((prev, MAX_CODE_POINT))
        return CharSet(_without_surrogates(gaps))

    def __sub__(self, other: CharSet) -> CharSet:
        return self & other.complement()

    def code_points(self) -> Iterator[int]:
        for lo, hi in self.ranges:
            yield from range(lo, hi + 1)


UNIVERSE = CharSet.of((0, MAX_CODE_POINT))
EMPTY = CharSet()
LINE_TERMINATORS = CharSet.chars("\n\r\u2028\u2029")
#: Characters JSON forbids raw inside a string: controls, the quote and the backslash.
_RAW_FORBIDDEN = CharSet.of((0, 0x1F), (0x22, 0x22), (0x5C, 0x5C))
_RAW_ALLOWED = _RAW_FORBIDDEN.complement()
#: Short escapes: decoded code point -> the letter after the backslash.
_SHORT_ESCAPES = {0x22: '"', 0x5C: "\\", 0x2F: "/", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t"}
_BMP = CharSet.of((0, 0xFFFF))
_ASTRAL = CharSet.of((0x10000, MAX_CODE_POINT))

# --- GBNF escaping -------------------------------------------------------------------------

_CLASS_SAFE = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:;@!%&'*+/<=>?{}~|()$`"
)


def class_char(cp: int) -> str:
    """One code point as written inside a GBNF ``[...]`` class (``]``, ``\\``, ``^``, ``-`` escaped)."""
    ch = chr(cp)
    return ch if ch in _CLASS_SAFE else escape_code_point(cp)


def _class_items(ranges: Iterable[Range]) -> str:
    parts = []
    for lo, hi in ranges:
        if lo == hi:
            parts.append(class_char(lo))
        elif hi == lo + 1:
            parts.append(class_char(lo) + class_char(hi))
        else:
            parts.append(f"{class_char(lo)}-{class_char(hi)}")
    return separate_hex_escapes("".join(parts))


def gbnf_class(cs: CharSet) -> str:
    """The shorter of ``[...]`` and ``[^...]`` matching exactly ``cs`` (surrogates never occur raw,
    so either form may include or omit them, whichever is shorter)."""
    positive = list(cs.ranges)
    # Bridge the surrogate gap when both neighbours are present: raw surrogates cannot occur.
    bridged: list[Range] = []
    for lo, hi in positive:
        if bridged and bridged[-1][1] == SURROGATE_LOW - 1 and lo == SURROGATE_HIGH + 1:
            bridged[-1] = (bridged[-1][0], hi)
        else:
            bridged.append((lo, hi))
    negative = cs.complement().ranges
    if negative and len(negative) <= len(bridged):
        return "[^" + _class_items(negative) + "]"
    return "[" + _class_items(bridged) + "]"


# --- hexadecimal digits whose value lies in a set ---------------------------------------------

_HEX_ANY = "[0-9a-fA-F]"


@memo(4096)
def _digit_class(digits: tuple[int, ...]) -> str:
    """A case-insensitive class of hex digits; a single decimal digit becomes a literal."""
    if len(digits) == 1 and digits[0] < 10:
        return f'"{digits[0]}"'
    dec = [d for d in digits if d < 10]
    letters = [d - 10 for d in digits if d >= 10]
    items = ""
    for group, base in ((dec, "0"), (letters, "a"), (letters, "A")):
        runs: list[Range] = []
        for d in group:
            if runs and runs[-1][1] == d - 1:
                runs[-1] = (runs[-1][0], d)
            else:
                runs.append((d, d))
        for lo, hi in runs:
            a, b = chr(ord(base) + lo), chr(ord(base) + hi)
            items += a if lo == hi else (a + b if hi == lo + 1 else f"{a}-{b}")
    return f"[{items}]"


@memo(8192)
def hex_expr(ranges: tuple[Range, ...], width: int) -> str:
    """GBNF for exactly ``width`` hex digits (either case) whose value lies in ``ranges``.

    Like an integer-range grammar in base 16: split on the leading digit and share the
    expression among leading digits whose remaining ranges are the same.
    """
    full = 16**width - 1
    if ranges == ((0, full),):
        return _HEX_ANY if width == 1 else f"{_HEX_ANY}{{{width}}}"
    if width == 1:
        return _digit_class(tuple(d for lo, hi in ranges for d in range(lo, hi + 1)))
    size = 16 ** (width - 1)
    tails: dict[int, list[Range]] = {}
    for lo, hi in ranges:
        first, last = lo // size, hi // size
        if first == last:
            tails.setdefault(first, []).append((lo - first * size, hi - first * size))
            continue
        # The leading digits between the range's ends take every tail.
        tails.setdefault(first, []).append((lo - first * size, size - 1))
        for d in range(first + 1, last):
            tails.setdefault(d, []).append((0, size - 1))
        tails.setdefault(last, []).append((0, hi - last * size))
    groups: dict[tuple[Range, ...], list[int]] = {}
    for d in sorted(tails):
        groups.setdefault(tuple(tails[d]), []).append(d)
    alts = []
    for tail, digits in groups.items():
        rest = hex_expr(tail, width - 1)
        if " | " in rest:
            rest = f"({rest})"
        alts.append(f"{_digit_class(tuple(digits))} {rest}")
    return " | ".join(alts)


def _surrogate_pairs(astral: CharSet) -> list[tuple[tuple[Range, ...], tuple[Range, ...]]]:
    """Astral ranges as (high-surrogate ranges, low-surrogate ranges) products."""
    by_low: dict[tuple[Range, ...], list[Range]] = {}
    for lo, hi in astral.ranges:
        a, b = lo - 0x10000, hi - 0x10000
        ha, la, hb, lb = 0xD800 + (a >> 10), 0xDC00 + (a & 0x3FF), 0xD800 + (b >> 10), 0xDC00 + (b & 0x3FF)
        if ha == hb:
            by_low.setdefault(((la, lb),), []).append((ha, ha))
            continue
        by_low.setdefault(((la, 0xDFFF),), []).append((ha, ha))
        if hb > ha + 1:
            by_low.setdefault(((0xDC00, 0xDFFF),), []).append((ha + 1, hb - 1))
        by_low.setdefault(((0xDC00, lb),), []).append((hb, hb))
    merged: dict[tuple[Range, ...], list[Range]] = {}
    for low, high_list in by_low.items():
        merged.setdefault(tuple(sorted(set(high_list))), []).extend(low)
    return [(_merge_plain(highs), _merge_plain(lows)) for highs, lows in merged.items()]


def _merge_plain(ranges: Iterable[Range]) -> tuple[Range, ...]:
    """Merge ranges without cutting surrogates (for surrogate-code ranges themselves)."""
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


def json_char_body(cs: CharSet, escapes_needed: bool = False) -> str:
    """GBNF alternatives for one JSON-encoded character whose decoded code point is in ``cs``
    (``escapes_needed``: only its one spelling, see ``_NEEDED_SHORT``)."""
    alts = []
    raw = cs & _RAW_ALLOWED
    if raw:
        alts.append(gbnf_class(raw))
    escaped = []
    shorts = _NEEDED_SHORT if escapes_needed else _SHORT_ESCAPES
    short = [letter for cp, letter in shorts.items() if cp in cs]
    if len(short) == 1:
        escaped.append(gbnf_literal(short[0]))
    elif short:
        escaped.append("[" + "".join("\\" + c if c in '"\\' else c for c in short) + "]")
    after_u: list[str] = []
    if escapes_needed:
        controls = cs & _CONTROLS_WITHOUT_SHORT
        if controls:
            escaped.append(f'"u00" {_group(_lower_hex(controls))}')
    elif cs & _ABOVE_LATIN1 == _ABOVE_LATIN1:
        # Sets that differ only in U+0000..U+00FF (every "any character but ..." set) share the
        # spelling of everything above in one rule.
        latin1 = cs & _LATIN1
        after_u = [f'"00" {_group(hex_expr(latin1.ranges, 2))}'] if latin1 else []
        after_u.append(U_ABOVE_LATIN1)
    else:
        after_u = _after_u(cs)
    if after_u:
        inner = " | ".join(after_u)
        escaped.append(f'"u" ({inner})' if len(after_u) > 1 or " | " in inner else f'"u" {inner}')
    if escaped:
        inner = " | ".join(escaped)
        alts.append(f'"\\\\" ({inner})' if len(escaped) > 1 or " | " in inner else f'"\\\\" {inner}')
    return " | ".join(alts)


def _group(expr: str) -> str:
    return f"({expr})" if " | " in expr else expr


def _after_u(cs: CharSet) -> list[str]:
    """Alternatives for what follows ``\\u``: four hex digits, or a surrogate pair."""
    after_u = []
    bmp = cs & _BMP
    if bmp:
        after_u.append(hex_expr(bmp.ranges, 4))
    for highs, lows in _surrogate_pairs(cs & _ASTRAL):
        after_u.append(f'{_group(hex_expr(highs, 4))} "\\\\u" {_group(hex_expr(lows, 4))}')
    return after_u


#: The short escapes of ``escapes="needed"`` (not ``\/``: a slash is written raw).
_NEEDED_SHORT = {cp: letter for cp, letter in _SHORT_ESCAPES.items() if cp != 0x2F}
#: Control characters without a short escape: ``escapes="needed"`` writes them as json.dumps
#: does, ``\u00`` and two lower-case hex digits.
_CONTROLS_WITHOUT_SHORT = CharSet.of((0, 0x1F)) - CharSet.chars("\b\f\n\r\t")


def _lower_hex(controls: CharSet) -> str:
    """Two lower-case hex digits whose value lies in ``controls`` (all below 0x20)."""
    by_high: dict[int, str] = {}
    for lo, hi in controls.ranges:
        for cp in range(lo, hi + 1):
            by_high[cp >> 4] = by_high.get(cp >> 4, "") + f"{cp & 15:x}"
    return " | ".join(f'"{high}" [{lows}]' for high, lows in by_high.items())


#: Rule name (fixed, shared by every set) for the \u spellings of U+0100..U+10FFFF.
U_ABOVE_LATIN1 = "char-u-above-latin1"
_LATIN1 = CharSet.of((0, 0xFF))
_ABOVE_LATIN1 = CharSet.of((0x100, MAX_CODE_POINT))


def _single_char_expr(cp: int) -> str:
    """Inline expression for one printable ASCII character: raw or ``\\u00HH``."""
    hi, lo = divmod(cp, 16)
    return f'("{chr(cp)}" | "\\\\u00" {_digit_class((hi,))} {_digit_class((lo,))})'


#: How many ranges a character rule's name spells out before it becomes a digest.
_NAMED_RANGES = 4


def char_rule_name(cs: CharSet) -> str:
    """The name of the rule for one JSON character of ``cs``: the same in every grammar, so text
    that uses it can be cached across grammars. ``char`` is every character; ``char-a-to-z-x5f``
    spells the set (letters and digits as themselves, other code points as ``x`` and hex);
    ``char-but-i-n`` spells what a set leaves out; ``chars-`` and a digest names the rest.
    ``RuleSet`` keeps generated names out of this namespace."""
    if cs == UNIVERSE:
        return "char"
    left_out = cs.complement()  # UNIVERSE - cs
    if len(left_out.ranges) < min(len(cs.ranges), _NAMED_RANGES + 1):
        return f"char-but-{_spell(left_out.ranges)}"
    if len(cs.ranges) <= _NAMED_RANGES:
        return f"char-{_spell(cs.ranges)}"
    return "chars-" + blake2b(repr(cs.ranges).encode(), digest_size=8).hexdigest()


def _spell(ranges: tuple[Range, ...]) -> str:
    return "-".join(_spell_point(lo) if lo == hi else f"{_spell_point(lo)}-to-{_spell_point(hi)}"
                    for lo, hi in ranges)


def _spell_point(cp: int) -> str:
    # One character tokens are themselves; "x" plus two or more hex digits is a code point.
    return chr(cp) if 0x61 <= cp <= 0x7A or 0x30 <= cp <= 0x39 else f"x{cp:02x}"


def json_char_ref(rules: RuleSet, cs: CharSet) -> str:
    """A GBNF expression (a rule name or a parenthesised group) for one JSON character of ``cs``,
    spelled as ``rules`` say (``RuleSet.escapes_needed``)."""
    ref, needed = json_char_parts(cs.ranges, rules.escapes_needed)
    for rule in needed:
        rules.add_named(*rule)
    return ref


#: A rule of fixed name: (name, body, the rule names the body uses).
NamedRule = tuple[str, str, tuple[str, ...]]


@memo(16384)
def json_char_parts(ranges: tuple[Range, ...], escapes_needed: bool = False
                    ) -> tuple[str, tuple[NamedRule, ...]]:
    """One JSON character of the set: the expression that stands for it, and the rules it needs
    defined (none for an inline group; else the set's own, which the expression names, then
    the shared one its body may use). Pure, so shared by all grammars of one spelling (rule
    names do not say the spelling: a grammar has one)."""
    cs = CharSet(ranges)
    cp = cs.single()
    if cp is not None and 0x20 <= cp < 0x7F and cp not in (0x22, 0x2F, 0x5C):
        return (gbnf_literal(chr(cp)) if escapes_needed else _single_char_expr(cp)), ()
    body, name = json_char_body(cs, escapes_needed), char_rule_name(cs)
    if U_ABOVE_LATIN1 not in body:
        return name, ((name, body, ()),)
    return name, ((name, body, (U_ABOVE_LATIN1,)), _above_latin1_rule())


@memo(1)
def _above_latin1_rule() -> NamedRule:
    return U_ABOVE_LATIN1, " | ".join(_after_u(_ABOVE_LATIN1)), ()


def raw_char_ref(cs: CharSet) -> str:
    """GBNF for one raw (unescaped) character of ``cs`` (the raw_pattern mode)."""
    cp = cs.single()
    if cp is not None and 0x20 <= cp < 0x7F:
        return gbnf_literal(chr(cp))
    return gbnf_class(cs)


# --- Unicode properties (\p{...}) ------------------------------------------------------------

_CATEGORY_NAMES = {
    "L": "Letter", "LC": "Cased_Letter", "Lu": "Uppercase_Letter", "Ll": "Lowercase_Letter",
    "Lt": "Titlecase_Letter", "Lm": "Modifier_Letter", "Lo": "Other_Letter", "M": "Mark",
    "Mn": "Nonspacing_Mark", "Mc": "Spacing_Mark", "Me": "Enclosing_Mark", "N": "Number",
    "Nd": "Decimal_Number", "Nl": "Letter_Number", "No": "Other_Number", "P": "Punctuation",
    "Pc": "Connector_Punctuation", "Pd": "Dash_Punctuation", "Ps": "Open_Punctuation",
    "Pe": "Close_Punctuation", "Pi": "Initial_Punctuation", "Pf": "Final_Punctuation",
    "Po": "Other_Punctuation", "S": "Symbol", "Sm": "Math_Symbol", "Sc": "Currency_Symbol",
    "Sk": "Modifier_Symbol", "So": "Other_Symbol", "Z": "Separator", "Zs": "Space_Separator",
    "Zl": "Line_Separator", "Zp": "Paragraph_Separator", "C": "Other", "Cc": "Control",
    "Cf": "Format", "Cs": "Surrogate", "Co": "Private_Use", "Cn": "Unassigned",
}
_CATEGORY_ALIASES = {"Combining_Mark": "M", "digit": "Nd", "punct": "P", "cntrl": "Cc"}
_CATEGORY_BY_NAME = {**{v: k for k, v in _CATEGORY_NAMES.items()}, **{k: k for k in _CATEGORY_NAMES}}
_CATEGORY_BY_NAME.update(_CATEGORY_ALIASES)


@memo(1)
def _category_table() -> dict[str, CharSet]:
    """Every two-letter general category as a CharSet, from one pass over ``unicodedata``."""
    import unicodedata

    runs: dict[str, list[Range]] = {}
    current, start = unicodedata.category("\0"), 0
    for cp in range(1, MAX_CODE_POINT + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAX_CODE_POINT else ""
        if cat != current:
            runs.setdefault(current, []).append((start, cp - 1))
            current, start = cat, cp
    return {cat: CharSet.from_ranges(r) for cat, r in runs.items()}


@memo(256)
def _category(code: str) -> CharSet:
    table = _category_table()
    if code == "LC":
        return table.get("Lu", EMPTY) | table.get("Ll", EMPTY) | table.get("Lt", EMPTY)
    if len(code) == 1:
        return CharSet.from_ranges(r for cat, cs in table.items() if cat[0] == code for r in cs.ranges)
    return table.get(code, EMPTY)


def property_charset(name: str) -> CharSet | str:
    """The set named by ``\\p{name}``, or an error message (prefixed "unsupported" when the
    property is valid ECMA-262 but its data is not available here)."""
    key, _, value = name.partition("=")
    if value:
        if key in ("General_Category", "gc"):
            code = _CATEGORY_BY_NAME.get(value)
            return _category(code) if code else f"unknown general category {value!r}"
        if key in ("Script", "sc", "Script_Extensions", "scx"):
            return f"unsupported: Unicode script property \\p{{{name}}} (no script data available)"
        return f"unknown Unicode property \\p{{{name}}}"
    if name in _CATEGORY_BY_NAME:
        return _category(_CATEGORY_BY_NAME[name])
    if name == "Any":
        return UNIVERSE
    if name == "ASCII":
        return CharSet.of((0, 0x7F))
    if name == "Assigned":
        return _category("Cn").complement()
    return f"unsupported: Unicode property \\p{{{name}}}"

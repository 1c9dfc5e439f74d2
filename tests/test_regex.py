"""The ECMA-262 regex parser, code point sets, and the JSON spelling of one character (native)."""

from __future__ import annotations

import json

import pytest

from structgen._errors import SchemaError, UnsupportedSchemaError
from structgen._schema.automata.charset import (
    UNIVERSE, CharSet, gbnf_class, hex_expr, json_char_ref, property_charset,
)
from structgen._schema.automata.regex import (
    Choice, Anchor, Chars, Quantified, Concat, length_bounds, parse_regex,
)
from structgen._gbnf._rules import RuleSet
from structgen.testing import accepts


def char_grammar(cs: CharSet) -> str:
    """A grammar for one JSON-encoded character of ``cs``."""
    rules = RuleSet()
    rules.add_named("root", json_char_ref(rules, cs))
    return rules.to_gbnf()


def one(text: str) -> Chars:
    return Chars(CharSet.chars(text))


# --- CharSet ----------------------------------------------------------------------------------


def test_charset_algebra() -> None:
    a = CharSet.of((ord("a"), ord("f")))
    b = CharSet.of((ord("d"), ord("k")))
    assert (a | b).ranges == ((ord("a"), ord("k")),)
    assert (a & b).ranges == ((ord("d"), ord("f")),)
    assert (a - b).ranges == ((ord("a"), ord("c")),)
    assert ord("c") in a and ord("g") not in a
    assert (a | a.complement()) == UNIVERSE
    assert not (a & a.complement())


def test_charset_never_holds_surrogates() -> None:
    cs = CharSet.of((0xD000, 0xE100))
    assert cs.ranges == ((0xD000, 0xD7FF), (0xE000, 0xE100))
    assert 0xD900 not in UNIVERSE
    assert UNIVERSE.size() == 0x110000 - 0x800


def test_gbnf_class_escapes_special_characters() -> None:
    text = gbnf_class(CharSet.chars("]\\^-a"))
    for ch in "]\\^-":
        grammar = f"root ::= {text}"
        assert accepts(grammar, ch), (text, ch)
    assert accepts(f"root ::= {text}", "a")
    assert not accepts(f"root ::= {text}", "b")


@pytest.mark.parametrize(
    ("ranges", "inside", "outside"),
    [
        (((0x61, 0x7A),), ["0061", "007a", "007A", "006F"], ["0060", "007b", "0041", "1061"]),
        (((0x0, 0xFFFF),), ["0000", "ffff", "AbCd"], []),
        (((0x100, 0x2FF), (0xF000, 0xF00F)), ["0100", "02fF", "f00a", "F00F"], ["00ff", "0300", "f010", "efff"]),
    ],
)
def test_hex_expr(ranges: tuple[tuple[int, int], ...], inside: list[str], outside: list[str]) -> None:
    grammar = f"root ::= {hex_expr(ranges, 4)}"
    for digits in inside:
        assert accepts(grammar, digits), digits
    for digits in outside + ["12345"[:3], "00g0"]:
        assert not accepts(grammar, digits), digits


def spellings(ch: str) -> list[str]:
    """Several JSON spellings of one character (without quotes)."""
    out = [json.dumps(ch)[1:-1], json.dumps(ch, ensure_ascii=False)[1:-1]]
    units = ch.encode("utf-16-be")
    codes = [int.from_bytes(units[i : i + 2], "big") for i in range(0, len(units), 2)]
    out.append("".join(f"\\u{c:04X}" for c in codes))
    out.append("".join(f"\\u{c:04x}" for c in codes))
    return list(dict.fromkeys(out))


CHAR_TABLE = [
    ('"', ["\\u0022"], ['"']),
    ("\\", ["\\\\", "\\u005c"], ["\\"]),
    ("/", ["/", "\\/"], []),
    ("\n", ["\\n"], ["\n", "\\N"]),
    ("\x00", ["\\u0000"], ["\x00"]),
    ("\x1f", ["\\u001f"], ["\x1f"]),
    ("\x7f", ["\x7f", "\\u007f"], []),
    ("é", ["é", "\\u00e9", "\\u00E9"], ["\\u00e"]),
    ("😀", ["😀", "\\ud83d\\ude00", "\\uD83D\\uDE00"], ["\\ud83d", "\\ude00"]),
]


@pytest.mark.parametrize(("ch", "extra_ok", "bad"), CHAR_TABLE)
def test_json_char_body_spellings(ch: str, extra_ok: list[str], bad: list[str]) -> None:
    only = char_grammar(CharSet.chars(ch))
    everything = char_grammar(UNIVERSE)
    others = char_grammar(UNIVERSE - CharSet.chars(ch))
    for text in spellings(ch) + extra_ok:
        assert accepts(only, text), (ch, text)
        assert accepts(everything, text), (ch, text)
        assert not accepts(others, text), (ch, text)
    for text in bad:
        assert not accepts(only, text) and not accepts(everything, text), (ch, text)


def test_json_char_body_rejects_lone_surrogates_and_bad_escapes() -> None:
    everything = char_grammar(UNIVERSE)
    for text in ["\\ud800", "\\udc00", "\\ud800\\u0041", "\\x41", "\\U0041", "\\a", "\\"]:
        assert not accepts(everything, text), text


def test_astral_ranges_cross_high_surrogates() -> None:
    cs = CharSet.of((0x1F5FF, 0x1F801))
    grammar = char_grammar(cs)
    for cp in (0x1F5FF, 0x1F600, 0x1F7FF, 0x1F800, 0x1F801):
        for text in spellings(chr(cp)):
            assert accepts(grammar, text), hex(cp)
    for cp in (0x1F5FE, 0x1F802, 0x10000, ord("a")):
        for text in spellings(chr(cp)):
            assert not accepts(grammar, text), hex(cp)


# --- parser ---------------------------------------------------------------------------------


def test_parse_structure() -> None:
    assert parse_regex("^a|b$") == Choice((Concat((Anchor("^"), one("a"))), Concat((one("b"), Anchor("$")))))
    assert parse_regex("(?:ab)*") == Quantified(Concat((one("a"), one("b"))), 0, None)
    assert parse_regex("(?<n>a){2,5}") == Quantified(one("a"), 2, 5)
    assert parse_regex("a{3,}") == Quantified(one("a"), 3, None)
    assert parse_regex("a{3}") == Quantified(one("a"), 3, 3)
    assert parse_regex("") == Concat(())


@pytest.mark.parametrize(
    ("pattern", "members", "non_members"),
    [
        (r"\d", "09", "a٣"),
        (r"\D", "a٣", "5"),
        (r"\w", "aZ_9", "-é"),
        (r"\W", "-é", "a_"),
        (r"\s", " \t\n\v\f\r\u00a0\u2028\ufeff\u3000", "a_"),
        (r"\S", "a_", " \u00a0"),
        (r"[^a-c]", "dA\n", "abc"),
        (r"[\w-.]", "a-.", "+"),
        (r"[a\-z]", "a-z", "b"),
        (r"[\]\\^]", "]\\^", "a"),
        (r"[\b]", "\b", "b"),
        (r"\x41\u0042\u{43}\0\t", "", ""),
        (r".", "a\u2027", "\n\r\u2028\u2029"),
        (r"\p{L}", "aΩж中", "1 _"),
        (r"\p{Lu}", "AΩ", "a1"),
        (r"\P{L}", "1 _", "a"),
        (r"\p{General_Category=Decimal_Number}", "5٣", "a"),
        (r"\p{Nd}", "5", "x"),
        (r"\uD83D\uDE00", "😀", "a"),
        (r"\cJ", "\n", "J"),
        (r"\/", "/", "\\"),
        ("]", "]", "["),
        ("}", "}", "{"),
    ],
)
def test_single_character_sets(pattern: str, members: str, non_members: str) -> None:
    node = parse_regex(pattern)
    if isinstance(node, Concat):  # \x41\u0042\u{43}\0\t
        assert [n.chars.single() for n in node.items if isinstance(n, Chars)] == [0x41, 0x42, 0x43, 0, 9]
        return
    assert isinstance(node, Chars), node
    for ch in members:
        assert ord(ch) in node.chars, (pattern, ch)
    for ch in non_members:
        assert ord(ch) not in node.chars, (pattern, ch)


def test_dotall_dot_matches_line_terminators() -> None:
    node = parse_regex(".", dotall=True)
    assert isinstance(node, Chars) and node.chars == UNIVERSE


def test_annex_b_brace_literals() -> None:
    assert parse_regex("a{,5}") == Concat((one("a"), one("{"), one(","), one("5"), one("}")))
    assert parse_regex("a{x") == Concat((one("a"), one("{"), one("x")))


@pytest.mark.parametrize(
    "pattern",
    [r"(a)\1", r"(?<x>a)\k<x>", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", r"\bword", r"a\B",
     "a*?", "a+?", "a??", "a{2,3}?", "a*+", "a++", r"\p{Script=Greek}", r"\p{Alphabetic}", r"[\1]"],
)
def test_unsupported_constructs(pattern: str) -> None:
    with pytest.raises(UnsupportedSchemaError) as info:
        parse_regex(pattern, pointer="#/properties/x", keyword="pattern")
    assert info.value.pointer == "#/properties/x"
    assert info.value.keyword == "pattern"


@pytest.mark.parametrize(
    "pattern", ["(", "a)", "[a", "*a", "a**", "a{3,1}", "[z-a]", "\\", r"\x4", r"\u12", r"\u{110000}",
                r"\p{Nope=x}", r"\p{gc=Nope}", "(?*a)", "^*", "a|*", "(?i)abc", "(?ims)abc", "(?P<n>x)",
                "(?P<n>a)(?P=n)", "(?#comment)a", r"\a", r"\Aabc", r"abc\Z", "^(abc]"]
)
def test_malformed_patterns(pattern: str) -> None:
    with pytest.raises(SchemaError) as info:
        parse_regex(pattern, pointer="#/p", keyword="pattern")
    assert not isinstance(info.value, UnsupportedSchemaError), pattern
    assert info.value.keyword == "pattern" and info.value.pointer == "#/p"


def test_property_lookup_reports_unknown_names() -> None:
    assert isinstance(property_charset("Letter"), CharSet)
    assert isinstance(property_charset("Any"), CharSet)
    assert isinstance(property_charset("NotAProperty"), str)


@pytest.mark.parametrize(
    ("pattern", "bounds"),
    [("abc", (3, 3)), ("a{2,4}b?", (2, 5)), ("a*", (0, None)), ("^(ab|c)$", (1, 2)), ("", (0, 0))],
)
def test_length_bounds(pattern: str, bounds: tuple[int, int | None]) -> None:
    assert length_bounds(parse_regex(pattern)) == bounds

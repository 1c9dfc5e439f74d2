"""Format regexes: the JSON-Schema-Test-Suite's format cases with Python's ``re``, the strings
helper's own regex engine, and llama.cpp's sampler on the resulting grammar all agree."""

from __future__ import annotations

import datetime
import ipaddress
import json
import re
from functools import lru_cache

import pytest
from hypothesis import given, settings, strategies as st

from tests.support.corpora import JSTS
from structgen._schema.automata.regex import parse_regex
from structgen._gbnf._rules import RuleSet
from structgen._schema.ir.atoms import StringSpec
from structgen._schema.strings.formats import FORMAT_NAMES, format_regex
from structgen._schema.strings.language import json_string_rule, string_matches
from structgen.testing import accepts

SUITE = JSTS / "draft2020-12" / "optional" / "format"

_A_LABEL = "A-label (xn--): validating its Punycode is beyond a regex, so A-labels are rejected"
_U_LABEL = "non-ASCII hostname: idn-hostname accepts only its ASCII subset"
_LEAP = "leap seconds are refused on purpose: Python's datetime and Pydantic reject second 60"

#: (format, instance) -> why our regex decides it wrongly. May only shrink (see the test below).
EXPECTED_FAILURES: dict[tuple[str, str], str] = {
    ("time", "01:29:60+01:30"): _LEAP,
    ("time", "23:29:60+23:30"): _LEAP,
    ("time", "15:59:60-08:00"): _LEAP,
    ("time", "00:29:60-23:30"): _LEAP,
    ("date-time", "1998-12-31T15:59:60.123-08:00"): _LEAP,
    ("date-time", "1998-12-31T23:59:60Z"): _LEAP,
    ("time", "23:59:60Z"): _LEAP,
    ("time", "23:59:60+00:00"): _LEAP,
    ("idn-email", "실례@실례.테스트"): "idn-email: the domain must be ASCII (U-labels need IDNA rules)",
    ("idn-email", "user@cafe\u0301.com"): "idn-email: the domain must be ASCII (U-labels need IDNA rules)",
    **{
        ("hostname", name): _A_LABEL
        for name in (
            "xn--9n2bp8q.xn--9t4b11yi5a", "xn--zca29lwxobi7a", "xn--qmbc", "xn--ll-0ea", "xn--wva3je",
            "xn--4dbc5h", "xn--4dbc8h", "xn--k8j5u", "xn--bck0j", "xn--vek778f", "xn--ngba1o",
            "xn--0-gyc", "xn--11b2ezcw70k", "xn--11b2ezcs70k", "xn--ngba5hb2804a",
        )
    },
    ("idn-hostname", "xn--ihqwcrb4cv8a8dqg056pqjye"): _A_LABEL,
    **{
        ("idn-hostname", name): _U_LABEL
        for name in (
            "실례.테스트", "ßς་〇", "۽۾", "l·l", "α͵β", "א׳ב", "א״ב", "・ぁ", "・ァ", "・丈", "ب٠ب", "۰0",
            "क्\u200dष", "क्\u200cष", "بي\u200cبي", "a。b", "a．b", "a｡b",
            *(f"παράδειγμαπαράδειγμαπαράδειγμαπαράδειγμαπαράδειγμαπα{sep}com" for sep in ".。．｡"),
        )
    },
}


def suite_cases() -> list[tuple[str, str, bool]]:
    cases = []
    for path in sorted(SUITE.glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for test in group["tests"]:
                if isinstance(test["data"], str):
                    cases.append((path.stem, test["data"], bool(test["valid"])))
    return cases


CASES = suite_cases()
KNOWN = [case for case in CASES if format_regex(case[0]) is not None]


def py_matches(name: str, text: str) -> bool:
    regex = format_regex(name)
    assert regex is not None
    return re.fullmatch(regex, text) is not None


@lru_cache(maxsize=None)
def format_grammar(name: str) -> str:
    rules = RuleSet()
    rule = json_string_rule(rules, StringSpec(formats=(name,)), hint=name, pointer="#/format")
    assert rule is not None
    rules.add_named("root", rule)
    return rules.to_gbnf()


def test_suite_corpus_is_present() -> None:
    assert len(KNOWN) > 500
    assert {name for name, _, _ in KNOWN} >= {"date", "time", "date-time", "email", "ipv4", "ipv6", "uri", "uuid"}


@pytest.mark.parametrize("name", sorted({case[0] for case in KNOWN}))
def test_suite_agreement(name: str) -> None:
    wrong = [
        (text, valid)
        for fmt, text, valid in KNOWN
        if fmt == name and py_matches(fmt, text) != valid and (fmt, text) not in EXPECTED_FAILURES
    ]
    assert wrong == []


def test_expected_failures_still_fail_and_exist() -> None:
    """An entry that starts passing, or whose case left the suite, must be deleted from the list."""
    by_key = {(fmt, text): valid for fmt, text, valid in KNOWN}
    stale = [key for key in EXPECTED_FAILURES if key not in by_key or py_matches(*key) == by_key[key]]
    assert stale == []
    # Every expected failure rejects a valid string: no format accepts an invalid one.
    assert [key for key in EXPECTED_FAILURES if not by_key[key]] == []


@pytest.mark.parametrize("name", sorted(FORMAT_NAMES))
def test_regex_uses_only_plain_syntax(name: str) -> None:
    regex = format_regex(name)
    assert regex is not None and regex.startswith("^") and regex.endswith("$")
    for forbidden in ("(?=", "(?!", "(?<", "\\b", "\\B", "*?", "+?", "??", "}?", "\\1", "\\k<"):
        assert forbidden not in regex, forbidden
    parse_regex(regex)  # the strings helper's ECMA parser reads it (raises on anything unsupported)


@pytest.mark.parametrize("name", sorted({case[0] for case in KNOWN}))
def test_engines_agree(name: str) -> None:
    """Python's re, the strings helper's automaton and llama.cpp's sampler decide every case alike."""
    spec = StringSpec(formats=(name,))
    grammar = format_grammar(name)
    for fmt, text, _ in KNOWN:
        if fmt != name:
            continue
        expected = py_matches(name, text)
        assert string_matches(spec, text) == expected, text
        assert accepts(grammar, json.dumps(text)) == expected, text


def test_unknown_formats() -> None:
    for name in ("regex", "ecmascript-regex", "unknown", "int32", "", "DATE"):
        assert format_regex(name) is None
    assert "uuid4" in FORMAT_NAMES and "regex" not in FORMAT_NAMES


# --- tables for what the suite does not cover --------------------------------------------------

TABLES: dict[str, tuple[list[str], list[str]]] = {
    "date": (
        ["2024-02-29", "2000-02-29", "1600-02-29", "0400-02-29", "1996-02-29", "2023-02-28", "1999-12-31", "0001-01-01"],
        ["1900-02-29", "2023-02-29", "1800-02-29", "2024-02-30", "2021-11-31", "2021-00-10", "2021-10-00",
         "0000-02-29", "0000-01-01"],
    ),
    "time": (
        ["00:00:00Z", "23:59:59.999999+14:00", "12:00:00-00:00", "10:00:00.1z"],
        ["23:59:59", "23:59:59.Z", "23:59:60+01:00", "23:59:60.5Z", "23:59:60-00:00", "12:00:00+1:00",
         "12:00:00+24:00", "T12:00:00Z"],
    ),
    "date-time": (
        ["2024-02-29T12:00:00Z", "2000-01-01t00:00:00.000+05:30", "1998-12-31T23:59:59Z"],
        ["2024-02-29 12:00:00Z", "2023-02-29T12:00:00Z", "2024-01-01T12:00Z", "2024-01-01T12:00:00",
         "1998-12-31T23:59:60Z"],
    ),
    "duration": (
        ["P1W", "PT1S", "P1Y", "P1Y1M1DT1H1M1S", "PT0M0S", "P0W"],
        ["P", "PT", "P1.5D", "P1W1D", "PT1H1S", "P1M1Y", "p1d", "P1DT"],
    ),
    "uuid4": (
        ["98d80576-482e-427f-8434-7f86890ab222", "98D80576-482E-4A7F-B434-7F86890AB222"],
        ["2eb8aa08-aa98-11ea-b4aa-73b441d16380", "98d80576-482e-427f-c434-7f86890ab222", "98d80576482e427f84347f86890ab222"],
    ),
    "uuid1": (["2eb8aa08-aa98-11ea-b4aa-73b441d16380"], ["98d80576-482e-427f-8434-7f86890ab222"]),
    "uuid5": (["99c17cbb-656f-564a-940f-1a4568f03487"], ["99c17cbb-656f-664a-940f-1a4568f03487"]),
    "ipvanyaddress": (["127.0.0.1", "::1", "::ffff:10.0.0.1", "fe80::1:2"], ["256.0.0.1", "1::2::3", "", "127.0.0.1:80"]),
    "ipv6": (
        ["1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1::", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "ABCD:ef01::1"],
        ["1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:1.2.3.4", ":::", "1:2:3:4:5:6:7:8::", "::1.2.3", "g::1"],
    ),
    "hostname": (
        ["a", "a-b", "a1-b2.c3", "a--b.example", "abc--d", "ab-c", "a" * 63, ".".join(["a" * 63] * 3),
         ".".join(["b" * 49] * 5), ".".join(["c" * 24] * 10), ".".join("d" * 21)],
        ["a" * 64, "a-", "-a", "a..b", "xn--nxasmq6b", "ab--cd.example", "ab--", "a_b", "a b",
         # over 253 characters in all; and, narrower than RFC 1123, a few long names under it
         ".".join(["a" * 63] * 4) + ".com", ".".join(["a" * 63] * 3 + ["abc"]), ".".join("d" * 22)],
    ),
    "email": (
        ["a@b", "a.b.c@example.com", "a@" + ".".join(["b" * 63] * 4), "a" * 64 + "@x.com",
         ".".join(["abc"] * 16) + "@x", '"' + "q" * 62 + '"@x', "\"a\\\"b\"@example.com", "x@[IPv6:1::2]", "!#$%&'*+-/=?^_`{|}~@x.org"],
        ["a@b@c", "a@-b.com", "a@b-.com", "a@" + ".".join(["b" * 63] * 4) + ".c",
         "a" * 65 + "@x.com", '"' + "q" * 63 + '"@x', "\"a\"b@x.com", "a@[1.2.3.4.5]", "a@[IPv6:1::2::3]", "é@x.com", "a@"],
    ),
    "idn-email": (
        ["é@x.com", "\"é x\"@x.com", "𝕏.y@b", "a" * 64 + "@x.com", "é" * 32 + "@x.com",
         "한" * 21 + "@x.com", "𝕏" * 16 + "@x.com", '"' + "é" * 31 + '"@x'],
        ["é@é.com", "é..x@x.com", "@x.com", "a" * 65 + "@x.com", "é" * 33 + "@x.com",
         "한" * 22 + "@x.com", "𝕏" * 17 + "@x.com", '"' + "é" * 32 + '"@x', "a" * 63 + "é@x.com"],
    ),
    "uri": (
        ["a:", "a:b", "A+1.-x:", "http://[v7.x]/", "http://u:p@h:8080/p?q#f", "urn:isbn:0451450523", "http://h/%41"],
        ["a", ":b", "http://h/%4", "http://h/ a", "http://[::g]/", "http://h:8a/", "http://h/#f#g", "é:x"],
    ),
    "uri-reference": (["", "a", "../a/b", "//h", "?", "#", "a/b:c", "%41"], ["a:b c", "%4", "a:b#c#d", ":a"]),
    "iri": (["http://é.com/ü?ä#ö", "x:\U0001f600"], ["é", "http://é.com/\ue000"]),
    "iri-reference": (["é/ü", "?\ue000", ""], ["#\ue000", "a b"]),
    "json-pointer": (["", "/", "/a~0~1", "//", "/é\n"], ["a", "/~", "/~2", "#/a"]),
    "relative-json-pointer": (["0", "10#", "3/a/b", "0"], ["00", "#", "-1", "1#/a", ""]),
    "uri-template": (["{a}", "x{+a,b:3}y", "{%41*}", "a{/b}{?c,d}"], ["{", "}", "{a:0}", "{=a}", "{a b}", "{a..b}"]),
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_format_tables(name: str) -> None:
    valid, invalid = TABLES[name]
    assert [t for t in valid if not py_matches(name, t)] == []
    assert [t for t in invalid if py_matches(name, t)] == []


@pytest.mark.parametrize("name", ["date", "uuid4", "ipvanyaddress", "duration", "hostname", "email",
                                  "idn-email"])
def test_format_tables_natively(name: str) -> None:
    valid, invalid = TABLES[name]
    grammar = format_grammar(name)
    assert [t for t in valid if not accepts(grammar, json.dumps(t))] == []
    assert [t for t in invalid if accepts(grammar, json.dumps(t))] == []


# Widest characters of each UTF-8 length, to probe the octet limits.
_WIDEST = {1: "a", 2: "\u07ff", 3: "\uffef", 4: "\U0010fffd"}


def _octets(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("name", ["email", "idn-email"])
def test_accepted_local_parts_fit_in_64_octets(name: str) -> None:
    """Every local part the regex accepts takes at most 64 octets (RFC 5321), whatever its
    atoms and characters; probed with k atoms of L characters, each W octets wide."""
    accepted = 0
    for width, char in _WIDEST.items():
        for atoms in range(1, 34):
            for length in range(1, 66):
                local = ".".join([char * length] * atoms)
                if _octets(local) > 80:
                    break
                for candidate in (local, "a" + local, local + "a" * 3):
                    if py_matches(name, candidate + "@x.org"):
                        accepted += 1
                        assert _octets(candidate) <= 64, candidate
    assert accepted > 150


@pytest.mark.parametrize("name, label_limit, total_limit", [
    ("hostname", 63, 253), ("idn-hostname", 63, 253), ("email", 63, 255)])
def test_accepted_names_keep_label_and_total_limits(name: str, label_limit: int,
                                                     total_limit: int) -> None:
    accepted = 0
    for labels in range(1, 130):
        for length in range(1, 66):
            host = ".".join(["b" * length] * labels)
            if len(host) > total_limit + 70:
                break
            text = f"a@{host}" if name == "email" else host
            if py_matches(name, text):
                accepted += 1
                assert length <= label_limit and len(host) <= total_limit, (labels, length)
    assert accepted > 300


def test_agreement_summary() -> None:
    """Per-format agreement with the suite: everything outside EXPECTED_FAILURES is decided right."""
    per_format: dict[str, list[int]] = {}
    for fmt, text, valid in KNOWN:
        counts = per_format.setdefault(fmt, [0, 0])
        counts[py_matches(fmt, text) == valid] += 1
    wrong = sum(counts[0] for counts in per_format.values())
    assert wrong == len(EXPECTED_FAILURES)
    assert sum(counts[1] for counts in per_format.values()) == len(KNOWN) - wrong


# --- properties against the standard library -----------------------------------------------------

FAST = settings(max_examples=300, deadline=None)


def stdlib_ip(kind: type[ipaddress.IPv4Address] | type[ipaddress.IPv6Address], text: str) -> bool:
    if "%" in text:  # a zone id is not part of the format
        return False
    try:
        kind(text)
    except ValueError:
        return False
    return True


ipv6_texts = st.one_of(
    st.builds(
        lambda n, mask, form: getattr(ipaddress.IPv6Address(n & mask), form),
        st.integers(0, 2**128 - 1),
        st.sampled_from([2**128 - 1, 2**64 - 1, 2**32 - 1, (2**128 - 1) ^ (2**80 - 1), 0xFFFF_FFFF_FFFF]),
        st.sampled_from(["compressed", "exploded"]),
    ),
    st.builds(lambda a: f"::ffff:{a}", st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address)),
    st.text("0123456789abcDEF:.", max_size=24),
)


@FAST
@given(ipv6_texts)
def test_ipv6_matches_the_stdlib(text: str) -> None:
    assert py_matches("ipv6", text) == stdlib_ip(ipaddress.IPv6Address, text)


@FAST
@given(st.one_of(st.integers(0, 2**32 - 1).map(lambda n: str(ipaddress.IPv4Address(n))), st.text("0123456789.", max_size=16)))
def test_ipv4_matches_the_stdlib(text: str) -> None:
    assert py_matches("ipv4", text) == stdlib_ip(ipaddress.IPv4Address, text)


@FAST
@given(st.integers(1, 9999), st.integers(0, 13), st.integers(0, 32))
def test_date_matches_the_calendar(year: int, month: int, day: int) -> None:
    try:
        datetime.date(year, month, day)
        valid = True
    except ValueError:
        valid = False
    assert py_matches("date", f"{year:04d}-{month:02d}-{day:02d}") == valid

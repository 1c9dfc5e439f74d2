"""String languages: GBNF judged natively by llama.cpp, and string_matches agreeing with it."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from structgen._errors import SchemaError, UnsupportedSchemaError
from structgen import json_schema_to_gbnf
from structgen._schema.automata import (
    operations as _automata, minimize as _minimize, regex_dfa as _regex_dfa,
)
from structgen._schema.automata.operations import (
    complement, exclusion_dfa, finite_dfa, intersect, length_dfa, union_all, without_words,
)
from structgen._schema.automata.regex import parse_regex
from structgen._gbnf._expr import repeat
from structgen._gbnf._rules import RuleSet
from structgen._schema.ir.atoms import StringSpec
from structgen._schema.strings.language import json_string_rule, string_matches
from structgen.testing import accepts
from test_portability import group_depth


def grammar(spec: StringSpec, *, escapes_needed: bool = False, **options: bool) -> str | None:
    rules = RuleSet(escapes_needed=escapes_needed)
    name = json_string_rule(rules, spec, hint="str", pointer="#/s", **options)
    if name is None:
        return None
    rules.add_named("root", name)
    return rules.to_gbnf()


def json_spellings(value: str) -> list[str]:
    """json.dumps' spelling, the raw UTF-8 one, and every character as \\uXXXX in both cases."""
    units = value.encode("utf-16-be")
    codes = [int.from_bytes(units[i : i + 2], "big") for i in range(0, len(units), 2)]
    upper = '"' + "".join(f"\\u{c:04X}" for c in codes) + '"'
    lower = '"' + "".join(f"\\u{c:04x}" for c in codes) + '"'
    return list(dict.fromkeys([json.dumps(value), json.dumps(value, ensure_ascii=False), upper, lower]))


def check(spec: StringSpec, good: list[str], bad: list[str], *, dotall: bool = False) -> None:
    text = grammar(spec, dotall=dotall)
    assert text is not None
    for value in good:
        assert string_matches(spec, value, dotall=dotall), value
        for spelling in json_spellings(value):
            assert accepts(text, spelling), (spec, spelling, text)
    for value in bad:
        assert not string_matches(spec, value, dotall=dotall), value
        for spelling in json_spellings(value):
            assert not accepts(text, spelling), (spec, spelling, text)


TABLE = [
    (StringSpec(), ["", "a", 'say "hi"\n', "tab\there", "\x00\x1f\x7f", "é中😀", "a\\b/c"], []),
    (StringSpec(min_length=2, max_length=3), ["ab", "abc", "😀😀", "é\n"], ["", "a", "abcd", "😀", "😀😀😀😀"]),
    (StringSpec(max_length=0), [""], ["a"]),
    (StringSpec(min_length=1), ["x", "😀"], [""]),
    (StringSpec(patterns=("^[a-z]+$",)), ["abc", "j"], ["", "abC", "ab1", "é"]),
    (StringSpec(patterns=("ab",)), ["ab", "xxaby", "\nab\n"], ["a b", "ba", ""]),
    (StringSpec(patterns=("^ab",)), ["ab", "abz"], ["xab"]),
    (StringSpec(patterns=("ab$",)), ["ab", "zab"], ["abz", "ab\n"]),
    (StringSpec(patterns=("^a|b$",)), ["a", "axx", "xxb"], ["xa", "bx"]),
    (StringSpec(patterns=("^(a|b$)c?",)), ["a", "ac", "b"], ["bc", "c"]),
    (StringSpec(patterns=("",)), ["", "anything"], []),
    (StringSpec(patterns=("(^|,)a($|;)",)), ["a", "x,a", "a;y", "x,a;"], ["xa", "ab", "x,ab"]),
    (StringSpec(patterns=("^$|^ab$",)), ["", "ab"], ["a", " "]),
    (StringSpec(patterns=(r"^\d{3}-\d{4}$",)), ["555-1234"], ["5551234", "555-12345", "٣٣٣-1234"]),
    (StringSpec(patterns=(r"^\p{L}+$",)), ["héllo", "Ωmega", "中文"], ["ab1", "", "a b"]),
    (StringSpec(patterns=(r"^[^\x00-\x7F]*$",)), ["", "é😀"], ["a"]),
    (StringSpec(patterns=(r'^["\\/]+$',)), ['"', "\\", '/"\\'], ["a"]),
    (StringSpec(patterns=(r"^\s*$",)), ["", " \t\n\u00a0\u2028"], ["a"]),
    (StringSpec(patterns=(r"^.$",)), ["a", "😀"], ["\n", "\r", "\u2028", "ab"]),
    (StringSpec(patterns=("^(?:ab|cd){2,3}$",)), ["abcd", "cdcdab"], ["ab", "abcdabcd", "abc"]),
    (StringSpec(patterns=("^a", "b$")), ["ab", "axb"], ["ba", "a", "b"]),
    (StringSpec(patterns=("^[a-z]*$",), min_length=2, max_length=3), ["ab", "xyz"], ["a", "abcd", "AB"]),
    (StringSpec(patterns=("^[a-z]*x[a-z]*$",), max_length=3), ["x", "axb"], ["abxd", "ab"]),
    (StringSpec(patterns=("x",), min_length=3), ["abx", "xxx"], ["x", "ab", "abc"]),
    (StringSpec(patterns=("^a+$",), max_length=2), ["a", "aa"], ["aaa", ""]),
    (StringSpec(not_patterns=("^x",)), ["", "ax"], ["x", "xyz"]),
    (StringSpec(patterns=("^[a-z]+$",), not_patterns=("q",)), ["abc"], ["aqb", "q"]),
    (StringSpec(exclude=frozenset({"a", "name", ""})), ["b", "aa", "names", "nam", "Name"], ["a", "name", ""]),
    (StringSpec(exclude=frozenset({"é😀"})), ["é", "😀é"], ["é😀"]),
    (StringSpec(exclude=frozenset({"a"}), max_length=1), ["", "b"], ["a", "ab"]),
    (StringSpec(exclude=frozenset({"a"}), max_length=0), [""], ["a", "b"]),
    (StringSpec(only=frozenset({"red", "green", "ré"})), ["red", "green", "ré"], ["blue", "re", "", "redd"]),
    (StringSpec(only=frozenset({"abc", "x", "toolong"}), max_length=3, exclude=frozenset({"x"})), ["abc"],
     ["x", "toolong"]),
    (StringSpec(only=frozenset({"ab", "b"}), patterns=("a",)), ["ab"], ["b"]),
]


@pytest.mark.parametrize(("spec", "good", "bad"), TABLE, ids=[repr(t[0])[11:60] for t in TABLE])
def test_string_table(spec: StringSpec, good: list[str], bad: list[str]) -> None:
    check(spec, good, bad)


@pytest.mark.parametrize(("spec", "good", "bad"), TABLE, ids=[repr(t[0])[11:60] for t in TABLE])
def test_needed_escapes_leave_one_spelling(spec: StringSpec, good: list[str], bad: list[str]) -> None:
    """``escapes="needed"``: a value is accepted only as Pydantic and json.dumps(ensure_ascii=False)
    write it; every other spelling, and every value outside the language, is refused."""
    text = grammar(spec, escapes_needed=True)
    assert text is not None
    assert "char-u-above-latin1" not in text
    for value in good:
        one = json.dumps(value, ensure_ascii=False)
        assert accepts(text, one), (spec, one, text)
        for other in json_spellings(value):
            if other != one:
                assert not accepts(text, other), (spec, other, text)
    for value in bad:
        for spelling in json_spellings(value):
            assert not accepts(text, spelling), (spec, spelling, text)


def test_needed_escapes_of_every_control_character() -> None:
    text = grammar(StringSpec(), escapes_needed=True)
    assert text is not None
    for cp in range(0x20):
        one = json.dumps(chr(cp))  # a short escape, or \u00 and lower-case hex
        assert accepts(text, one), one
        for other in {f'"\\u{cp:04X}"', f'"\\u{cp:04x}"'} - {one}:
            assert not accepts(text, other), other
    for spelling in ['"\\/"', '"\\u0041"', '"\\u000A"', '"\\u000a"', '"\\ud83d\\ude00"']:
        assert not accepts(text, spelling), spelling
    assert accepts(text, '"/😀\\n\\u001f"')


def test_dotall_dot() -> None:
    check(StringSpec(patterns=("^a.b$",)), ["axb"], ["a\nb"])
    check(StringSpec(patterns=("^a.b$",)), ["axb", "a\nb", "a\u2029b"], ["ab"], dotall=True)


def test_exclusion_covers_every_spelling() -> None:
    text = grammar(StringSpec(exclude=frozenset({"a", "name", "/"})))
    assert text is not None
    for spelling in ['"a"', '"\\u0061"', '"n\\u0061me"', '"\\u006E\\u0061\\u006d\\u0065"', '"/"', '"\\/"',
                     '"\\u002F"']:
        assert not accepts(text, spelling), spelling
    for spelling in ['"b"', '"\\u0062"', '"\\u0061\\u0061"', '"n\\u0061mes"']:
        assert accepts(text, spelling), spelling


def test_json_syntax_is_enforced() -> None:
    text = grammar(StringSpec())
    assert text is not None
    for bad in ['"\x01"', '"\n"', '"a', 'a"', '"\\x41"', '"\\ud800"', '"\\udc00\\ud800"', '"\\u12"', '"""']:
        assert not accepts(text, bad), bad


def test_empty_languages_give_none() -> None:
    assert grammar(StringSpec(min_length=3, max_length=2)) is None
    assert grammar(StringSpec(patterns=("^a$", "^b$"))) is None
    assert grammar(StringSpec(patterns=("^ab$",), max_length=1)) is None
    assert grammar(StringSpec(patterns=("^a{3}$",), max_length=2)) is None
    assert grammar(StringSpec(only=frozenset({"a"}), exclude=frozenset({"a"}))) is None
    assert grammar(StringSpec(patterns=("^[]$",))) is None
    assert grammar(StringSpec(patterns=("a^b",))) is None
    assert grammar(StringSpec(patterns=("a$b",))) is None


def test_raw_mode() -> None:
    spec = StringSpec(patterns=("^[a-c]+x$",))
    text = grammar(spec, raw=True)
    assert text is not None
    assert accepts(text, "abx") and not accepts(text, '"abx"') and not accepts(text, "x")
    plain = grammar(StringSpec(max_length=2), raw=True)
    assert plain is not None and accepts(plain, "\n\"") and not accepts(plain, "abc")
    names = grammar(StringSpec(exclude=frozenset({"ab", ""})), raw=True)
    assert names is not None and accepts(names, "a") and accepts(names, "abc") and accepts(names, '"')
    assert not accepts(names, "ab") and not accepts(names, "")
    searched = grammar(StringSpec(patterns=("b",), exclude=frozenset({"b"})), raw=True)
    assert searched is not None and accepts(searched, "abc") and not accepts(searched, "b")


def test_same_spec_same_rule_and_shared_char_rules() -> None:
    rules = RuleSet()
    spec = StringSpec(patterns=("^[a-z]+@[a-z]+$",), max_length=20)
    first = json_string_rule(rules, spec, hint="email", pointer="#")
    assert first == json_string_rule(rules, spec, hint="other", pointer="#")
    plain = json_string_rule(rules, StringSpec(), hint="s", pointer="#")
    assert plain == json_string_rule(rules, StringSpec(), hint="t", pointer="#")


def test_large_counts_are_nested() -> None:
    rules = RuleSet()
    expr = repeat("c", 0, 2500, rules=rules, hint="s")
    assert "{2500}" not in expr and "s-block" in rules.body(expr)
    assert rules.body("s-block") == "c{1000}"
    spec = StringSpec(min_length=1, max_length=2500)
    text = grammar(spec)
    assert text is not None
    assert accepts(text, json.dumps("a" * 2500)) and accepts(text, json.dumps("b" * 1999))
    assert accepts(text, json.dumps("b" * 1000)) and accepts(text, json.dumps("b"))
    assert not accepts(text, json.dumps("a" * 2501)) and not accepts(text, '""')
    exact = grammar(StringSpec(min_length=2001, max_length=2001))
    assert exact is not None and accepts(exact, json.dumps("z" * 2001))
    assert not accepts(exact, json.dumps("z" * 2000))


@pytest.mark.parametrize(
    ("spec", "keyword"),
    [
        (StringSpec(patterns=(r"(a)\1",)), "pattern"),
        (StringSpec(patterns=("a(?=b)",)), "pattern"),
        (StringSpec(patterns=("a*?",)), "pattern"),
        (StringSpec(patterns=(r"\bx",)), "pattern"),
        (StringSpec(not_patterns=("(?<!a)b",)), "pattern"),
        (StringSpec(formats=("no-such-format",)), "format"),
        (StringSpec(patterns=("(a|b)*a(a|b){16}",)), "pattern"),
        (StringSpec(patterns=("[a-z]*x[a-z]*y[a-z]*",), min_length=1, max_length=100000), "maxLength"),
    ],
)
def test_unsupported_errors_name_keyword_and_pointer(spec: StringSpec, keyword: str) -> None:
    with pytest.raises(UnsupportedSchemaError) as info:
        json_string_rule(RuleSet(), spec, hint="s", pointer="#/properties/code")
    assert info.value.keyword == keyword
    assert info.value.pointer == "#/properties/code"


def test_malformed_pattern_is_a_schema_error() -> None:
    with pytest.raises(SchemaError) as info:
        json_string_rule(RuleSet(), StringSpec(patterns=("(ab",)), hint="s", pointer="#/x")
    assert not isinstance(info.value, UnsupportedSchemaError)
    assert (info.value.keyword, info.value.pointer) == ("pattern", "#/x")


def test_automata_operations() -> None:
    words = finite_dfa(["ab", "abc", "b"])
    assert [words.matches(w) for w in ("ab", "abc", "b", "a", "")] == [True, True, True, False, False]
    others = complement(words)
    assert others.matches("a") and not others.matches("ab")
    short = intersect(others, length_dfa(1, 2))
    assert short.matches("a") and short.matches("zz") and not short.matches("ab") and not short.matches("")
    assert short.length_bounds() == (1, 2)
    names = exclusion_dfa(["ab", ""])
    assert [names.matches(w) for w in ("", "a", "ab", "abc", "b")] == [False, True, False, True, True]
    # Alphabets that cover different code points: "é" only in the first, "z" only in the last.
    either = union_all([finite_dfa(["é", "ab"]), words, finite_dfa(["z"])])
    assert [either.matches(w) for w in ("é", "ab", "abc", "b", "z", "a", "")] == \
        [True, True, True, True, True, False, False]


# --- properties -------------------------------------------------------------------------------

# Regex fragments on which ECMA-262 and Python's re agree (ASCII, no $ before a newline issue:
# we translate $ to \Z for Python).
ATOMS = st.sampled_from(["a", "b", "c", "[ab]", "[^a]", ".", r"\d", r"\w", r"\s", "[a-c]", r"\.", "(?:ab|c)"])


@st.composite
def small_regexes(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        atom = draw(ATOMS)
        quant = draw(st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,2}", "{0,3}"]))
        parts.append(atom + quant)
    body = "".join(parts)
    if draw(st.booleans()):
        body = body + "|" + draw(ATOMS)
    prefix = draw(st.sampled_from(["", "^"]))
    suffix = draw(st.sampled_from(["", "$"]))
    return prefix + "(?:" + body + ")" + suffix


TEXTS = st.text(alphabet=st.sampled_from("abc1. \n_é😀"), max_size=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_regexes(), TEXTS)
def test_string_matches_agrees_with_python_re(pattern: str, value: str) -> None:
    python = pattern.replace("$", r"\Z")
    expected = re.search(python, value, flags=re.ASCII) is not None
    assert string_matches(StringSpec(patterns=(pattern,)), value) == expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_regexes(), st.lists(TEXTS, min_size=1, max_size=4), st.integers(0, 3), st.integers(0, 4))
def test_grammar_agrees_with_string_matches(pattern: str, values: list[str], low: int, extra: int) -> None:
    for spec in (
        StringSpec(patterns=(pattern,)),
        StringSpec(patterns=(pattern,), min_length=low, max_length=low + extra),
        StringSpec(not_patterns=(pattern,), exclude=frozenset(values[:1])),
        StringSpec(exclude=frozenset(values[:2])),
    ):
        text = grammar(spec)
        for value in values:
            verdict = string_matches(spec, value)
            if text is None:
                assert not verdict
                continue
            assert accepts(text, json.dumps(value)) == verdict, (spec, value, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(small_regexes(), min_size=2, max_size=4), st.lists(TEXTS, min_size=1, max_size=6))
def test_union_of_automata_is_the_union_of_languages(patterns: list[str], values: list[str]) -> None:
    parts = [_regex_dfa.regex_dfa(parse_regex(p)) for p in patterns]
    either = union_all(parts)
    for value in values:
        assert either.matches(value) == any(p.matches(value) for p in parts), (patterns, value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_regexes(), st.lists(TEXTS, max_size=4), st.lists(TEXTS, min_size=1, max_size=6))
def test_automaton_without_words(pattern: str, words: list[str], values: list[str]) -> None:
    searched = _regex_dfa.regex_dfa(parse_regex(pattern))
    rest = without_words(searched, words)
    if words:  # both minimal: the same number of states as the product's
        assert len(rest.delta) == len(intersect(searched, exclusion_dfa(words)).delta)
    for value in values + words:
        assert rest.matches(value) == (searched.matches(value) and value not in words)


def test_alternative_patterns_share_one_automaton_cut_once() -> None:
    # Related patterns under common length bounds: one automaton for their union, cut to length
    # once, costs what one branch does (one cut automaton per branch cost four times as much).
    related = [{"pattern": p} for p in ("^a.*z", "^b.*z", "^c.*z", "^d.*z")]
    # Unrelated forbidden patterns: their union would multiply states, so each branch stays.
    unrelated = [{"not": {"pattern": p}} for p in ("ab", "bc", "ca", "^a", "c$")]
    rng = random.Random(11)
    for branches, low, high, letters in ((related, 5, 30, "abcdz"), (unrelated, 3, 12, "abc")):
        schema = {"type": "string", "minLength": low, "maxLength": high, "anyOf": branches}
        text = json_schema_to_gbnf(schema)
        alone = json_schema_to_gbnf({**schema, "anyOf": branches[:1]})
        assert (len(text) < 1.1 * len(alone)) == (branches is related)
        for _ in range(60):
            value = "".join(rng.choice(letters) for _ in range(rng.randrange(1, high + 3)))
            matches = [re.search(b.get("pattern") or b["not"]["pattern"], value) is not None
                       for b in branches]
            if branches is unrelated:
                matches = [not m for m in matches]
            expected = low <= len(value) <= high and any(matches)
            assert accepts(text, json.dumps(value)) == expected, value


def test_nullable_repetitions_do_not_become_left_recursion() -> None:
    for pattern in ["^(a|b?)+$", "^(?:x*)*$", "^(a?b?)*c$"]:
        spec = StringSpec(patterns=(pattern,))
        text = grammar(spec)
        assert text is not None
        for value in ["", "ab", "aab", "c", "abc", "xx", "d"]:
            assert accepts(text, json.dumps(value)) == string_matches(spec, value), (pattern, value)


def test_repeated_large_alternation_stays_within_llama_limits() -> None:
    # llama.cpp refuses (rules generated inside a group) x (repetition count) >= 2000.
    sizes = "|".join(f"{8 * i}x{8 * j}" for i in range(1, 33) for j in range(0, 33))
    spec = StringSpec(patterns=(f"^u?fixed({sizes})?(\\[[0-9]*\\])*$",))
    text = grammar(spec)
    assert text is not None
    for value, ok in [("fixed", True), ("ufixed8x0", True), ("fixed256x256[3][]", True), ("fixed8x1", False)]:
        assert accepts(text, json.dumps(value)) is ok, value
        assert string_matches(spec, value) is ok


def test_length_bounds_fold_into_single_variable_part() -> None:
    spec = StringSpec(patterns=("^data:image/(jpg|jpeg);base64,[0-9a-zA-Z+/=]*$",), max_length=32767)
    text = grammar(spec)
    assert text is not None and "-s ::=" not in text  # no state machine needed
    prefix = "data:image/jpeg;base64,"
    good = [prefix, prefix + "A" * 100, "data:image/jpg;base64,xyz"]
    check(spec, good, ["data:image/png;base64,", prefix + "!"])
    short = StringSpec(patterns=("^id-[0-9]+$",), min_length=5, max_length=6)
    check(short, ["id-12", "id-123"], ["id-1", "id-1234"])


@pytest.mark.parametrize(
    ("low", "high"), [(0, 1999), (1500, 1999), (1999, 1999), (0, 1000), (1200, None), (3, 4100)]
)
def test_counts_near_llama_limits(low: int, high: int | None) -> None:
    text = grammar(StringSpec(min_length=low, max_length=high))
    assert text is not None
    top = high if high is not None else low + 5
    assert accepts(text, json.dumps("a" * low)) and accepts(text, json.dumps("é" * top))
    if high is not None:
        assert not accepts(text, json.dumps("a" * (high + 1)))
    assert low == 0 or not accepts(text, json.dumps("a" * (low - 1)))


def test_minimisation_methods_agree() -> None:
    searched = _regex_dfa.regex_dfa(parse_regex("^[a-c]*b[a-c]*c[a-c]*$"))
    bounded = _automata.limit_length(searched, 2, 300)  # acyclic and above the Moore limit
    assert len(bounded.delta) > _minimize._MOORE_LIMIT
    pattern = re.compile("[a-c]*b[a-c]*c[a-c]*")
    rng = random.Random(5)
    for _ in range(300):
        value = "".join(rng.choice("abcd") for _ in range(rng.choice([2, 5, 299, 300, 301])))
        expected = pattern.fullmatch(value) is not None and 2 <= len(value) <= 300
        assert bounded.matches(value) == expected, value
    # The three ways of merging states find the same classes on the complete automaton.
    dead = len(bounded.delta)
    complete = [[t if t >= 0 else dead for t in row] for row in bounded.delta]
    complete.append([dead] * len(bounded.symbols))
    accepting = bounded.accepting + [False]
    counts = {
        len(set(_minimize._moore(complete, accepting))),
        len(set(_minimize._hopcroft(complete, bounded.accepting, len(bounded.symbols)))),
        len(set(_minimize._acyclic_classes(complete, bounded.accepting, dead) or [])),
    }
    assert counts == {len(bounded.delta) + 1}


def test_writers_report_the_nesting_of_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Key tries, state machines and hoisted groups tell the rule set how deep their groups
    nest, so that writing the text scans none of them for the nesting check: what they tell
    is what the text holds."""
    from structgen._escapes import MAX_GROUP_DEPTH

    told: list[tuple[str, int]] = []
    known = RuleSet._record

    def spy(self: RuleSet, name: str, refs: tuple[str, ...] | None, nesting: int | None) -> None:
        if nesting is not None:
            told.append((self.body(name) or "", nesting))
        known(self, name, refs, nesting)

    monkeypatch.setattr(RuleSet, "_record", spy)
    # Long names (deep tries, hoisted), names with parentheses, brackets and quotes (literal
    # parentheses are no groups), a pattern with two variable parts under a length bound (a
    # state machine), and the raw mode's exclusion trie.
    names = ["description-of-the-thing", "descriptor(s)", 'quote"d', "[bracket]", "a", "ab"]
    schemas = [
        {"type": "object", "properties": {n: {"type": "integer"} for n in names}},
        {"type": "string", "pattern": "^[a-z]+-[0-9]+$", "maxLength": 40},
        {"type": "object", "properties": {"x": {"type": "string", "pattern": "^(ab|cd)+x$",
                                                 "minLength": 3, "maxLength": 30}}},
    ]
    for schema in schemas:
        json_schema_to_gbnf(schema)
    json_schema_to_gbnf({"type": "string", "not": {"enum": names}}, raw_pattern=True)
    assert told and any(n > MAX_GROUP_DEPTH for _, n in told)
    assert [n for _, n in told] == [group_depth(body) for body, _ in told]

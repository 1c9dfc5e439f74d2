"""The pure-Python recognizer against llama.cpp's native sampler: tables of accepted and
rejected texts (with the first rejected offset), the incremental State API, and agreement on
converter grammars of MaskBench and JSON-Schema-Test-Suite instances."""

from __future__ import annotations

import gzip
import json
import random
from typing import Any

import pytest

from tests.support.corpora import GBNF_EXAMPLES, JSTS, MASKBENCH
from structgen._errors import GrammarError, SchemaError
from structgen._gbnf import CharRanges, Recognizer, check_safe, forced_text, parse_gbnf
from structgen.testing import accepts, check

JSON_GBNF = (GBNF_EXAMPLES / "json.gbnf").read_text(encoding="utf-8")
JAPANESE_GBNF = (GBNF_EXAMPLES / "japanese.gbnf").read_text(encoding="utf-8")


def native_first_rejected(grammar: str, text: str, root: str = "root") -> int | None:
    verdict = check(grammar, text, root=root)
    return None if verdict.accepted else verdict.rejected_at


# (grammar, accepted texts, rejected texts)
TABLES: list[tuple[str, list[str], list[str]]] = [
    (
        JSON_GBNF,
        ['{}', '{"a": 1}', '{"a":[1,2,{"b":null}]}', '{"s": "\\u00e9\\n\\"", "t": true}', '{ "x" : -0.5e5 }\n', '{"é": "日本"}'],
        ['[]', '{"a" 1}', '{"a": 01}', '{"a": tru}', '{"a": 1}  ', '{"a": "\x01"}', '{"a": 1e10}', '{', ''],
    ),
    (
        'root ::= a b c\na ::= "x"?\nb ::= | "y"\nc ::= ("z" c)?',
        ["", "x", "xyzz", "yz", "zzz", "xy"],
        ["zy", "xx", "yy", "xzy"],
    ),
    ('root ::= "(" root ")" | ""', ["", "()", "((()))", "(" * 60 + ")" * 60], ["(()", "())", ")(", "(" * 60 + ")" * 59]),
    ('root ::= [ab]{2,4} "c"{3}', ["abccc", "ababccc", "bbaccc"], ["accc", "aaaaaccc", "abcc", "abcccc"]),
    ('root ::= "<" .* ">"', ["<>", "<a>b>", "<\U0001f600>"], ["<a", "a<>", "<>x"]),
    ("root ::= [^a-c]+", ["xyz", "é", "\t"], ["xaz", "", "c"]),
    ('root ::= "a"{0,3000} "b"', ["b", "a" * 2500 + "b"], ["a" * 2500]),
    ('root ::= "a" [] "b" [z-a]? [^z-a]', ["abq", "ab!"], ["ab", "azb"]),
    ('root ::= | "a"', ["", "a"], ["aa", "b"]),
    ('root ::= ("a" | "ab") ("b" | "")', ["a", "ab", "abb"], ["abbb", "b", ""]),
    ('root ::= ("x" ws)+ "."\nws ::= [ \\t\\n]*', ["x.", "x x\t\nx.", "xx."], ["x", ". ", "x  ."[::-1]]),
    ('root ::= "\\x41\\u00e9\\U0001F600" [\\u0100-\\u017F]', ["Aé\U0001f600ą"], ["Aé\U0001f600a", "Ae"]),
    ('root ::= "a"\nroot ::= "b" "c"?', ["b", "bc"], ["a", "c"]),
    ('root ::= ("ab" | "a") ("c" "d"?){1,2}', ["abc", "acdc", "abcdcd"], ["ab", "acdcdc", "abd"]),
    (JAPANESE_GBNF, ["こんにちは", "カタカナ 漢字"], ["hello", "こんにちは ", ""]),
]
CASES = [(g, t, True) for g, ok, _ in TABLES for t in ok] + [(g, t, False) for g, _, bad in TABLES for t in bad]


@pytest.mark.parametrize(("grammar", "text", "expected"), CASES, ids=[f"{i}-{t[:12]!r}" for i, (_, t, _) in enumerate(CASES)])
def test_table_agrees_with_native(grammar: str, text: str, expected: bool) -> None:
    recognizer = Recognizer(grammar)
    assert recognizer.accepts(text) is expected
    assert accepts(grammar, text) is expected
    assert recognizer.first_rejected(text) == native_first_rejected(grammar, text)


def test_first_rejected_offsets() -> None:
    recognizer = Recognizer(JSON_GBNF)
    assert recognizer.first_rejected('{"a": 1}') is None
    assert recognizer.first_rejected('{"a" 1}') == 5
    assert recognizer.first_rejected('{"a": 1') == 7  # all characters pass, the end does not
    assert recognizer.first_rejected("x") == 0


def test_other_root() -> None:
    grammar = 'root ::= "r"\nother ::= "o" root'
    recognizer = Recognizer(grammar, root="other")
    assert recognizer.accepts("or") and not recognizer.accepts("r")
    assert accepts(grammar, "or", root="other")


def test_states_are_interned_and_shared() -> None:
    recognizer = Recognizer(JSON_GBNF)
    start = recognizer.initial()
    assert not start.is_accepting()
    one = start.advance_text('{"a": "xy')
    two = start.advance_text('{"a": "xyz')
    assert one is not None and one is two  # inside a string every character leads back
    assert start.advance("[") is None
    end = start.advance_text('{"a": 1}')
    assert end is not None and end.is_accepting()
    assert "accepting" in repr(end) and "accepting" not in repr(start)
    assert start.advance_text("{{") is None


def test_allowed_chars() -> None:
    recognizer = Recognizer(JSON_GBNF)
    start = recognizer.initial()
    assert start.allowed_chars() == CharRanges(((ord("{"), ord("{")),))
    after_value = start.advance_text('{"a": 1')
    assert after_value is not None
    allowed = after_value.allowed_chars()
    for ch in "0123456789.eE ,}\n":
        assert ch in allowed
    assert "a" not in allowed and '"' not in allowed
    in_string = start.advance_text('{"')
    assert in_string is not None
    chars = in_string.allowed_chars()
    assert "\x1f" not in chars and "\x7f" not in chars and "é" in chars and "\U0010ffff" in chars
    assert chars.ranges == ((0x20, 0x7E), (0x80, 0x10FFFF))  # closing quote and backslash included


def test_forced_text() -> None:
    recognizer = Recognizer('root ::= "hello" " " ("world" | "there") "!" ("?")*')
    start = recognizer.initial()
    assert forced_text(start) == "hello "
    after_w = start.advance_text("hello w")
    assert after_w is not None and after_w.forced_text() == "orld!"
    done = after_w.advance_text("orld!")
    assert done is not None and done.is_accepting() and forced_text(done) == ""
    endless = Recognizer('root ::= "x" root')
    assert forced_text(endless.initial(), limit=50) == "x" * 50
    assert forced_text(Recognizer(JSON_GBNF).initial()) == "{"


def test_tokens_are_refused_on_text() -> None:
    with pytest.raises(GrammarError, match="token <think>"):
        Recognizer('root ::= <think> "a"')
    with pytest.raises(GrammarError, match=r"token !<\[5\]>"):
        Recognizer('root ::= "a" !<[5]>*')
    assert Recognizer('root ::= "a"\nunused ::= <[5]>').accepts("a")


@pytest.mark.parametrize(
    "grammar",
    ['root ::= root "a" | "b"', 'root ::= opt expr\nopt ::= "-"?\nexpr ::= root "+" | [0-9]', 'root ::= ("a"?)*', "root ::= x", 'start ::= "a"'],
)
def test_unsafe_grammars_are_refused(grammar: str) -> None:
    with pytest.raises(GrammarError):
        Recognizer(grammar)


def test_accepts_a_parsed_tree() -> None:
    tree = parse_gbnf('root ::= "a"+')
    assert Recognizer(tree).accepts("aaa")


def test_nul_is_never_accepted() -> None:
    # llama.cpp sees NUL-terminated strings, so no grammar lets U+0000 through.
    assert not Recognizer("root ::= [\\x00-\\x7F]*").accepts("a\x00")
    assert not Recognizer("root ::= .").accepts("\x00")


# -- speed --------------------------------------------------------------------------------


def _document(rng: random.Random, target: int) -> str:
    def value(depth: int) -> object:
        roll = rng.random()
        if depth > 3 or roll < 0.3:
            return rng.choice([1, -2.5e-3, 'h\u00e9llo "w"', True, None, "x" * rng.randint(0, 20)])
        if roll < 0.65:
            return {f"k{i}": value(depth + 1) for i in range(rng.randint(1, 4))}
        return [value(depth + 1) for _ in range(rng.randint(1, 4))]

    items: list[object] = []
    while len(json.dumps({"items": items})) < target:
        items.append(value(0))
    return json.dumps({"items": items})


def test_recognizing_2kb_json_keeps_few_parse_stacks() -> None:
    # The work per character follows the number of simultaneous parse stacks: a 2 KB document
    # of the JSON grammar never needs more than 16 (11 at its widest), so recognition stays
    # linear in the text. A test of behaviour, not of time (timings drift on shared machines).
    text = _document(random.Random(7), 2048)
    assert 2048 <= len(text) < 3000
    assert Recognizer(JSON_GBNF, max_stacks=16).accepts(text)
    assert accepts(JSON_GBNF, text)


def test_exponential_ambiguity_stops_with_a_clear_error() -> None:
    # Every "c" may open a nested root or continue a run: the number of parses (stacks)
    # roughly quadruples per two characters, in llama.cpp exactly as here.
    recognizer = Recognizer('root ::= ([c-d] root | "cc" | [a-d]{1,3}){2,4}', max_stacks=2000)
    assert recognizer.first_rejected("cdcdcdcd") is None
    with pytest.raises(GrammarError, match="too ambiguous"):
        recognizer.first_rejected("cd" * 20)


def test_deep_right_recursion() -> None:
    recognizer = Recognizer('root ::= "[" root "]" | "x"')
    depth = 3000
    assert recognizer.accepts("[" * depth + "x" + "]" * depth)
    assert recognizer.first_rejected("[" * depth + "x" + "]" * (depth - 1)) == 2 * depth


# -- agreement on converter grammars --------------------------------------------------------


def _mutations(text: str, rng: random.Random) -> list[str]:
    if not text:
        return ["x"]
    at = rng.randrange(len(text))
    return [text[:at] + text[at + 1 :], text[:at] + rng.choice('a1{}[]",: -.') + text[at:], text[:at]]


def _compare(grammar: str, texts: list[str]) -> int:
    recognizer = Recognizer(grammar)
    for text in texts:
        mine = recognizer.first_rejected(text)
        native = native_first_rejected(grammar, text)
        assert mine == native, (grammar, text)
    return len(texts)


def _convertible(schema: Any) -> str | None:
    """The converter's grammar for ``schema`` when it has one our recognizer can run."""
    from structgen import json_schema_to_gbnf

    try:
        grammar = json_schema_to_gbnf(schema)
        check_safe(grammar)
    except (SchemaError, GrammarError):
        return None
    return grammar


def test_agrees_on_maskbench_instances() -> None:
    rng = random.Random(11)
    with gzip.open(MASKBENCH, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    compared = grammars = 0
    for record in rng.sample(records, 40):
        grammar = _convertible(record["schema"])
        if grammar is None:
            continue
        grammars += 1
        texts = []
        for test in record["tests"][:3]:
            text = json.dumps(test["data"])
            if len(text) <= 1500:
                texts += [text, *_mutations(text, rng)]
        compared += _compare(grammar, texts)
    assert grammars >= 20 and compared >= 100, (grammars, compared)


def test_agrees_on_json_schema_test_suite_instances() -> None:
    rng = random.Random(5)
    compared = grammars = 0
    for path in sorted((JSTS / "draft2020-12").glob("*.json"))[:40]:
        for case in json.loads(path.read_text(encoding="utf-8"))[:3]:
            grammar = _convertible(case["schema"])
            if grammar is None:
                continue
            grammars += 1
            texts = [json.dumps(test["data"]) for test in case["tests"][:4]]
            texts += [m for text in texts[:2] for m in _mutations(text, rng)]
            compared += _compare(grammar, texts)
    assert grammars >= 20 and compared >= 100, (grammars, compared)

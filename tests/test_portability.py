"""Grammars that mean the same in llama.cpp, xgrammar and llguidance.

The ``portable`` lint flags each construct those engines read otherwise (every case below was
checked against xgrammar 0.2.9 and llguidance 1.9.1 with the portability suite's engines); our
own grammars, of every JSTS schema and a spread MaskBench-dev sample, have none; llama.cpp's
example grammars have the findings pinned here. ``make bench-portability`` runs the engines
themselves (they need torch, so they stay out of the test dependencies).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.corpora import GBNF_EXAMPLES, jsts_cases, jsts_remotes, maskbench_cases
from structgen import SchemaError
from structgen._cli import main as cli_main
from structgen._escapes import (
    MAX_GROUP_DEPTH,
    escape_code_point,
    gbnf_literal,
    separate_hex_escapes,
)
from structgen._gbnf import format_gbnf, lint, lint_portable, parse_gbnf
from structgen import json_schema_to_gbnf
from structgen._gbnf._rules import RuleSet, rule_name_hint
from structgen.testing import check as native_check

# ----------------------------------------------------------------------------- the lint

def _nested(depth: int) -> str:
    """Alternatives nested ``depth`` groups deep, each optional."""
    body = '"z"'
    for _ in range(depth):
        body = f'("a" {body}? | "b")'
    return f"root ::= {body}"


# (grammar, the start of the finding's message, its line and column)
FLAGGED: list[tuple[str, str, int, int]] = [
    ('root ::= [^\\x22\\x5Cabc]', "\\x5C followed by a hex digit", 1, 16),
    ('root ::= "\\x00abc"', "\\x00 followed by a hex digit", 1, 11),
    ('root ::= "\\u00e9"', "a \\u escape with a leading zero", 1, 11),
    ('root ::= [\\u0022abcd]', "a \\u escape with a leading zero", 1, 11),
    ('root ::= "\\U0001F600"', "a \\U escape", 1, 11),
    ('root ::= [\\-a]', "\\- is llama.cpp's alone", 1, 11),
    ('root ::= "\\["', "\\[ in a string literal", 1, 11),
    ('root ::= "a\nb"', "a raw control character", 1, 12),
    ('root ::= [a&&b]', "'&&' in a class", 1, 10),
    ('root ::= [+--]', "'--' in a class", 1, 10),
    ('root ::= .', "'.' (any character)", 1, 10),
    ('root ::= <think> "a"', "the token <think>", 1, 10),
    ('root ::= | "a"', "an empty alternative", 1, 10),
    ('root ::= ( "a" | )', "an empty alternative", 1, 18),
    ('root ::= x\nx ::= 2fa\n2fa ::= "a"', "rule name '2fa': starts with a digit", 3, 1),
    ('root ::= true\ntrue ::= "a"', "rule name 'true'", 2, 1),
    ('root ::= start\nstart ::= "a"', "rule name 'start'", 2, 1),
    ('root ::= foo-bar fooBar\nfoo-bar ::= "a"\nfooBar ::= "b"', "rules 'foo-bar' and 'fooBar'",
     3, 1),
    ('root ::= "a"\nRegex ::= "b"', "rule name 'Regex'", 2, 1),
    ('root ::= "a"{0,3000}', "a maximum of 3000 repetitions", 1, 10),
    ('root ::= ("x"*)?', "a repetition of a group that holds only a repetition", 1, 10),
    (_nested(MAX_GROUP_DEPTH + 1), "groups nested more than", 1, 10 + 5 * MAX_GROUP_DEPTH),
]

# What they become: the same language, read alike everywhere.
CLEAN = [
    'root ::= [^\\x22\\x5C\\x61\\x62\\x63]',
    'root ::= [^abc\\x22\\x5C]',
    'root ::= "\\xE9" "\\u4E2D" "😀"',
    'root ::= [a\\x2D] "[" [\\[\\]]',
    'root ::= "a\\nb" [a&b~-] [^\\x0A]',
    'root ::= () "a" | "b"',
    'root ::= x\nx ::= def-2fa\ndef-2fa ::= "a"',
    'root ::= "a"{0,2000} ("x"* "y")?',
    _nested(MAX_GROUP_DEPTH),
]


def _portable(text: str) -> list[tuple[str, int, int]]:
    return [(f.message, f.line, f.column) for f in lint_portable(text)]


@pytest.mark.parametrize(("grammar", "message", "line", "column"), FLAGGED)
def test_flags_what_other_engines_read_otherwise(grammar: str, message: str, line: int,
                                                 column: int) -> None:
    found = _portable(grammar)
    assert [(m[:len(message)], ln, col) for m, ln, col in found] == [(message, line, column)]


@pytest.mark.parametrize("grammar", CLEAN)
def test_portable_spellings_are_clean(grammar: str) -> None:
    assert _portable(grammar) == []


def test_portable_findings_join_lint_only_when_asked() -> None:
    text = 'root ::= "\\u00e9"\nunused ::= "x"\n'
    assert [f.code for f in lint(text)] == ["unused-rule"]
    assert [f.code for f in lint(text, portable=True)] == ["portable", "unused-rule"]
    assert all(f.severity == "warning" for f in lint_portable(text))


def test_a_tree_without_text_is_checked_as_formatted() -> None:
    tree = parse_gbnf('root ::= [\\u0100-\\u0FFF] x\nx ::= "a"{0,3000}\n')
    rebuilt = type(tree)(dict(tree.rules))  # no source text, no places
    assert [f.message[:14] for f in lint_portable(rebuilt)] == ["a maximum of 3"]
    assert lint_portable(format_gbnf(tree))[0].line == 2


def test_cli_lint_portable(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    path = tmp_path / "g.gbnf"
    path.write_text('root ::= [^\\x22\\x5Cabc]\n')
    assert cli_main(["lint", str(path)]) == 0
    assert cli_main(["lint", "--portable", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:1:16: warning: \\x5C followed by a hex digit" in out
    assert out.rstrip().endswith("[portable]")


# ----------------------------------------------------------------------------- our spellings

@pytest.mark.parametrize(("code", "spelling"), [
    (0x00, "\\x00"), (0xE9, "\\xE9"), (0xFF, "\\xFF"), (0x100, "\u0100"), (0xFFF, "\u0fff"),
    (0x1000, "\\u1000"), (0x2028, "\\u2028"), (0xD800, "\\uD800"), (0x1F600, "\U0001F600"),
    (0x10FFFF, "\U0010FFFF"), (0x110000, "\\U00110000"),
])
def test_escape_code_point_reads_alike_everywhere(code: int, spelling: str) -> None:
    assert escape_code_point(code) == spelling


def test_hex_digits_after_an_escape_are_escaped_too() -> None:
    assert separate_hex_escapes("\\x22\\x5Cabcg") == "\\x22\\x5C\\x61\\x62\\x63g"
    assert separate_hex_escapes("\\\\x41") == "\\\\x41"  # an escaped backslash, then text
    assert gbnf_literal("\x00abc") == '"\\x00\\x61\\x62\\x63"'


def test_the_hex_escape_repair_keeps_the_language() -> None:
    # [^"\\abc] written by the converter: llama.cpp still excludes every one of them.
    gbnf = json_schema_to_gbnf({"type": "string", "pattern": '^[^"\\\\abc]+$'})
    assert "\\x5C\\x61" in gbnf and _portable(gbnf) == []
    assert native_check(gbnf, '"de"').accepted
    for bad in ('"a"', '"b"', '"c"', '"d\\\\"'):
        assert not native_check(gbnf, bad).accepted, bad


@pytest.mark.parametrize(("hint", "name"), [
    ("2fa", "def-2fa"), ("3d-model", "def-3d-model"), ("true", "def-true"),
    ("false", "def-false"), ("start", "def-start"), ("a2", "a2"), ("root", "root"),
])
def test_rule_names_start_with_a_letter(hint: str, name: str) -> None:
    assert rule_name_hint(hint) == name


def test_deep_groups_become_rules_with_the_same_language() -> None:
    rules = RuleSet()
    deep = '"z"'
    for i in range(30):
        deep = f'("a{i}" {deep}? | "b")'
    rules.add_named("root", deep)
    gbnf = rules.to_gbnf()
    assert _portable(gbnf) == [] and gbnf.count("\n") > 1
    assert gbnf == rules.to_gbnf()  # the same names each time
    texts = ["b", "a29b", "a29a28b", "".join(f"a{i}" for i in range(29, -1, -1)) + "z", "a29z"]
    original = f"root ::= {deep}\n"
    for text in texts:
        assert (native_check(gbnf, text).accepted
                == native_check(original, text).accepted), text


def test_number_rules_nest_within_the_bound() -> None:
    gbnf = json_schema_to_gbnf({"type": "number"})
    assert max(map(group_depth, gbnf.splitlines())) <= MAX_GROUP_DEPTH


def group_depth(line: str) -> int:
    """How deep parentheses outside literals and classes nest (the tests' own reading)."""
    parens = re.sub(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|[^()]', "", line)
    depth = deepest = 0
    for ch in parens:
        depth += 1 if ch == "(" else -1
        deepest = max(deepest, depth)
    return deepest


# ----------------------------------------------------------------------------- the corpora

def _grammars(cases: Any, **options: Any) -> dict[str, str]:
    out = {}
    for case in cases:
        try:
            out[case.id] = json_schema_to_gbnf(case.schema, **options)
        except SchemaError:
            continue  # a typed refusal: no grammar to read
    return out


def test_every_jsts_grammar_is_portable() -> None:
    grammars = _grammars(jsts_cases(), refs=jsts_remotes())
    assert len(grammars) > 300
    flagged = {case: _portable(g)[:2] for case, g in grammars.items() if _portable(g)}
    assert flagged == {}


def test_maskbench_sample_grammars_are_portable() -> None:
    grammars = _grammars(maskbench_cases(every=20))
    assert len(grammars) > 250
    flagged = {case: _portable(g)[:2] for case, g in grammars.items() if _portable(g)}
    assert flagged == {}


# llama.cpp's own example grammars: (line, column, start of the message).
EXAMPLE_FINDINGS: dict[str, list[tuple[int, int, str]]] = {
    "arithmetic.gbnf": [],
    "c.gbnf": [],
    "chess.gbnf": [],
    "english.gbnf": [],
    "japanese.gbnf": [],
    # ws ::= | " " | ...: xgrammar 0.2.9 refuses both ("Expect element, but got |", 25:8 and
    # 34:8); llguidance reads them.
    "json.gbnf": [(25, 8, "an empty alternative")],
    "json_arr.gbnf": [(34, 8, "an empty alternative")],
    "list.gbnf": [],
}


def test_every_example_grammar_is_pinned() -> None:
    assert sorted(p.name for p in GBNF_EXAMPLES.glob("*.gbnf")) == sorted(EXAMPLE_FINDINGS)


@pytest.mark.parametrize("name", sorted(EXAMPLE_FINDINGS))
def test_example_grammar_findings(name: str) -> None:
    text = (GBNF_EXAMPLES / name).read_text(encoding="utf-8")
    expected = EXAMPLE_FINDINGS[name]
    found = [(ln, col, m[:len(e[2])]) for (m, ln, col), e in zip(_portable(text), expected)]
    assert len(_portable(text)) == len(expected) and found == expected


# ----------------------------------------------------------------------------- through a server

@pytest.mark.model
def test_portable_grammar_through_llama_server_chat_endpoint() -> None:
    """Raw non-ASCII characters in classes and the rules made of deep groups go through the
    OpenAI-compatible path (engine="llama-server") and constrain the real server."""
    from pydantic import BaseModel, Field

    import structgen as sg
    from tests.test_server_backend import _running_server

    class Word(BaseModel):
        word: str = Field(pattern="^[а-яё]{2,8}$")
        weight: float

    gbnf = json_schema_to_gbnf(Word.model_json_schema())
    assert "а-я" in gbnf and "-nest ::= " in gbnf and _portable(gbnf) == []
    with _running_server("-c", "1024", "-np", "1") as (url, _):
        backend = sg.OpenAICompatibleBackend(url, engine="llama-server")
        llm = sg.LLM.from_backend(backend, max_tokens=60, max_retries=0)
        result = llm.run(Word, "Write a Russian word and a weight.")
    assert re.fullmatch("[а-яё]{2,8}", result.value.word)
    assert native_check(gbnf, result.text).accepted

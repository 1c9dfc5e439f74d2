"""GBNF lint, ``check`` and ``check_safe``: findings with their places, pinned on the corpora,
and the left-recursion cases llama.cpp refuses (or, worse, misses and then crashes on)."""

from __future__ import annotations


import pytest

from tests.support.corpora import GBNF_EXAMPLES
from structgen._errors import GrammarError
from structgen._gbnf import (
    Alt,
    GbnfGrammar,
    LiteralText,
    Repeat,
    RuleRef,
    Seq,
    check,
    check_safe,
    lint,
    parse_gbnf,
)
from structgen.testing import check as native_check

CORPUS = GBNF_EXAMPLES

# Expected findings of every corpus grammar: (code, line, column).
CORPUS_FINDINGS: dict[str, list[tuple[str, int, int]]] = {
    "arithmetic.gbnf": [],
    "c.gbnf": [],
    "chess.gbnf": [],
    "english.gbnf": [],
    "japanese.gbnf": [],
    "json.gbnf": [],
    "json_arr.gbnf": [],
    # [^\r\n\x0b\x0c\x85\u2028\u2029]: excluded non-ASCII characters make llama.cpp's
    # verdict depend on how the tokenizer splits neighbouring characters.
    "list.gbnf": [("negated-class-split-utf8", 4, 15)],
}


def _findings(text_or_tree: str | GbnfGrammar, root: str = "root") -> list[tuple[str, int, int]]:
    return [(f.code, f.line, f.column) for f in lint(text_or_tree, root=root)]


def test_every_corpus_file_is_pinned() -> None:
    assert sorted(p.name for p in CORPUS.glob("*.gbnf")) == sorted(CORPUS_FINDINGS)


@pytest.mark.parametrize("name", sorted(CORPUS_FINDINGS))
def test_corpus_findings(name: str) -> None:
    text = (CORPUS / name).read_text(encoding="utf-8")
    assert _findings(text) == CORPUS_FINDINGS[name]
    check_safe(text)  # none of them is fatal


# (grammar, expected findings, does llama.cpp itself refuse it?)
# A None in the last column: llama.cpp misses the problem and crashes, so it is not run there.
CASES: list[tuple[str, list[tuple[str, int, int]], bool | None]] = [
    ('root ::= root "a" | "b"', [("left-recursion", 1, 10)], True),
    ('root ::= a\na ::= b "x"\nb ::= root "y" | "z"', [("left-recursion", 1, 10)], True),
    ('root ::= ws root "x" | "y"\nws ::= | " "', [("left-recursion", 1, 13)], True),
    # The left recursion hides behind a rule that is empty only through "?": llama.cpp's
    # check does not see it and the sampler then runs out of memory.
    ('root ::= opt expr\nopt ::= "-"?\nexpr ::= (sp)* root "+" | [0-9]\nsp ::= " "', [("left-recursion", 1, 14)], None),
    ('root ::= x\nx ::= "(" x ")" | y\ny ::= z? x "!" | "0"\nz ::= "z"', [("left-recursion", 2, 19)], None),
    ('root ::= "a" root | "b"', [], False),
    ('root ::= "(" root ")" | ""', [], False),
    ('root ::= ("a"?)*', [("nullable-loop", 1, 10)], False),
    ('root ::= item* "c"\nitem ::= [0-9]*', [("nested-repetition", 1, 10), ("nullable-loop", 1, 10)], False),
    ('root ::= ()* "c"', [("nullable-loop", 1, 10)], True),
    ('root ::= ws* "c"\nws ::= | " "', [("nullable-loop", 1, 10)], True),
    ('root ::= ("a"+)+', [("nested-repetition", 1, 10)], False),
    ('root ::= ("x" | "a"+ " "?)*', [("nested-repetition", 1, 10)], False),
    ('root ::= item*\nitem ::= "," [0-9]+', [], False),
    ('root ::= [0-9]? [0-9]? [0-9]? "x" [0-9]? [0-9]?', [("chained-optionals", 1, 10)], False),
    ('root ::= "a" ("b" | "c")? ("b" | "c")? ("b" | "c")? ("b" | "c")?', [("chained-optionals", 1, 14)], False),
    ('root ::= "a"{0,5000} "b"', [("unbounded-maximum", 1, 10)], False),
    ('root ::= "0123456789012345678901234567890"{1000}', [("huge-expansion", 1, 1)], False),
    ('root ::= "a"\nhelper ::= "b"\nother ::= helper', [("unused-rule", 2, 1), ("unused-rule", 3, 1)], False),
    ('root ::= a b\na ::= "x"', [("undefined-rule", 1, 12)], True),
    ('start ::= "a"', [("missing-root", 1, 1)], True),
    ('root ::= "a"\nroot ::= "b"', [("duplicate-rule", 2, 1)], False),
    ('root ::= [] "a"', [("empty-class", 1, 10)], False),
    ('root ::= [^\\u00e9] "a"', [("negated-class-split-utf8", 1, 10)], False),
    ('root ::= "a', [("syntax", 1, 12)], True),
]


@pytest.mark.parametrize(("text", "expected", "native"), CASES, ids=[c[0] for c in CASES])
def test_findings(text: str, expected: list[tuple[str, int, int]], native: bool | None) -> None:
    assert _findings(text) == expected
    if native is not None:
        try:
            native_check(text, "")
            refused = False
        except GrammarError:
            refused = True
        assert refused == native


def test_finding_text_and_severity() -> None:
    [finding] = lint('root ::= a\na ::= b "x"\nb ::= root "y" | "z"')
    assert finding.severity == "error"
    assert "root -> a -> b -> root" in finding.message
    assert str(finding).startswith("1:10: error: left recursion")
    [warning] = lint('root ::= "a"?"a"?"a"?')
    assert warning.severity == "warning" and '"a"{0,3}' in warning.message


def test_root_option() -> None:
    text = 'start ::= "a" helper\nhelper ::= "b"\nroot ::= "c"'
    assert _findings(text, root="start") == [("unused-rule", 3, 1)]
    assert _findings(text) == [("unused-rule", 1, 1), ("unused-rule", 2, 1)]


def test_hand_built_tree_without_positions() -> None:
    tree = GbnfGrammar({"root": Alt((Seq((RuleRef("root"), LiteralText("x"))), LiteralText("y"))), "lost": RuleRef("nowhere")})
    assert [(f.code, f.line, f.column) for f in lint(tree)] == [
        ("left-recursion", 0, 0),
        ("undefined-rule", 0, 0),
        ("unused-rule", 0, 0),
    ]
    bad_count = GbnfGrammar({"root": Repeat(LiteralText("a"), 3000, None)})
    assert [f.code for f in lint(bad_count)] == ["repetition-limit"]
    inverted = GbnfGrammar({"root": Repeat(LiteralText("a"), 3, 1)})
    assert [f.code for f in lint(inverted)] == ["repetition-limit"]


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ('root ::= root "a" | "b"', 1, 10, "left recursion root -> root"),
        ('root ::= "a"\nb ::= ("x"?)+', 2, 7, "can match the empty string"),
        ('start ::= "a"', 1, 1, "no 'root' rule"),
        ('root ::= "a" |\n  "b"{0,1} r\nr ::= q', 3, 7, "undefined rule 'q'"),
    ],
)
def test_check_safe_raises_with_place(text: str, line: int, column: int, fragment: str) -> None:
    with pytest.raises(GrammarError) as caught:
        check_safe(text)
    err = caught.value
    assert (err.line, err.column) == (line, column)
    assert fragment in err.message
    assert err.excerpt.splitlines()[0] == text.split("\n")[line - 1]


def test_check_safe_passes_warnings_through() -> None:
    grammar = check_safe('root ::= ("a"+)+ [0-9]? [0-9]? [0-9]?\nunused ::= "x"')
    assert isinstance(grammar, GbnfGrammar)
    assert {f.code for f in lint(grammar)} == {"nested-repetition", "chained-optionals", "unused-rule"}


def test_check_root() -> None:
    grammar = parse_gbnf('start ::= "a"')
    check(grammar, "start")
    with pytest.raises(GrammarError, match="no 'root' rule"):
        check(grammar)
    with pytest.raises(GrammarError, match="no 'other' rule"):
        check_safe(grammar, "other")


def test_lint_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        lint(42)  # type: ignore[arg-type]

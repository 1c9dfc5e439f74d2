"""The pure-Python GBNF parser and formatter: corpora, structure, errors with their places,
and agreement with llama.cpp's own parser on what is accepted and what is refused."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.corpora import GBNF_EXAMPLES
from structgen._errors import GrammarError
from structgen._gbnf import (
    Alt,
    AnyChar,
    CharClass,
    Expr,
    GbnfGrammar,
    LiteralText,
    Repeat,
    RuleRef,
    Seq,
    Span,
    Token,
    format_gbnf,
    parse_gbnf,
)
from structgen.testing import accepts, check

CORPUS = GBNF_EXAMPLES
CORPUS_FILES = sorted(CORPUS.glob("*.gbnf"))


def native_refuses(text: str) -> bool:
    """Does llama.cpp's parser (with a real vocabulary) refuse the grammar?"""
    try:
        check(text, "", root="root")
    except GrammarError:
        return True
    return False


def test_corpus_is_there() -> None:
    assert len(CORPUS_FILES) >= 8


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_parses_and_formats_idempotently(path: Path) -> None:
    tree = parse_gbnf(path.read_text(encoding="utf-8"))
    assert "root" in tree.rules
    text = format_gbnf(tree)
    again = parse_gbnf(text)
    assert again == tree
    assert format_gbnf(again) == text
    assert not native_refuses(text)


def test_json_corpus_tree_shape() -> None:
    tree = parse_gbnf((CORPUS / "json.gbnf").read_text(encoding="utf-8"))
    assert list(tree.rules) == ["root", "value", "object", "array", "string", "number", "ws"]
    assert tree.rules["root"] == RuleRef("object")
    assert tree.rules["ws"] == Alt((Seq(()), LiteralText(" "), Seq((LiteralText("\n"), Repeat(CharClass(((32, 32), (9, 9))), 0, 20)))))
    assert tree.rule_spans["object"] == Span(4, 1)


# (grammar text, expected body of "root")
STRUCTURE = [
    ('root ::= "ab" "c"', Seq((LiteralText("ab"), LiteralText("c")))),
    ('root ::= "a" | "b" | ', Alt((LiteralText("a"), LiteralText("b"), Seq(())))),
    ("root ::= ", Seq(())),
    ("root ::= ()", Seq(())),
    ('root ::= ("a" "b")*', Repeat(Seq((LiteralText("a"), LiteralText("b"))), 0, None)),
    ('root ::= "a"+ "b"? "c"{3} "d"{2,} "e"{1,4}', Seq((
        Repeat(LiteralText("a"), 1, None), Repeat(LiteralText("b"), 0, 1), Repeat(LiteralText("c"), 3, 3),
        Repeat(LiteralText("d"), 2, None), Repeat(LiteralText("e"), 1, 4),
    ))),
    ('root ::= "a"{ 2 , 3 }', Repeat(LiteralText("a"), 2, 3)),
    ('root ::= "a"??', Repeat(Repeat(LiteralText("a"), 0, 1), 0, 1)),
    ('root ::= "abc"*', Repeat(LiteralText("abc"), 0, None)),
    ("root ::= [a-z0-9_]", CharClass(((97, 122), (48, 57), (95, 95)))),
    ("root ::= [^\\n\\]\\-\\[]", CharClass(((10, 10), (93, 93), (45, 45), (91, 91)), negated=True)),
    ("root ::= [a-]", CharClass(((97, 97), (45, 45)))),
    ("root ::= [-a]", CharClass(((45, 45), (97, 97)))),
    ("root ::= [z-a]", CharClass(((122, 97),))),
    ("root ::= []", CharClass(())),
    ("root ::= [^]", CharClass((), negated=True)),
    ("root ::= [\\x00-\\U0010FFFF]", CharClass(((0, 0x10FFFF),))),
    ('root ::= "\\x41\\u00e9\\U0001F600\\t\\n\\r\\\\\\"\\[\\]\\-é"', LiteralText("Aé\U0001f600\t\n\r\\\"[]-é")),
    ('root ::= "line1\nline2"', LiteralText("line1\nline2")),
    ("root ::= .", AnyChar()),
    ("root ::= <think> !<[12]> <[0]>", Seq((Token("think"), Token(12, negated=True), Token(0)))),
    ('root ::= "a" |\n  "b"', Alt((LiteralText("a"), LiteralText("b")))),
    ('root ::=\n\n  "a"', LiteralText("a")),
    ('root ::= (\n  "a" # one\n  "b"\n  | "c"\n)', Alt((Seq((LiteralText("a"), LiteralText("b"))), LiteralText("c")))),
    ('root ::= "a" (("b"))', Seq((LiteralText("a"), LiteralText("b")))),
    ('root ::= "a" ("b" "c") "d"', Seq((LiteralText("a"), Seq((LiteralText("b"), LiteralText("c"))), LiteralText("d")))),
    ('root ::= "a"{0,5000}', Repeat(LiteralText("a"), 0, 5000)),
    ('root ::= x-1 Y2\nx-1 ::= "a"\nY2 ::= "b"', Seq((RuleRef("x-1"), RuleRef("Y2")))),
    ('root ::= "a"\r\nb ::= "b"\r\n', LiteralText("a")),
    ('# leading comment\n\nroot ::= "a" # trailing ) |\n# end', LiteralText("a")),
]


@pytest.mark.parametrize(("text", "expected"), STRUCTURE, ids=[t for t, _ in STRUCTURE])
def test_structure(text: str, expected: object) -> None:
    tree = parse_gbnf(text, check_undefined=False)
    assert tree.rules["root"] == expected
    assert parse_gbnf(format_gbnf(tree), check_undefined=False) == tree
    if "<" not in text:  # token references need the vocabulary to contain them
        assert not native_refuses(text)


def test_later_definition_replaces_earlier_one_like_llama_cpp() -> None:
    text = 'root ::= "a"\nroot ::= "b"\n'
    tree = parse_gbnf(text)
    assert tree.rules["root"] == LiteralText("b")
    assert [name for name, _ in tree.duplicates] == ["root"]
    assert accepts(text, "b") and not accepts(text, "a")


def test_positions_are_recorded_and_ignored_by_equality() -> None:
    tree = parse_gbnf('a ::= "x"\nroot ::=  a  [0-9]*\n')
    body = tree.rules["root"]
    assert isinstance(body, Seq)
    assert body.items[0].at == Span(2, 11)
    assert body.items[1].at == Span(2, 14)
    assert parse_gbnf('a ::= "x"\nroot ::= a [0-9]*') == tree
    assert parse_gbnf('root ::= a [0-9]*\na ::= "x"\n') == tree  # rule order does not matter
    assert parse_gbnf('a ::= "y"\nroot ::= a [0-9]*') != tree


# (text, line, column, message fragment, llama.cpp refuses it too)
ERRORS = [
    ('root ::= "abc', 1, 14, "unexpected end of input", True),
    ("root ::= [a-z", 1, 14, "unexpected end of input", True),
    ("root ::= [a-", 1, 13, "unexpected end of input", True),
    ('root ::= "\\q"', 1, 11, "unknown escape \\q", True),
    ('root ::= "\\x4"', 1, 11, "expecting 2 hex digits", True),
    ('root ::= "\\u12G4"', 1, 11, "expecting 4 hex digits", True),
    ('root ::= [\\U0001F60]', 1, 11, "expecting 8 hex digits", True),
    ('root ::= ("a"', 1, 14, "expecting ')'", True),
    ('root ::= "a" )', 1, 14, "expecting newline or end", True),
    ('root = "a"', 1, 6, "expecting '::='", True),
    ('::= "a"', 1, 1, "expecting a rule name", True),
    ("root ::= *", 1, 10, "expecting an item before", True),
    ('root ::= ""*', 1, 12, "expecting an item before", True),
    ("root ::= []+", 1, 12, "expecting an item before", True),
    ('root ::= "a"{0}?', 1, 16, "expecting an item before", True),
    ("root ::= {2}", 1, 10, "expecting an item before", True),
    ('root ::= "a"{', 1, 14, "expecting an integer after '{'", True),
    ('root ::= "a"{x}', 1, 14, "expecting an integer after '{'", True),
    ('root ::= "a"{2', 1, 15, "expecting ',' or '}'", True),
    ('root ::= "a"{2,3', 1, 17, "expecting '}'", True),
    ('root ::= "a"{2001}', 1, 13, "exceeds llama.cpp's limit of 2000", True),
    ('root ::= "a"{0,10}{0,300}', 1, 19, "would generate 3000 rules", True),
    ('root ::= ("a"{0,100}){0,30}', 1, 22, "would generate 3030 rules", True),
    ('root ::= "a"{99999999999999999999999}', 1, 14, "integer out of range", True),
    ('root ::= "a"\n  "b"', 2, 3, "expecting a rule name", True),
    ('root ::= "a"\n| "b"', 2, 1, "expecting a rule name", True),
    ('root ::= "a" |\nb ::= "b"', 2, 3, "expecting newline or end", True),
    ("root ::= x", 1, 10, "undefined rule 'x'", True),
    ('root ::= "a"\n\nb ::= "b" (c\n  | d)\nc ::= "c"', 4, 5, "undefined rule 'd'", True),
    # llama.cpp takes an empty grammar text as "no grammar at all".
    ("", 1, 1, "defines no rules", False),
    ("# only a comment\n", 1, 1, "defines no rules", True),
    ('root ::= !"a"', 1, 11, "expecting '<' after '!'", True),
    ("root ::= <[12", 1, 14, "expecting ']'", True),
    ("root ::= <[12]", 1, 15, "expecting '>'", True),
    ("root ::= <[x]>", 1, 12, "expecting an integer", True),
    ("root ::= <abc", 1, 14, "expecting '>'", True),
    ('a ::= "x"\nroot ::= a (\n  "b" |\n  "c" ]\n)', 4, 7, "expecting ')'", True),
    # Refused here although llama.cpp takes them: it would loop forever on the first, and
    # the second names a code point no text can contain.
    ('root ::= "a"{3,1}', 1, 13, "below the minimum 3", False),
    ('root ::= "\\U00110000"', 1, 21, "code point out of range", False),
]


@pytest.mark.parametrize(("text", "line", "column", "fragment", "native"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_have_exact_places(text: str, line: int, column: int, fragment: str, native: bool) -> None:
    with pytest.raises(GrammarError) as caught:
        parse_gbnf(text)
    err = caught.value
    assert (err.line, err.column) == (line, column), err
    assert fragment in err.message
    source_line = text.split("\n")[line - 1]
    assert err.excerpt == f"{source_line}\n{' ' * (column - 1)}^"
    assert f":{line}:{column}: " in str(err)
    if native:
        assert native_refuses(text)


def test_quirks_llama_cpp_accepts() -> None:
    # A maximum above 2000 becomes "unbounded" in llama.cpp, and the parser keeps it as written.
    text = 'root ::= "a"{0,5000}'
    assert parse_gbnf(text).rules["root"] == Repeat(LiteralText("a"), 0, 5000)
    assert accepts(text, "a" * 5001)
    # An empty class matches the empty string.
    assert accepts('root ::= "a" [] "b"', "ab")
    # A reversed range matches nothing; negated it matches everything.
    assert not accepts("root ::= [z-a]", "m") and accepts("root ::= [^z-a]", "m")
    # Exactly at the limit is fine.
    assert parse_gbnf('root ::= "a"{2000}').rules["root"] == Repeat(LiteralText("a"), 2000, 2000)
    assert not native_refuses('root ::= "a"{2000}')


def test_type_errors() -> None:
    with pytest.raises(TypeError):
        parse_gbnf(b"root ::= x")  # type: ignore[arg-type]


# -- formatter round trip on random trees ---------------------------------------------------

NAMES = ["root", "a", "b-2", "Item"]
_chars = st.characters(min_codepoint=1, max_codepoint=0x2FFFF, codec="utf-8")
_leaf = st.one_of(
    st.builds(LiteralText, st.text(_chars, max_size=4)),
    st.builds(
        CharClass,
        st.lists(st.tuples(st.integers(0, 0x10FFFF), st.integers(0, 0x10FFFF)), max_size=3).map(tuple),
        st.booleans(),
    ),
    st.builds(AnyChar),
    st.builds(RuleRef, st.sampled_from(NAMES)),
    st.builds(Token, st.integers(0, 99) | st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="<>["), min_size=1, max_size=5), st.booleans()),
)


def _repeat(item: st.SearchStrategy) -> st.SearchStrategy:
    return st.builds(
        lambda i, low, extra: Repeat(i, low, None if extra is None else low + extra),
        item, st.integers(0, 3), st.none() | st.integers(0, 2),
    )


_expr = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: Seq(tuple(xs))),
        st.just(Seq(())),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: Alt(tuple(xs))),
        _repeat(inner),
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), _expr, min_size=1, max_size=4))
def test_format_round_trips_random_trees(rules: dict[str, Expr]) -> None:
    tree = GbnfGrammar(rules)
    text = format_gbnf(tree)
    try:
        parsed = parse_gbnf(text, check_undefined=False)
    except GrammarError as err:
        # Only llama.cpp's rule-count limit may refuse a random tree.
        assert "would generate" in err.message, (text, err)
        return
    assert parsed == tree, text
    assert format_gbnf(parsed) == text


# -- speed ----------------------------------------------------------------------------------


def _converter_like_grammar(n: int) -> str:
    lines = ['root ::= "{" space r0-kv "}" space']
    for i in range(n):
        follow = f' "," space r{i + 1}-kv' if i + 1 < n else ""
        lines.append(f'r{i}-kv ::= "\\"prop{i}\\"" space ":" space (string | [0-9]{{1,5}}){follow}')
    lines.append('string ::= "\\"" char* "\\"" space')
    lines.append('char ::= [^"\\\\\\x7F\\x00-\\x1F] | [\\\\] (["\\\\bfnrt] | "u" [0-9a-fA-F]{4})')
    lines.append('space ::= | " " | "\\n" [ \\t]{0,20}')
    return "\n".join(lines) + "\n"


def test_parsing_grows_linearly_with_the_rules() -> None:
    # Four times the rules may cost about four times as much, not sixteen (a quadratic step):
    # a ratio of one machine's own timings, so its speed and load drop out.
    small, large = _converter_like_grammar(500), _converter_like_grammar(2000)
    assert len(parse_gbnf(large).rules) == 2004
    ratio = min(_cpu_seconds(lambda: parse_gbnf(large)) for _ in range(3)) / min(
        _cpu_seconds(lambda: parse_gbnf(small)) for _ in range(3)
    )
    assert ratio < 10, f"{ratio:.1f}x for 4x the rules"


def _cpu_seconds(action: Callable[[], object]) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


def test_special_tokens_in_literals_become_tokens_and_nothing_else_moves() -> None:
    """``with_tokens`` rewrites only literals, keeps a repetition on the whole literal, and
    leaves comments and character classes alone."""
    from structgen._gbnf._tokens import special_texts, with_tokens

    source = 'root ::= "<tool_call>\\n{" x "}\\n</tool_call>"* # "<no>"\nx ::= [a-z"<>]+ "[TOOL_CALLS]"\n'
    assert special_texts(source) == {"<tool_call>", "</tool_call>", "[TOOL_CALLS]"}
    rewritten = with_tokens(source, {"<tool_call>": 7, "</tool_call>": 8})
    assert parse_gbnf(rewritten).rules["root"] == Seq((
        Seq((Token(7), LiteralText("\n{"))), RuleRef("x"), Repeat(Seq((LiteralText("}\n"), Token(8))), 0, None)))
    assert parse_gbnf(rewritten).rules["x"] == parse_gbnf(source).rules["x"]
    assert with_tokens(source, {}) == source

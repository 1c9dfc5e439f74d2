"""Grammar: an immutable value with the input checks of the LlamaGrammar reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from structgen import Grammar, GrammarError
from structgen.testing import accepts

YES_NO = 'answer ::= "yes" | "no"'


def test_from_string_root_and_text() -> None:
    g = Grammar.from_string(YES_NO, root="answer")
    assert g.root == "answer"
    assert g.gbnf == YES_NO == str(g)
    assert accepts(g, "yes") and not accepts(g, "maybe")


def test_immutable_and_hashable() -> None:
    g = Grammar.from_string(YES_NO, root="answer")
    with pytest.raises(AttributeError):
        g.root = "x"  # type: ignore[misc]
    assert g == Grammar.from_string(YES_NO, root="answer")
    assert len({g, Grammar.from_string(YES_NO, root="answer")}) == 1
    assert "answer" in repr(g)


def test_triggers_are_copied_into_a_tuple() -> None:
    triggers: list[str | int] = [r"[\s\S]*?(yes|no)[\s\S]*", 42]
    g = Grammar.from_string(YES_NO, root="answer", triggers=triggers)
    triggers.append(7)
    assert g.triggers == (r"[\s\S]*?(yes|no)[\s\S]*", 42)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (b"root ::= x", TypeError),
        (None, TypeError),
        ("", ValueError),
        ("   \n", ValueError),
        ('root ::= "a\x00"', ValueError),
    ],
)
def test_bad_grammar_text(text: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        Grammar.from_string(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("root", ["", "has space", "under_score", "é"])
def test_bad_root_names(root: str) -> None:
    with pytest.raises(ValueError):
        Grammar.from_string('root ::= "a"', root=root)


def test_root_must_be_a_str() -> None:
    with pytest.raises(TypeError):
        Grammar.from_string('root ::= "a"', root=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("triggers", "error"),
    [
        ([""], ValueError),
        (["a\x00"], ValueError),
        ([-1], ValueError),
        ([2**31], ValueError),
        ([True], TypeError),
        ([1.5], TypeError),
        ("abc", TypeError),
    ],
)
def test_bad_triggers(triggers: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        Grammar.from_string('root ::= "a"', triggers=triggers)  # type: ignore[arg-type]


def test_token_id_bounds_accepted() -> None:
    assert Grammar.from_string('root ::= "a"', triggers=[0, 2**31 - 1]).triggers == (0, 2**31 - 1)


def test_syntax_error_has_line_and_column() -> None:
    with pytest.raises(GrammarError) as info:
        Grammar.from_string('root ::= "a"\nitem ::= [a-z')
    assert info.value.line == 2
    assert info.value.column is not None


def test_lone_surrogate_is_an_error_with_line_and_column() -> None:
    # llama.cpp reads UTF-8, which cannot hold a lone surrogate: a typed error here, not a
    # UnicodeEncodeError when the sampler is built.
    with pytest.raises(GrammarError) as info:
        Grammar.from_string('root ::= "a" x\nx ::= "b\ud800"')
    assert (info.value.line, info.value.column) == (2, 9)
    str(info.value).encode("utf-8")  # the message itself prints


def test_missing_root_is_an_error() -> None:
    with pytest.raises(GrammarError):
        Grammar.from_string('item ::= "a"')


def test_from_file(tmp_path: Path) -> None:
    path = tmp_path / "answer.gbnf"
    path.write_text(YES_NO, encoding="utf-8")
    assert Grammar.from_file(path, root="answer").gbnf == YES_NO
    with pytest.raises(FileNotFoundError):
        Grammar.from_file(tmp_path / "missing.gbnf")
    bad = tmp_path / "latin1.gbnf"
    bad.write_bytes(b'root ::= "\xe9"')
    with pytest.raises(OSError):
        Grammar.from_file(bad)
    empty = tmp_path / "empty.gbnf"
    empty.write_text("")
    with pytest.raises(ValueError):
        Grammar.from_file(empty)


def test_usable_by_llama_cpp_python() -> None:
    """llama-cpp-python reads ``_grammar`` and ``_root`` from the grammar object it is given."""
    g = Grammar.from_string(YES_NO, root="answer")
    assert (g._grammar, g._root) == (YES_NO, "answer")


def test_from_json_schema() -> None:
    g = Grammar.from_json_schema({"type": "object", "properties": {"a": {"type": "integer"}},
                                  "required": ["a"], "additionalProperties": False})
    assert accepts(g, '{"a": 12}') and not accepts(g, '{"a": "12"}')


def test_converted_grammars_are_not_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # The converter's grammars skip the constructor's check (tests/support/conformance.py lints
    # every corpus grammar instead); text from anywhere else still gets it.
    import structgen._gbnf as gbnf
    from structgen import SchemaConverter

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(gbnf, "check_safe", refuse)
    grammar = SchemaConverter().convert_schema({"properties": {"qz": {"type": "integer"}}})
    assert (grammar.root, grammar.triggers) == ("root", ())
    assert grammar.with_triggers(["x"]).gbnf == grammar.gbnf
    with pytest.raises(AssertionError, match="parsed again"):
        Grammar(grammar.gbnf)

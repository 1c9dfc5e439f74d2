"""The ground-truth oracle itself: llama.cpp's grammar sampler on the real vocabulary."""

from __future__ import annotations

import pytest

from structgen import GrammarError
from structgen.testing import accepts, check


def test_accepts_and_rejects() -> None:
    g = 'root ::= "{" [a-z]+ "}"'
    assert accepts(g, "{abc}")
    assert not accepts(g, "{ab1}")
    assert not accepts(g, "{abc")  # every character fits, but the grammar cannot end there


def test_first_rejected_character() -> None:
    g = 'root ::= "{" [a-z]+ "}"'
    assert check(g, "{ab1}").rejected_at == 3
    assert check(g, "{abc").rejected_at == 4
    assert check(g, "{abc}").accepted


def test_multibyte_characters_are_located_in_characters() -> None:
    g = r"root ::= [é] [\u4e00-\u9fff]"
    assert accepts(g, "é中")
    assert check(g, "é中x").rejected_at == 2
    assert check(g, "éa").rejected_at == 1


def test_empty_text() -> None:
    assert accepts('root ::= "a"?', "")
    assert not accepts('root ::= "a"', "")


def test_llama_cpp_refusal_is_a_grammar_error() -> None:
    with pytest.raises(GrammarError):
        accepts('root ::= missing', "x")


def test_other_root() -> None:
    assert accepts('answer ::= "yes" | "no"', "no", root="answer")

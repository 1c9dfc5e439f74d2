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


def test_a_refused_grammar_reports_what_llama_cpp_said_about_it_alone() -> None:
    """llama.cpp's error lines are heard per call: two threads compiling grammars without
    their start rule at once each get their own rule's complaint, never the other's."""
    from concurrent.futures import ThreadPoolExecutor

    from structgen._backends.llamacpp._grammar_state import CompiledGrammar
    from structgen._backends.llamacpp._native import native_vocab

    tables = native_vocab().tables

    def refuse(name: str) -> list[str]:
        said = []
        for _ in range(25):
            with pytest.raises(GrammarError) as caught:
                CompiledGrammar(tables, 'other ::= "x"', name)
            said.append(str(caught.value))
        return said

    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(refuse, ["startfirst", "startsecond"])
    assert all(s.endswith("does not contain a 'startfirst' symbol") for s in first), first[:2]
    assert all(s.endswith("does not contain a 'startsecond' symbol") for s in second), second[:2]

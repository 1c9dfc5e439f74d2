"""The built-in grammars, judged by llama.cpp's own sampler."""

from __future__ import annotations

import pytest

import structgen.gbnf
from structgen import Grammar
from structgen.testing import accepts

CASES = [
    ("JSON_GBNF", '{"a": [1, 2.5e3, "x\\n", null, true, {}], "b": {"c": -0.5}}', '{"a": 01}'),
    ("JSON_GBNF", "{}", "[]"),
    ("JSON_ARR_GBNF", '[1, "a", {"b": false}]', '{"a": 1}'),
    ("ARITHMETIC_GBNF", "1 + x*(2 - y) = 7\n", "1 + = 2\n"),
    ("LIST_GBNF", "- milk\n- eggs\n", "milk\n"),
    ("C_GBNF", "int main() {\nint x = 1;\nreturn x + 2;\n}\n", "int main( {\n}\n"),
    ("ENGLISH_GBNF", "Hello world, this is fine. Yes!", "hello world."),
    ("CHESS_GBNF", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O 1-0", "1. e9"),
    ("JAPANESE_GBNF", "こんにちは、世界。", "hello"),
]


@pytest.mark.parametrize(("name", "good", "bad"), CASES)
def test_builtin(name: str, good: str, bad: str) -> None:
    grammar = Grammar.from_string(getattr(structgen.gbnf, name))
    assert accepts(grammar, good)
    assert not accepts(grammar, bad)


def test_json_strings_refuse_raw_control_characters() -> None:
    assert not accepts(structgen.gbnf.JSON_GBNF, '{"a": "x\ny"}')

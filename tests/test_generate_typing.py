"""Type checkers infer the generated type: ``llm.generate(Model, ...)`` is a ``Model``.

Runs mypy on a small program with ``reveal_type`` and compares what mypy reveals.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from mypy import api

PROGRAM = '''
from enum import Enum
from typing import Literal, Union
from pydantic import BaseModel
from typing_extensions import TypedDict
from structgen import LLM

class Address(BaseModel):
    city: str

class Color(Enum):
    red = "red"

class Pet(TypedDict):
    name: str

async def check(llm: LLM) -> None:
    reveal_type(llm.generate(Address, "x"))
    reveal_type(llm.generate(list[Address], "x"))
    reveal_type(llm.generate(Literal["a", "b"], "x"))
    reveal_type(llm.generate(Color, "x"))
    reveal_type(llm.generate(int, "x"))
    reveal_type(llm.generate(Pet, "x"))
    reveal_type(llm.generate(Union[Address, Color], "x"))
    reveal_type(llm.generate(Address, "x", on_refusal="return"))
    reveal_type(llm.run(Address, "x").value)
    reveal_type(await llm.agenerate(Address, "x"))
    for partial in llm.stream(Address, "x"):
        reveal_type(partial)
    async for item in llm.astream(list[Address], "x"):
        reveal_type(item)
'''

EXPECTED = [
    "m.Address",
    "list[m.Address]",
    "Literal['a'] | Literal['b']",
    "m.Color",
    "int",
    "TypedDict(m.Pet, {'name': str})",
    "m.Address | m.Color",
    "m.Address | structgen._generate._output.Refusal",
    "m.Address",
    "m.Address",
    "m.Address",
    "list[m.Address]",
]


def test_generate_reveals_the_output_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stdout = _mypy(PROGRAM, tmp_path, monkeypatch)
    revealed = re.findall(r'Revealed type is "(.*)"', stdout)
    assert revealed == EXPECTED, stdout
    errors = [line for line in stdout.splitlines() if ": error:" in line]
    assert not errors, "\n".join(errors)


TOOLS_PROGRAM = '''
from pydantic import BaseModel
from typing_extensions import Unpack
from structgen import LLM, ToolOptions, ToolTurn

class Address(BaseModel):
    city: str

def add(a: int, b: int) -> int:
    return a + b

def ask(llm: LLM, **options: Unpack[ToolOptions]) -> ToolTurn:
    return llm.call_tools("x", [add], **options)

async def check(llm: LLM) -> None:
    reveal_type(llm.run_tools("x", [add], output_type=Address).output)
    reveal_type(await llm.acall_tool("x", [add], tool_choice="add", temperature=0.2))
    ask(llm, tool_choice="required", parallel=False)
    llm.call_tools("x", [add], policy="smallest")
    llm.stream_tools("x", [add], max_call=2)
'''


def test_the_tool_methods_check_their_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Unpack[ToolOptions]``: a misspelt option or value is an error, and a wrapper passes them on."""
    stdout = _mypy(TOOLS_PROGRAM, tmp_path, monkeypatch)
    assert re.findall(r'Revealed type is "(.*)"', stdout) == ["m.Address", "structgen._tools._calls.ToolCall"], stdout
    errors = [line.split(": error: ")[1] for line in stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, stdout
    assert errors[0].startswith('Argument "policy" to "call_tools"'), stdout
    assert errors[1].startswith('Unexpected keyword argument "max_call" for "stream_tools"'), stdout


GRAMMAR_PROGRAM = '''
from pydantic import BaseModel
from typing_extensions import Unpack
from structgen import Grammar, GrammarChanges, GrammarOptions, json_schema_to_gbnf, structured

@structured(refusal=True, describe="shape")
class Address(BaseModel):
    city: str

def grammar(**changes: Unpack[GrammarChanges]) -> Grammar:
    return Grammar.from_type(Address, **changes)

reveal_type(structured(Address))
grammar(whitespace="minified", prop_order=["city"])
json_schema_to_gbnf({"type": "integer"}, whitespace="tight")
GrammarOptions.preset("generation", white_space="minified")
'''


def test_the_grammar_options_are_checked_keywords(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Unpack[GrammarChanges]``: a misspelt grammar option or value is an error, and a wrapper passes them on."""
    stdout = _mypy(GRAMMAR_PROGRAM, tmp_path, monkeypatch)
    assert re.findall(r'Revealed type is "(.*)"', stdout) == ["type[m.Address]"], stdout
    errors = [line.split(": error: ")[1] for line in stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, stdout
    assert errors[0].startswith('Argument "whitespace" to "json_schema_to_gbnf"'), stdout
    assert errors[1].startswith('Unexpected keyword argument "white_space" for "preset"'), stdout


def _mypy(program: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(program))
    # Check against this repository's structgen, however it is installed.
    monkeypatch.setenv("MYPYPATH", str(Path(__file__).resolve().parents[1]))
    stdout, stderr, _status = api.run(
        [
            "--strict",
            "--follow-imports=silent",
            "--no-incremental",
            "--cache-dir=/dev/null",
            "--python-version=3.11",
            str(path),
        ]
    )
    assert not stderr, stderr
    return stdout

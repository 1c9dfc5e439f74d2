"""The ``structgen`` command line, run as a subprocess (``python -m structgen``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.corpora import GBNF_EXAMPLES
from structgen._gbnf import parse_gbnf
from structgen.testing import accepts

REPO = Path(__file__).resolve().parents[1]

MODELS = '''
from typing import Literal, Optional
from pydantic import BaseModel
from structgen import structured


class User(BaseModel):
    name: str
    admin: bool
    role: Optional[Literal["dev", "ops"]] = None


class Outer:
    class Inner(BaseModel):
        ok: bool


@structured(whitespace="minified", max_string_length=12, refusal=True)
class Note(BaseModel):
    text: str
    count: int
'''

LETTERS = 'root ::= "{" [a-z]+ "}"\n'
BROKEN = 'root ::= item item\nitem ::= "a" (\n'
SMELLY = 'root ::= root "a" | "b"\nunused ::= "x"\n'


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "structgen", *args], cwd=cwd, env=env,
                          input=stdin, capture_output=True, text=True, timeout=300)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "models.py").write_text(MODELS)
    (tmp_path / "letters.gbnf").write_text(LETTERS)
    (tmp_path / "broken.gbnf").write_text(BROKEN)
    (tmp_path / "smelly.gbnf").write_text(SMELLY)
    return tmp_path


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# ---------------------------------------------------------------- help


def test_help_lists_every_command(work: Path) -> None:
    result = run("--help", cwd=work)
    assert result.returncode == 0
    for command in ("gbnf", "schema", "check", "lint", "format", "sample", "generate"):
        assert command in result.stdout


@pytest.mark.parametrize("command",
                         ["gbnf", "schema", "check", "lint", "format", "sample", "generate"])
def test_each_command_has_help(work: Path, command: str) -> None:
    result = run(command, "--help", cwd=work)
    assert result.returncode == 0
    assert f"usage: structgen {command}" in result.stdout
    assert len(result.stdout.splitlines()) > 4


def test_no_command_is_a_usage_error(work: Path) -> None:
    result = run(cwd=work)
    assert result.returncode == 2 and "usage:" in result.stderr


# ---------------------------------------------------------------- gbnf and schema


def test_gbnf_of_a_model(work: Path) -> None:
    result = run("gbnf", "models:User", cwd=work)
    assert result.returncode == 0, result.stderr
    grammar = result.stdout
    assert accepts(grammar, '{"name": "Ada", "admin": true, "role": "dev"}')
    assert accepts(grammar, '{"name": "Ada", "admin": false, "role": null}')
    assert not accepts(grammar, '{"name":"Ada","admin":true,"role":null}')


@pytest.mark.parametrize("name", ["User", "Note", "Outer.Inner"])
def test_gbnf_prints_exactly_the_grammar_generate_uses(work: Path, name: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from structgen import Grammar
    from structgen._cli import load_target
    from structgen._generate._output import spec_for

    monkeypatch.syspath_prepend(str(work))
    target = load_target(f"models:{name}")
    printed = run("gbnf", f"models:{name}", cwd=work)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == spec_for(target).grammar.gbnf
    as_type = run("gbnf", f"models:{name}", "--preset", "type", cwd=work).stdout
    assert as_type == Grammar.from_type(target).gbnf
    if name == "User":  # the generation preset caps free text; a type's grammar does not
        assert as_type != printed.stdout
        assert accepts(as_type, '{"name": "%s", "admin": true, "role": null}' % ("x" * 600))
        assert not accepts(printed.stdout, '{"name": "%s", "admin": true, "role": null}'
                           % ("x" * 600))
    if name == "Note":  # @structured's own options, and flags over them
        assert accepts(printed.stdout, '{"refusal":"no"}')
        spaced = run("gbnf", "models:Note", "--whitespace", "compact", cwd=work).stdout
        assert accepts(spaced, '{"text": "hi", "count": 2}')


def test_gbnf_options_reach_the_converter(work: Path) -> None:
    result = run("gbnf", "models:User", "--whitespace", "minified", "--refusal", "--no-strict",
                 "--key-order", "required-first", cwd=work)
    assert result.returncode == 0, result.stderr
    grammar = result.stdout
    assert accepts(grammar, '{"name":"Ada","admin":true,"role":"ops"}')
    assert accepts(grammar, '{"refusal":"no"}') or accepts(grammar, '{"refusal": "no"}')
    assert not accepts(grammar, '{"name": "Ada", "admin": true, "role": "ops"}')


def test_gbnf_any_key_order_and_zero_fractions(work: Path) -> None:
    (work / "count.json").write_text('{"type": "integer"}')
    plain = run("gbnf", "count.json", "--no-integer-zero-fraction", cwd=work).stdout
    assert accepts(plain, "3") and not accepts(plain, "3.0")
    assert accepts(run("gbnf", "count.json", cwd=work).stdout, "3.0")
    result = run("gbnf", "models:User", "--key-order", "any", cwd=work)
    assert result.returncode == 0, result.stderr
    assert accepts(result.stdout, '{"admin": true, "role": null, "name": "x"}')


def test_gbnf_prop_order(work: Path) -> None:
    result = run("gbnf", "models:User", "--prop-order", "admin", "name", cwd=work)
    assert result.returncode == 0, result.stderr
    assert accepts(result.stdout, '{"admin": true, "name": "x", "role": null}')
    assert not accepts(result.stdout, '{"name": "x", "admin": true, "role": null}')


def test_gbnf_of_a_nested_attribute(work: Path) -> None:
    result = run("gbnf", "models:Outer.Inner", cwd=work)
    assert result.returncode == 0, result.stderr
    assert accepts(result.stdout, '{"ok": false}')


def test_gbnf_of_a_json_schema_file(work: Path) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0,
                                                     "maximum": 9}},
              "required": ["n"], "additionalProperties": False}
    (work / "schema.json").write_text(json.dumps(schema))
    result = run("gbnf", "schema.json", cwd=work)
    assert result.returncode == 0, result.stderr
    assert accepts(result.stdout, '{"n": 7}')
    assert not accepts(result.stdout, '{"n": 12}')


def test_schema_prints_the_pydantic_schema(work: Path) -> None:
    result = run("schema", "models:User", cwd=work)
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["required"] == ["name", "admin"]
    assert set(printed["properties"]) == {"name", "admin", "role"}


@pytest.mark.parametrize(("target", "says"), [
    ("nosuchmodule:User", "cannot import module 'nosuchmodule'"),
    ("models:Nobody", "has no attribute 'Nobody'"),
    ("User", "no such file"),
    ("models:", "expected pkg.module:Name"),
])
def test_gbnf_target_errors(work: Path, target: str, says: str) -> None:
    line = one_error_line(run("gbnf", target, cwd=work))
    assert line.startswith("structgen gbnf: error:") and says in line


def test_gbnf_of_an_unconvertible_type_is_one_line(work: Path) -> None:
    (work / "odd.py").write_text("class Odd:\n    pass\n")
    line = one_error_line(run("gbnf", "odd:Odd", cwd=work))
    assert line.startswith("structgen gbnf: error:") and "Odd" in line


def test_bad_json_schema_file(work: Path) -> None:
    (work / "bad.json").write_text('{"type": \n')
    line = one_error_line(run("gbnf", "bad.json", cwd=work))
    assert "bad.json:2:1: not valid JSON" in line


# ---------------------------------------------------------------- check


def test_check_accepts_from_a_file(work: Path) -> None:
    (work / "ok.txt").write_text("{abc}")
    result = run("check", "letters.gbnf", "ok.txt", cwd=work)
    assert (result.returncode, result.stdout) == (0, "accepted\n")


def test_check_rejects_with_the_offset(work: Path) -> None:
    result = run("check", "letters.gbnf", "-", cwd=work, stdin="{ab1}\n")
    assert result.returncode == 1
    first, text, caret = result.stdout.splitlines()
    assert first == "rejected at offset 3"
    assert text.strip() == "{ab1}" and text[caret.index("^")] == "1"


def test_check_reads_stdin_by_default_and_drops_one_newline(work: Path) -> None:
    assert run("check", "letters.gbnf", cwd=work, stdin="{abc}\n").returncode == 0
    kept = run("check", "letters.gbnf", "--keep-newline", cwd=work, stdin="{abc}\n")
    assert kept.returncode == 1 and kept.stdout.startswith("rejected at offset 5")


def test_check_an_unfinished_text(work: Path) -> None:
    result = run("check", "letters.gbnf", "--text", "{ab", cwd=work)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == "rejected at offset 3"
    assert "ends where the grammar needs more" in result.stdout


def test_check_pure_agrees_with_native(work: Path) -> None:
    for text, status in [("{abc}", 0), ("{ab1}", 1), ("{", 1)]:
        native = run("check", "letters.gbnf", "--text", text, cwd=work)
        pure = run("check", "letters.gbnf", "--text", text, "--pure", cwd=work)
        assert native.returncode == pure.returncode == status
        assert native.stdout == pure.stdout


def test_check_with_another_root(work: Path) -> None:
    (work / "yes.gbnf").write_text('answer ::= "yes" | "no"\n')
    assert run("check", "yes.gbnf", "--root", "answer", "--text", "no", cwd=work).returncode == 0
    line = one_error_line(run("check", "yes.gbnf", "--text", "no", cwd=work))
    assert "yes.gbnf" in line and "root" in line


def test_check_a_grammar_with_a_syntax_error(work: Path) -> None:
    line = one_error_line(run("check", "broken.gbnf", "--text", "aa", cwd=work))
    assert line.startswith("structgen check: error: broken.gbnf:3:1:")


def test_check_refuses_left_recursion_before_llama_cpp_sees_it(work: Path) -> None:
    line = one_error_line(run("check", "smelly.gbnf", "--text", "ba", cwd=work))
    assert "smelly.gbnf:1:10:" in line and "left recursion" in line


def test_check_text_and_file_conflict(work: Path) -> None:
    (work / "ok.txt").write_text("{abc}")
    line = one_error_line(run("check", "letters.gbnf", "ok.txt", "--text", "{a}", cwd=work))
    assert "not both" in line


def test_check_a_missing_file(work: Path) -> None:
    line = one_error_line(run("check", "nowhere.gbnf", "--text", "x", cwd=work))
    assert "nowhere.gbnf: no such file" in line


# ---------------------------------------------------------------- lint and format


def test_lint_reports_file_line_column(work: Path) -> None:
    result = run("lint", "smelly.gbnf", cwd=work)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("smelly.gbnf:1:10: error: left recursion")
    assert lines[0].endswith("[left-recursion]")
    assert lines[1].startswith("smelly.gbnf:2:1: warning:") and lines[1].endswith("[unused-rule]")


def test_lint_clean_grammar(work: Path) -> None:
    result = run("lint", "letters.gbnf", cwd=work)
    assert (result.returncode, result.stdout) == (0, "")


def test_lint_syntax_error_is_a_finding(work: Path) -> None:
    result = run("lint", "broken.gbnf", cwd=work)
    assert result.returncode == 1
    assert result.stdout.startswith("broken.gbnf:3:1: ") and "[syntax]" in result.stdout


def test_lint_from_stdin(work: Path) -> None:
    result = run("lint", "-", cwd=work, stdin='root ::= "a" missing\n')
    assert result.returncode == 1 and result.stdout.startswith("-:1:14: error:")
    assert "[undefined-rule]" in result.stdout


def test_lint_of_corpus_grammar_is_clean() -> None:
    result = run("lint", str(GBNF_EXAMPLES / "json.gbnf"), cwd=REPO)
    assert (result.returncode, result.stdout) == (0, "")


def test_format_keeps_the_grammar_and_is_stable(work: Path) -> None:
    messy = 'root   ::=  "a"   |\n   b\nb ::= [x-z]+   # letters\n'
    (work / "messy.gbnf").write_text(messy)
    result = run("format", "messy.gbnf", cwd=work)
    assert result.returncode == 0, result.stderr
    assert parse_gbnf(result.stdout) == parse_gbnf(messy)
    assert run("format", "--check", "messy.gbnf", cwd=work).returncode == 1
    (work / "tidy.gbnf").write_text(result.stdout)
    assert run("format", "--check", "tidy.gbnf", cwd=work).returncode == 0


# ---------------------------------------------------------------- sample


def test_sample_prints_derivations(work: Path) -> None:
    result = run("sample", "letters.gbnf", "-n", "4", "--seed", "7", cwd=work)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and all(accepts(LETTERS, line) for line in lines)
    again = run("sample", "letters.gbnf", "-n", "4", "--seed", "7", cwd=work)
    assert again.stdout == result.stdout  # the seed decides


def test_sample_quoted_from_another_root(work: Path) -> None:
    (work / "lines.gbnf").write_text('doc ::= ("x" "\\n"){2}\n')
    result = run("sample", "lines.gbnf", "--root", "doc", "--quote", "-n", "1", cwd=work)
    assert (result.returncode, result.stdout) == (0, '"x\\nx\\n"\n')


def test_sample_count_must_be_positive(work: Path) -> None:
    result = run("sample", "letters.gbnf", "-n", "0", cwd=work)
    assert result.returncode == 2 and "must be at least 1" in result.stderr


# ---------------------------------------------------------------- generate


def test_generate_with_a_missing_model_file(work: Path) -> None:
    line = one_error_line(run("generate", "models:User", "hi", "--model", "nope.gguf", cwd=work))
    assert line.startswith("structgen generate: error: ModelNotFoundError:")


@pytest.mark.model
def test_generate_prints_json_of_the_type(work: Path) -> None:
    result = run("generate", "models:User", "A user named Ada who is an admin.",
                 "--max-tokens", "64", cwd=work)
    assert result.returncode == 0, result.stderr
    value = json.loads(result.stdout)
    assert set(value) == {"name", "admin", "role"} and isinstance(value["admin"], bool)

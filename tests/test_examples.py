"""Every example under examples/ runs to its end on the default model, and says what it should.

The in-process examples run as ``__main__`` in this process on one shared default model (see
default_model_support); server_backend.py runs against a real llama-server, started as
tests/test_server_backend.py starts one; examples/testing/ is a test module, run by pytest.
"""

from __future__ import annotations

import ast
import re
import runpy
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from default_model_support import load_default_backend, sharing_llm

import structgen

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def default_backend() -> Iterator[structgen.LlamaCppBackend]:
    backend = load_default_backend()
    yield backend
    backend.close()


@pytest.fixture
def run_example(
    default_backend: structgen.LlamaCppBackend, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Callable[[str], list[str]]:
    def run(name: str) -> list[str]:
        monkeypatch.setattr(structgen, "LLM", sharing_llm(default_backend))
        monkeypatch.setattr(sys, "argv", [str(EXAMPLES / name)])
        runpy.run_path(str(EXAMPLES / name), run_name="__main__")
        return capsys.readouterr().out.splitlines()

    return run


def test_every_example_has_a_test() -> None:
    tested = set(re.findall(r"\"([\w/]+\.py)\"", Path(__file__).read_text()))
    examples = {str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.py")}
    assert examples - tested == set()


def test_demo(run_example: Callable[[str], list[str]]) -> None:
    line, usage = run_example("demo.py")
    person = ast.parse(line, mode="eval").body
    assert isinstance(person, ast.Call) and ast.unparse(person.func) == "Person"
    fields = {k.arg: k.value for k in person.keywords}
    assert set(fields) == {"name", "age", "address"}
    assert ast.literal_eval(fields["name"]) == "Maria Garcia" and ast.literal_eval(fields["age"]) == 38
    assert re.fullmatch(r"[1-9]\d* tokens sampled, [1-9]\d* fast-forwarded, \d+\.\d\ds \(grammar \d+\.\d ms\)", usage)


def test_agent(run_example: Callable[[str], list[str]]) -> None:
    lines = run_example("agent.py")
    assert re.fullmatch(r"call: count_stock item='\w+' -> \d+", lines[0]), lines[0]
    assert lines[1].startswith("words instead of a call:") and len(lines[1]) > len("words instead of a call: ")
    assert any(line.startswith("typed answer: item=") and "count_stock" in line for line in lines)


def test_async_many(run_example: Callable[[str], list[str]]) -> None:
    lines = run_example("async_many.py")
    reviews = ["I loved every minute of it!", "Terrible service, never again.", "It was a movie."]
    assert [line.split(maxsplit=1)[1] for line in lines] == reviews
    assert {line.split()[0] for line in lines} <= {"positive", "negative", "neutral"}


def test_stream_and_refusal(run_example: Callable[[str], list[str]]) -> None:
    lines = run_example("stream_and_refusal.py")
    partial = [line for line in lines if line.startswith("so far:")]
    assert len(partial) >= 2 and partial[-1].count("City(") == 2, partial
    assert "Paris" in partial[-1] and "Rome" in partial[-1]
    assert lines[-1].startswith(("refused:", "birth date:"))


def test_custom_backend(run_example: Callable[[str], list[str]]) -> None:
    city, tokens = run_example("custom_backend.py")
    assert city == "City(city='Lisbon', country='Portugal')"
    assert tokens.endswith(" tokens") and int(tokens.split()[0]) > 0


def test_server_backend() -> None:
    from test_server_backend import _running_server

    with _running_server("-c", "2048", "-np", "1") as (url, _):
        out = subprocess.run([sys.executable, str(EXAMPLES / "server_backend.py"), url],
                             check=True, capture_output=True, text=True, timeout=300)
    lines = out.stdout.splitlines()
    assert lines[0] == "City(city='Lisbon', country='Portugal')"
    assert re.fullmatch(r"\d+ prompt tokens, [1-9]\d* sampled, \d+\.\d\d s", lines[1]), lines


def test_testing_my_models() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "testing/test_my_models.py"],
        cwd=EXAMPLES, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    passed = re.search(r"(\d+) passed", result.stdout)
    assert passed and int(passed.group(1)) >= 8 and "failed" not in result.stdout

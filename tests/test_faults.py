"""Faults and misuse on the real default model: each ends in a typed error (or, for a stream
given up half-way, in nothing at all) and leaves the LLM answering the next call correctly.

"Not slowed" is asserted by what the next call evaluates, never by wall time: after a stream is
abandoned, the next call with the same prompt finds the prompt in the KV cache and writes the
same tokens a fresh call writes.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator
import math
from typing import Annotated, Any, Union

import pytest
from annotated_types import Len
from pydantic import BaseModel, ValidationInfo, field_validator, model_validator
from typing_extensions import TypeAliasType

import structgen as sg
from structgen.backends import Completion, CompletionRequest
from structgen.testing import ScriptedBackend
from thread_support import in_threads

model = pytest.mark.model

CODES = [17, 23, 42, 58, 64, 71, 86, 95]  # one per thread, each a distinct answer
CITIES = "List the cities: Paris in France, Rome in Italy, Berlin in Germany, Madrid in Spain."
STORY = "Write a story about a cat named Tom, with a title."


class Code(BaseModel):
    value: int


class Address(BaseModel):
    city: str
    country: str


class Numbers(BaseModel):
    items: list[int]


class Story(BaseModel):
    title: str
    body: str


def code_prompt(code: int) -> str:
    return f"Give the code. The code is {code}."


@pytest.fixture(scope="module")
def llm() -> Iterator[sg.LLM]:
    model = sg.LLM(n_ctx=2048, max_tokens=120, n_threads=1)
    yield model
    model.close()


@pytest.fixture(scope="module")
def small() -> Iterator[sg.LLM]:
    """A context of 256 tokens (llama.cpp's least): easy to overflow with a prompt or an answer."""
    model = sg.LLM(n_ctx=256, max_tokens=400, n_threads=1)
    yield model
    model.close()


@pytest.fixture(scope="module")
def cities(llm: sg.LLM) -> sg.Result[list[Address]]:
    """What a call that runs to its end answers to CITIES."""
    reference = llm.run(list[Address], CITIES)
    assert [a.city for a in reference.value] == ["Paris", "Rome", "Berlin", "Madrid"]
    return reference


def is_free(model: sg.LLM) -> bool:
    """Whether no generation holds the model."""
    free: bool = model.backend._slots.idle()  # type: ignore[attr-defined]
    return free


def assert_answers_as_fresh(model: sg.LLM, reference: sg.Result[Any], output_type: Any, prompt: str) -> None:
    """The model is free, its cache still holds the prompt, and it writes what a fresh call wrote."""
    assert is_free(model)
    again = model.run(output_type, prompt)
    assert again.text == reference.text and again.value == reference.value
    assert again.usage.cached_prompt_tokens == again.usage.prompt_tokens - 1  # prompt reused
    assert again.usage.completion_tokens == reference.usage.completion_tokens


# -- the context window -------------------------------------------------------------------------


@model
def test_a_prompt_longer_than_the_context_is_a_backend_error_and_the_model_stays_usable(small: sg.LLM) -> None:
    with pytest.raises(sg.BackendError, match=r"the prompt has \d+ tokens; the context holds 256"):
        small.generate(Code, "Give the code. " + "The code is not here. " * 60)
    assert small.generate(Code, code_prompt(42)) == Code(value=42)


# -- a grammar whose ways of reading the text multiply -------------------------------------------

# Two list types whose items overlap, recursive: llama.cpp's sampler keeps a parser stack for
# every way of reading each "[", so the stacks double with every level (docs/generation.md).
Overlapping = TypeAliasType("Overlapping", Union[list["Overlapping"], list[Union["Overlapping", str]], int])
# Two list types alike but for their lengths: the converter writes them as one list.
Nested = TypeAliasType("Nested", Union[Annotated[list["Nested"], Len(min_length=1)],
                                       Annotated[list["Nested"], Len(max_length=3)], int])
BRACKETS = "Copy this exactly: " + "[" * 20 + "1" + "]" * 20


@model
def test_a_grammar_step_over_the_budget_ends_in_a_typed_error_and_the_model_stays_usable(
    llm: sg.LLM,
) -> None:
    backend: Any = llm.backend
    default = backend.grammar_step_seconds
    assert default == 20.0
    backend.grammar_step_seconds = 0.25  # the default ends this only after 125 s (docs/generation.md)
    try:
        with pytest.raises(sg.SlowGrammarError, match="over the limit of 0.25 s") as caught:
            llm.generate(Overlapping, BRACKETS)
        # List types alike but for their lengths are one list: the same request runs through
        # (SmolLM2 writes more brackets than asked, until the loop check closes them).
        with pytest.warns(UserWarning, match="repeating itself"):
            deep = llm.run(Nested, BRACKETS)
    finally:
        backend.grammar_step_seconds = default
    error = caught.value
    assert error.limit == 0.25 < error.seconds
    assert error.text.startswith("[[[") and set(error.text) == {"["}
    assert error.usage.grammar_seconds >= error.seconds
    assert deep.text.startswith("[" * 12)
    assert llm.generate(Code, code_prompt(23)) == Code(value=23)


@pytest.mark.parametrize("bad", [0, -1.0, "2", True, math.nan])
def test_the_grammar_step_budget_must_be_a_positive_number(bad: Any) -> None:
    with pytest.raises(ValueError, match="grammar_step_seconds must be a number > 0"):
        sg.LlamaCppBackend.load(None, grammar_step_seconds=bad)  # checked before loading


def test_the_grammar_step_budget_is_a_model_option() -> None:
    with pytest.raises(TypeError, match="model options are the backend's own"):
        sg.LLM(backend=ScriptedBackend(), grammar_step_seconds=1.0)


# Counting is no loop (each number differs), so the answer runs until the context is full.
COUNTING = "Count from 1 to 300: " + ", ".join(str(i) for i in range(1, 45)) + ", and so on."


@model
def test_a_context_that_fills_during_generation_is_incomplete_output_with_the_text(small: sg.LLM) -> None:
    with pytest.raises(sg.IncompleteOutputError, match="the context window filled after") as caught:
        small.generate(Numbers, COUNTING)
    error = caught.value
    assert error.text.startswith('{"items": [1, 2, 3, ')
    # the context is what ran out: the prompt and the answer so far fill it, not max_tokens
    assert error.usage.completion_tokens < 400
    assert error.usage.prompt_tokens + error.usage.completion_tokens >= 256 - 2
    assert small.generate(Code, code_prompt(58)) == Code(value=58)


@model
def test_a_lazy_grammar_whose_free_text_fills_the_context_ends_as_length(small: sg.LLM) -> None:
    """The free phase of a lazy grammar (before any trigger) ends like max_tokens at a full
    context, so the caller can say which ran out (it was a BackendError without the text).
    The messages are those of the test above, so the long prompt is already cached."""
    from structgen._generate._output import spec_for

    hint = spec_for(Numbers).system_hint()
    assert hint is not None
    request = CompletionRequest(
        messages=(sg.Message("system", hint), sg.Message("user", COUNTING)),
        gbnf='root ::= "<call>" [a-z]+', max_tokens=400, triggers=("<call>",),
    )
    events = list(small.backend.complete(request))
    completion = events[-1]
    assert isinstance(completion, Completion) and completion.finish_reason == "length"
    assert completion.text and "context window filled" in completion.length_cause(400)
    assert completion.usage.prompt_tokens + completion.usage.completion_tokens == 256
    assert small.generate(Code, code_prompt(64)) == Code(value=64)


# -- streams given up half-way ------------------------------------------------------------------


@model
def test_breaking_out_of_a_stream_frees_the_model_and_keeps_its_cache(
    llm: sg.LLM, cities: sg.Result[list[Address]]
) -> None:
    for part in llm.stream(list[Address], CITIES):
        assert [a.city for a in part] == ["Paris"]
        break
    assert_answers_as_fresh(llm, cities, list[Address], CITIES)


@model
def test_an_unfinished_stream_that_is_dropped_frees_the_model(
    llm: sg.LLM, cities: sg.Result[list[Address]]
) -> None:
    stream = llm.stream(list[Address], CITIES)
    next(stream)
    assert not is_free(llm)
    with pytest.raises(sg.BackendError, match="already generating"):  # not a deadlock
        llm.generate(Code, code_prompt(17))
    del stream
    gc.collect()
    assert_answers_as_fresh(llm, cities, list[Address], CITIES)


@model
async def test_a_cancelled_astream_stops_at_the_next_token_and_frees_the_model(llm: sg.LLM) -> None:
    """The first partial story has its title (about 13 tokens); the body (about 100) is still
    to come and yields no partial, so a worker that looked for a stop only at partials would
    write it all."""
    with pytest.raises(sg.IncompleteOutputError) as cut:  # one token: the prompt's length
        llm.generate(Story, STORY, max_tokens=1)
    prompt_tokens = cut.value.usage.prompt_tokens
    titled = asyncio.Event()

    async def consume() -> None:
        async for _ in llm.astream(Story, STORY):
            titled.set()

    task = asyncio.create_task(consume())
    await titled.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert is_free(llm)
    written = llm.backend._runner.position - prompt_tokens  # type: ignore[attr-defined]
    assert 10 < written < 40
    assert await llm.agenerate(Code, code_prompt(23)) == Code(value=23)


@model
async def test_breaking_out_of_an_astream_frees_the_model(llm: sg.LLM) -> None:
    async for part in llm.astream(list[Address], CITIES):
        assert [a.city for a in part] == ["Paris"]
        break
    assert await llm.agenerate(Code, code_prompt(86)) == Code(value=86)
    assert is_free(llm)


@model
def test_closing_the_model_under_an_open_stream_lets_the_stream_finish() -> None:
    model = sg.LLM(n_ctx=512, max_tokens=120, n_threads=1)
    stream = model.stream(list[Address], "List the cities: Paris in France, Rome in Italy.")
    first = next(stream)
    model.close()  # this thread holds the model: it must not wait for itself
    rest = list(stream)
    assert [a.city for a in first] == ["Paris"] and [a.city for a in rest[-1]] == ["Paris", "Rome"]
    assert model.backend._freed  # type: ignore[attr-defined]  # freed when the stream ended
    with pytest.raises(sg.BackendError, match="closed"):
        model.generate(Code, code_prompt(42))


# -- a validator that crashes ---------------------------------------------------------------------


class Fragile(BaseModel):
    """A validator with a bug: it raises RuntimeError (not ValueError) on every value."""

    value: int

    @field_validator("value")
    @classmethod
    def crash(cls, value: int) -> int:
        raise RuntimeError(f"cannot look up {value}")


class Divided(BaseModel):
    city: str
    country: str

    @model_validator(mode="after")
    def crash(self) -> Divided:
        return self if 1 / 0 else self


class NeedsCountry(BaseModel):
    """Its model validator reads ``country`` unguarded: a KeyError while a partial has only
    ``city``, fine on the whole answer."""

    city: str
    country: str

    @model_validator(mode="after")
    def check(self) -> NeedsCountry:
        assert self.__dict__["country"] != self.city
        return self


@model
def test_a_crashing_validator_is_a_validator_error_and_is_not_retried(llm: sg.LLM) -> None:
    with pytest.raises(sg.ValidatorError, match="RuntimeError: cannot look up 42") as caught:
        llm.generate(Fragile, code_prompt(42), max_retries=2)
    error = caught.value
    assert isinstance(error, sg.GenerationError) and isinstance(error.__cause__, RuntimeError)
    assert error.text == '{"value": 42}'
    assert error.usage.attempts == 1 and llm.last_usage == error.usage
    assert llm.generate(Code, code_prompt(42)) == Code(value=42)


@model
def test_a_validator_that_crashes_in_a_stream(llm: sg.LLM) -> None:
    prompt = "Paris is in France. Give the city and its country."
    with pytest.raises(sg.ValidatorError, match="ZeroDivisionError") as caught:
        list(llm.stream(Divided, prompt))
    assert caught.value.text.startswith('{"city": "Paris"')
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
    # A crash on a partial value (fields still missing) is not an error: the partial waits.
    parts = list(llm.stream(NeedsCountry, prompt))
    assert parts == [NeedsCountry(city="Paris", country="France")]
    assert is_free(llm)


class Lookup(BaseModel):
    """Look a city up."""

    city: str

    @field_validator("city")
    @classmethod
    def crash(cls, city: str, info: ValidationInfo) -> str:
        return str(info.data["missing"])  # KeyError: a bug in the tool's validator


def today() -> str:
    """Today's date."""
    return "2025-05-01"


@model
def test_a_tool_whose_argument_validator_crashes(llm: sg.LLM) -> None:
    with pytest.raises(sg.ValidatorError, match="tool 'Lookup' raised KeyError") as caught:
        llm.call_tool("Look up Oslo.", [Lookup], max_retries=2)
    error = caught.value
    assert error.text.startswith('{"city": "') and isinstance(error.__cause__, KeyError)
    assert error.usage is not None and error.usage.attempts == 1
    streamed = llm.stream_tools("Look up Oslo.", [Lookup], tool_choice="Lookup")
    with pytest.raises(sg.ValidatorError, match="KeyError"):
        list(streamed)
    with pytest.raises(sg.ValidatorError, match="tool 'final_result' raised RuntimeError"):
        llm.run_tools(code_prompt(71), [today], output_type=Fragile, max_rounds=2)
    assert is_free(llm)
    assert llm.generate(Code, code_prompt(71)) == Code(value=71)


class Unknown(BaseModel):
    """Look a city up."""

    city: str

    @field_validator("city")
    @classmethod
    def reject(cls, city: str) -> str:
        raise ValueError("no such city")


@model
def test_required_calls_that_all_fail_validation_are_an_output_validation_error(llm: sg.LLM) -> None:
    """The model repeats its invalid call; a repeat of an invalid call is not a call already
    made, so the turn does not end as an empty one (which broke tool_choice="required")."""
    with pytest.raises(sg.OutputValidationError, match="no such city") as caught:
        llm.call_tools("Look up Oslo.", [Unknown], tool_choice="required", max_calls=2, max_retries=0)
    assert len(caught.value.attempts) == 1


# -- many threads on one model --------------------------------------------------------------------


@model
def test_eight_threads_times_ten_calls_each_get_their_own_answer(llm: sg.LLM) -> None:
    def work(code: int) -> tuple[list[Code], bool]:
        results = [llm.run(Code, code_prompt(code), max_tokens=8) for _ in range(10)]
        return [r.value for r in results], llm.last_usage == results[-1].usage  # per thread

    done = in_threads(work, CODES)
    answers = {code: values for code, (values, _) in zip(CODES, done)}
    usages_match = {code: same for code, (_, same) in zip(CODES, done)}
    assert answers == {code: [Code(value=code)] * 10 for code in CODES}
    assert all(usages_match.values()) and len(usages_match) == len(CODES)


# -- our own control flow, without a model ----------------------------------------------------------


def test_a_tools_crashing_validator_is_a_validator_error_and_a_failing_one_is_not() -> None:
    from pydantic import ValidationError

    lookup = sg.Tool("Lookup", "Look a city up.", Lookup.model_json_schema(), Lookup)
    with pytest.raises(sg.ValidatorError, match="tool 'Lookup' raised KeyError") as caught:
        lookup.validate('{"city": "Oslo"}')
    assert caught.value.text == '{"city": "Oslo"}' and isinstance(caught.value.__cause__, KeyError)
    unknown = sg.Tool("Unknown", "Look a city up.", Unknown.model_json_schema(), Unknown)
    with pytest.raises(ValidationError, match="no such city"):
        unknown.validate('{"city": "Oslo"}')


def test_a_partial_value_holds_back_a_field_whose_validator_crashes() -> None:
    from structgen._generate._partial import PartialBuilder

    builder = PartialBuilder(NeedsCountry)
    assert builder.update('{"city": "Paris", ') is None  # the model validator needs "country"
    items = PartialBuilder(list[Fragile])
    assert items.update('[{"value": 1}, ') == []  # the crash is the final validation's to report


async def test_items_to_skip_are_not_handed_over_but_let_the_producer_stop() -> None:
    from structgen._generate._steps import iterate_in_thread

    skip, stopped = object(), threading.Event()
    log: list[object] = []

    def produce() -> Iterator[object]:
        try:
            yield "a"
            stopped.wait(10)  # until the consumer has stopped
            for i in range(3):
                log.append(i)
                yield skip
        finally:
            log.append("closed")

    assert [x async for x in iterate_in_thread(lambda: iter(["a", skip, "b"]), skip=skip)] == ["a", "b"]
    items = iterate_in_thread(produce, skip=skip)
    assert await items.__anext__() == "a"
    closing = asyncio.ensure_future(items.aclose())  # type: ignore[attr-defined]
    await asyncio.sleep(0)  # aclose has asked the producer to stop and waits for it
    stopped.set()
    await closing
    assert log == [0, "closed"]  # it stopped at the first skipped item, not after all three

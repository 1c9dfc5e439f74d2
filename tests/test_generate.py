"""Typed generation on the real default model and llama.cpp's real grammar sampler.

The model is loaded once per session. Every assertion is about what the model produced under
the grammar, greedily (deterministic on one machine), so the prompts are plain and easy.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Literal, Union

import pytest
from pydantic import BaseModel, Field, field_validator
from typing_extensions import TypedDict

import structgen as sg
from structgen._generate._choice_table import REFUSAL_CUES
from structgen._errors import (
    IncompleteOutputError,
    ModelNotFoundError,
    OutputValidationError,
    RefusalError,
)
from structgen.backends import CompletionRequest
from thread_support import in_threads

pytestmark = pytest.mark.model


class Address(BaseModel):
    city: str
    country: str


class Person(BaseModel):
    """A person mentioned in the text."""

    name: str = Field(description="the person's full name")
    age: int
    address: Address


class Color(str, Enum):
    red = "red"
    green = "green"
    blue = "blue"


@dataclass
class Book:
    title: str
    year: int


class Pet(TypedDict):
    name: str
    species: str


class Circle(BaseModel):
    shape: Literal["circle"]
    radius: float


class Square(BaseModel):
    shape: Literal["square"]
    side: float


JOHN = "John Smith is 42 years old and lives in Boston, USA."


@pytest.fixture(scope="session")
def llm() -> Iterator[sg.LLM]:
    model = sg.LLM(n_ctx=2048, max_tokens=200)
    yield model
    model.close()


# -- every output-type kind -------------------------------------------------------------------


def test_nested_model(llm: sg.LLM) -> None:
    result = llm.run(Person, f"Extract the person. {JOHN}")
    person = result.value
    assert isinstance(person, Person) and isinstance(person.address, Address)
    assert person.name == "John Smith" and person.age == 42
    assert person.address.city == "Boston"
    assert json.loads(result.text) == person.model_dump()
    usage = result.usage
    assert usage.attempts == 1 and usage.sampled_tokens > 0
    assert usage.forced_tokens > 0, "keys and punctuation should be fast-forwarded"
    assert 0 < usage.grammar_seconds < usage.model_seconds <= usage.total_seconds
    assert 0 < usage.prompt_seconds < usage.model_seconds  # the prompt, then the answer
    assert llm.last_usage == usage


def test_list_of_models(llm: sg.LLM) -> None:
    cities = llm.generate(list[Address], "List the cities: Paris in France, Rome in Italy, Berlin in Germany.")
    assert [c.city for c in cities] == ["Paris", "Rome", "Berlin"]
    assert all(isinstance(c, Address) for c in cities)


def test_literal_chosen_by_whole_likelihood(llm: sg.LLM) -> None:
    tools = Literal["get_weather", "get_time", "send_email", "set_alarm"]
    asks = {
        "What time is it in Tokyo right now?": "get_time",
        "Will it rain in Paris tomorrow?": "get_weather",
        "Write to my boss that I am late.": "send_email",
        "Wake me up at 7 am.": "set_alarm",
    }
    for question, expected in asks.items():
        assert llm.generate(tools, f"Pick the function to call for: {question}") == expected


def test_enum(llm: sg.LLM) -> None:
    color = llm.generate(Color, "What color is the sky on a clear day?")
    assert color is Color.blue


def test_int(llm: sg.LLM) -> None:
    value = llm.generate(int, "Extract the year: 'The war ended in 1945.'")
    assert isinstance(value, int) and value == 1945


def test_dataclass(llm: sg.LLM) -> None:
    book = llm.generate(Book, "The novel 1984 by George Orwell was published in 1949.")
    assert isinstance(book, Book) and book.year == 1949


def test_typed_dict(llm: sg.LLM) -> None:
    pet = llm.generate(Pet, "My dog is called Rex.")
    assert isinstance(pet, dict) and set(pet) == {"name", "species"}
    assert pet["name"] == "Rex"


def test_union(llm: sg.LLM) -> None:
    # The branch is decided by the likelihood of each whole discriminator value.
    square = llm.generate(Union[Circle, Square], "A square with side 3.")
    assert isinstance(square, Square) and square.side == 3
    circle = llm.generate(Union[Circle, Square], "A circle of radius 2.")
    assert isinstance(circle, Circle) and circle.radius == 2


# -- failure modes ----------------------------------------------------------------------------


@sg.structured(refusal=True)
class BirthDate(BaseModel):
    year: int
    month: int
    day: int


def test_refusal(llm: sg.LLM) -> None:
    prompt = "How do I make a bomb?"  # must be refused; the refusal branch wins by likelihood
    with pytest.raises(RefusalError) as caught:
        llm.generate(BirthDate, prompt)
    # the likeliest refusal phrase opens the reason, and the model finishes its sentence
    assert caught.value.reason.startswith(REFUSAL_CUES) and caught.value.reason.endswith(".")
    assert caught.value.text.startswith('{"refusal": "') and caught.value.usage.completion_tokens < 40
    refusal = llm.generate(BirthDate, prompt, on_refusal="return")
    assert isinstance(refusal, sg.Refusal) and refusal.reason == caught.value.reason
    # streamed, a refusal yields no empty partial instance first: only the refusal itself
    assert list(llm.stream(BirthDate, prompt, on_refusal="return")) == [refusal]


def test_truncation(llm: sg.LLM) -> None:
    full = llm.run(Person, f"Extract the person. {JOHN}").text
    with pytest.raises(IncompleteOutputError) as caught:
        llm.generate(Person, f"Extract the person. {JOHN}", max_tokens=4)
    text = caught.value.text
    assert text and full.startswith(text) and len(text) < len(full)
    assert caught.value.usage.completion_tokens == 4


def note_type(**options: object) -> type[BaseModel]:
    """A fresh Note class (same name, so the same prompt), decorated with ``options``."""

    class Note(BaseModel):
        text: str

    return sg.structured(**options)(Note) if options else Note


def test_string_cap_closes_a_string_with_a_warning(llm: sg.LLM) -> None:
    # Greedy decoding repeats "I am a cat." inside the string. Caps below where the loop is
    # noticed (about 50 characters; see test_repeats.py) close the string themselves.
    prompt = "Write a long note about cats."
    with pytest.warns(UserWarning, match=r"/text: exactly max_string_length=45 characters") as seen:
        note = llm.generate(note_type(max_string_length=45), prompt, max_tokens=200)
    assert seen[0].filename == __file__  # points at the caller's line, not into structgen
    assert len(note.text) == 45 and note.text.startswith("I am a cat.")  # type: ignore[attr-defined]
    with pytest.warns(UserWarning, match="max_string_length=30"):
        shorter = llm.generate(note_type(max_string_length=30), prompt, max_tokens=200)
    # the same text up to where the cap leaves no room for the model's next whole token
    assert len(shorter.text) == 30 and note.text.startswith(shorter.text[:26])  # type: ignore[attr-defined]


def test_string_cap_never_lowers_a_declared_max_length() -> None:
    from structgen._generate._output import spec_for

    bounded = spec_for(dict[str, Annotated[str, Field(max_length=900)]]).grammar.gbnf
    assert "{0,900}" in bounded and "{0,500}" in bounded  # values keep theirs, keys get the cap
    assert "{0,500}" not in spec_for(note_type(max_string_length=None)).grammar.gbnf


class Shouting(BaseModel):
    word: str

    @field_validator("word")
    @classmethod
    def must_be_upper(cls, value: str) -> str:
        if value != value.upper() or not value.isalpha():
            raise ValueError("the word must be in capital letters A-Z only")
        return value


def test_retries_then_validation_error(llm: sg.LLM) -> None:
    with pytest.raises(OutputValidationError) as caught:
        llm.generate(Shouting, "Say hello.", max_retries=1, max_tokens=12)
    error = caught.value
    assert len(error.attempts) == 2
    for text, errors in error.attempts:
        assert text.startswith('{"word": ')
        assert "capital letters" in errors[0]["msg"]
    assert error.usage.attempts == 2
    assert error.usage.prompt_tokens > 0


_counted_calls: list[int] = []


class Counted(BaseModel):
    """Its validator rejects the first value it ever sees (a real field validator)."""

    number: int

    @field_validator("number")
    @classmethod
    def reject_first(cls, value: int) -> int:
        _counted_calls.append(value)
        if len(_counted_calls) == 1:
            raise ValueError("try once more")
        return value


def test_retry_succeeds(llm: sg.LLM) -> None:
    _counted_calls.clear()
    result = llm.run(Counted, "How many legs does a cat have?", max_retries=2)
    assert len(_counted_calls) == 2
    assert result.usage.attempts == 2 and result.value.number == _counted_calls[-1]


def test_threads_default_one_per_core(llm: sg.LLM) -> None:
    from structgen._backends.llamacpp._threads import default_threads

    threads = default_threads()
    llama = llm.backend.llama  # type: ignore[attr-defined]
    assert (llama.n_threads, llama.n_threads_batch) == (threads.token, threads.batch)
    pinned = sg.LLM(n_ctx=256, n_threads=1)
    try:  # a given thread count holds for batches too
        assert (pinned.backend.llama.n_threads, pinned.backend.llama.n_threads_batch) == (1, 1)  # type: ignore[attr-defined]
    finally:
        pinned.close()


def test_missing_model_names_the_path(tmp_path) -> None:  # type: ignore[no-untyped-def]
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelNotFoundError) as caught:
        sg.LLM(missing)
    assert str(missing) in str(caught.value) and caught.value.path == str(missing)


def test_bad_decorator_option_fails_at_decoration() -> None:
    with pytest.raises((ValueError, TypeError)):

        @sg.structured(whitespace="roomy")
        class Bad(BaseModel):
            x: int

    with pytest.raises(TypeError):

        @sg.structured(colour=True)
        class Worse(BaseModel):
            x: int


def test_grammar_cached_on_class() -> None:
    from structgen._generate._output import spec_for

    assert spec_for(BirthDate) is BirthDate.__dict__["__structgen_output__"]
    assert spec_for(Person) is spec_for(Person)
    assert "refusal" in spec_for(BirthDate).grammar.gbnf


# -- streaming, async, threads, determinism -----------------------------------------------------


def test_stream(llm: sg.LLM) -> None:
    items = list(llm.stream(Person, f"Extract the person. {JOHN}"))
    final = items[-1]
    assert isinstance(final, Person) and final == llm.generate(Person, f"Extract the person. {JOHN}")
    partials = items[:-1]
    assert [sorted(p.model_fields_set) for p in partials[:3]] == [
        ["name"],
        ["age", "name"],
        ["address", "age", "name"],
    ]
    assert partials[0].name == "John Smith"


def test_stream_list(llm: sg.LLM) -> None:
    items = list(llm.stream(list[Address], "List the cities: Paris in France, Rome in Italy."))
    assert [len(i) for i in items[:-1]] == [1, 2]
    assert items[-1] == items[-2]


async def test_async(llm: sg.LLM) -> None:
    person, book = await asyncio.gather(
        llm.agenerate(Person, f"Extract the person. {JOHN}"),
        llm.agenerate(Book, "The novel 1984 by George Orwell was published in 1949."),
    )
    assert person.name == "John Smith" and book.year == 1949
    seen = [p async for p in llm.astream(Person, f"Extract the person. {JOHN}")]
    assert seen[-1] == person and len(seen) >= 2


def test_threads_share_one_llm(llm: sg.LLM) -> None:
    prompts = [f"Extract the person. {JOHN}", "Extract the person. Mary Jones, 31, lives in Paris, France."]
    expected = [llm.generate(Person, p) for p in prompts]
    results = in_threads(lambda i: llm.generate(Person, prompts[i % 2]), range(4))
    assert results == expected * 2


def test_determinism_and_prefix_cache(llm: sg.LLM) -> None:
    first = llm.run(Person, f"Extract the person. {JOHN}")
    second = llm.run(Person, f"Extract the person. {JOHN}")
    assert first.text == second.text
    assert second.usage.cached_prompt_tokens == second.usage.prompt_tokens - 1
    sampled = [
        llm.run(Address, "Name a city and its country.", temperature=0.9, seed=seed).text
        for seed in (7, 7)
    ]
    assert sampled[0] == sampled[1]


class Ticket(BaseModel):
    summary: str
    severity: Literal["low", "medium", "high", "critical"]
    component: Literal["database", "frontend", "network", "auth"]


def test_cached_prompt_answers_like_a_cold_one(llm: sg.LLM) -> None:
    # A near tie on this prompt: when the cold prompt's last token was a batch row (and a cached
    # one's a single token), the cold answer rambled for 500 characters, the cached one did not.
    prompt = "Make a ticket: users cannot log in since the password reset change; nobody can work."
    llm.backend._runner.forget()  # type: ignore[attr-defined]
    cold = llm.run(Ticket, prompt, max_tokens=256)
    warm = llm.run(Ticket, prompt, max_tokens=256)
    assert cold.usage.cached_prompt_tokens == 0 < warm.usage.cached_prompt_tokens
    assert cold.text == warm.text


class Quote(BaseModel):
    author: str
    quote: str


def test_prompt_lookup_guesses_do_not_change_the_answer(llm: sg.LLM) -> None:
    """Text copied from the prompt is guessed ahead and confirmed by the model in one batch;
    the answer is the one token-at-a-time decoding writes."""
    prompt = ('Extract the quote. Abraham Lincoln said: "Four score and seven years ago our '
              'fathers brought forth on this continent a new nation."')
    guessed = llm.run(Quote, prompt)
    plain_llm = sg.LLM(n_ctx=2048, max_tokens=200, lookahead=0)
    try:
        plain = plain_llm.run(Quote, prompt)
    finally:
        plain_llm.close()
    assert guessed.text == plain.text
    assert guessed.value.quote.startswith("Four score and seven years ago")
    assert guessed.usage.drafted_tokens >= plain.usage.drafted_tokens + 8
    assert guessed.usage.completion_tokens == plain.usage.completion_tokens
    with pytest.raises(ValueError, match="lookahead"):
        sg.LlamaCppBackend(llm.backend.llama, lookahead=-1)  # type: ignore[attr-defined]


def test_from_llama_keeps_llama_usable(llm: sg.LLM) -> None:
    backend = llm.backend
    assert isinstance(backend, sg.LlamaCppBackend)
    llama = backend.llama
    out = llama.create_completion("The capital of France is", max_tokens=3, temperature=0.0)
    assert out["choices"][0]["text"]
    wrapped = sg.LLM.from_llama(llama)
    assert wrapped.generate(Color, "What color is grass?") is Color.green
    assert llm.generate(Person, f"Extract the person. {JOHN}").name == "John Smith"


def test_custom_backend_through_the_seam(llm: sg.LLM) -> None:
    """Any object with ``complete`` works; here one that records requests and delegates."""
    seen: list[CompletionRequest] = []
    inner = llm.backend

    class Recording:
        def complete(self, request: CompletionRequest):  # type: ignore[no-untyped-def]
            seen.append(request)
            return inner.complete(request)

        def close(self) -> None:  # the protocol's second method: this one owns nothing
            pass

    other = sg.LLM.from_backend(Recording())
    assert other.generate(Color, "What color is grass?") is Color.green
    assert seen and seen[0].messages[0].role == "system" and '"red"' in seen[0].messages[0].content


def test_llama_logs_silenced(capfd: pytest.CaptureFixture[str]) -> None:
    model = sg.LLM(n_ctx=256)
    model.close()
    assert capfd.readouterr().err == ""


def test_stopping_a_stream_early_frees_the_model(llm: sg.LLM) -> None:
    stream = llm.stream(list[Address], "List the cities: Paris in France, Rome in Italy.")
    first = next(stream)
    assert [c.city for c in first] == ["Paris"]
    stream.close()
    assert llm.generate(Color, "What color is grass?") is Color.green  # not blocked


def test_a_closed_model_raises_a_typed_error_instead_of_touching_freed_memory() -> None:
    class Name(BaseModel):
        name: str

    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    model = sg.LLM(n_ctx=512, max_tokens=16)
    assert model.generate(Name, "Name: Ann").name
    model.close()
    model.close()  # closing twice is harmless
    with pytest.raises(sg.BackendError, match="closed"):
        model.generate(Name, "Name: Bob")
    with pytest.raises(sg.BackendError, match="closed"):
        model.call_tools("Look up Oslo.", [lookup])


def test_a_context_that_fills_during_generation_says_so_and_leaves_the_model_usable() -> None:
    class Numbers(BaseModel):
        items: list[int]

    class Name(BaseModel):
        name: str

    with sg.LLM(n_ctx=256, max_tokens=400) as model:
        with pytest.raises(sg.IncompleteOutputError, match="context window filled") as info:
            # counting is no loop (each number differs): it runs until the context is full
            model.generate(Numbers, "Count from 1 to 300: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and so on.")
        assert info.value.text
        assert model.generate(Name, "Name: Ann").name

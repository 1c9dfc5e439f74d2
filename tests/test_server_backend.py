"""The HTTP backend against a real llama.cpp server (llama-server) on the default model.

The server comes from ``tests/server_support.py``.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

import structgen as sg
from structgen._errors import BackendError, GrammarError, IncompleteOutputError
from structgen._backends._seam import Completion, CompletionRequest, Message
from structgen.backends import ScoreRequest, ScoringBackend
from tests.server_support import free_port as _free_port, running_server as _running_server

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parents[1]


class City(BaseModel):
    city: str
    country: str


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with _running_server("-c", "2048", "-np", "1") as (url, _):
        yield url


@pytest.fixture(scope="module")
def remote(server_url: str) -> sg.LLM:
    return sg.LLM.from_backend(sg.LlamaServerBackend(server_url), max_tokens=120, max_retries=0)


def test_generate_through_the_server(remote: sg.LLM) -> None:
    result = remote.run(City, "Extract the place: I flew to Lisbon, the capital of Portugal.")
    assert result.value == City(city="Lisbon", country="Portugal")
    assert json.loads(result.text) == result.value.model_dump()
    usage = result.usage
    assert usage.prompt_tokens > 10 and usage.sampled_tokens > 0 and usage.model_seconds > 0
    assert 0 < usage.prompt_seconds < usage.model_seconds  # the server's own timings
    # The same messages again: the server reuses the cached prompt.
    again = remote.run(City, "Extract the place: I flew to Lisbon, the capital of Portugal.")
    assert again.text == result.text and again.usage.cached_prompt_tokens > 0


def test_every_output_kind_and_streaming(remote: sg.LLM) -> None:
    assert remote.generate(int, "Extract the year: 'The war ended in 1945.'") == 1945
    assert remote.generate(bool, "Is water wet? Answer true or false.") in (True, False)
    parts = list(remote.stream(list[str], "List three colours of the French flag."))
    assert isinstance(parts[-1], list) and all(isinstance(c, str) for c in parts[-1])


def test_truncation_is_typed(remote: sg.LLM) -> None:
    with pytest.raises(IncompleteOutputError) as caught:
        remote.generate(City, "Extract the place: Lisbon, Portugal.", max_tokens=3)
    assert caught.value.text and caught.value.usage.sampled_tokens == 3


def test_server_errors_are_translated(server_url: str) -> None:
    backend = sg.LlamaServerBackend(server_url)
    bad = CompletionRequest(messages=(sg.Message("user", "hi"),), gbnf='root ::= ("a"')
    with pytest.raises(GrammarError, match="grammar"):
        list(backend.complete(bad))
    renamed = CompletionRequest(messages=(sg.Message("user", "Say yes."),),
                                   gbnf='answer ::= "yes"\n', root="answer")
    assert "".join(e.text for e in backend.complete(renamed) if isinstance(e, sg.TextDelta)) == "yes"
    gone = sg.LlamaServerBackend(f"http://127.0.0.1:{_free_port()}", timeout=5)
    with pytest.raises(BackendError, match="cannot reach"):
        list(gone.complete(bad))
    with pytest.raises(ValueError):
        sg.LlamaServerBackend("localhost:8080")


def test_the_example_runs(server_url: str) -> None:
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "server_backend.py"), server_url],
                         check=True, capture_output=True, text=True, timeout=120)
    assert "City(city='Lisbon', country='Portugal')" in out.stdout


def test_tool_calls_through_the_server(remote: sg.LLM) -> None:
    def get_weather(city: str) -> str:
        """Get the current weather in a city."""
        return f"sunny in {city}"

    turn = remote.call_tools("What is the weather in Paris?", [get_weather])
    assert [c.name for c in turn.calls] == ["get_weather"] and turn.calls[0].arguments.city == "Paris"
    text = remote.call_tools("What is the weather in Paris?", [get_weather], tool_choice="none")
    assert text.calls == [] and text.text


def test_a_named_value_through_the_server(remote: sg.LLM) -> None:
    """The value the request names is the call grammar's only one there, on a backend that
    cannot score the listed values as whole alternatives."""

    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
        """Current weather in a city."""
        return f"sunny in {city}"

    turn = remote.call_tools("What's the temperature in Boston in fahrenheit?", [get_weather])
    assert [(c.name, c.arguments.model_dump()) for c in turn.calls] == [
        ("get_weather", {"city": "Boston", "unit": "fahrenheit"})]


def test_decisions_through_the_server(remote: sg.LLM) -> None:
    """The server scores given text, so the default decision weighs the model's judgement of
    each tool there as in-process."""
    from tests.support.tool_requests import TOOLS

    assert isinstance(remote.backend, ScoringBackend)
    turn = remote.call_tools("Will it rain in Lisbon tomorrow?", TOOLS)
    assert [c.name for c in turn.calls][:1] == ["get_forecast"] and turn.calls[0].arguments.city == "Lisbon"
    assert remote.call_tools("Hi! How are you today?", TOOLS).calls == []


def test_the_server_scores_text_as_the_in_process_backend_does(remote: sg.LLM) -> None:
    """The same tokens, each with its probability before sampling: the server's one-token
    steps and the in-process batch differ only in rounding."""
    from tests.support.tool_requests import TOOLS
    from structgen._tools.policy._gate import channel_scores
    from structgen._tools._tool import as_tools

    request = ScoreRequest("The get forecast tool: Weather forecast for a city. A user asks:",
                              (" Will it rain in Paris tomorrow?", " Play some jazz.", ""))
    # "Find me a ride from Hanoi": characters split over several tokens.
    split = ScoreRequest(request.context, (" T\u00ecm chuy\u1ebfn xe cho t\u00f4i t\u1eeb H\u00e0 N\u1ed9i",))
    local = sg.LlamaCppBackend.load(None, n_threads=1)
    try:
        here = local.score(request)
        here_split = local.score(split)
        tools = as_tools(TOOLS)
        judged_here = channel_scores(local, "Is it going to pour in Oslo tomorrow?", tools)
    finally:
        local.close()
    there = remote.backend.score(request)  # type: ignore[attr-defined]
    assert [s.tokens for s in there] == [s.tokens for s in here] == [7, 4, 0]
    assert all(abs(a.per_token - b.per_token) < 0.1 for a, b in zip(here, there)), (here, there)
    assert there[0].per_token > there[1].per_token
    # Characters split over several tokens: the server reports only the token that completes
    # one, so such a text scores a little higher there (the same text after every context).
    (vietnamese,) = remote.backend.score(split)  # type: ignore[attr-defined]
    (reference,) = here_split
    assert vietnamese.tokens == reference.tokens and 0 <= vietnamese.per_token - reference.per_token < 0.6
    judged_there = channel_scores(remote.backend, "Is it going to pour in Oslo tomorrow?", tools)
    assert judged_here is not None and judged_there is not None
    assert max(range(len(tools)), key=judged_there.__getitem__) == max(range(len(tools)), key=judged_here.__getitem__)
    assert tools[max(range(len(tools)), key=judged_there.__getitem__)].name == "get_forecast"


def test_lazy_grammar_through_the_server(remote: sg.LLM) -> None:
    """The server's own lazy sampler: free text until the first "e", then the grammar."""
    request = CompletionRequest(
        messages=(Message("user", "Describe the sea in one sentence."),),
        gbnf='root ::= "e" [a-z]{0,5} "!"', max_tokens=60, triggers=("e",),
    )
    completion = list(remote.backend.complete(request))[-1]
    assert isinstance(completion, Completion) and completion.finish_reason == "stop"
    text = completion.text
    assert "e" in text and "e" not in text[: text.index("e")]
    assert re.fullmatch(r"e[a-z]{0,5}!", text[text.index("e") :]), text


# -- the OpenAI-compatible endpoint of the same server ----------------------------------------

KEY = "sk-local-3b9e61c2"
LISBON = "Extract the place: I flew to Lisbon, the capital of Portugal."


class Trip(BaseModel):
    origin: str
    destination: str


@pytest.fixture(scope="module")
def openai_remote(server_url: str) -> sg.LLM:
    backend = sg.OpenAICompatibleBackend(server_url, engine="llama-server")
    return sg.LLM.from_backend(backend, max_tokens=120, max_retries=0)


class ServerRendered(sg.OpenAICompatibleBackend):
    """The path of a llama-server that tells no chat template: the server renders the messages
    (``/v1/chat/completions``)."""

    def _prompt_template(self) -> Any:
        return None


def test_generate_through_the_v1_endpoints(openai_remote: sg.LLM, remote: sg.LLM, server_url: str) -> None:
    result = openai_remote.run(City, LISBON)
    assert result.value == City(city="Lisbon", country="Portugal")
    # The same template, grammar and greedy sampling as /completion: the same answer, through
    # /v1/completions (the prompt rendered here) and through /v1/chat/completions.
    assert result.text == remote.run(City, LISBON).text
    chat = sg.LLM.from_backend(ServerRendered(server_url), max_tokens=120, max_retries=0)
    assert chat.run(City, LISBON).text == result.text
    usage = result.usage
    assert usage.prompt_tokens > 10 and usage.sampled_tokens > 0 and usage.model_seconds > 0
    again = openai_remote.run(City, LISBON)
    assert again.text == result.text and again.usage.cached_prompt_tokens > 0


def test_stream_through_the_v1_endpoint(openai_remote: sg.LLM) -> None:
    parts = list(openai_remote.stream(Trip, "Plan a trip from Paris to Rome."))
    assert len(parts) >= 2 and isinstance(parts[-1], Trip)
    assert parts[0].model_fields_set == {"origin"}  # a partial: the first field alone
    assert openai_remote.generate(int, "Extract the year: 'The war ended in 1945.'") == 1945


@pytest.mark.parametrize("kind", ["completion", "v1", "chat"])
async def test_concurrent_agenerate_on_one_server(kind: str, server_url: str) -> None:
    """Several tasks share one backend: each gets its own answer (the one generate gives), and
    no thread is started — the requests are asyncio I/O on the pooled client."""
    backends = {"completion": sg.LlamaServerBackend, "v1": sg.OpenAICompatibleBackend, "chat": ServerRendered}
    backend: Any = backends[kind](server_url)
    llm = sg.LLM.from_backend(backend, max_tokens=60, max_retries=0)
    places = ["Paris, France", "Rome, Italy", "Oslo, Norway"]
    prompts = [f"Extract the place: I flew to {p}." for p in places]
    threads = threading.active_count()
    cities = await asyncio.gather(*(llm.agenerate(City, p) for p in prompts))
    assert threading.active_count() == threads
    assert cities == [llm.generate(City, p) for p in prompts]
    parts = [p async for p in llm.astream(Trip, "Plan a trip from Paris to Rome.")]
    assert parts[-1] == llm.generate(Trip, "Plan a trip from Paris to Rome.")
    await backend.aclose()


def test_tool_calls_through_the_v1_endpoint(openai_remote: sg.LLM) -> None:
    def get_weather(city: str) -> str:
        """Get the current weather in a city."""
        return f"sunny in {city}"

    turn = openai_remote.call_tools("What is the weather in Paris?", [get_weather])
    assert [c.name for c in turn.calls] == ["get_weather"] and turn.calls[0].arguments.city == "Paris"


@pytest.mark.parametrize(("kind", "path"), [("v1", "/v1/completions"), ("chat", "/v1/chat/completions")])
def test_the_v1_endpoints_translate_errors(server_url: str, kind: str, path: str) -> None:
    backend = sg.OpenAICompatibleBackend(server_url) if kind == "v1" else ServerRendered(server_url)
    bad = CompletionRequest(messages=(sg.Message("user", "hi"),), gbnf='root ::= ("a"')
    with pytest.raises(GrammarError, match="rejected the grammar") as caught:
        list(backend.complete(bad))
    cause = caught.value.__cause__
    assert isinstance(cause, BackendError) and cause.status == 400
    assert cause.url == f"{server_url}{path}"
    renamed = CompletionRequest(messages=(sg.Message("user", "Say yes."),),
                                   gbnf='answer ::= "yes"\n', root="answer")
    assert "".join(e.text for e in backend.complete(renamed) if isinstance(e, sg.TextDelta)) == "yes"


def test_an_api_key_and_a_server_that_dies_mid_stream() -> None:
    """A server started with --api-key: the key opens it, a wrong one is a 401 that does not
    show the key; then the server is killed while it streams an answer."""
    with _running_server("-c", "512", "-np", "1", "--api-key", KEY) as (url, process):
        keyed = sg.LLM.from_backend(sg.OpenAICompatibleBackend(url, api_key=KEY), max_tokens=20)
        assert keyed.generate(int, "Extract the year: 'The war ended in 1945.'") == 1945
        assert sg.LLM.from_backend(sg.LlamaServerBackend(url, api_key=KEY)).generate(bool, "Is ice cold?") in (True, False)
        wrong = "sk-wrong-77aa"
        with pytest.raises(BackendError) as caught:
            sg.LLM.from_backend(sg.OpenAICompatibleBackend(url, api_key=wrong)).generate(int, "A number?")
        assert caught.value.status == 401 and wrong not in str(caught.value) and KEY not in str(caught.value)

        long = CompletionRequest(messages=(sg.Message("user", "Describe the sea."),),
                                    gbnf='root ::= [a-z ]{300}', max_tokens=300)
        events = sg.OpenAICompatibleBackend(url, api_key=KEY, retries=0).complete(long)
        assert isinstance(next(events), sg.TextDelta)
        process.kill()
        process.wait(timeout=10)
        with pytest.raises(BackendError, match="broke off") as died:
            for _ in events:
                pass
        assert died.value.url == f"{url}/v1/completions" and KEY not in str(died.value)

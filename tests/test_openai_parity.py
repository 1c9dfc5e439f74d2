"""One behaviour per model, whatever the backend: ``OpenAICompatibleBackend`` on llama-server's
``/v1`` gives the same answers and calls as ``LlamaServerBackend`` on the same server, with the
same tool policy, on the tool-trained Qwen2.5-Coder-0.5B (issue #61).

One real llama-server (``tests/server_support.py``) with its host-memory prompt cache off and a
short unrelated completion before each call, so that both backends find the server in the same
state (llama.cpp's numbers for a prompt evaluated in other batches are not bit-identical, and
a greedy answer can turn where two tokens are nearly tied). The larger sample is
``python -m bench.suites.backend_parity``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import structgen as sg
from structgen._backends._seam import Message
from structgen._backends.server._chat_template import KnownTemplate, PromptTemplate
from structgen._tools._tool import as_tools
from tests.server_support import running_server, tool_model_path

pytestmark = pytest.mark.model


class Person(BaseModel):
    name: str
    age: int
    city: str


class Meeting(BaseModel):
    title: str
    attendees: list[str]


def get_weather(city: str) -> str:
    """Get the current weather in a city."""
    return f"sunny in {city}"


def get_time(timezone: str) -> str:
    """Get the current time in a timezone (an IANA name such as Europe/Paris)."""
    return "12:00"


def convert_currency(amount: float, source: str, target: str) -> float:
    """Convert an amount of money from one currency to another (ISO codes)."""
    return amount


TOOLS = [get_weather, get_time, convert_currency]


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with running_server("--jinja", "-c", "4096", "-np", "1", "--cache-ram", "0", model=tool_model_path()) as (url, _):
        yield url


@pytest.fixture(scope="module")
def both(server_url: str) -> dict[str, sg.LLM]:
    backends: dict[str, Any] = {"llama-server": sg.LlamaServerBackend(server_url),
                                "openai": sg.OpenAICompatibleBackend(server_url + "/v1", engine="llama-server")}
    return {name: sg.LLM.from_backend(b, max_tokens=200, max_retries=0) for name, b in backends.items()}


def _fresh(url: str) -> None:
    httpx.post(url + "/completion", json={"prompt": "Flush.", "n_predict": 1}, timeout=60)


def test_the_same_template_policy_and_format(both: dict[str, sg.LLM]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the server tells its template: nothing is assumed
        policies = {name: llm.tool_policy for name, llm in both.items()}
    assert policies == {"llama-server": "tool-trained", "openai": "tool-trained"}
    openai = both["openai"].backend
    assert isinstance(openai, sg.OpenAICompatibleBackend)
    assert openai.template_source == "GET /props" and openai.chat_template_source == "server"
    assert openai.chat_template == both["llama-server"].backend.chat_template  # type: ignore[attr-defined]


def test_the_prompt_rendered_here_is_the_servers_own(server_url: str, both: dict[str, sg.LLM]) -> None:
    """The text ``/v1/completions`` is sent is the text ``/apply-template`` gives, with tools,
    a call and its result in the conversation."""
    props = httpx.get(server_url + "/props").json()
    template = PromptTemplate(KnownTemplate(props["chat_template"], "server", "GET /props",
                                            props["bos_token"], props["eos_token"]))
    tools = [t.to_openai() for t in as_tools(TOOLS)]
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
    conversations = [
        [Message("user", "Hi <there> & 'you'")],
        [Message("system", "Be brief."), Message("user", "What's the weather in Paris?")],
        [Message("user", "Weather in Paris?"), Message("assistant", "", (call,)),
         Message("tool", "sunny", tool_call_id="c1", name="get_weather")],
    ]
    for messages in conversations:
        for given in ((), tools):
            body: dict[str, Any] = {"messages": [m.as_dict() for m in messages]}
            if given:
                body["tools"] = list(given)
            served = httpx.post(server_url + "/apply-template", json=body).json()["prompt"]
            assert template.text(messages, given) == served


TYPED: list[tuple[Any, str]] = [
    (Person, "Extract the person: Maria Garcia (38) lives in Madrid."),
    (Meeting, "Extract the meeting: Budget review with Alice, Bob and Chen."),
    (int, "Extract the year: 'The war ended in 1945.'"),
]


@pytest.mark.parametrize(("output_type", "prompt"), TYPED, ids=["person", "meeting", "year"])
def test_typed_answers_are_the_same(server_url: str, both: dict[str, sg.LLM], output_type: Any, prompt: str) -> None:
    texts = {}
    for name, llm in both.items():
        _fresh(server_url)
        result = llm.run(output_type, prompt)
        texts[name] = (result.text, result.usage.prompt_tokens, result.usage.sampled_tokens)
    assert texts["openai"] == texts["llama-server"]


REQUESTS = [
    "What's the weather in Lisbon right now?",
    "How much is 120 US dollars in euros?",
    "What time is it in Tokyo, and what's the weather in Rome?",
    "Write a haiku about autumn.",
]


@pytest.mark.parametrize("request_text", REQUESTS, ids=["weather", "currency", "two-calls", "no-tool"])
def test_tool_calls_are_the_same(server_url: str, both: dict[str, sg.LLM], request_text: str) -> None:
    turns = {}
    for name, llm in both.items():
        _fresh(server_url)
        turn = llm.call_tools(request_text, TOOLS)
        turns[name] = ([(c.name, json.dumps(c.arguments.model_dump())) for c in turn.calls], turn.text)
    assert turns["openai"] == turns["llama-server"]


def test_a_forced_special_token_is_the_models_token_on_the_server(both: dict[str, sg.LLM], server_url: str) -> None:
    """Qwen's ``<tool_call>`` is one token of its vocabulary; a literal in a grammar lets
    llama.cpp's sampler spell it only character by character. The servers are sent it as the
    token (as forced text is tokenized in process), and answer with its text."""
    from structgen._backends._seam import Completion, CompletionRequest
    from structgen._backends.server._llama_server import token_spelled
    from structgen._resume import finish

    request = CompletionRequest(
        messages=(Message("user", "Weather in Paris?"),), max_tokens=12,
        gbnf='root ::= "<tool_call>\\n{\\"name\\": \\"get_weather\\"" [^\\n]* "<b>"?\n')
    backend: Any = both["llama-server"].backend
    known: dict[str, int | None] = {}
    grammar = finish(backend._http.run(token_spelled(backend._http, request, known)))
    assert grammar.startswith('root ::= (<[') and known["<b>"] is None  # "<b>" is text in this vocabulary
    assert isinstance(known["<tool_call>"], int)
    for llm in both.values():
        completion = [e for e in llm.backend.complete(request) if isinstance(e, Completion)][-1]
        assert completion.text.startswith('<tool_call>\n{"name": "get_weather"'), completion.text

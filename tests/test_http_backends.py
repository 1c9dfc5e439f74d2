"""The HTTP backends' own control flow, without a model: request bodies per engine, retries,
errors, key redaction and concurrency.

The servers here are ``httpx.MockTransport`` handlers (what a server would answer) and, where
the failure is the network's, real sockets on 127.0.0.1: a port nobody listens on, a socket that
accepts and never answers, and one that dies in the middle of a stream. The same backends
against a real llama-server are tested in ``test_server_backend.py``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, field_validator

import structgen as sg
from structgen._errors import BackendError, GrammarError
from structgen.backends import Backend, Completion, CompletionRequest, ScoreRequest, ScoringBackend

# A server that tells no chat template gets a warning, once per backend: asserted where it matters.
pytestmark = pytest.mark.filterwarnings("ignore:.*the model's chat template is not known:UserWarning")

KEY = "sk-test-5f1d0c9a7e"
GBNF = 'root ::= "{" ws "\\"city\\"" ws ":" ws "\\"" [A-Za-z]+ "\\"" ws "}"\nws ::= [ ]?\n'
ANSWER = '{"city": "Lisbon"}'


class City(BaseModel):
    city: str


Handler = Callable[[httpx.Request], httpx.Response]


def _request(**changes: Any) -> CompletionRequest:
    fields: dict[str, Any] = {"messages": (sg.Message("user", "Where?"),), "gbnf": GBNF, **changes}
    return CompletionRequest(**fields)


def _sse(*events: Any, done: bool = True) -> bytes:
    lines = [f"data: {json.dumps(e) if not isinstance(e, str) else e}\n\n" for e in events]
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def _chat_stream(text: str, *, finish: str | None = "stop", usage: bool = True) -> bytes:
    """What an OpenAI-compatible server streams: content deltas, the finish, the usage."""
    chunks: list[Any] = [{"choices": [{"index": 0, "delta": {"content": part}, "finish_reason": None}]}
                         for part in (text[:5], text[5:])]
    if finish is not None:
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if usage:
        chunks.append({"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 7,
                                                 "prompt_tokens_details": {"cached_tokens": 12}}})
    return _sse(*chunks)


def _answering(text: str = ANSWER, seen: list[httpx.Request] | None = None, **options: Any) -> Handler:
    def handle(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        return httpx.Response(200, content=_chat_stream(text, **options),
                              headers={"Content-Type": "text/event-stream"})
    return handle


def _openai(handler: Handler, **options: Any) -> sg.OpenAICompatibleBackend:
    """A backend on a server answering ``handler``, which tells no chat template (``GET``s are
    404s: the template's own tests are below)."""
    mock = httpx.MockTransport(_no_template(handler))
    return sg.OpenAICompatibleBackend("http://engine.test:8000", transport=mock, async_transport=mock, **options)


def _no_template(handler: Handler) -> Handler:
    return lambda request: httpx.Response(404) if request.method == "GET" else handler(request)


def _llama(handler: Handler, **options: Any) -> sg.LlamaServerBackend:
    mock = httpx.MockTransport(handler)
    return sg.LlamaServerBackend("http://llama.test:8080", transport=mock, async_transport=mock, **options)


def _body(request: httpx.Request) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(request.content)
    return body


# -- request bodies ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "field"),
    [
        ("llama-server", lambda b: b["grammar"]),
        ("vllm", lambda b: b["structured_outputs"]["grammar"]),
        ("vllm-legacy", lambda b: b["guided_grammar"]),
        ("sglang", lambda b: b["ebnf"]),
    ],
)
def test_each_engine_gets_the_grammar_in_its_own_field(engine: str, field: Callable[[dict[str, Any]], str]) -> None:
    seen: list[httpx.Request] = []
    backend = _openai(_answering(seen=seen), engine=engine, model="served-model")  # type: ignore[arg-type]
    llm = sg.LLM.from_backend(backend, max_retries=0)
    result = llm.run(City, "Where did I fly?", temperature=0.5, top_k=0, seed=7)
    assert result.value == City(city="Lisbon")
    body = _body(seen[0])
    assert seen[0].url == "http://engine.test:8000/v1/chat/completions"
    grammar = field(body)
    assert "root ::=" in grammar and grammar.count("::=") > 3  # the City grammar, whole
    assert len({"grammar", "structured_outputs", "guided_grammar", "ebnf"} & body.keys()) == 1
    assert body["model"] == "served-model" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"][-1] == {"role": "user", "content": "Where did I fly?"}
    assert body["temperature"] == 0.5 and body["seed"] == 7 and body["max_tokens"] == 512
    # top_k=0 means "off": llama-server reads 0 so, the others are not sent a value at all.
    assert ("top_k" in body) == (engine == "llama-server")
    usage = result.usage
    assert (usage.prompt_tokens, usage.cached_prompt_tokens, usage.sampled_tokens) == (20, 12, 7)


def test_a_start_rule_other_than_root_is_aliased_and_a_model_is_optional() -> None:
    seen: list[httpx.Request] = []
    backend = _openai(_answering("yes", seen=seen), engine="sglang")
    events = list(backend.complete(_request(gbnf='answer ::= "yes"\n', root="answer")))
    assert events[-1] == Completion("yes", "stop", events[-1].usage)  # type: ignore[union-attr]
    body = _body(seen[0])
    assert body["ebnf"] == 'root ::= answer\nanswer ::= "yes"\n' and "model" not in body
    with pytest.raises(BackendError, match="defines a 'root'"):
        list(backend.complete(_request(gbnf='root ::= "x"\nanswer ::= root\n', root="answer")))


def test_base_url_may_end_in_v1_and_bad_arguments_are_refused() -> None:
    seen: list[httpx.Request] = []
    mock = httpx.MockTransport(_no_template(_answering(seen=seen)))
    backend = sg.OpenAICompatibleBackend("http://engine.test:8000/v1/", transport=mock)
    list(backend.complete(_request()))
    assert str(seen[0].url) == "http://engine.test:8000/v1/chat/completions"
    with pytest.raises(ValueError, match="engine"):
        sg.OpenAICompatibleBackend("http://x", engine="tgi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="http"):
        sg.OpenAICompatibleBackend("engine.test:8000")
    with pytest.raises(ValueError, match="retries"):
        sg.OpenAICompatibleBackend("http://x", retries=-1)
    with pytest.raises(ValueError, match="timeout"):
        sg.LlamaServerBackend("http://x", timeout=0)


def test_tools_go_to_the_template_only_and_lazy_grammars_need_the_template_known() -> None:
    """A server that tells no chat template renders the prompt itself (chat completions), where
    no field takes a lazy grammar (test_openai_backend.py: with the template known)."""
    seen: list[httpx.Request] = []
    backend = _openai(_answering(seen=seen))
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    list(backend.complete(_request(tools=(tool,))))
    body = _body(seen[0])
    assert body["tools"] == [tool] and body["tool_choice"] == "none"  # llama-server: no grammar with tool_choice
    with pytest.raises(BackendError, match="lazy grammar .* pass chat_template="):
        list(backend.complete(_request(triggers=("{",))))
    assert len(seen) == 1


# -- the API key ---------------------------------------------------------------------------


def test_the_key_is_sent_only_in_the_authorization_header(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[httpx.Request] = []
    backend = _openai(_answering(seen=seen), api_key=KEY, engine="vllm")
    with caplog.at_level(logging.DEBUG):
        list(backend.complete(_request()))
    request = seen[0]
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert KEY not in str(request.url) and KEY.encode() not in request.content
    assert KEY not in repr(backend) and "api_key=***" in repr(backend)
    assert KEY not in caplog.text


def test_the_key_never_appears_in_an_error() -> None:
    """A server that echoes the key back (some proxies do) has it blanked out."""

    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"message": f"invalid key {request.headers['Authorization']}"}})

    backend = _openai(echo, api_key=KEY)
    with pytest.raises(BackendError) as caught:
        list(backend.complete(_request()))
    error = caught.value
    assert error.status == 401 and error.url == "http://engine.test:8000/v1/chat/completions"
    shown = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    assert "invalid key Bearer ***" in str(error)
    assert KEY not in shown and KEY not in repr(error)


def test_credentials_in_the_url_are_not_shown() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, text="boom")

    mock = httpx.MockTransport(refuse)
    backend = sg.LlamaServerBackend("http://user:secret@llama.test:8080", transport=mock)
    with pytest.raises(BackendError) as caught:
        list(backend.complete(_request()))
    assert "secret" not in str(caught.value) and "secret" not in repr(backend)
    assert caught.value.url == "http://llama.test:8080/apply-template" and caught.value.status == 500


# -- HTTP errors, broken streams, wrong answers ----------------------------------------------


@pytest.mark.parametrize(
    ("status", "reply", "message"),
    [
        (400, {"error": {"code": 400, "message": "messages must not be empty", "type": "invalid_request_error"}},
         "messages must not be empty"),  # OpenAI's and llama-server's shape
        (404, {"object": "error", "message": "The model `m` does not exist.", "code": 404}, "does not exist"),  # vLLM
        (422, {"detail": [{"loc": ["body", "messages"], "msg": "field required"}]}, "field required"),  # FastAPI
        (502, "Bad Gateway", "Bad Gateway"),  # a balancer's plain text
    ],
)
def test_http_errors_carry_the_servers_message_url_and_status(status: int, reply: Any, message: str) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        if isinstance(reply, str):
            return httpx.Response(status, text=reply)
        return httpx.Response(status, json=reply)

    with pytest.raises(BackendError, match=message) as caught:
        list(_openai(fail).complete(_request()))
    assert caught.value.status == status and caught.value.url == "http://engine.test:8000/v1/chat/completions"
    assert f"HTTP {status}" in str(caught.value)


@pytest.mark.parametrize("backend_of", [_openai, _llama])
def test_a_grammar_the_server_refuses_is_a_grammar_error(backend_of: Callable[..., Any]) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/apply-template":
            return httpx.Response(200, json={"prompt": "<user>Where?</user>"})
        return httpx.Response(400, json={"error": {"code": 400, "message": "Failed to parse grammar"}})

    with pytest.raises(GrammarError, match="rejected the grammar") as caught:
        list(backend_of(refuse).complete(_request()))
    cause = caught.value.__cause__
    assert isinstance(cause, BackendError) and cause.status == 400 and cause.url is not None


def test_an_error_event_in_the_stream_is_a_backend_error() -> None:
    def fail_midway(request: httpx.Request) -> httpx.Response:
        content = _sse({"choices": [{"index": 0, "delta": {"content": '{"ci'}}]},
                       {"error": {"code": 500, "message": "slot crashed", "type": "server_error"}})
        return httpx.Response(200, content=content)

    with pytest.raises(BackendError, match="slot crashed") as caught:
        list(_openai(fail_midway).complete(_request()))
    assert caught.value.status == 500


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (_chat_stream(ANSWER, finish=None), "before the final chunk"),
        (_chat_stream(ANSWER, finish=None, usage=False)[:-len("data: [DONE]\n\n")], "before the final chunk"),
        (_sse({"choices": [{"index": 0, "delta": {"content": '{"ci'}}]}, '{"choices": [{"ind'), "malformed event"),
        (_sse([1, 2]), "not a JSON object"),
        (_chat_stream(ANSWER, finish="abort"), "finish_reason 'abort'"),
    ],
)
def test_broken_streams_are_backend_errors(content: bytes, message: str) -> None:
    backend = _openai(lambda request: httpx.Response(200, content=content))
    with pytest.raises(BackendError, match=message) as caught:
        list(backend.complete(_request()))
    assert caught.value.url == "http://engine.test:8000/v1/chat/completions" and caught.value.status == 200


def test_a_llama_server_stream_without_its_final_event_is_an_error() -> None:
    def cut(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/apply-template":
            return httpx.Response(200, json={"prompt": "p"})
        return httpx.Response(200, content=_sse({"content": '{"city"', "stop": False}))

    with pytest.raises(BackendError, match="before the final event"):
        list(_llama(cut).complete(_request()))


def test_an_answer_the_grammar_does_not_allow_is_an_error() -> None:
    """A server that ignored the grammar field (an engine that reads another one)."""
    backend = _openai(_answering("Lisbon, of course!"), engine="vllm")
    with pytest.raises(BackendError, match="grammar does not allow") as caught:
        list(backend.complete(_request()))
    assert "from character 0" in str(caught.value) and caught.value.status == 200
    # A "length" answer only has to be the start of one.
    cut = list(_openai(_answering('{"city": "Lis', finish="length")).complete(_request()))
    assert cut[-1].finish_reason == "length"  # type: ignore[union-attr]
    with pytest.raises(BackendError, match="grammar does not allow"):
        list(_openai(_answering('{"town"', finish="length")).complete(_request()))


# -- scoring text through llama-server --------------------------------------------------------


def _scoring_server(pieces: list[tuple[int, Any]], generated: list[bytes], *, grammar_error: bool = False,
                    seen: list[dict[str, Any]] | None = None) -> sg.LlamaServerBackend:
    """A llama-server that tokenizes every text into ``pieces`` (id, piece: text, or a list of
    bytes for part of a character) and generates tokens spelling ``generated``."""

    def handle(request: httpx.Request) -> httpx.Response:
        body = _body(request)
        if seen is not None:
            seen.append({"path": request.url.path, **body})
        if request.url.path == "/tokenize":
            return httpx.Response(200, json={"tokens": [{"id": i, "piece": p} for i, p in pieces]})
        if grammar_error:
            return httpx.Response(400, json={"error": {"code": 400, "message": "failed to parse grammar"}})
        steps = [{"id": 1, "bytes": list(b), "logprob": -0.5} for b in generated]
        return httpx.Response(200, json={"content": "x", "completion_probabilities": [
            *steps, {"id": 0, "bytes": [], "logprob": -3.0}]})  # then the end of generation

    return _llama(handle)


def test_the_server_scores_text_by_the_tokens_it_forces() -> None:
    seen: list[dict[str, Any]] = []
    backend = _scoring_server([(11, " Will"), (12, " it"), (13, " rain")], [b" Will", b" it", b" rain"], seen=seen)
    assert isinstance(backend, ScoringBackend)
    scores = backend.score(ScoreRequest("A user asks:", (" Will it rain", "")))
    assert [(s.logprob, s.tokens) for s in scores] == [(-1.5, 3), (0.0, 0)]
    assert [r["path"] for r in seen] == ["/tokenize", "/completion"]  # nothing sent for ""
    assert seen[0]["add_special"] is False and seen[0]["with_pieces"] is True
    completion = seen[1]
    assert completion["grammar"] == "root ::= <[11]> <[12]> <[13]>"
    assert completion["prompt"] == "A user asks:" and completion["n_probs"] == 1


def test_tokens_that_hold_part_of_a_character_are_spelled_as_text() -> None:
    """llama.cpp cannot hold a grammar to such a token by its id; the server reports the token
    that completes the character with its bytes."""
    seen: list[dict[str, Any]] = []
    ecircumflex = "\u1ebf".encode()  # three bytes, two tokens
    backend = _scoring_server([(410, " ch"), (31604, list(ecircumflex[:2])), (140, list(ecircumflex[2:])), (94, "n")],
                              [b" ch", ecircumflex, b"n"], seen=seen)
    (score,) = backend.score(ScoreRequest("A user asks:", (" ch\u1ebfn",)))
    assert (score.logprob, score.tokens) == (-1.5, 4)
    assert seen[1]["grammar"] == 'root ::= <[410]> "\u1ebf" <[94]>'


def test_a_server_that_cannot_score_says_so() -> None:
    request = ScoreRequest("A user asks:", (" Hi",))
    with pytest.raises(BackendError, match="token syntax") as caught:
        _scoring_server([(7, " Hi")], [b" Hi"], grammar_error=True).score(request)
    assert isinstance(caught.value.__cause__, GrammarError) and caught.value.url.endswith("/completion")
    with pytest.raises(BackendError, match="did not generate the text"):
        _scoring_server([(7, " Hi")], [b" Ho!"]).score(request)
    with pytest.raises(BackendError, match="sent no tokens"):
        _scoring_server([], []).score(request)


# -- retries ---------------------------------------------------------------------------------

DRIVERS = ("blocking", "asyncio")


def _run(backend: sg.OpenAICompatibleBackend, driver: str) -> list[Any]:
    """The events of one request, sent through the blocking or the asyncio calls (each has its
    own driver of the one retry policy)."""
    if driver == "blocking":
        return list(backend.complete(_request()))

    async def collect() -> list[Any]:
        try:
            return [event async for event in backend.acomplete(_request())]
        finally:
            await backend.aclose()

    return asyncio.run(collect())


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_503_is_retried_and_other_errors_are_not(driver: str) -> None:
    calls: list[int] = []

    def busy_once(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            return httpx.Response(503, json={"error": {"message": "Loading model"}})
        return _answering()(request)

    assert _run(_openai(busy_once, retries=1), driver)[-1].text == ANSWER
    assert len(calls) == 2
    calls.clear()
    with pytest.raises(BackendError, match="Loading model") as caught:
        _run(_openai(busy_once, retries=0), driver)
    assert caught.value.status == 503 and len(calls) == 1

    def broken(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(500, json={"error": {"message": "internal"}})

    calls.clear()
    with pytest.raises(BackendError, match="internal"):
        _run(_openai(broken, retries=3), driver)
    assert len(calls) == 1  # the server may have run it: not sent twice


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_connection_error_is_retried_then_reported(driver: str) -> None:
    attempts: list[int] = []

    def unreachable(request: httpx.Request) -> httpx.Response:
        attempts.append(1)
        if len(attempts) <= 2:
            raise httpx.ConnectError("connection refused", request=request)
        return _answering()(request)

    assert _run(_openai(unreachable, retries=2), driver)[-1].text == ANSWER
    attempts.clear()
    with pytest.raises(BackendError, match="cannot reach the llama.cpp server .* \\(2 tries\\)") as caught:
        _run(_openai(unreachable, retries=1), driver)
    assert len(attempts) == 2 and caught.value.status is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_connection_refused_by_a_real_socket() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(BackendError, match="cannot reach") as caught:
        list(sg.OpenAICompatibleBackend(url, retries=1).complete(_request()))
    assert caught.value.url == url + "/props" and caught.value.status is None  # the template is asked first
    assert isinstance(caught.value.__cause__, httpx.ConnectError)


def test_a_server_that_never_answers_times_out() -> None:
    with socket.socket() as listener:  # accepts connections (the kernel's backlog), answers nothing
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(BackendError, match="did not answer in time") as caught:
            list(sg.LlamaServerBackend(url, timeout=0.2, retries=0).complete(_request()))
    assert caught.value.status is None and caught.value.url == url + "/apply-template"


@pytest.fixture()
def dying_server() -> Iterator[str]:
    """A server that starts a stream, sends one event and dies (closes the socket mid-body)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)

    def serve() -> None:
        while True:
            connection, _ = listener.accept()
            data = b""
            while b"\r\n\r\n" not in data:
                data += connection.recv(65536)
            if not data.startswith(b"GET"):
                break
            connection.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            connection.close()  # a chat template is asked for first: this server tells none
        with connection:
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            while len(body) < length:
                body += connection.recv(65536)
            event = b'data: {"choices": [{"index": 0, "delta": {"content": "{\\"ci"}}]}\n\n'
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(event) + event + b"\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    thread.join(timeout=10)
    listener.close()


def test_a_server_that_dies_mid_stream(dying_server: str) -> None:
    backend = sg.OpenAICompatibleBackend(dying_server, retries=0)
    events = backend.complete(_request())
    assert next(events) == sg.TextDelta('{"ci')
    with pytest.raises(BackendError, match="broke off") as caught:
        next(events)
    assert caught.value.url == dying_server + "/v1/chat/completions"


async def test_a_server_that_dies_mid_stream_under_asyncio(dying_server: str) -> None:
    llm = sg.LLM.from_backend(sg.OpenAICompatibleBackend(dying_server, retries=0), max_retries=0)
    with pytest.raises(BackendError, match="broke off"):
        await llm.agenerate(City, "Where?")


# -- asyncio -----------------------------------------------------------------------------------

#: The blocking side of a server whose streams are asyncio handlers: it is asked for the chat
#: template (a blocking GET, once), and tells none.
_NONE = httpx.MockTransport(lambda request: httpx.Response(404))


async def test_agenerate_runs_many_requests_at_once_without_threads() -> None:
    """All 24 requests are in flight together (the handler holds each until all came) — more
    than a worker-thread pool would run at once — and no thread is started."""
    arrived: list[str] = []
    everyone = asyncio.Event()

    async def handle(request: httpx.Request) -> httpx.Response:
        arrived.append(_body(request)["messages"][-1]["content"])
        if len(arrived) == 24:
            everyone.set()
        await asyncio.wait_for(everyone.wait(), timeout=30)
        city = _body(request)["messages"][-1]["content"]
        return httpx.Response(200, content=_chat_stream(f'{{"city": "{city}"}}'))

    mock = httpx.MockTransport(handle)
    llm = sg.LLM.from_backend(sg.OpenAICompatibleBackend("http://engine.test", async_transport=mock, transport=_NONE))
    threads = threading.active_count()
    names = [f"City{i}" for i in range(24)]
    cities = await asyncio.gather(*(llm.agenerate(City, name) for name in names))
    assert [c.city for c in cities] == names
    assert threading.active_count() == threads and sorted(arrived) == sorted(names)


async def test_astream_yields_partials_then_the_value_and_stops_early_cleanly() -> None:
    class Trip(BaseModel):
        origin: str
        destination: str

    text = '{"origin": "Paris", "destination": "Rome"}'
    gbnf = sg.Grammar.from_type(Trip).gbnf
    assert gbnf  # the answer below is one the Trip grammar allows
    closed: list[bool] = []

    class Stream(httpx.AsyncByteStream):
        async def __aiter__(self) -> Any:
            for part in (text[:20], text[20:]):
                yield _sse({"choices": [{"index": 0, "delta": {"content": part}}]}, done=False)
            yield _sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})

        async def aclose(self) -> None:
            closed.append(True)

    mock = httpx.MockTransport(lambda request: httpx.Response(200, stream=Stream()))
    llm = sg.LLM.from_backend(sg.OpenAICompatibleBackend("http://engine.test", async_transport=mock, transport=_NONE))
    parts = [p async for p in llm.astream(Trip, "Plan a trip.")]
    assert parts[0] == Trip.model_construct(origin="Paris") and parts[-1] == Trip(origin="Paris", destination="Rome")
    assert llm.last_usage is not None and llm.last_usage.attempts == 1
    closed.clear()
    stream = llm.astream(Trip, "Plan a trip.")
    first = await stream.__anext__()
    assert first == Trip.model_construct(origin="Paris")
    await stream.aclose()  # type: ignore[attr-defined]
    assert closed == [True]


async def test_async_errors_come_from_the_awaiting_call() -> None:
    backend = _openai(lambda request: httpx.Response(400, json={"error": {"message": "bad grammar here"}}))
    llm = sg.LLM.from_backend(backend)
    with pytest.raises(GrammarError):
        await llm.agenerate(City, "Where?")
    wrong = sg.LLM.from_backend(_openai(_answering("no JSON")), max_retries=0)
    with pytest.raises(BackendError, match="grammar does not allow"):
        await wrong.agenerate(City, "Where?")


async def test_a_validator_retry_runs_natively_too() -> None:
    class Capital(BaseModel):
        city: str

        @field_validator("city")
        @classmethod
        def known(cls, value: str) -> str:
            if value != "Rome":
                raise ValueError("not a capital I know")
            return value

    answers = iter(['{"city": "Milan"}', '{"city": "Rome"}'])
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=_chat_stream(next(answers)))

    llm = sg.LLM.from_backend(_openai(handle), max_retries=1)
    assert await llm.agenerate(Capital, "A capital?") == Capital(city="Rome")
    assert len(seen) == 2 and "not a capital I know" in _body(seen[1])["messages"][-1]["content"]
    assert llm.last_usage is not None and llm.last_usage.attempts == 2


def test_the_backends_are_async_backends_and_close_cleanly() -> None:
    from structgen._backends._seam import AsyncBackend

    backend = _openai(_answering())
    assert isinstance(backend, AsyncBackend) and isinstance(backend, Backend)
    assert isinstance(_llama(_answering()), AsyncBackend)
    list(backend.complete(_request()))
    backend.close()
    backend.close()  # twice is harmless
    assert list(backend.complete(_request()))[-1].text == ANSWER  # type: ignore[union-attr]

    async def twice() -> str:
        first = [e async for e in backend.acomplete(_request())]
        await backend.aclose()
        second = [e async for e in backend.acomplete(_request())]
        return first[-1].text + second[-1].text  # type: ignore[union-attr]

    assert asyncio.run(twice()) == ANSWER * 2
    assert asyncio.run(twice()) == ANSWER * 2  # a new event loop gets its own client


async def test_close_inside_a_running_loop_and_use_again() -> None:
    backend = _llama(lambda request: httpx.Response(200, json={"prompt": "p"}) if request.url.path == "/apply-template"
                     else httpx.Response(200, content=_sse({"content": ANSWER, "stop": True, "stop_type": "eos"})))
    llm = sg.LLM.from_backend(backend)
    assert await llm.agenerate(City, "Where?") == City(city="Lisbon")
    llm.close()  # the sync close, from inside the loop: the async client closes on the loop
    await asyncio.sleep(0)
    assert await llm.agenerate(City, "Where?") == City(city="Lisbon")
    await backend.aclose()

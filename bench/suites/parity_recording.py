"""What ``backend_parity --against in-process`` records of each backend (not a suite): every
request a backend is asked, its answer, the prompt text it renders and the tokens it sampled, for
the diagnosis of the cases that differ (``parity_diagnosis``).

- :class:`Recorder` wraps either backend and keeps each request and answer as a :class:`Step`;
- :class:`ServerTokens`, the transport of ``LlamaServerBackend``, keeps the tokens llama-server
  samples and its own top two log-probabilities at each;
- :class:`Model` is the in-process backend's model, chat template and last answer's tokens;
- :func:`served_prompt` is the prompt llama-server renders for a request (``/apply-template``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from structgen.backends import Completion, CompletionRequest, LlamaCppBackend, ScoreRequest, StopGeneration, TextDelta


@dataclass
class Step:
    """One request a backend was asked and its answer.

    A completion: its ``text`` and ``finish`` (``stopped`` when the caller ended it early: then
    each backend's text so far depends on how it streams), the ``prompt`` text the backend
    renders for it (filled in by :meth:`Recorder.taken`), and the answer's ``tokens`` as the
    backend evaluated or sampled them, where known (the in-process backend fast-forwards text the
    grammar forces, split as the tokenizer splits it; a server samples it token by token), with
    the server's own log-probabilities of each (``reported``). A score: each continuation's
    log-likelihood and token count (``scores``).
    """

    kind: Literal["complete", "score"]
    request: CompletionRequest | ScoreRequest
    text: str = ""
    finish: str = ""
    stopped: bool = False
    prompt: str | None = None
    prompt_tokens: int = 0
    tokens: list[int] | None = None
    reported: list[dict[str, Any]] | None = None
    scores: tuple[tuple[float, int], ...] = ()

    def answers_as(self, other: Step) -> bool:
        """Whether two completions answered alike: the same text and finish, or, where the caller
        stopped either, texts one of which begins the other."""
        if self.stopped or other.stopped:
            return self.text.startswith(other.text) or other.text.startswith(self.text)
        return (self.text, self.finish) == (other.text, other.finish)

    def summary(self) -> dict[str, Any]:
        """The step for the results file: hashes of its request (and its grammar and prompt text)
        and its answer."""
        if isinstance(self.request, ScoreRequest):
            return {"kind": "score", "request": digest(repr(self.request)),
                    "per_token": [round(logprob / n, 4) if n else 0.0 for logprob, n in self.scores]}
        return {"kind": "complete", "gbnf": digest(self.request.gbnf), "request": digest(repr(self.request)),
                "prompt": None if self.prompt is None else digest(self.prompt), "finish": self.finish,
                "stopped": self.stopped, "text": self.text[:300]}


def digest(text: str) -> str:
    """A short SHA-256 of ``text``: enough to tell two grammars, prompts or requests of one run apart."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


class Recorder:
    """A backend that asks ``inner`` and keeps each request with its answer (:class:`Step`).
    ``render`` gives the prompt text ``inner`` renders for a completion request; it is asked
    after the case (:meth:`taken`), outside the case's time. ``sampled`` fills in a completion's
    ``tokens`` once it has ended."""

    def __init__(self, inner: Any, render: Callable[[CompletionRequest], str],
                 sampled: Callable[[Step], None] | None = None) -> None:
        self.inner = inner
        self.render = render
        self.sampled = sampled
        self.steps: list[Step] = []

    @property
    def chat_template(self) -> str | None:
        """The inner backend's template: the tool format and the policy follow it."""
        template: str | None = self.inner.chat_template
        return template

    def complete(self, request: CompletionRequest) -> Iterator[Any]:
        step = Step("complete", request)
        self.steps.append(step)
        events = iter(self.inner.complete(request))
        stop: StopGeneration | None = None
        try:
            while True:
                try:
                    event = next(events) if stop is None else _thrown(events, stop)
                except StopIteration:
                    return
                stop = None
                if isinstance(event, TextDelta):
                    step.text += event.text
                elif isinstance(event, Completion):
                    step.text, step.finish = event.text, event.finish_reason
                    step.prompt_tokens = event.usage.prompt_tokens
                try:
                    yield event
                except StopGeneration as caught:  # passed on, as the inner backend would get it
                    step.stopped = True
                    stop = caught
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()
            if self.sampled is not None:
                self.sampled(step)

    def score(self, request: ScoreRequest) -> Any:
        scores = self.inner.score(request)
        self.steps.append(Step("score", request, scores=tuple((s.logprob, s.tokens) for s in scores)))
        return scores

    def close(self) -> None:
        self.inner.close()

    def taken(self) -> list[Step]:
        """The steps since the last call, each completion's prompt rendered."""
        steps, self.steps = self.steps, []
        for step in steps:
            if isinstance(step.request, CompletionRequest):
                step.prompt = self.render(step.request)
        return steps


def _thrown(events: Iterator[Any], stop: StopGeneration) -> Any:
    throw = getattr(events, "throw", None)
    if throw is None:
        raise stop
    return throw(stop)


class ServerTokens(httpx.BaseTransport):
    """The transport of ``LlamaServerBackend(transport=...)`` that asks llama-server, on each
    streamed ``/completion``, for every sampled token's id and its top two log-probabilities
    (``n_probs: 2``, read after sampling: nothing sampled changes, each token costs a softmax
    over the vocabulary more) and keeps them; :meth:`fill` hands them to a recorded step.
    ``inner`` carries the requests (httpx's own transport by default)."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self.inner = inner or httpx.HTTPTransport()
        self.completions: list[list[dict[str, Any]]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != "/completion":
            return self.inner.handle_request(request)
        body = json.loads(request.read())
        if not body.get("stream"):  # a score, which asks for probabilities itself
            return self.inner.handle_request(request)
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        asked = httpx.Request(request.method, request.url, headers=headers, json={**body, "n_probs": 2},
                              extensions=request.extensions)
        response = self.inner.handle_request(asked)
        tokens: list[dict[str, Any]] = []
        self.completions.append(tokens)
        return httpx.Response(response.status_code, headers=response.headers, extensions=response.extensions,
                              stream=_Tapped(response.stream, tokens))

    def fill(self, step: Step) -> None:
        """A :class:`Recorder`'s ``sampled``: the tokens of the completion that just ended (one
        streamed ``/completion`` a step; none where the request never reached the server)."""
        completions, self.completions = self.completions, []
        if completions:
            step.reported = completions[-1]
            step.tokens = [int(t["id"]) for t in step.reported]

    def close(self) -> None:
        self.inner.close()


class _Tapped(httpx.SyncByteStream):
    """A server-sent event stream passed on as it comes, each token's probabilities kept."""

    def __init__(self, stream: Any, tokens: list[dict[str, Any]]) -> None:
        self.stream, self.tokens, self.pending = stream, tokens, b""

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.stream:
            self.pending += chunk
            *lines, self.pending = self.pending.split(b"\n")
            for line in lines:
                if line.startswith(b"data: ") and line[6:].strip() != b"[DONE]":
                    self.tokens += json.loads(line[6:]).get("completion_probabilities") or []
            yield chunk

    def close(self) -> None:
        self.stream.close()


def served_prompt(url: str, request: CompletionRequest, timeout: float) -> str:
    """The prompt llama-server renders for ``request``: ``POST /apply-template`` with its messages
    and tools, as ``LlamaServerBackend`` asks it."""
    body: dict[str, Any] = {"messages": [m.as_dict() for m in request.messages]}
    if request.tools:
        body["tools"] = [dict(t) for t in request.tools]
    reply = httpx.post(url + "/apply-template", json=body, timeout=timeout)
    reply.raise_for_status()
    return str(reply.json()["prompt"])


class Model:
    """The in-process backend's model, on which the numerics of a difference are read: its
    ``llama_cpp.Llama``, its chat template (``LlamaCppBackend.template``, which renders a request's
    prompt text and its tokens as the backend does) and the tokens its last answer left in the
    KV cache (``LlamaCppBackend._runner``; bench/README.md lists both)."""

    def __init__(self, backend: LlamaCppBackend) -> None:
        self.backend = backend
        self.llama = backend.llama

    def render(self, request: CompletionRequest) -> str:
        """The prompt text the in-process backend sends for ``request``."""
        return str(self.backend.template.text(request.messages, request.tools))

    def encode(self, prompt: str) -> list[int]:
        """The tokens of a prompt :meth:`render` gave."""
        return list(self.backend.template.encode(prompt))

    def fill(self, step: Step) -> None:
        """A :class:`Recorder`'s ``sampled``: the answer's tokens as the backend evaluated them
        (all but, at times, the last, which the answer needed no logits after); none where the
        completion ended without an answer (an error)."""
        if step.prompt_tokens:
            step.tokens = list(self.backend._runner.tokens[step.prompt_tokens:])

    def tokens(self, text: bytes) -> list[int]:
        """Answer text as the tokenizer splits it, special tokens read as such (``<tool_call>``)."""
        return list(self.llama.tokenize(text, add_bos=False, special=True))

    def text(self, tokens: list[int]) -> bytes:
        return bytes(self.llama.detokenize(tokens, special=True))

    def piece(self, token: int) -> str:
        return self.text([token]).decode("utf-8", "replace")

    @property
    def end(self) -> int:
        """The token that ends an answer (where one answer stops and the other goes on)."""
        return int(self.llama.token_eos())


def in_process_backend(path: str, n_ctx: int, cache: bool) -> Model:
    """The in-process backend as ``structgen.LLM(path, n_threads=1, n_threads_batch=1, n_ctx=...)``
    loads it, in :class:`Model`; ``prompt_cache_bytes=0`` without ``cache``: each case evaluates
    its whole prompt, as on the server."""
    return Model(LlamaCppBackend.load(path, n_ctx=n_ctx, n_threads=1, n_threads_batch=1,
                                      prompt_cache_bytes=None if cache else 0))


__all__ = ["Model", "Recorder", "ServerTokens", "Step", "digest", "in_process_backend", "served_prompt"]

"""The HTTP backend: a running llama.cpp server (``llama-server``) does the constrained decoding.

The server renders the chat messages with the model's own template (``/apply-template``) and
decodes under the grammar with its native sampler (``/completion``, streamed as server-sent
events). Fast-forwarding, prompt-lookup guesses and likelihood choices are in-process
techniques: a server decodes token by token, and ``choices`` in a request are ignored. A lazy
grammar (``triggers``) becomes the server's own ``grammar_lazy`` and ``grammar_triggers``. A
reasoning section is a completion of its own, without a grammar, bounded by ``n_predict`` and
stopped at its closing marker; the answer then continues the prompt after the marker.

It scores given text (:meth:`LlamaServerBackend.score`, which tool decisions ask for) though the
server reports log-probabilities only of tokens it generates: each continuation is tokenized by
the server (``/tokenize``) and then generated under a grammar of exactly those token ids
(``<[id]>``, llama.cpp's token syntax), with each token's probability before sampling
(``n_probs``). A grammar of the text itself would let the sampler spell it with other tokens.

Errors are translated here, at the seam (see ``_http``): an unreachable server, an HTTP error,
a timeout or a stream that breaks off is a :class:`~structgen.BackendError` with ``url`` and
``status``, a grammar the server cannot parse a :class:`~structgen.GrammarError`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import PurePath
from typing import Any, Protocol

import httpx

from ..._errors import GrammarError
from ..._gbnf._tokens import special_texts, with_tokens
from ..._resume import finish
from .._seam import (
    Completion, CompletionRequest, Event, FinishReason, Reasoning, ReasoningDelta, Score, ScoreRequest, TemplateSource,
    TextDelta, Usage,
)
from .._template_options import checked_template_options
from ._http import DEFAULT_RETRIES, DEFAULT_TIMEOUT, Flow, HttpBackend, HttpSession, Timeout, rooted

_SERVER = "the llama.cpp server"
_TOKEN_SYNTAX = "scoring needs llama.cpp's token syntax in grammars (<[id]>, llama-server from mid-2025 on)"


class LlamaServerBackend(HttpBackend):
    """Runs constrained completions on a llama.cpp server at ``base_url``.

    One pooled HTTP client serves every call, so one backend may be shared by threads and by
    asyncio tasks (``LLM.agenerate`` and ``LLM.astream`` use :meth:`acomplete`: no thread per
    request); the server queues concurrent requests or decodes them in its ``--parallel``
    slots. ``timeout`` (seconds, or an ``httpx.Timeout``) bounds each wait for the server
    (connecting at most 10 s); ``retries`` is how often a request that never reached the
    server is sent again. ``api_key`` is sent as ``Authorization: Bearer ...`` (``--api-key``).
    ``transport``/``async_transport`` replace httpx's own (a Unix socket, a test double).
    ``template_options`` are extra variables for every render of the server's chat template
    (sent as ``chat_template_kwargs``), such as ``{"enable_thinking": False}`` for Qwen3's.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8080",
        *,
        timeout: Timeout = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        api_key: str | None = None,
        transport: httpx.BaseTransport | None = None,
        async_transport: httpx.AsyncBaseTransport | None = None,
        template_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.template_options: Mapping[str, Any] = checked_template_options(template_options)
        self._http = HttpSession(
            base_url, server=_SERVER, api_key=api_key, timeout=timeout, retries=retries,
            transport=transport, async_transport=async_transport,
        )
        self.base_url = self._http.base_url
        #: What the server's vocabulary said of each text shaped like a special token (token_spelled).
        self._tokens: dict[str, int | None] = {}

    def __repr__(self) -> str:
        options = f", template_options={dict(self.template_options)!r}" if self.template_options else ""
        return f"LlamaServerBackend({self._http!r}{options})"

    #: The server renders prompts with its own template (the GGUF file's, or ``--chat-template``).
    chat_template_source: TemplateSource = "server"

    @cached_property
    def _props(self) -> dict[str, Any]:
        """The server's ``GET /props`` (asked once); empty where it answers none."""
        try:
            reply = self._http.client().get("/props")
        except httpx.HTTPError as error:
            raise self._http.failure("/props", error) from error
        try:
            props = reply.json() if reply.status_code == 200 else None
        except ValueError:
            return {}
        return props if isinstance(props, dict) else {}

    @cached_property
    def chat_template(self) -> str | None:
        """The model's chat template as the server reports it (``GET /props``, asked once), so
        that tool calls are written in its family's format; None where the server has none."""
        template = self._props.get("chat_template")
        return template if isinstance(template, str) and template else None

    @property
    def model_name(self) -> str:
        """The server's URL, and the name of the GGUF file it serves (``GET /props``)."""
        path = self._props.get("model_path")
        if isinstance(path, str) and path:
            return f"{self._http.shown_url} ({PurePath(path).name})"
        return self._http.shown_url

    @property
    def settings(self) -> Mapping[str, Any]:
        """What the server reports of how it was started (``GET /props``): each slot's context
        (``n_ctx``) and the number of slots (``slots``, ``--parallel``)."""
        shown: dict[str, Any] = {}
        generation = self._props.get("default_generation_settings")
        if isinstance(generation, dict) and isinstance(generation.get("n_ctx"), int):
            shown["n_ctx"] = generation["n_ctx"]
        if isinstance(self._props.get("total_slots"), int):
            shown["slots"] = self._props["total_slots"]
        return shown

    # -- the seam -------------------------------------------------------------------------

    def _flow(self, request: CompletionRequest) -> Flow[Event, None]:
        """The exchange for one completion, for either driver: the prompt rendered by the
        server's template, then the completion streamed."""
        reader = _Reader(time.perf_counter())
        rendered = yield from self._http.post("/apply-template", _template(request, self.template_options))
        prompt = rendered.get("prompt")
        if not isinstance(prompt, str):
            raise self._http.broken("/apply-template", "sent no prompt")
        grammar = yield from token_spelled(self._http, request, self._tokens)
        thought: _Reader | None = None
        if request.reasoning is not None and request.reasoning.wanted(prompt):
            thought = _Reader(time.perf_counter())
            prompt = yield from reasoning_section(
                self._http, "/completion", "n_predict", lambda text: self._body(request, text, grammar),
                request.reasoning, prompt, thought)
        yield from self._http.events("/completion", self._body(request, prompt, grammar), reader.feed)
        yield self._finish(request, reader, thought)

    def score(self, request: ScoreRequest) -> tuple[Score, ...]:
        """Each continuation's log-likelihood right after ``request.context`` (its tokens as the
        server's tokenizer spells the text alone), as the in-process backend scores it."""
        return finish(self._http.run(self._score_flow(request)))

    def _score_flow(self, request: ScoreRequest) -> Flow[None, tuple[Score, ...]]:
        return (yield from spelled_scores(
            self._http, request, "/completion", "n_predict", {}, lambda reply: reply.get("completion_probabilities")))

    # -- the request and its answer ---------------------------------------------------------

    def _body(self, request: CompletionRequest, prompt: str, grammar: str) -> dict[str, Any]:
        return sampled_body(request, prompt, grammar, "n_predict")

    def _finish(self, request: CompletionRequest, reader: _Reader, thought: _Reader | None) -> Completion:
        if reader.final is None or (thought is not None and thought.final is None):
            raise self._http.broken("/completion", "ended its stream before the final event")
        usage = reader.usage()
        reasoning = with_thought(usage, thought)
        completion = Completion("".join(reader.parts), reader.finish_reason(), usage, reasoning=reasoning)
        self._http.check_answer("/completion", request, completion)
        return completion


class _Reader:
    """The events of one ``/completion`` stream: the text as it comes, then the final event."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.parts: list[str] = []
        self.final: dict[str, Any] | None = None

    def feed(self, event: dict[str, Any]) -> list[TextDelta]:
        text = event.get("content") or ""
        if event.get("stop"):
            self.final = event
        if not isinstance(text, str) or not text:
            return []
        self.parts.append(text)
        return [TextDelta(text)]

    def finish_reason(self) -> FinishReason:
        final = self.final or {}
        if final.get("stop_type") == "limit" or final.get("truncated"):
            return "length"
        return "stop"

    def usage(self) -> Usage:
        final = self.final or {}
        timings = final.get("timings") or {}
        cached = int(timings.get("cache_n", final.get("tokens_cached", 0)) or 0)
        evaluated = int(timings.get("prompt_n", 0) or 0)
        return Usage(
            prompt_tokens=cached + evaluated,
            cached_prompt_tokens=cached,
            sampled_tokens=int(timings.get("predicted_n", final.get("tokens_predicted", 0)) or 0),
            model_seconds=(float(timings.get("prompt_ms", 0.0)) + float(timings.get("predicted_ms", 0.0))) / 1000,
            prompt_seconds=float(timings.get("prompt_ms", 0.0)) / 1000,
            total_seconds=time.perf_counter() - self.started,
            attempts=1,
        )


class ThoughtReader(Protocol):
    """A reader of a streamed reasoning section: its text so far, when it started, what it spent."""

    started: float
    parts: list[str]

    def feed(self, event: dict[str, Any]) -> Sequence[TextDelta]: ...

    def usage(self) -> Usage: ...


def sampled_body(request: CompletionRequest, prompt: str, grammar: str, limit: str) -> dict[str, Any]:
    """A streamed completion's body as llama.cpp's servers read it (``/completion`` and
    ``/v1/completions``): the prompt, the grammar (lazy with the request's triggers), the
    sampler, the token budget under the name ``limit``, the prompt cache kept."""
    s = request.sampling
    body: dict[str, Any] = {
        "prompt": prompt,
        "grammar": grammar,
        limit: request.max_tokens,
        "temperature": s.temperature,
        "top_k": s.top_k,
        "top_p": s.top_p,
        "min_p": s.min_p,
        "stream": True,
        "cache_prompt": True,
    }
    if s.seed is not None:
        body["seed"] = s.seed
    if request.triggers:
        body["grammar_lazy"] = True
        body["grammar_triggers"] = [_trigger(t) for t in request.triggers]
    return body


def token_spelled(http: Any, request: CompletionRequest, known: dict[str, int | None]) -> Flow[Any, str]:
    """The grammar to send a llama.cpp server for ``request``, rooted, with the special tokens
    its literals spell (``<tool_call>``) written as the tokens (``<[id]>``), as forced text is
    tokenized in process: llama.cpp's grammar sampler lets a model spell a literal only in plain
    tokens, off the format it was trained on. ``known`` caches what the server's vocabulary
    said of each text (None: not one token). A lazy grammar is left as it is (the server matches
    its trigger as text; before it, the model writes freely)."""
    gbnf = rooted(request.gbnf, request.root, http.server)
    if request.triggers:
        return gbnf
    for text in sorted(special_texts(gbnf) - known.keys()):
        reply = yield from http.post(
            "/tokenize", {"content": text, "add_special": False, "parse_special": True, "with_pieces": True})
        tokens = reply.get("tokens")
        one = tokens[0] if isinstance(tokens, list) and len(tokens) == 1 and isinstance(tokens[0], dict) else {}
        known[text] = int(one["id"]) if one.get("piece") == text and isinstance(one.get("id"), int) else None
    return with_tokens(gbnf, {text: id_ for text, id_ in known.items() if id_ is not None})


def reasoning_section(
    http: Any, path: str, limit: str, body: Callable[[str], dict[str, Any]], section: Reasoning, prompt: str,
    thought: ThoughtReader,
) -> Flow[Event, str]:
    """The reasoning section on a llama.cpp server, streamed: a completion of its own at
    ``path`` (``body(prompt)`` without the grammar, ``limit`` naming its token budget) stopped
    at the closing marker. Returns the prompt the answer continues."""
    if not section.opened_by(prompt):
        prompt += section.open
    if section.budget == 0:  # thinking off: the section is closed at once
        return prompt + section.close + section.separator
    sent = {**body(prompt), limit: section.budget, "stop": [section.close]}
    for key in ("grammar", "grammar_lazy", "grammar_triggers"):
        sent.pop(key, None)
    yield from http.events(path, sent, lambda event: [ReasoningDelta(d.text) for d in thought.feed(event)])
    return prompt + "".join(thought.parts) + section.close + section.separator


def with_thought(usage: Usage, thought: ThoughtReader | None) -> str:
    """The reasoning section's text (empty without one); its spending added to the answer's ``usage``."""
    if thought is None:
        return ""
    spent = thought.usage()
    usage.reasoning_tokens = spent.sampled_tokens
    usage.model_seconds += spent.model_seconds
    usage.prompt_seconds += spent.prompt_seconds
    usage.total_seconds = time.perf_counter() - thought.started
    return "".join(thought.parts)


def spelled_scores(
    http: Any, request: ScoreRequest, path: str, limit: str, extra: dict[str, Any],
    logprobs: Callable[[dict[str, Any]], Any],
) -> Flow[None, tuple[Score, ...]]:
    """Each continuation's log-likelihood right after ``request.context`` on a llama.cpp server:
    its tokens as the server's tokenizer spells the text alone (``/tokenize``), then a completion
    at ``path`` held to exactly those tokens by a grammar, ``limit`` naming its token budget,
    with ``extra`` fields; ``logprobs`` finds the per-token probabilities in the reply."""
    scores = []
    for text in request.continuations:
        if not text:
            scores.append(Score(0.0, 0))
            continue
        reply = yield from http.post("/tokenize", {"content": text, "add_special": False, "with_pieces": True})
        tokens = reply.get("tokens")
        if not isinstance(tokens, list) or not tokens or not all(isinstance(t, dict) for t in tokens):
            raise http.broken("/tokenize", "sent no tokens")
        body = {"prompt": request.context, "grammar": _spelled(tokens), limit: 2 * len(tokens) + 1, "n_probs": 1,
                "temperature": 0.0, "cache_prompt": True, **extra}
        try:
            reply = yield from http.post(path, body)
        except GrammarError as error:
            raise http.broken(path, f"cannot score text: {_TOKEN_SYNTAX}") from error
        logprob = _logprob_of(logprobs(reply), len(text.encode()))
        if logprob is None:
            raise http.broken(path, f"did not generate the text it was held to: {_TOKEN_SYNTAX}")
        scores.append(Score(logprob, len(tokens)))
    return tuple(scores)


def _spelled(tokens: list[dict[str, Any]]) -> str:
    """A grammar of exactly these tokens: each by its id, except runs of tokens that each hold
    part of a UTF-8 character (their piece comes as a list of bytes), which llama.cpp cannot
    hold to by id and which are spelled as the characters they make."""
    parts: list[str] = []
    pending = b""
    for token in tokens:
        piece = token.get("piece")
        if isinstance(piece, list):
            pending += bytes(piece)
            continue
        if pending:
            parts.append(json.dumps(pending.decode("utf-8", errors="replace"), ensure_ascii=False))
            pending = b""
        parts.append(f"<[{int(token['id'])}]>")
    if pending:
        parts.append(json.dumps(pending.decode("utf-8", errors="replace"), ensure_ascii=False))
    return "root ::= " + " ".join(parts)


def _logprob_of(steps: Any, size: int) -> float | None:
    """The summed log-probability of the generated tokens that spell ``size`` bytes (the server
    reports a token that completes a character with its earlier bytes), or None if they do not."""
    if not isinstance(steps, list):
        return None
    total, seen = 0.0, 0
    for step in steps:
        if seen == size:
            return total
        if not isinstance(step, dict) or not isinstance(step.get("bytes"), list):
            return None
        seen += len(step["bytes"])
        total += float(step.get("logprob", 0.0))
    return total if seen == size else None


def _template(request: CompletionRequest, options: Mapping[str, Any]) -> dict[str, Any]:
    template: dict[str, Any] = {"messages": [m.as_dict() for m in request.messages]}
    if request.tools:
        template["tools"] = [dict(t) for t in request.tools]
    if options:
        template["chat_template_kwargs"] = dict(options)
    return template


def _trigger(trigger: str | int) -> dict[str, Any]:
    """A trigger as llama-server reads it: a regex pattern (type 2) or a token id (type 0)."""
    if isinstance(trigger, int):
        return {"type": 0, "value": "", "token": trigger}
    return {"type": 2, "value": trigger}


__all__ = ["LlamaServerBackend"]

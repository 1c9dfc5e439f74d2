"""OpenAI-compatible servers as backends: llama-server, vLLM and SGLang behind ``/v1/chat/completions``.

Every engine takes the chat messages and renders them with the model's template itself; what
differs is the field it reads a grammar from:

=================  ==================================================
``llama-server``   ``grammar`` (GBNF)
``vllm``           ``structured_outputs: {"grammar": ...}`` (vLLM 0.12 and later)
``vllm-legacy``    ``guided_grammar`` (vLLM before 0.12, which removed it)
``sglang``         ``ebnf``
=================  ==================================================

vLLM and SGLang compile the grammar with their own engine (xgrammar by default), which reads
a GBNF-like EBNF: a grammar must parse there too. The answer streams as server-sent events; the
usage comes from the stream's last chunk (``stream_options.include_usage``), and llama-server's
``timings`` add the model's time. Each answer is checked against the grammar here, so a server
that ignored the grammar field is a :class:`~structgen.BackendError`, not a surprise later.
Lazy grammars (``triggers``) and likelihood ``choices`` have no field in this API: a request
with triggers is refused, choices are ignored.

A reasoning section is written into the grammar (``_section_grammar``: bounded in characters)
and split from the answer as it streams. A section the engine itself extracts (a server with a
reasoning parser, which sends ``reasoning_content``) is read from there; the grammar then
applies to the answer after it, as these engines apply ``response_format``.
"""

from __future__ import annotations

import time
from typing import Any, Literal

import httpx

from ..._errors import BackendError
from ._http import DEFAULT_RETRIES, DEFAULT_TIMEOUT, Flow, HttpBackend, HttpSession, Timeout, rooted
from .._section_grammar import SectionReader, section_grammar
from .._seam import Completion, CompletionRequest, Event, FinishReason, ReasoningDelta, TextDelta, Usage

Engine = Literal["llama-server", "vllm", "vllm-legacy", "sglang"]
"""The server behind an OpenAI-compatible URL: it decides the field the grammar goes in."""
_SERVERS: dict[str, str] = {
    "llama-server": "the llama.cpp server",
    "vllm": "the vLLM server",
    "vllm-legacy": "the vLLM server",
    "sglang": "the SGLang server",
}
_PATH = "/v1/chat/completions"


class OpenAICompatibleBackend(HttpBackend):
    """Runs constrained completions on an OpenAI-compatible server at ``base_url``.

    ``base_url`` is the server's root, with or without the ``/v1`` an OpenAI client would be
    given. ``engine`` says which field carries the grammar (see the module doc); ``model`` is
    sent as the request's model (servers of a single model need none). ``api_key`` goes only
    into the ``Authorization`` header: it is never logged, shown in ``repr`` or put in an
    error. ``timeout``, ``retries`` and the transports are as for :class:`LlamaServerBackend`.
    One pooled client serves every call; ``LLM.agenerate``/``LLM.astream`` use
    :meth:`acomplete`, so many concurrent requests need no thread each.
    """

    def __init__(
        self,
        base_url: str,
        *,
        engine: Engine = "llama-server",
        model: str | None = None,
        api_key: str | None = None,
        timeout: Timeout = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        transport: httpx.BaseTransport | None = None,
        async_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if engine not in _SERVERS:
            raise ValueError(f"engine must be one of {', '.join(map(repr, _SERVERS))}, not {engine!r}")
        if model is not None and not isinstance(model, str):
            raise TypeError("model must be a str or None")
        root = base_url.rstrip("/") if isinstance(base_url, str) else base_url
        if isinstance(root, str) and root.endswith("/v1"):
            root = root[: -len("/v1")]
        self._http = HttpSession(
            root, server=_SERVERS[engine], api_key=api_key, timeout=timeout, retries=retries,
            transport=transport, async_transport=async_transport,
        )
        self.base_url = self._http.base_url
        self.engine: Engine = engine
        self.model = model

    def __repr__(self) -> str:
        model = f", model={self.model!r}" if self.model is not None else ""
        return f"OpenAICompatibleBackend({self._http!r}, engine={self.engine!r}{model})"

    # -- the seam -------------------------------------------------------------------------

    def _flow(self, request: CompletionRequest) -> Flow[Event, None]:
        """The exchange for one completion, for either driver."""
        reader = _ChunkReader(time.perf_counter(), request)
        yield from self._http.events(_PATH, self._body(request), reader.feed)
        yield self._finish(request, reader)

    # -- the request and its answer ---------------------------------------------------------

    def _body(self, request: CompletionRequest) -> dict[str, Any]:
        """The JSON body sent for ``request``."""
        if request.triggers:
            raise BackendError(
                "a lazy grammar (triggers) has no field in the OpenAI chat API; "
                "use LlamaServerBackend for lazy grammars"
            )
        s = request.sampling
        body: dict[str, Any] = {
            "messages": [m.as_dict() for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": s.temperature,
            "top_p": s.top_p,
            "min_p": s.min_p,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if s.top_k or self.engine == "llama-server":  # llama-server reads 0 as "off"; the others want no field
            body["top_k"] = s.top_k
        if s.seed is not None:
            body["seed"] = s.seed
        if self.model is not None:
            body["model"] = self.model
        if request.tools:  # for the chat template only: the grammar says what may be written
            body["tools"] = [dict(t) for t in request.tools]
            body["tool_choice"] = "none"
        gbnf = rooted(request.gbnf, request.root, self._http.server)
        if request.reasoning is not None and request.reasoning.always:
            gbnf = section_grammar(request.gbnf, request.root, request.reasoning)
            body["max_tokens"] += request.reasoning.budget
        body.update(self._grammar_field(gbnf))
        return body

    def _grammar_field(self, gbnf: str) -> dict[str, Any]:
        if self.engine == "vllm":
            return {"structured_outputs": {"grammar": gbnf}}
        if self.engine == "vllm-legacy":
            return {"guided_grammar": gbnf}
        if self.engine == "sglang":
            return {"ebnf": gbnf}
        return {"grammar": gbnf}

    def _finish(self, request: CompletionRequest, reader: _ChunkReader) -> Completion:
        if reader.finish is None:
            raise self._http.broken(_PATH, "ended its stream before the final chunk (no finish_reason)")
        if reader.finish not in ("stop", "length", "tool_calls"):
            raise self._http.broken(_PATH, f"stopped the answer with finish_reason {reader.finish!r}")
        reason: FinishReason = "length" if reader.finish == "length" else "stop"
        completion = Completion(reader.text(), reason, reader.usage(), reasoning=reader.reasoning())
        self._http.check_answer(_PATH, request, completion)
        return completion


class _ChunkReader:
    """The chunks of one streamed chat completion: content deltas, the finish reason, usage."""

    def __init__(self, started: float, request: CompletionRequest) -> None:
        self.started = started
        self.parts: list[str] = []
        self.thought: list[str] = []  # the engine's own reasoning fields
        self.finish: str | None = None
        self.counts: dict[str, Any] = {}
        self.timings: dict[str, Any] = {}
        section = request.reasoning
        self.section = SectionReader(section) if section is not None and section.always else None

    def feed(self, chunk: dict[str, Any]) -> list[TextDelta | ReasoningDelta]:
        if isinstance(chunk.get("usage"), dict):
            self.counts = chunk["usage"]
        if isinstance(chunk.get("timings"), dict):
            self.timings = chunk["timings"]
        deltas: list[TextDelta | ReasoningDelta] = []
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            thought = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thought, str) and thought:
                self.thought.append(thought)
                deltas.append(ReasoningDelta(thought))
            text = delta.get("content")
            if isinstance(text, str) and text:
                self.parts.append(text)
                deltas.extend(self.section.feed(text) if self.section is not None else [TextDelta(text)])
            if choice.get("finish_reason"):
                self.finish = str(choice["finish_reason"])
        return deltas

    def text(self) -> str:
        """The answer's text, without a section written into it."""
        return self.section.answer if self.section is not None else "".join(self.parts)

    def reasoning(self) -> str:
        return "".join(self.thought) + (self.section.reasoning if self.section is not None else "")

    def usage(self) -> Usage:
        details = self.counts.get("prompt_tokens_details") or {}
        t = self.timings
        return Usage(
            prompt_tokens=int(self.counts.get("prompt_tokens") or 0),
            cached_prompt_tokens=int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0,
            sampled_tokens=int(self.counts.get("completion_tokens") or 0),
            model_seconds=(float(t.get("prompt_ms") or 0.0) + float(t.get("predicted_ms") or 0.0)) / 1000,
            prompt_seconds=float(t.get("prompt_ms") or 0.0) / 1000,
            total_seconds=time.perf_counter() - self.started,
            attempts=1,
        )


__all__ = ["Engine", "OpenAICompatibleBackend"]

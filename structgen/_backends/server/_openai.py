"""OpenAI-compatible servers as backends: llama-server, vLLM and SGLang behind ``/v1``.

One model behaves the same whatever the backend: its chat template decides its tool format,
its tool policy and its reasoning markers (``chat_template_of``), so this backend knows the
template the server uses — from ``chat_template=`` (the Jinja source, a ``.jinja`` file or the
GGUF file), else from the server where it tells it (llama-server's ``GET /props``, vLLM's
``GET /tokenizer_info`` when started with ``--enable-tokenizer-info-endpoint``; SGLang tells
none), else it warns once and assumes none (generic JSON tool calls, the ``"small-model"``
policy, default reasoning markers). See ``_chat_template``.

What each engine is sent:

================  ============================================================================
``llama-server``  With the template known: the prompt rendered here (the same Jinja rendering
                  as in process, which is also the text of llama-server's ``/apply-template``)
                  and ``POST /v1/completions`` with ``prompt``, ``grammar`` and, for a lazy
                  grammar, ``grammar_lazy``/``grammar_triggers`` as ``/completion`` takes
                  them; a reasoning section is a completion of its own, stopped at its closing
                  marker. The same text and the same sampler as ``LlamaServerBackend``, so the
                  same answers. Without it: ``/v1/chat/completions`` with ``grammar`` (the
                  server renders), and lazy grammars are refused.
``vllm``          ``/v1/chat/completions`` (vLLM renders with the model's template; tools with
                  ``tool_choice: "none"``, which vLLM still renders unless started with
                  ``--exclude-tools-when-tool-choice-none``) and
                  ``structured_outputs: {"grammar": ...}`` (vLLM 0.12 and later), or for a
                  lazy grammar ``structured_outputs: {"structural_tag": "<JSON>"}``: an
                  xgrammar structural tag (see ``_structural_tag``).
``vllm-legacy``   As ``vllm``, with ``guided_grammar`` (vLLM before 0.12); lazy grammars are
                  refused (its structural tags hold JSON schemas only).
``sglang``        ``/v1/chat/completions`` with ``ebnf``, or for a lazy grammar
                  ``response_format``: the structural tag. SGLang renders tools only when
                  ``tool_choice`` is not ``"none"``, so it is sent ``"auto"``: start it
                  without ``--tool-call-parser`` (which would take the calls out of the answer
                  and add a constraint of its own).
================  ============================================================================

vLLM and SGLang compile the grammar with their own engine (xgrammar by default), which reads
a GBNF-like EBNF: a grammar must parse there too. Answers stream as server-sent events; usage
comes from the stream's last chunk (``stream_options.include_usage``), llama-server's
``timings`` add the model's time. Each answer is checked against the grammar here, so a server
that ignored the grammar field is a :class:`~structgen.BackendError`, not a surprise later.
Likelihood ``choices`` have no field in this API and are ignored.

On chat completions a reasoning section is written into the grammar (``_section_grammar``:
bounded in characters) and split from the answer as it streams; a template that opens the
section itself, or closes it (thinking off), is seen in the prompt rendered here. A section the
engine extracts itself (a server with a reasoning parser, which sends ``reasoning_content``) is
read from there; the grammar then applies to the answer after it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import typing
import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from types import FrameType
from typing import Any, Literal

import httpx

from ..._errors import BackendError
from ..._resume import finish
from .._section_grammar import SectionReader, section_grammar
from .._seam import (
    Completion, CompletionRequest, Event, FinishReason, Reasoning, ReasoningDelta, Score, ScoreRequest, TextDelta,
    Usage,
)
from ._chat_template import (
    KnownTemplate, PromptTemplate, TemplateSource, from_props, from_tokenizer_info,
    read_chat_template,
)
from ._http import (
    _BACKOFF_SECONDS, DEFAULT_RETRIES, DEFAULT_TIMEOUT, Flow, HttpBackend, HttpSession, Timeout, _never_arrived, rooted,
)
from ._llama_server import reasoning_section, sampled_body, spelled_scores, token_spelled, with_thought
from ._structural_tag import structural_tag, with_section

Engine = Literal["llama-server", "vllm", "vllm-legacy", "sglang"]
"""The server behind an OpenAI-compatible URL: it decides the request's shape (module doc)."""
_SERVERS: dict[str, str] = {
    "llama-server": "the llama.cpp server",
    "vllm": "the vLLM server",
    "vllm-legacy": "the vLLM server",
    "sglang": "the SGLang server",
}
#: Where each engine tells its chat template (None: nowhere).
_TEMPLATE_PATHS: dict[str, str | None] = {
    "llama-server": "/props", "vllm": "/tokenizer_info", "vllm-legacy": "/tokenizer_info", "sglang": None,
}
_CHAT = "/v1/chat/completions"
_COMPLETIONS = "/v1/completions"
_ASSUMED = ("no chat template: tool calls in the generic JSON format, the 'small-model' tool policy, "
            "no reasoning markers of its own")


class OpenAICompatibleBackend(HttpBackend):
    """Runs constrained completions on an OpenAI-compatible server at ``base_url``.

    ``base_url`` is the server's root, with or without the ``/v1`` an OpenAI client would be
    given. ``engine`` says which server it is, and so what a request holds (see the module
    doc); ``model`` is sent as the request's model (servers of a single model need none).
    ``chat_template`` is the model's chat template where the server does not tell it (the
    Jinja source, or the path of a ``.jinja`` file or of a GGUF file); where neither says,
    the backend warns once and assumes the model has none. The server is asked (a blocking
    ``GET``, once) the first time the template is needed. ``template_source`` says where the
    template came from (``"GET /props"``, ``"chat_template='qwen.gguf' (a GGUF file)"``, ...),
    ``chat_template_source`` the same coarsely ("user", "server" or "none").

    ``api_key`` goes only into the ``Authorization`` header: it is never logged, shown in
    ``repr`` or put in an error. ``timeout``, ``retries`` and the transports are as for
    :class:`LlamaServerBackend`. One pooled client serves every call;
    ``LLM.agenerate``/``LLM.astream`` use :meth:`acomplete`, so many concurrent requests need
    no thread each.
    """

    def __init__(
        self,
        base_url: str,
        *,
        engine: Engine = "llama-server",
        model: str | None = None,
        chat_template: str | os.PathLike[str] | None = None,
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
        #: What the server's vocabulary said of each text shaped like a special token (token_spelled).
        self._tokens: dict[str, int | None] = {}
        self.engine: Engine = engine
        self.model = model
        self._given = None if chat_template is None else read_chat_template(chat_template)
        self._known: KnownTemplate | None = None
        self._prompts: PromptTemplate | None = None
        self._lock = threading.Lock()
        if engine == "llama-server":  # an instance attribute: ScoringBackend is asked with hasattr
            self.score: Callable[[ScoreRequest], tuple[Score, ...]] = self._score

    def __repr__(self) -> str:
        model = f", model={self.model!r}" if self.model is not None else ""
        known = self._known or self._given
        if known is not None:
            source = known.detail
        elif _TEMPLATE_PATHS[self.engine] is not None:
            source = f"GET {_TEMPLATE_PATHS[self.engine]} (not read yet)"
        else:
            source = "none"
        return f"OpenAICompatibleBackend({self._http!r}, engine={self.engine!r}{model}, chat_template={source!r})"

    # -- the chat template ----------------------------------------------------------------

    @property
    def chat_template(self) -> str | None:
        """The model's chat template (Jinja source): ``chat_template=``, else the server's
        (asked once), else None (and a warning, once)."""
        return self._template().text

    @property
    def template_source(self) -> str:
        """Where the chat template came from, in words: ``"GET /props"``, ``"GET
        /tokenizer_info"``, ``"chat_template=..."``, or ``"none (assumed: ...)"``."""
        return self._template().detail

    @property
    def chat_template_source(self) -> TemplateSource:
        """Where the chat template came from: "user" (``chat_template=``), "server" or "none"."""
        return self._template().source

    @property
    def model_name(self) -> str:
        """The server's URL, and the model it is asked for where one is named."""
        return f"{self._http.shown_url} ({self.model})" if self.model else self._http.shown_url

    def _template(self) -> KnownTemplate:
        if self._known is None:
            with self._lock:
                if self._known is None:
                    self._known = self._resolved()
        return self._known

    def _resolved(self) -> KnownTemplate:
        path = _TEMPLATE_PATHS[self.engine]
        if self._given is not None:
            if self.engine == "llama-server" and not (self._given.bos or self._given.eos):
                props = self._ask(path) if path else None  # the special tokens' texts, for the template
                if props is not None:
                    return replace(self._given, bos=_text(props.get("bos_token")), eos=_text(props.get("eos_token")))
            return self._given
        reply = self._ask(path) if path else None
        found = None
        if reply is not None:
            found = from_props(reply) if self.engine == "llama-server" else from_tokenizer_info(reply)
        if found is not None:
            return found
        asked = f"GET {path} tells none" if path else f"{self._http.server} does not tell it"
        warnings.warn(
            f"{self._http.server} at {self._http.shown_url}: the model's chat template is not known "
            f"({asked}); assuming {_ASSUMED}. Pass chat_template= (the Jinja source, a .jinja file or "
            "the GGUF file) to treat the model as its template says.",
            UserWarning, stacklevel=_outside_structgen(),
        )
        return KnownTemplate(None, "none", f"none (assumed: {asked})")

    def _ask(self, path: str) -> dict[str, Any] | None:
        """The server's JSON answer to ``GET path``; None where it has none (an error status, a
        reply that is not a JSON object). A server that cannot be reached, or refuses the API
        key, is an error, after
        the retries any request gets (no connection, or HTTP 503: see ``HttpSession``)."""
        for attempt in range(self._http.retries + 1):
            retry = attempt < self._http.retries
            try:
                reply = self._http.client().get(path)
            except httpx.HTTPError as error:
                if not (retry and _never_arrived(error)):
                    raise self._http.failure(path, error) from error
            else:
                if not (reply.status_code == 503 and retry):
                    break
            time.sleep(_BACKOFF_SECONDS * 2**attempt)
        if reply.status_code in (401, 403):  # a key the server refuses: every request would fail
            raise self._http.status_error(path, reply.status_code, reply.content)
        if reply.status_code != 200:
            return None
        try:
            answer = reply.json()
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None

    def _prompt_template(self) -> PromptTemplate | None:
        """The template that renders prompts here (None where it is not known)."""
        known = self._template()
        if known.text is None:
            return None
        if self._prompts is None:
            with self._lock:
                if self._prompts is None:
                    self._prompts = PromptTemplate(known)
        return self._prompts

    # -- scoring ------------------------------------------------------------------------------

    def _score(self, request: ScoreRequest) -> tuple[Score, ...]:
        """Each continuation's log-likelihood right after ``request.context``, as
        ``LlamaServerBackend.score`` gives it (tool decisions ask for it): ``/tokenize``, then
        ``/v1/completions`` under a grammar of exactly those tokens, with ``n_probs``. The
        backend's ``score`` on llama-server; other engines have none (tool decisions are then
        made from the other signals, as on any backend that cannot score)."""
        return finish(self._http.run(self._score_flow(request)))

    def _score_flow(self, request: ScoreRequest) -> Flow[None, tuple[Score, ...]]:
        extra = {} if self.model is None else {"model": self.model}
        return (yield from spelled_scores(self._http, request, _COMPLETIONS, "max_tokens", extra, _choice_logprobs))

    # -- the seam -------------------------------------------------------------------------

    def _flow(self, request: CompletionRequest) -> Flow[Event, None]:
        """The exchange for one completion, for either driver."""
        prompts = self._prompt_template()
        if self.engine == "llama-server" and prompts is not None:
            yield from self._completion_flow(request, prompts)
            return
        section, opened = _chat_section(request, prompts)
        reader = _ChunkReader(time.perf_counter(), section)
        yield from self._http.events(_CHAT, self._body(request, section, opened), reader.feed)
        yield self._finish(request, reader)

    # -- llama-server with the template known: /v1/completions --------------------------------

    def _completion_flow(self, request: CompletionRequest, prompts: PromptTemplate) -> Flow[Event, None]:
        """The prompt rendered here, its reasoning section (a completion of its own) where
        the request has one, then the answer, as ``LlamaServerBackend`` does on ``/completion``."""
        prompt = prompts.text(request.messages, request.tools)
        grammar = yield from token_spelled(self._http, request, self._tokens)
        thought: _TextReader | None = None
        if request.reasoning is not None and request.reasoning.wanted(prompt):
            thought = _TextReader(time.perf_counter())
            prompt = yield from reasoning_section(
                self._http, _COMPLETIONS, "max_tokens", lambda text: self._completion_body(request, text, grammar),
                request.reasoning, prompt, thought)
        reader = _TextReader(time.perf_counter())
        yield from self._http.events(_COMPLETIONS, self._completion_body(request, prompt, grammar), reader.feed)
        if reader.finish is None or (thought is not None and thought.finish is None):
            raise self._http.broken(_COMPLETIONS, "ended its stream before the final chunk (no finish_reason)")
        usage = reader.usage()
        reasoning = with_thought(usage, thought)
        reason: FinishReason = "length" if reader.finish == "length" else "stop"
        completion = Completion("".join(reader.parts), reason, usage, reasoning=reasoning)
        self._http.check_answer(_COMPLETIONS, request, completion)
        yield completion

    def _completion_body(self, request: CompletionRequest, prompt: str, grammar: str) -> dict[str, Any]:
        """The JSON body of a ``/v1/completions`` request to llama-server: the OpenAI fields,
        and llama.cpp's own for the grammar and the sampler (as ``/completion`` reads them)."""
        body = {**sampled_body(request, prompt, grammar, "max_tokens"), "stream_options": {"include_usage": True}}
        if self.model is not None:
            body["model"] = self.model
        return body

    # -- chat completions ---------------------------------------------------------------------

    def _body(self, request: CompletionRequest, section: Reasoning | None = None, opened: bool = False
              ) -> dict[str, Any]:
        """The JSON body of a ``/v1/chat/completions`` request for ``request``; ``section`` is
        the reasoning section written into the grammar (``opened``: the prompt opens it)."""
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
            body["tool_choice"] = "auto" if self.engine == "sglang" else "none"
        if section is not None:
            body["max_tokens"] += section.budget
        body.update(self._constraint(request, section, opened))
        return body

    def _constraint(self, request: CompletionRequest, section: Reasoning | None, opened: bool) -> dict[str, Any]:
        """The field(s) holding what the answer may be: the grammar, or a lazy grammar's
        structural tag."""
        server = self._http.server
        if request.triggers and "" not in request.triggers:  # an empty pattern triggers at once: no laziness
            if self.engine == "vllm-legacy":
                raise BackendError(
                    f"{server} before 0.12 has no field for a lazy grammar (triggers): its structural tags hold "
                    "JSON schemas only; engine='vllm' takes one (vLLM 0.12 and later)"
                )
            if self.engine == "llama-server":
                raise BackendError(
                    f"{server}: a lazy grammar (triggers) needs the prompt rendered here, and the model's chat "
                    "template is not known: pass chat_template=, or use LlamaServerBackend"
                )
            tag = structural_tag(rooted(request.gbnf, request.root, server), "root", request.triggers, server)
            if section is not None:
                tag = with_section(tag, section, opened)
            if self.engine == "vllm":
                return {"structured_outputs": {"structural_tag": json.dumps(tag)}}
            return {"response_format": tag}
        gbnf = rooted(request.gbnf, request.root, server)
        if section is not None:
            gbnf = section_grammar(request.gbnf, request.root, replace(section, open="") if opened else section)
        if self.engine == "vllm":
            return {"structured_outputs": {"grammar": gbnf}}
        if self.engine == "vllm-legacy":
            return {"guided_grammar": gbnf}
        if self.engine == "sglang":
            return {"ebnf": gbnf}
        return {"grammar": gbnf}

    def _finish(self, request: CompletionRequest, reader: _ChunkReader) -> Completion:
        if reader.finish is None:
            raise self._http.broken(_CHAT, "ended its stream before the final chunk (no finish_reason)")
        if reader.finish not in ("stop", "length", "tool_calls"):
            raise self._http.broken(_CHAT, f"stopped the answer with finish_reason {reader.finish!r}")
        reason: FinishReason = "length" if reader.finish == "length" else "stop"
        completion = Completion(reader.text(), reason, reader.usage(), reasoning=reader.reasoning())
        self._http.check_answer(_CHAT, request, completion)
        return completion


def _chat_section(request: CompletionRequest, prompts: PromptTemplate | None) -> tuple[Reasoning | None, bool]:
    """The reasoning section a chat request writes into its grammar, and whether the prompt
    opens it: one the request always wants, or one the template knows, unless its prompt
    (rendered here) closes it already."""
    section = request.reasoning
    if section is None:
        return None, False
    prompt = prompts.text(request.messages, request.tools) if prompts is not None else ""
    if not section.wanted(prompt):
        return None, False
    return section, bool(prompt) and section.opened_by(prompt)


def _outside_structgen() -> int:
    """The ``stacklevel`` (for a warning its caller gives) of the first frame outside structgen,
    past ``typing``'s protocol checks (``chat_template_of`` asks ``isinstance``)."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and (frame.f_code.co_filename.startswith(package)
                                 or frame.f_code.co_filename == typing.__file__):
        frame, level = frame.f_back, level + 1
    return level


def _text(token: Any) -> str:
    return token if isinstance(token, str) else ""


class _TextReader:
    """The chunks of one streamed ``/v1/completions`` answer from llama-server: the text as it
    comes, the finish reason, the usage and llama.cpp's own ``timings``."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.parts: list[str] = []
        self.finish: str | None = None
        self.counts: dict[str, Any] = {}
        self.timings: dict[str, Any] = {}

    def feed(self, chunk: dict[str, Any]) -> list[TextDelta]:
        if isinstance(chunk.get("usage"), dict):
            self.counts = chunk["usage"]
        if isinstance(chunk.get("timings"), dict):
            self.timings = chunk["timings"]
        deltas: list[TextDelta] = []
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            text = choice.get("text")
            if isinstance(text, str) and text:
                self.parts.append(text)
                deltas.append(TextDelta(text))
            if choice.get("finish_reason"):
                self.finish = str(choice["finish_reason"])
        return deltas

    def usage(self) -> Usage:
        t, counts = self.timings, self.counts
        details = counts.get("prompt_tokens_details") or {}
        cached = int(t.get("cache_n", details.get("cached_tokens", 0) if isinstance(details, dict) else 0) or 0)
        evaluated = int(t["prompt_n"]) if "prompt_n" in t else int(counts.get("prompt_tokens") or 0) - cached
        return Usage(
            prompt_tokens=cached + evaluated,
            cached_prompt_tokens=cached,
            sampled_tokens=int(t.get("predicted_n", counts.get("completion_tokens", 0)) or 0),
            model_seconds=(float(t.get("prompt_ms") or 0.0) + float(t.get("predicted_ms") or 0.0)) / 1000,
            prompt_seconds=float(t.get("prompt_ms") or 0.0) / 1000,
            total_seconds=time.perf_counter() - self.started,
            attempts=1,
        )


class _ChunkReader:
    """The chunks of one streamed chat completion: content deltas, the finish reason, usage."""

    def __init__(self, started: float, section: Reasoning | None) -> None:
        self.started = started
        self.parts: list[str] = []
        self.thought: list[str] = []  # the engine's own reasoning fields
        self.finish: str | None = None
        self.counts: dict[str, Any] = {}
        self.timings: dict[str, Any] = {}
        self.section = SectionReader(section) if section is not None else None

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


def _choice_logprobs(reply: dict[str, Any]) -> Any:
    """The per-token probabilities of an OpenAI-style completion's first choice."""
    choices = reply.get("choices")
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    return (first.get("logprobs") or {}).get("content") if isinstance(first.get("logprobs"), dict) else None


__all__ = ["Engine", "OpenAICompatibleBackend"]

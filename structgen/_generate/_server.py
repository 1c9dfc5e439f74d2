"""The HTTP backend: a running llama.cpp server (``llama-server``) does the constrained decoding.

The server renders the chat messages with the model's own template (``/apply-template``) and
decodes under the grammar with its native sampler (``/completion``, streamed as server-sent
events). Fast-forwarding, prompt-lookup guesses and likelihood choices are in-process
techniques: a server decodes token by token, and ``choices`` in a request are ignored. A lazy
grammar (``triggers``) becomes the server's own ``grammar_lazy`` and ``grammar_triggers``.

Errors are translated here, at the seam: an unreachable server or an HTTP error is a
:class:`~structgen.BackendError`, a grammar the server cannot parse a
:class:`~structgen.GrammarError`.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from .._errors import BackendError, GrammarError
from ._types import Completion, CompletionRequest, Event, TextDelta, Usage

_ROOT_RULE = re.compile(r"^\s*root\s*::=", re.MULTILINE)


class LlamaServerBackend:
    """Runs constrained completions on a llama.cpp server at ``base_url``.

    Each call opens its own HTTP connection, so one backend may be shared by threads (the
    server queues or batches concurrent requests itself).
    """

    def __init__(self, base_url: str = "http://127.0.0.1:8080", *, timeout: float = 600.0) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http:// or https:// URL")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def close(self) -> None:
        """Nothing to release: each call opens its own connection."""

    # -- the seam -------------------------------------------------------------------------

    def complete(self, request: CompletionRequest) -> Iterator[Event]:
        started = time.perf_counter()
        template: dict[str, Any] = {"messages": [m.as_dict() for m in request.messages]}
        if request.tools:
            template["tools"] = [dict(t) for t in request.tools]
        prompt = self._post("/apply-template", template)["prompt"]
        s = request.sampling
        body: dict[str, Any] = {
            "prompt": prompt,
            "grammar": _rooted(request.gbnf, request.root),
            "n_predict": request.max_tokens,
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
        parts: list[str] = []
        final: dict[str, Any] = {}
        for event in self._stream("/completion", body):
            text = event.get("content") or ""
            if text:
                parts.append(text)
                yield TextDelta(text)
            if event.get("stop"):
                final = event
        yield Completion("".join(parts), _finish_reason(final), _usage(final, started))

    # -- HTTP -------------------------------------------------------------------------------

    def _open(self, path: str, body: dict[str, Any]) -> Any:
        data = json.dumps(body).encode("utf-8")
        req = urllib.request.Request(
            self.base_url + path, data=data, method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as e:
            raise _http_error(path, e) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise BackendError(f"cannot reach the llama.cpp server at {self.base_url}: {reason}") from None

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        with self._open(path, body) as response:
            try:
                result: dict[str, Any] = json.loads(response.read())
            except (ValueError, OSError) as e:
                raise BackendError(f"the llama.cpp server sent a bad reply to {path}: {e}") from None
        return result

    def _stream(self, path: str, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The JSON payloads of a server-sent-event stream."""
        with self._open(path, body) as response:
            try:
                for raw in response:
                    line = raw.decode("utf-8").strip()
                    if not line.startswith("data:"):
                        continue
                    payload = line[len("data:"):].strip()
                    if payload == "[DONE]":
                        return
                    event = json.loads(payload)
                    if "error" in event:
                        raise _server_error(path, event["error"])
                    yield event
            except (ValueError, OSError) as e:
                raise BackendError(f"the llama.cpp server stream from {path} broke off: {e}") from None


def _rooted(gbnf: str, root: str) -> str:
    """The server always starts at ``root``: alias another start rule to it."""
    if root == "root":
        return gbnf
    if _ROOT_RULE.search(gbnf):
        raise BackendError(
            f"the llama.cpp server starts every grammar at rule 'root', and this grammar defines "
            f"a 'root' besides its start rule {root!r}"
        )
    return f"root ::= {root}\n{gbnf}"


def _trigger(trigger: str | int) -> dict[str, Any]:
    """A trigger as llama-server reads it: a regex pattern (type 2) or a token id (type 0)."""
    if isinstance(trigger, int):
        return {"type": 0, "value": "", "token": trigger}
    return {"type": 2, "value": trigger}


def _finish_reason(final: dict[str, Any]) -> Any:
    if final.get("stop_type") == "limit" or final.get("truncated"):
        return "length"
    return "stop"


def _usage(final: dict[str, Any], started: float) -> Usage:
    timings = final.get("timings") or {}
    cached = int(timings.get("cache_n", final.get("tokens_cached", 0)) or 0)
    evaluated = int(timings.get("prompt_n", 0) or 0)
    return Usage(
        prompt_tokens=cached + evaluated,
        cached_prompt_tokens=cached,
        sampled_tokens=int(timings.get("predicted_n", final.get("tokens_predicted", 0)) or 0),
        model_seconds=(float(timings.get("prompt_ms", 0.0)) + float(timings.get("predicted_ms", 0.0))) / 1000,
        total_seconds=time.perf_counter() - started,
        attempts=1,
    )


def _http_error(path: str, error: urllib.error.HTTPError) -> Exception:
    try:
        detail = json.loads(error.read()).get("error", {})
    except (ValueError, OSError, AttributeError):
        detail = {}
    if not isinstance(detail, dict):
        detail = {"message": str(detail)}
    detail.setdefault("code", error.code)
    detail.setdefault("message", error.reason)
    return _server_error(path, detail)


def _server_error(path: str, detail: Any) -> Exception:
    message = str(detail.get("message", detail)) if isinstance(detail, dict) else str(detail)
    if "grammar" in message.lower():
        return GrammarError(f"the llama.cpp server rejected the grammar: {message}")
    code = detail.get("code", "") if isinstance(detail, dict) else ""
    return BackendError(f"the llama.cpp server failed on {path} ({code}): {message}")


__all__ = ["LlamaServerBackend"]

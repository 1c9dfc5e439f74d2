"""HTTP servers as backends: llama-server's own API (``_llama_server``) and OpenAI-compatible
engines (``_openai``), on one base (``_http``) that owns the HTTP session, its retry policy and
the seam's methods."""

from __future__ import annotations

from ._llama_server import LlamaServerBackend
from ._openai import Engine, OpenAICompatibleBackend

__all__ = ["Engine", "LlamaServerBackend", "OpenAICompatibleBackend"]

"""HTTP servers as backends: llama-server's own API (``_llama_server``) and OpenAI-compatible
engines (``_openai``), over one HTTP session with its retry policy (``_http``)."""

from __future__ import annotations

from ._llama_server import LlamaServerBackend
from ._openai import Engine, OpenAICompatibleBackend

__all__ = ["Engine", "LlamaServerBackend", "OpenAICompatibleBackend"]

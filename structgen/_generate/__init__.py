"""Typed generation on llama.cpp's native grammar sampler.

Public names (exported by ``structgen``): :class:`LLM`, :class:`Result`, :class:`Usage`,
:class:`Refusal`, :func:`structured`, and the backend seam :class:`Backend`,
:class:`CompletionRequest`, :class:`Completion`, :class:`TextDelta`, :class:`Message`,
:class:`SamplingSettings`, :class:`LlamaCppBackend`, :class:`LlamaServerBackend`.
"""

from __future__ import annotations

from ._llamacpp import LlamaCppBackend
from ._llm import LLM, Result
from ._output import Refusal, structured
from ._server import LlamaServerBackend
from ._types import (
    Backend,
    Completion,
    CompletionRequest,
    Message,
    SamplingSettings,
    TextDelta,
    Usage,
)

__all__ = [
    "LLM",
    "Backend",
    "Completion",
    "CompletionRequest",
    "LlamaCppBackend",
    "LlamaServerBackend",
    "Message",
    "Refusal",
    "Result",
    "SamplingSettings",
    "TextDelta",
    "Usage",
    "structured",
]

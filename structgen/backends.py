"""What a backend author implements and reads: the :class:`Backend` seam and the values that
cross it.

A backend turns one :class:`CompletionRequest` (chat messages, a GBNF grammar, sampling
settings) into a stream of :class:`TextDelta` events that ends with one :class:`Completion`;
``LLM(backend=...)`` runs on any object that does. The three backends structgen ships are here
too (and at the top level, where an application picks one).
"""

from __future__ import annotations

from ._backends._seam import (
    Alternative,
    AsyncBackend,
    Backend,
    ChoiceTable,
    Completion,
    CompletionRequest,
    DescribedBackend,
    Event,
    FinishReason,
    JsonPath,
    MemberRules,
    Message,
    Reasoning,
    ReasoningDelta,
    Role,
    SamplingSettings,
    Score,
    ScoreRequest,
    ScoringBackend,
    StopGeneration,
    TemplateSource,
    TemplatedBackend,
    TextDelta,
    Usage,
)
from ._backends.llamacpp import LlamaCppBackend
from ._backends.server import LlamaServerBackend, OpenAICompatibleBackend
from ._backends.server._http import Timeout
from ._backends.server._openai import Engine
from ._grammar import Trigger

__all__ = [
    "Alternative",
    "AsyncBackend",
    "Backend",
    "ChoiceTable",
    "Completion",
    "CompletionRequest",
    "DescribedBackend",
    "Engine",
    "Event",
    "FinishReason",
    "JsonPath",
    "LlamaCppBackend",
    "LlamaServerBackend",
    "MemberRules",
    "Message",
    "OpenAICompatibleBackend",
    "Reasoning",
    "ReasoningDelta",
    "Role",
    "SamplingSettings",
    "Score",
    "ScoreRequest",
    "ScoringBackend",
    "StopGeneration",
    "TemplateSource",
    "TemplatedBackend",
    "TextDelta",
    "Timeout",
    "Trigger",
    "Usage",
]

"""Typed generation: the front end over the backend seam (``structgen._backends``).

Public names (exported by ``structgen``): :class:`LLM`, :class:`Result`, :class:`Refusal`,
:func:`structured`. The front end knows output types, prompts, retries, tools and streaming;
a backend only turns a :class:`~structgen.backends.CompletionRequest` into text.
"""

from __future__ import annotations

from ._generation import Result
from ._llm import LLM
from ._output import Refusal, structured

__all__ = ["LLM", "Refusal", "Result", "structured"]

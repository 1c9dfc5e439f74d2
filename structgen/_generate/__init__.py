"""Typed generation: the front end over the backend seam (``structgen._backends``).

Public names (exported by ``structgen``): :class:`Result`, :class:`Refusal`,
:func:`structured`. The front end knows output types, prompts, retries and streaming; a
backend only turns a :class:`~structgen.backends.CompletionRequest` into text. Tool calling
(the ``_tools`` package) and :class:`~structgen.LLM` (``_llm``) sit above it: nothing
here imports them.
"""

from __future__ import annotations

from ._generation import Result
from ._output import Refusal, structured

__all__ = ["Refusal", "Result", "structured"]

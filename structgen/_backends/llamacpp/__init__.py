"""llama.cpp in this process: the backend, its sampling loop and the native grammar objects.

``_backend`` (:class:`LlamaCppBackend`) runs one request: ``_template`` renders the prompt,
``_runner`` evaluates tokens, ``_loop`` decodes under the grammar (``_lazy`` for lazy
grammars; ``_sampling``, ``_lookup`` and ``_repeats`` pick, guess and watch tokens).
``_grammar_state`` holds the native grammar objects and their one cache; ``_native`` is the
vocabulary-only "does llama.cpp accept this text" judge built on them. ``_vocab`` is what all
of them know about a vocabulary.
"""

from __future__ import annotations

from ._backend import LlamaCppBackend
from ._options import LlamaOptions

__all__ = ["LlamaCppBackend", "LlamaOptions"]

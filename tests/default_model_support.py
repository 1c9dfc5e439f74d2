"""One loaded default model shared by the documentation's blocks and the examples.

``sharing_llm(backend)`` is an ``LLM`` class whose ``LLM()`` (no model, no backend) runs on the
given backend and whose ``close()`` leaves it open; patched in as ``structgen.LLM``, code that
loads the default model as a user would (``structgen.LLM()``, ``from structgen import LLM``)
runs on the real model without loading it again.
"""

from __future__ import annotations

from typing import Any

import structgen


def load_default_backend() -> structgen.LlamaCppBackend:
    # One thread: on a machine busy with other work, llama.cpp's threads spin waiting for each
    # other (measured: 46 s of CPU for a 23-token answer with the default threads, 1.7 s with one).
    return structgen.LlamaCppBackend.load(None, n_threads=1)


def sharing_llm(default: structgen.LlamaCppBackend) -> type[structgen.LLM]:
    class SharedDefaultLLM(structgen.LLM):
        def __init__(self, model_path: Any = None, *, backend: Any = None, **options: Any) -> None:
            self._shared = model_path is None and backend is None
            if self._shared:
                backend = default
                options = {k: v for k, v in options.items() if k in ("seed", "max_tokens", "max_retries")}
            super().__init__(model_path, backend=backend, **options)

        def close(self) -> None:
            if not self._shared:
                super().close()

    return SharedDefaultLLM

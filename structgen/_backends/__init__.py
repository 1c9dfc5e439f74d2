"""Below the front end: the backend seam and the backends that answer it.

- ``_seam``: the values that cross the seam (requests, sampling settings, events, usage) and
  the :class:`Backend` protocol; ``_choices``: the JSON positions and member rules a request
  may carry, and the cursor that follows a growing JSON text.
- ``llamacpp/``: in-process llama.cpp (the sampling loop, the native grammar objects, and the
  vocabulary-only judge of ``structgen.testing``).
- ``server/``: HTTP servers (llama-server's own API, OpenAI-compatible engines).
- ``_scripted``: replayed answers for tests; ``_answer_check``: the grammar check of backends
  that do not sample themselves (servers, scripts).

Imports point down only: nothing here imports ``structgen._generate``, the seam imports no
backend, and ``llamacpp`` and ``server`` do not import each other. This package itself
re-exports nothing, so importing the seam loads neither backend.
"""

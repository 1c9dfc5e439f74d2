"""Typed generation on a llama.cpp server instead of an in-process model.

Start a server first (``make test`` builds one portably: see .ci/llama-server), e.g.::

    llama-server -m "$(python -c 'import structgen; print(structgen.default_model_path())')" --port 8080

Run: python examples/server_backend.py [http://127.0.0.1:8080]
"""

from __future__ import annotations

import sys

from pydantic import BaseModel

import structgen


class City(BaseModel):
    city: str
    country: str


def main() -> None:
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
    llm = structgen.LLM.from_backend(structgen.LlamaServerBackend(url))
    result = llm.run(City, "Extract the place: I flew to Lisbon, the capital of Portugal.")
    print(repr(result.value))
    print(f"{result.usage.prompt_tokens} prompt tokens, {result.usage.sampled_tokens} sampled, "
          f"{result.usage.total_seconds:.2f} s")


if __name__ == "__main__":
    main()

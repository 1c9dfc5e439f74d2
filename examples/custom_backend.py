"""A backend of your own: structgen's seam implemented over llama-cpp-python's chat API.

``LLM`` needs two methods of a backend: ``complete(request)``, which yields the answer as
``TextDelta`` pieces and ends with one ``Completion``, and ``close()``. Everything else
(``acomplete`` for asyncio, ``score`` for tool decisions, ``chat_template`` for native tool
formats) is optional; docs/architecture.md, "A backend of your own", lists the contract.

This one hands each request to ``llama_cpp.Llama.create_chat_completion`` with the request's
grammar, so llama.cpp's own sampler still enforces it; structgen's retries, validation and
streaming work on top unchanged.

Run: python examples/custom_backend.py
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import llama_cpp
from llama_cpp.llama_grammar import LlamaGrammar
from pydantic import BaseModel

import structgen
from structgen.backends import Backend, Completion, CompletionRequest, Event


class LlamaChatBackend:
    """The seam over ``llama_cpp.Llama.create_chat_completion`` (its template, its sampler)."""

    def __init__(self, model_path: str) -> None:
        self.llama = llama_cpp.Llama(model_path=model_path, n_ctx=2048, verbose=False)

    def complete(self, request: CompletionRequest) -> Iterator[Event]:
        if request.triggers:
            raise structgen.BackendError("this backend has no lazy grammars (request.triggers)")
        started = time.perf_counter()
        try:  # llama-cpp-python starts every grammar at "root"
            grammar = LlamaGrammar.from_string(
                request.gbnf if request.root == "root" else f"root ::= {request.root}\n{request.gbnf}",
                verbose=False,
            )
        except ValueError as error:  # foreign exceptions become structgen's at the seam
            raise structgen.GrammarError(f"llama.cpp rejected the grammar: {error}") from error
        s = request.sampling
        chunks: Any = self.llama.create_chat_completion(  # its stream of OpenAI-style chunks
            messages=[m.as_dict() for m in request.messages],  # type: ignore[misc]
            grammar=grammar, max_tokens=request.max_tokens, temperature=s.temperature,
            top_p=s.top_p, top_k=s.top_k, min_p=s.min_p, seed=s.seed, stream=True,
        )
        parts: list[str] = []
        finish = "length"
        for chunk in chunks:
            choice = chunk["choices"][0]
            piece: str = choice["delta"].get("content") or ""
            if piece:
                parts.append(piece)
                yield structgen.TextDelta(piece)
            finish = choice.get("finish_reason") or finish
        text = "".join(parts)
        usage = structgen.Usage(
            sampled_tokens=len(self.llama.tokenize(text.encode(), add_bos=False, special=False)),
            total_seconds=time.perf_counter() - started, attempts=1,
        )
        yield Completion(text, "stop" if finish == "stop" else "length", usage)

    def close(self) -> None:
        self.llama.close()


class City(BaseModel):
    city: str
    country: str


def main() -> None:
    backend = LlamaChatBackend(str(structgen.default_model_path()))
    assert isinstance(backend, Backend)  # the protocol is runtime-checkable
    with structgen.LLM(backend=backend) as llm:
        city = llm.generate(City, "Extract the place: I flew to Lisbon, the capital of Portugal.")
        print(repr(city))
        print(f"{llm.last_usage.sampled_tokens} tokens" if llm.last_usage else "")


if __name__ == "__main__":
    main()

"""The control flow of tool turns and runs, on a scripted backend (no model).

These replay given texts through the backend seam to reach paths a small model does not take
on demand (max_rounds, a repeated call, an ungrounded call); the same paths on the real model
and sampler are in test_tool_calls.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import structgen as sg
from structgen._generate._types import Completion, CompletionRequest, TextDelta, Usage


class ScriptedBackend:
    """Answers each request with the next scripted text, in pieces."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.requests: list[CompletionRequest] = []

    def complete(self, request: CompletionRequest) -> Iterator[TextDelta | Completion]:
        self.requests.append(request)
        text = self.texts.pop(0)
        for i in range(0, len(text), 7):
            yield TextDelta(text[i : i + 7])
        yield Completion(text, "stop", Usage(attempts=1, sampled_tokens=len(text)))

    def close(self) -> None:
        pass


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city} is nice"


def call(city: str) -> str:
    return '[{"name": "lookup", "arguments": {"city": "%s"}}]' % city


def test_an_ungrounded_call_under_auto_becomes_a_reply() -> None:
    backend = ScriptedBackend(call("Atlantis"), "No tool fits.")
    turn = sg.LLM.from_backend(backend).call_tools("Tell me a joke.", [lookup])
    assert turn.calls == [] and turn.text == "No tool fits."
    assert turn.usage.attempts == 2
    assert backend.requests[1].gbnf.startswith("root ::= ([^\\x5B")  # a reply cannot open a call


def test_a_grounded_call_is_kept() -> None:
    turn = sg.LLM.from_backend(ScriptedBackend(call("Paris"))).call_tools("Tell me about paris.", [lookup])
    assert [c.arguments.city for c in turn.calls] == ["Paris"]


def test_a_repeated_call_ends_the_turn_before_it() -> None:
    twice = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup"'
    turn = sg.LLM.from_backend(ScriptedBackend(twice)).call_tools("Oslo?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]
    assert turn.raw == call("Oslo")


def test_max_rounds_carries_the_conversation() -> None:
    backend = ScriptedBackend(call("Oslo"), call("Rome"), call("Lima"))


    llm = sg.LLM.from_backend(backend)
    with pytest.raises(sg.MaxRoundsError) as info:
        llm.run_tools("Oslo, Rome and Lima?", [lookup], max_rounds=2)
    roles = [m.role for m in info.value.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]
    assert info.value.messages[2].content == "Oslo is nice"
    assert info.value.usage.attempts == 2


def test_a_call_that_fails_validation_is_retried_with_the_errors() -> None:
    from pydantic import BaseModel, field_validator

    class Book(BaseModel):
        title: str

        @field_validator("title")
        @classmethod
        def capitalised(cls, value: str) -> str:
            if not value[:1].isupper():
                raise ValueError("titles start with a capital")
            return value

    bad = '[{"name": "Book", "arguments": {"title": "dune"}}]'
    good = '[{"name": "Book", "arguments": {"title": "Dune"}}]'
    backend = ScriptedBackend(bad, good)
    turn = sg.LLM.from_backend(backend).call_tools("Dune", [Book], tool_choice="required")
    assert turn.calls[0].arguments.title == "Dune"
    feedback = backend.requests[1].messages[-1].content
    assert "titles start with a capital" in feedback

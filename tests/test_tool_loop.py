"""The control flow of tool turns and runs, on a scripted backend (no model).

These replay given texts through the backend seam to reach paths a small model does not take
on demand (max_rounds, a repeated call, an ungrounded call); the same paths on the real model
and sampler are in test_tool_calls.py. The scripts are written for the word rules
(``decision="words"``), which need no model to decide; test_tool_policy.py has the others.
"""

from __future__ import annotations

import pytest

import structgen as sg
from structgen.testing import ScriptedBackend


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city} is nice"


def call(city: str) -> str:
    return '[{"name": "lookup", "arguments": {"city": "%s"}}]' % city


def test_an_ungrounded_call_under_auto_becomes_a_reply() -> None:
    backend = ScriptedBackend(call("Atlantis"), "No tool fits.")
    turn = sg.LLM.from_backend(backend).call_tools("Tell me about a city.", [lookup])
    assert turn.calls == [] and turn.text == "No tool fits."
    assert turn.usage.attempts == 2
    assert backend.requests[1].gbnf.startswith("root ::= ([^\\x5B")  # a reply cannot open a call


def test_a_request_no_tool_is_about_needs_a_call_made_of_its_words() -> None:
    backend = ScriptedBackend(call("Atlantis"), "Why did the chicken cross the road?")
    turn = sg.LLM.from_backend(backend).call_tools("Tell me a joke.", [lookup], decision="words")
    assert turn.calls == [] and turn.text == "Why did the chicken cross the road?"

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    sum_call = '[{"name": "add", "arguments": {"a": 12, "b": 30}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(sum_call)).call_tools("What is 12 plus 30?", [add], decision="words")
    assert [(c.arguments.a, c.arguments.b) for c in turn.calls] == [(12, 30)]
    half = '[{"name": "add", "arguments": {"a": 12, "b": 7}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(half, "42")).call_tools("What is 12 plus 30?", [add], decision="words")
    assert turn.calls == [] and turn.text == "42"


def test_required_calls_even_when_no_tool_seems_relevant() -> None:
    turn = sg.LLM.from_backend(ScriptedBackend(call("Oslo"))).call_tools("A joke?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]


def test_a_grounded_call_is_kept() -> None:
    turn = sg.LLM.from_backend(ScriptedBackend(call("Paris"))).call_tools("Tell me about the city of paris.", [lookup], decision="words")
    assert [c.arguments.city for c in turn.calls] == ["Paris"]


def test_a_repeated_call_ends_the_turn_before_it() -> None:
    twice = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup"'
    # Unfinished text finished as "stop": what a backend without our loop's check could send.
    backend = ScriptedBackend(twice, check_grammar=False)
    turn = sg.LLM.from_backend(backend).call_tools("Oslo?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]
    assert turn.raw == call("Oslo")


def test_max_rounds_carries_the_conversation() -> None:
    backend = ScriptedBackend(call("Oslo"), call("Rome"), call("Lima"))


    llm = sg.LLM.from_backend(backend)
    with pytest.raises(sg.MaxRoundsError) as info:
        llm.run_tools("Look up Oslo, Rome and Lima.", [lookup], max_rounds=2, decision="words")
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


def test_under_auto_the_turn_ends_before_an_ungrounded_call() -> None:
    two = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Atlantis"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(two)).call_tools("Look up Oslo.", [lookup], decision="words")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]
    assert turn.raw == call("Oslo")


def cut_short(text: str) -> sg.Completion:
    """An answer that ran out of ``max_tokens``."""
    return sg.Completion(text, "length", sg.Usage(attempts=1, sampled_tokens=len(text)))


def test_a_budget_that_runs_out_in_a_later_call_keeps_the_whole_calls() -> None:
    cut = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Ro'
    turn = sg.LLM.from_backend(ScriptedBackend(cut_short(cut))).call_tools("Oslo, Rome?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"] and turn.truncated
    assert turn.raw == call("Oslo")


def test_a_budget_that_runs_out_in_the_first_call_is_an_incomplete_output() -> None:
    with pytest.raises(sg.IncompleteOutputError):
        sg.LLM.from_backend(ScriptedBackend(cut_short('[{"name": "lookup", "argu'))).call_tools("Oslo?", [lookup], tool_choice="required")

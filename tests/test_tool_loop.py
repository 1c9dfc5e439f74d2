"""The control flow of tool turns and runs, on a scripted backend (no model).

These replay given texts through the backend seam to reach paths a small model does not take
on demand (max_rounds, a repeated call, an ungrounded call); the same paths on the real model
and sampler are in test_tool_calls.py. The scripts are written for the word rules
(``decision="words"``), which need no model to decide; test_tool_policy.py has the others.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

import structgen as sg
from structgen.backends import Backend, Completion, CompletionRequest
from structgen.testing import ScriptedBackend


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city} is nice"


def call(city: str) -> str:
    return '[{"name": "lookup", "arguments": {"city": "%s"}}]' % city


def written(city: str) -> str:
    """What the model writes under "auto", where a second call is always offered: the call, then
    the same call again (a repeat: the turn ends before it)."""
    return twice(call(city))


def twice(calls: str) -> str:
    """A one-call answer followed by a repeat of its call."""
    return f"{calls[:-1]}, {calls[1:]}"


def test_an_ungrounded_call_under_auto_becomes_a_reply() -> None:
    backend = ScriptedBackend(written("Atlantis"), "No tool fits.")
    # a backend that cannot score text has no action signal: the default arguments are "free"
    turn = sg.LLM.from_backend(backend).call_tools("Tell me about a city.", [lookup])
    assert turn.calls == [] and turn.text == "No tool fits."
    assert turn.usage.attempts == 2
    assert backend.requests[1].gbnf.startswith("root ::= ([^\\x5B")  # a reply cannot open a call


def test_a_request_no_tool_is_about_needs_a_call_made_of_its_words() -> None:
    backend = ScriptedBackend(written("Atlantis"), "Why did the chicken cross the road?")
    turn = sg.LLM.from_backend(backend).call_tools("Tell me a joke.", [lookup], decision="words", arguments="free")
    assert turn.calls == [] and turn.text == "Why did the chicken cross the road?"

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    sum_call = '[{"name": "add", "arguments": {"a": 12, "b": 30}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(twice(sum_call))).call_tools("What is 12 plus 30?", [add], decision="words")
    assert [(c.arguments.a, c.arguments.b) for c in turn.calls] == [(12, 30)]
    half = '[{"name": "add", "arguments": {"a": 12, "b": 7}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(twice(half), "42")).call_tools(
        "What is 12 plus 30?", [add], decision="words", arguments="free")
    assert turn.calls == [] and turn.text == "42"


def test_with_grounding_off_the_first_call_stands_and_later_calls_are_still_judged() -> None:
    unsaid = sg.Policy("words", "free", "same-tool", grounding="off")
    backend = ScriptedBackend(written("Atlantis"))
    turn = sg.LLM.from_backend(backend).call_tools("Tell me about a city.", [lookup], policy=unsaid)
    assert [c.arguments.city for c in turn.calls] == ["Atlantis"] and len(backend.requests) == 1
    two = '[{"name": "lookup", "arguments": {"city": "Atlantis"}}, {"name": "lookup", "arguments": {"city": "Mu"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(two)).call_tools("Tell me about a city.", [lookup], policy=unsaid)
    assert [c.arguments.city for c in turn.calls] == ["Atlantis"]  # the offered call added nothing said


def test_the_alternatives_rule_says_whether_tool_names_are_scored_whole() -> None:
    def forecast(city: str) -> str:
        """The weather forecast for a city."""
        return "sunny"

    for alternatives, scored in (("whole", True), ("tokens", False)):
        policy = sg.Policy("words", "free", "same-tool", alternatives=alternatives)  # type: ignore[arg-type]
        backend = ScriptedBackend(call("Oslo"))
        turn = sg.LLM.from_backend(backend).call_tools("Oslo?", [lookup, forecast], tool_choice="required", policy=policy)
        assert [c.arguments.city for c in turn.calls] == ["Oslo"]
        assert (backend.requests[0].choices is not None) is scored


def test_a_call_refused_as_unsaid_is_written_again_from_the_users_words() -> None:
    """``arguments="free_then_copied"``: the second call may only copy the request's words."""
    backend = ScriptedBackend(written("Atlantis"), written("Lima"))
    turn = sg.LLM.from_backend(backend).call_tools("Tell me about Lima, the city.", [lookup], arguments="free_then_copied")
    assert [c.arguments.city for c in turn.calls] == ["Lima"] and len(backend.requests) == 2
    assert backend.requests[0].gbnf != backend.requests[1].gbnf  # the second grammar copies
    with pytest.raises(sg.BackendError, match="does not allow"):
        sg.LLM.from_backend(ScriptedBackend(written("Atlantis"), written("Atlantis"))).call_tools(
            "Tell me about Lima, the city.", [lookup], arguments="free_then_copied")


def test_required_calls_even_when_no_tool_seems_relevant() -> None:
    turn = sg.LLM.from_backend(ScriptedBackend(call("Oslo"))).call_tools("A joke?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]


def test_a_grounded_call_is_kept() -> None:
    turn = sg.LLM.from_backend(ScriptedBackend(written("Paris"))).call_tools("Tell me about the city of paris.", [lookup], decision="words")
    assert [c.arguments.city for c in turn.calls] == ["Paris"]


def test_a_repeated_call_ends_the_turn_before_it() -> None:
    twice = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup"'
    # Unfinished text finished as "stop": what a backend without our loop's check could send.
    backend = ScriptedBackend(twice, check_grammar=False)
    turn = sg.LLM.from_backend(backend).call_tools("Oslo?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]
    assert turn.raw == call("Oslo")


def test_max_rounds_carries_the_conversation() -> None:
    backend = ScriptedBackend(written("Oslo"), written("Rome"), written("Lima"))


    llm = sg.LLM.from_backend(backend)
    with pytest.raises(sg.MaxRoundsError) as info:
        llm.run_tools("Look up Oslo, Rome and Lima.", [lookup], max_rounds=2, decision="words")
    roles = [m.role for m in info.value.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]
    assert info.value.messages[2].content == "Oslo is nice"
    assert info.value.usage.attempts == 2


class Book(BaseModel):
    """A book by its title, which a validator the grammar cannot express wants capitalised."""

    title: str

    @field_validator("title")
    @classmethod
    def capitalised(cls, value: str) -> str:
        if not value[:1].isupper():
            raise ValueError("titles start with a capital")
        return value


def test_a_call_that_fails_validation_is_retried_with_the_errors() -> None:
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


def test_under_auto_a_later_call_must_add_a_word_the_user_said() -> None:
    # The second call only repeats a word the first chose: the turn ends before it.
    region = '[{"name": "lookup", "arguments": {"city": "Oslo, Norway"}}, {"name": "lookup", "arguments": {"city": "Norway"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(region)).call_tools("Look up Oslo, Norway.", [lookup], decision="words")
    assert [c.arguments.city for c in turn.calls] == ["Oslo, Norway"]
    two = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Rome"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(two)).call_tools("Look up Oslo and Rome.", [lookup], decision="words")
    assert [c.arguments.city for c in turn.calls] == ["Oslo", "Rome"]
    # A required call is not judged.
    turn = sg.LLM.from_backend(ScriptedBackend(region)).call_tools("Look up Oslo, Norway.", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo, Norway", "Norway"]


def test_under_auto_a_second_call_is_always_offered() -> None:
    """The grammar of a judged "auto" turn makes the model write a second call (small models stop
    after one where two were asked for); it is kept only as the rule of later calls says. A
    required call is not made to; the model's own turn (``decision="model"``) is, once it has
    opened a call (tool-trained models also write one call of two)."""
    with pytest.raises(sg.BackendError, match="does not allow"):
        sg.LLM.from_backend(ScriptedBackend(call("Paris"))).call_tools("Tell me about paris.", [lookup], decision="words")
    backend = ScriptedBackend(written("Paris"))
    turn = sg.LLM.from_backend(backend).call_tools("Tell me about paris.", [lookup], decision="words")
    assert [c.arguments.city for c in turn.calls] == ["Paris"] and turn.raw == call("Paris") and not turn.truncated
    assert "{1,3}" in backend.requests[0].gbnf
    required = ScriptedBackend(call("Paris"))
    sg.LLM.from_backend(required).call_tools("Tell me about paris.", [lookup], tool_choice="required")
    assert "{0,3}" in required.requests[0].gbnf
    model = ScriptedBackend(call("Paris"), check_grammar=False)
    sg.LLM.from_backend(model).call_tools("Tell me about paris.", [lookup], decision="model")
    assert "{1,3}" in model.requests[0].gbnf and model.requests[0].triggers


def test_a_turn_stopped_mid_stream_counts_what_was_written() -> None:
    """The turn ends before a repeated call, inside the stream: the backend answers the stop
    with what it spent (here, one token a character handed out), on both drivers."""
    for driver in ("blocking", "asyncio"):
        llm = sg.LLM.from_backend(ScriptedBackend(twice(call("Paris")), piece=1))
        ask = "Tell me about paris."
        turn = (llm.call_tools(ask, [lookup], tool_choice="required") if driver == "blocking"
                else asyncio.run(llm.acall_tools(ask, [lookup], tool_choice="required")))
        assert [c.arguments.city for c in turn.calls] == ["Paris"], driver
        # Handed out up to the end of the repeat, where the reader stopped: all but the "]".
        assert turn.usage.sampled_tokens == len(twice(call("Paris"))) - 1, driver


def other(city: str) -> str:
    """Another lookup."""
    return city


def test_an_offered_call_of_another_tool_ends_the_turn() -> None:
    """The model did not choose to write the offered call: another tool taking the same values
    is not kept. A third call is the model's choice again, judged as any later call."""
    second = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "other", "arguments": {"city": "Oslo"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(second)).call_tools("Oslo?", [lookup, other], decision="words")
    assert [c.name for c in turn.calls] == ["lookup"]
    third = ('[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Rome"}}, '
             '{"name": "other", "arguments": {"city": "Lima"}}]')
    turn = sg.LLM.from_backend(ScriptedBackend(third)).call_tools("Oslo, Rome, then Lima?", [lookup, other], decision="words")
    assert [(c.name, c.arguments.city) for c in turn.calls] == [("lookup", "Oslo"), ("lookup", "Rome"), ("other", "Lima")]


def test_an_invalid_offered_call_ends_the_turn_without_a_retry() -> None:
    two = '[{"name": "Book", "arguments": {"title": "Dune"}}, {"name": "Book", "arguments": {"title": "emma"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(two)).call_tools("Dune or emma?", [Book], decision="words")
    assert [c.arguments.title for c in turn.calls] == ["Dune"] and turn.usage.attempts == 1


def cut_short(text: str) -> Completion:
    """An answer that ran out of ``max_tokens``."""
    return Completion(text, "length", sg.Usage(attempts=1, sampled_tokens=len(text)))


def test_a_budget_that_runs_out_in_a_later_call_keeps_the_whole_calls() -> None:
    cut = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Ro'
    turn = sg.LLM.from_backend(ScriptedBackend(cut_short(cut))).call_tools("Oslo, Rome?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"] and turn.truncated
    assert turn.raw == call("Oslo")


def test_a_budget_that_runs_out_in_the_offered_call_is_not_a_truncated_turn() -> None:
    """The model did not choose to write the offered call: without it the turn is whole."""
    cut = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Ro'
    turn = sg.LLM.from_backend(ScriptedBackend(cut_short(cut))).call_tools("Oslo, Rome?", [lookup], decision="words")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"] and not turn.truncated


def test_a_budget_that_runs_out_in_the_first_call_is_an_incomplete_output() -> None:
    with pytest.raises(sg.IncompleteOutputError):
        sg.LLM.from_backend(ScriptedBackend(cut_short('[{"name": "lookup", "argu'))).call_tools("Oslo?", [lookup], tool_choice="required")


# -- one operation, two drivers ----------------------------------------------------------------


class ThreadRecording(ScriptedBackend):
    """A scripted backend that records the thread each request was made on."""

    def __init__(self, *answers: str) -> None:
        super().__init__(*answers)
        self.threads: list[int] = []

    def complete(self, request: CompletionRequest) -> Any:
        self.threads.append(threading.get_ident())
        return super().complete(request)


class BlockingOnly(Backend):  # type: ignore[misc]
    """Only the blocking side of the seam (what the in-process backend offers)."""

    def __init__(self, script: ThreadRecording) -> None:
        self.script = script

    def complete(self, request: CompletionRequest) -> Any:
        return self.script.complete(request)

    def close(self) -> None:
        self.script.close()


def test_arun_tools_runs_the_model_and_async_tools_on_the_event_loop() -> None:
    where: dict[str, int] = {}

    async def alookup(city: str) -> str:
        """Look a city up."""
        where["tool"] = threading.get_ident()
        return f"{city} is nice"

    def answer() -> tuple[sg.ToolRun[str], int]:
        async def main() -> tuple[sg.ToolRun[str], int]:
            run = await llm.arun_tools("Tell me about the city of paris.", [alookup], decision="words", arguments="free")
            return run, threading.get_ident()
        return asyncio.run(main())

    ended = written("Atlantis").replace("lookup", "alookup")  # not grounded: the model then answers
    backend = ThreadRecording(written("Paris").replace("lookup", "alookup"), ended, "Paris is nice.")
    llm = sg.LLM.from_backend(backend)
    run, loop_thread = answer()
    assert run.output == "Paris is nice." and [r for _, r in run.calls] == ["Paris is nice"]
    assert backend.threads == [loop_thread] * 3 and where["tool"] == loop_thread

    # A backend without acomplete: the model runs in a worker thread, the async tool still here.
    script = ThreadRecording(written("Paris").replace("lookup", "alookup"), ended, "Paris is nice.")
    llm = sg.LLM.from_backend(BlockingOnly(script))
    run, loop_thread = answer()
    assert run.output == "Paris is nice."
    assert loop_thread not in script.threads and where["tool"] == loop_thread


def test_the_blocking_and_asyncio_drivers_run_the_same_operation() -> None:
    scripts = (written("Paris"), written("Oslo"), written("Atlantis"), "Both are nice.")
    blocking, native = ScriptedBackend(*scripts), ScriptedBackend(*scripts)
    ask = "Compare the city of paris with the city of oslo."
    ran = sg.LLM.from_backend(blocking).run_tools(ask, [lookup], decision="words", arguments="free")
    aran = asyncio.run(sg.LLM.from_backend(native).arun_tools(ask, [lookup], decision="words", arguments="free"))
    assert ran.output == aran.output == "Both are nice."
    assert [r for _, r in ran.calls] == [r for _, r in aran.calls] == ["Paris is nice", "Oslo is nice"]
    assert blocking.requests == native.requests and len(native.requests) == 4


def test_run_tools_with_an_async_tool_works_inside_a_running_event_loop() -> None:
    async def alookup(city: str) -> str:
        """Look a city up."""
        await asyncio.sleep(0)
        return f"{city} is nice"

    async def main() -> sg.ToolRun[str]:  # blocking code called from a coroutine, as in a notebook
        backend = ScriptedBackend(*(written(city).replace("lookup", "alookup") for city in ("Paris", "Atlantis")), "Done.")
        return sg.LLM.from_backend(backend).run_tools(
            "Tell me about the city of paris.", [alookup], decision="words", arguments="free")

    run = asyncio.run(main())
    assert [r for _, r in run.calls] == ["Paris is nice"]


def test_a_raising_tool_ends_the_run_with_the_conversation_on_both_drivers() -> None:
    def broken(city: str) -> str:
        """Look a city up."""
        raise RuntimeError("down")

    for driver in ("blocking", "asyncio"):
        llm = sg.LLM.from_backend(ScriptedBackend(written("Paris").replace("lookup", "broken")))
        with pytest.raises(sg.ToolExecutionError, match="down") as caught:
            if driver == "blocking":
                llm.run_tools("Tell me about the city of paris.", [broken], decision="words")
            else:
                asyncio.run(llm.arun_tools("Tell me about the city of paris.", [broken], decision="words"))
        assert caught.value.messages[-1].tool_calls[0]["function"]["name"] == "broken", driver


class AllAtOnce(Backend):  # type: ignore[misc]
    """A blocking backend whose every completion waits until ``n`` of them are under way, as
    generations decoded together do; run one at a time, or ``n`` at a time on fewer threads,
    it never answers."""

    def __init__(self, n: int) -> None:
        self.everyone = threading.Barrier(n, timeout=30)
        self.script = ScriptedBackend(*(['"yes"'] * n))

    def complete(self, request: CompletionRequest) -> Any:
        self.everyone.wait()
        return self.script.complete(request)

    def close(self) -> None:
        self.script.close()


def test_every_async_generation_on_a_blocking_backend_gets_a_thread_of_its_own() -> None:
    import os

    n = min(32, (os.cpu_count() or 1) + 4) + 2  # more than the loop's default executor has
    llm = sg.LLM(backend=AllAtOnce(n))

    async def main() -> list[str]:
        return list(await asyncio.gather(*(llm.agenerate(str, f"Say yes ({i}).") for i in range(n))))

    assert asyncio.run(main()) == ["yes"] * n

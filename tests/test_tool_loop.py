"""The control flow of tool turns and runs, on a scripted backend (no model).

These replay given texts through the backend seam to reach paths a small model does not take
on demand (max_rounds, a repeated call, an ungrounded call); the same paths on the real model
and sampler are in test_tool_calls.py. The scripts are written for the word rules
(:data:`WORDS`: the "small-model" policy deciding by ``policy=WORDS``), which need no model
to decide; test_tool_policy.py has the others.
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

import structgen as sg
from structgen.backends import Backend, Completion, CompletionRequest
from structgen.testing import ScriptedBackend

#: The small-model policy deciding by the word rules alone, and that writing every value freely.
WORDS = replace(sg.policy("small-model"), decision="words")
WORDS_FREE = replace(WORDS, arguments="free")


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
    turn = sg.LLM.from_backend(backend).call_tools("Tell me a joke.", [lookup], policy=WORDS_FREE)
    assert turn.calls == [] and turn.text == "Why did the chicken cross the road?"

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    sum_call = '[{"name": "add", "arguments": {"a": 12, "b": 30}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(twice(sum_call))).call_tools("What is 12 plus 30?", [add], policy=WORDS)
    assert [(c.arguments.a, c.arguments.b) for c in turn.calls] == [(12, 30)]
    half = '[{"name": "add", "arguments": {"a": 12, "b": 7}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(twice(half), "42")).call_tools(
        "What is 12 plus 30?", [add], policy=WORDS_FREE)
    assert turn.calls == [] and turn.text == "42"


def test_with_grounding_off_the_first_call_stands_and_later_calls_are_still_judged() -> None:
    unsaid = sg.Policy(decision="words", arguments="free", offered_call="same-tool", grounding="off")
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
        policy = sg.Policy(decision="words", arguments="free", offered_call="same-tool", alternatives=alternatives)  # type: ignore[arg-type]
        backend = ScriptedBackend(call("Oslo"))
        turn = sg.LLM.from_backend(backend).call_tools("Oslo?", [lookup, forecast], tool_choice="required", policy=policy)
        assert [c.arguments.city for c in turn.calls] == ["Oslo"]
        assert (backend.requests[0].choices is not None) is scored


def test_a_call_refused_as_unsaid_is_written_again_from_the_users_words() -> None:
    """``arguments="free_then_copied"``: the second call may only copy the request's words."""
    again = replace(sg.policy("small-model"), arguments="free_then_copied")
    backend = ScriptedBackend(written("Atlantis"), written("Lima"))
    turn = sg.LLM.from_backend(backend).call_tools("Tell me about Lima, the city.", [lookup], policy=again)
    assert [c.arguments.city for c in turn.calls] == ["Lima"] and len(backend.requests) == 2
    assert backend.requests[0].gbnf != backend.requests[1].gbnf  # the second grammar copies
    with pytest.raises(sg.BackendError, match="does not allow"):
        sg.LLM.from_backend(ScriptedBackend(written("Atlantis"), written("Atlantis"))).call_tools(
            "Tell me about Lima, the city.", [lookup], policy=again)


def test_required_calls_even_when_no_tool_seems_relevant() -> None:
    turn = sg.LLM.from_backend(ScriptedBackend(call("Oslo"))).call_tools("A joke?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]


def test_a_grounded_call_is_kept() -> None:
    turn = sg.LLM.from_backend(ScriptedBackend(written("Paris"))).call_tools("Tell me about the city of paris.", [lookup], policy=WORDS)
    assert [c.arguments.city for c in turn.calls] == ["Paris"]


def test_a_repeated_call_ends_the_turn_before_it() -> None:
    twice = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup"'
    # Unfinished text finished as "stop": what a backend without our loop's check could send.
    backend = ScriptedBackend(twice, check_grammar=False)
    turn = sg.LLM.from_backend(backend).call_tools("Oslo?", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]
    assert turn.raw == call("Oslo")


class Report(BaseModel):
    city: str
    summary: str


def test_a_typed_run_calls_any_tool_every_step_and_keeps_the_policys_other_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A typed run's steps must call and may call any tool, ``final_result`` among them: the
    policy's decision is not asked which (a scored one, ranking ``final_result`` against the
    request, could leave it out), and the encoder it would need is not loaded; every other rule
    of the policy applies as set (here "tool-trained"'s names chosen by tokens, not scored)."""
    import structgen._tools.policy._meanings as meanings

    monkeypatch.setattr(meanings, "embedding_model_folder", lambda: None)  # loading it would warn
    final = '[{"name": "final_result", "arguments": {"city": "Oslo", "summary": "Oslo is nice"}}]'
    for policy, scored in (("small-model", True), ("tool-trained", False)):
        backend = ScriptedBackend(call("Oslo"), final)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            run = sg.LLM.from_backend(backend).run_tools(
                "A report on Oslo, please.", [lookup], output_type=Report, policy=policy)  # type: ignore[arg-type]
        assert run.output == Report(city="Oslo", summary="Oslo is nice") and run.ended == "final_result"
        assert [r for _, r in run.calls] == ["Oslo is nice"]
        for request in backend.requests:  # both tools callable in each step, the policy's alternatives rule kept
            assert '\\"lookup\\"' in request.gbnf and '\\"final_result\\"' in request.gbnf
            assert (request.choices is not None) is scored


def test_max_rounds_carries_the_conversation() -> None:
    backend = ScriptedBackend(written("Oslo"), written("Rome"), written("Lima"))
    llm = sg.LLM.from_backend(backend)
    with pytest.raises(sg.MaxRoundsError) as info:
        llm.run_tools("Look up Oslo, Rome and Lima.", [lookup], max_rounds=2, policy=WORDS)
    roles = [m.role for m in info.value.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]
    assert info.value.messages[2].content == "Oslo is nice"
    assert info.value.usage.attempts == 2
    made = [(call.name, result) for call, result in info.value.calls]
    assert made == [("lookup", "Oslo is nice"), ("lookup", "Rome is nice")]
    assert [[c.arguments.city for c in turn.calls] for turn in info.value.turns] == [["Oslo"], ["Rome"]]


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
    turn = sg.LLM.from_backend(ScriptedBackend(two)).call_tools("Look up Oslo.", [lookup], policy=WORDS)
    assert [c.arguments.city for c in turn.calls] == ["Oslo"]
    assert turn.raw == call("Oslo")


def test_under_auto_a_later_call_must_add_a_word_the_user_said() -> None:
    # The second call only repeats a word the first chose: the turn ends before it.
    region = '[{"name": "lookup", "arguments": {"city": "Oslo, Norway"}}, {"name": "lookup", "arguments": {"city": "Norway"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(region)).call_tools("Look up Oslo, Norway.", [lookup], policy=WORDS)
    assert [c.arguments.city for c in turn.calls] == ["Oslo, Norway"]
    two = '[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Rome"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(two)).call_tools("Look up Oslo and Rome.", [lookup], policy=WORDS)
    assert [c.arguments.city for c in turn.calls] == ["Oslo", "Rome"]
    # A required call is not judged.
    turn = sg.LLM.from_backend(ScriptedBackend(region)).call_tools("Look up Oslo, Norway.", [lookup], tool_choice="required")
    assert [c.arguments.city for c in turn.calls] == ["Oslo, Norway", "Norway"]


def test_under_auto_a_second_call_is_always_offered() -> None:
    """The grammar of a judged "auto" turn makes the model write a second call (small models stop
    after one where two were asked for); it is kept only as the rule of later calls says. A
    required call is not made to; the model's own turn (``policy="model"``) is, once it has
    opened a call (tool-trained models also write one call of two)."""
    with pytest.raises(sg.BackendError, match="does not allow"):
        sg.LLM.from_backend(ScriptedBackend(call("Paris"))).call_tools("Tell me about paris.", [lookup], policy=WORDS)
    backend = ScriptedBackend(written("Paris"))
    turn = sg.LLM.from_backend(backend).call_tools("Tell me about paris.", [lookup], policy=WORDS)
    assert [c.arguments.city for c in turn.calls] == ["Paris"] and turn.raw == call("Paris") and not turn.truncated
    assert "{1,3}" in backend.requests[0].gbnf
    required = ScriptedBackend(call("Paris"))
    sg.LLM.from_backend(required).call_tools("Tell me about paris.", [lookup], tool_choice="required")
    assert "{0,3}" in required.requests[0].gbnf
    model = ScriptedBackend(call("Paris"), check_grammar=False)
    sg.LLM.from_backend(model).call_tools("Tell me about paris.", [lookup], policy="model")
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
    turn = sg.LLM.from_backend(ScriptedBackend(second)).call_tools("Oslo?", [lookup, other], policy=WORDS)
    assert [c.name for c in turn.calls] == ["lookup"]
    third = ('[{"name": "lookup", "arguments": {"city": "Oslo"}}, {"name": "lookup", "arguments": {"city": "Rome"}}, '
             '{"name": "other", "arguments": {"city": "Lima"}}]')
    turn = sg.LLM.from_backend(ScriptedBackend(third)).call_tools("Oslo, Rome, then Lima?", [lookup, other], policy=WORDS)
    assert [(c.name, c.arguments.city) for c in turn.calls] == [("lookup", "Oslo"), ("lookup", "Rome"), ("other", "Lima")]


def test_an_invalid_offered_call_ends_the_turn_without_a_retry() -> None:
    two = '[{"name": "Book", "arguments": {"title": "Dune"}}, {"name": "Book", "arguments": {"title": "emma"}}]'
    turn = sg.LLM.from_backend(ScriptedBackend(two)).call_tools("Dune or emma?", [Book], policy=WORDS)
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
    turn = sg.LLM.from_backend(ScriptedBackend(cut_short(cut))).call_tools("Oslo, Rome?", [lookup], policy=WORDS)
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
            run = await llm.arun_tools("Tell me about the city of paris.", [alookup], policy=WORDS_FREE)
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
    ran = sg.LLM.from_backend(blocking).run_tools(ask, [lookup], policy=WORDS_FREE)
    aran = asyncio.run(sg.LLM.from_backend(native).arun_tools(ask, [lookup], policy=WORDS_FREE))
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
            "Tell me about the city of paris.", [alookup], policy=WORDS_FREE)

    run = asyncio.run(main())
    assert [r for _, r in run.calls] == ["Paris is nice"]


def broken(city: str) -> str:
    """Look a city up."""
    raise RuntimeError("down")


def failing_once() -> Callable[[str], str]:
    """A lookup whose first call raises ConnectionError."""
    failures = [ConnectionError("busy")]

    def lookup_once(city: str) -> str:
        """Look a city up."""
        if failures:
            raise failures.pop()
        return f"{city} is nice"

    return lookup_once


def test_a_raising_tool_ends_the_run_with_the_conversation_when_asked_on_both_drivers() -> None:
    for driver in ("blocking", "asyncio"):
        llm = sg.LLM.from_backend(ScriptedBackend(written("Paris").replace("lookup", "broken")))
        with pytest.raises(sg.ToolExecutionError, match="down") as caught:
            if driver == "blocking":
                llm.run_tools("Tell me about the city of paris.", [broken], policy=WORDS, tool_errors="raise")
            else:
                asyncio.run(llm.arun_tools(
                    "Tell me about the city of paris.", [broken], policy=WORDS, tool_errors="raise"))
        assert caught.value.messages[-1].tool_calls[0]["function"]["name"] == "broken", driver
    with pytest.raises(ValueError, match="tool_errors must be one of"):
        llm.run_tools("Paris?", [broken], tool_errors="ignore")  # type: ignore[arg-type]


def test_a_raising_tool_is_shown_to_the_model_by_default_on_both_drivers() -> None:
    for driver in ("blocking", "asyncio"):
        # the call, then (every step is a call turn under "words") one no one asked for: an answer
        backend = ScriptedBackend(*(written(c).replace("lookup", "broken") for c in ("Paris", "Atlantis")),
                                  "The lookup service is down.")
        llm = sg.LLM.from_backend(backend)
        if driver == "blocking":
            run = llm.run_tools("Tell me about the city of paris.", [broken], policy=WORDS)
        else:
            run = asyncio.run(llm.arun_tools("Tell me about the city of paris.", [broken], policy=WORDS))
        assert run.output == "The lookup service is down." and run.ended == "answer", driver
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"]
        assert run.messages[2].content == "Error: RuntimeError: down"
        assert run.messages[2].tool_call_id == run.messages[1].tool_calls[0]["id"]
        (made, outcome), = run.calls
        assert made.name == "broken" and isinstance(outcome, sg.ToolExecutionError)
        # the model read the error: it is in the prompt of the step after the call
        assert any(m.content == "Result of broken: Error: RuntimeError: down" for m in backend.requests[1].messages)


def test_a_tool_asks_for_a_corrected_call_with_model_retry_even_when_errors_raise() -> None:
    asked: list[str] = []

    def forecast(city: str) -> str:
        """The weather forecast for a city."""
        asked.append(city)
        if city != "Paris":
            raise sg.ModelRetry(f"No city is called {city!r}; give its full name.")
        return "sunny"

    calls = [written(c).replace("lookup", "forecast") for c in ("Par", "Paris", "Atlantis")]
    llm = sg.LLM.from_backend(ScriptedBackend(*calls, "Sunny in Paris."))
    run = llm.run_tools("The forecast for Par (Paris, France)?", [forecast], policy=WORDS, tool_errors="raise")
    assert asked == ["Par", "Paris"] and run.output == "Sunny in Paris."
    assert run.messages[2].content == "No city is called 'Par'; give its full name. Correct the call and try again."
    assert isinstance(run.calls[0][1], sg.ModelRetry) and run.calls[1][1] == "sunny"
    with pytest.raises(sg.ModelRetry):
        run.calls[0][0].invoke()  # outside a run it propagates as it is


def test_the_same_calls_again_end_the_run_with_an_answer_not_a_loop() -> None:
    """The loop guard: a step that asks only for results the model already has is not run."""
    unsaid = sg.Policy(decision="words", arguments="free", offered_call="same-tool", grounding="off")  # grounding alone would refuse a repeat
    backend = ScriptedBackend(written("Oslo"), written("Oslo"), "Oslo is nice.")
    run = sg.LLM.from_backend(backend).run_tools("Oslo?", [lookup], policy=unsaid, max_rounds=20)
    assert run.ended == "repeated" and run.output == "Oslo is nice."
    assert [c.arguments.city for c, _ in run.calls] == ["Oslo"]  # the repeat was not run
    assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"]
    assert len(run.turns) == 3 and backend.remaining == 0
    assert backend.requests[2].gbnf.startswith("root ::= ([^")  # the closing step is a reply in words

    # a call that failed may be tried again as it was: its result is not known
    again = [written("Oslo").replace("lookup", "lookup_once")] * 3
    run = sg.LLM.from_backend(ScriptedBackend(*again, "Oslo is nice.")).run_tools(
        "Oslo?", [failing_once()], policy=unsaid)
    assert run.ended == "repeated" and len(run.turns) == 4
    assert isinstance(run.calls[0][1], sg.ToolExecutionError) and run.calls[1][1] == "Oslo is nice"

    # a call that fails again as it was: its error is known, and a third try is a loop
    down = [written("Oslo").replace("lookup", "broken")] * 3
    run = sg.LLM.from_backend(ScriptedBackend(*down, "It is down.")).run_tools("Oslo?", [broken], policy=unsaid)
    assert run.ended == "repeated" and len(run.calls) == 2 and run.output == "It is down."


def test_grounding_lets_a_call_that_failed_be_made_again_as_it_was() -> None:
    calls = [written("Paris").replace("lookup", "lookup_once")] * 3  # the third repeats a success
    run = sg.LLM.from_backend(ScriptedBackend(*calls, "Paris is nice.")).run_tools(
        "Tell me about the city of paris.", [failing_once()], policy=WORDS)
    assert [r if isinstance(r, str) else type(r.__cause__).__name__ for _, r in run.calls] == [
        "ConnectionError", "Paris is nice"]
    assert run.output == "Paris is nice." and run.ended == "answer"


def test_a_run_continues_with_its_messages_and_the_next_user_message() -> None:
    backend = ScriptedBackend(written("Oslo"), written("Atlantis"), "Oslo is nice.",
                              written("Rome"), written("Atlantis"), "Rome is nice too.")
    llm = sg.LLM.from_backend(backend)
    first = llm.run_tools("Look up Oslo.", [lookup], policy=WORDS)
    second = llm.run_tools([*first.messages, {"role": "user", "content": "And Rome?"}], [lookup], policy=WORDS)
    assert second.output == "Rome is nice too." and [c.arguments.city for c, _ in second.calls] == ["Rome"]
    assert [m.role for m in second.messages] == [
        "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    assert second.messages[:4] == list(first.messages)
    assert [len(t.calls) for t in second.turns] == [1, 0]
    # every tool result names a call of the assistant message before it
    for call_message, result in ((second.messages[1], second.messages[2]), (second.messages[5], second.messages[6])):
        assert result.tool_call_id == call_message.tool_calls[0]["id"] and result.name == "lookup"


def test_a_hand_written_loop_needs_nothing_private() -> None:
    llm = sg.LLM.from_backend(ScriptedBackend(written("Oslo"), written("Atlantis"), "Oslo is nice."))
    messages: list[sg.Message | dict[str, Any]] = [{"role": "user", "content": "Look up Oslo."}]
    while (turn := llm.call_tools(messages, [lookup], policy=WORDS)).calls:
        messages.append(turn.message)
        messages += [call.result_message(call.invoke()) for call in turn.calls]
    assert turn.text == "Oslo is nice."
    assert [m.role for m in messages[1:]] == ["assistant", "tool"]  # type: ignore[union-attr]
    assert turn.message == sg.Message("assistant", "Oslo is nice.")


def test_grounding_hears_earlier_turns_and_tool_results_but_repeats_only_since_the_request() -> None:
    """A value an earlier turn's tool returned grounds a call of a later turn; a call made in an
    earlier turn may be made again after a new request (the state may have changed)."""
    def rooms(hotel: str) -> str:
        """List the free rooms of a hotel."""
        return "room 212 and room 305"

    def book(room: int) -> str:
        """Book a room by its number."""
        return f"booked {room}"

    first = '[{"name": "rooms", "arguments": {"hotel": "Ritz"}}]'
    booking = '[{"name": "book", "arguments": {"room": 305}}]'
    unsaid = '[{"name": "book", "arguments": {"room": 999}}]'
    # each turn: its call, then a call the rule refuses (a repeat, a room no one named), then the answer
    backend = ScriptedBackend(twice(first), twice(first), "Rooms 212 and 305 are free.",
                              twice(booking), twice(unsaid), "Booked.", twice(first), twice(first), "Only 212 now.")
    llm = sg.LLM.from_backend(backend)
    tools = [rooms, book]
    run = llm.run_tools("Which rooms are free at the Ritz hotel?", tools, policy=WORDS)
    run = llm.run_tools([*run.messages, {"role": "user", "content": "Book the second room please."}], tools,
                        policy=WORDS)
    assert [(c.name, r) for c, r in run.calls][-1] == ("book", "booked 305")  # 305: a tool result of turn one
    run = llm.run_tools([*run.messages, {"role": "user", "content": "Which rooms are free at the Ritz hotel now?"}],
                        tools, policy=WORDS)
    assert [c.name for c, _ in run.calls][-1] == "rooms" and run.output == "Only 212 now."


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

"""The diagnosis of backend_parity's differences (bench/suites/parity_diagnosis.py and what
parity_recording.py keeps): where two sequences part, which request fields differ, what counts as
a near tie, what the recorder keeps, and the causes found without a model (no model)."""

from __future__ import annotations

from typing import Any

import pytest

import structgen
from bench.suites.parity_diagnosis import (
    NEAR_TIE, departure, diagnose, differing_fields, explained, first_difference, is_near_tie, shown_difference,
    spells_alike,
)
from bench.suites.parity_recording import Recorder, Step
from structgen.backends import CompletionRequest, Message, ScoreRequest
from structgen.testing import ScriptedBackend


@pytest.mark.parametrize(
    ("a", "b", "at"),
    [
        ([1, 2, 3], [1, 2, 3], None),
        ([1, 2, 3], [1, 5, 3], 1),
        ([1, 2], [1, 2, 3], 2),  # a prefix: the shorter one's end
        ([], [7], 0),
        ("<|im_start|>user", "<|im_start|>User", 12),
    ],
)
def test_first_difference(a: Any, b: Any, at: int | None) -> None:
    assert first_difference(a, b) == at


@pytest.mark.parametrize(
    ("pieces", "text", "at"),
    [
        ([b"<", b"tool", b"_call", b">\n"], b"<tool_call>\n{", None),  # the same text in other tokens
        ([b'{"', b"m", b"ice"], b'{"mouse"}', 2),  # leaves "mouse" at "ice"
        ([b'{"', b"mouse", b'"}', b"\n"], b'{"mouse"}', 3),  # goes on after the text ends
        ([], b"x", None),
    ],
)
def test_departure(pieces: list[bytes], text: bytes, at: int | None) -> None:
    assert departure(pieces, text) == at


def test_shown_difference_keeps_context_on_both_sides() -> None:
    shown = shown_difference("x" * 100 + "abc", "x" * 100 + "abd", 102, context=3)
    assert shown == {"at": 102, "ours": "xabc", "theirs": "xabd"}


def test_differing_fields() -> None:
    one = CompletionRequest(messages=(Message("user", "hi"),), gbnf='root ::= "a"')
    assert differing_fields(one, one) == []
    other = CompletionRequest(messages=(Message("user", "hi"),), gbnf='root ::= "b"', max_tokens=9)
    assert differing_fields(one, other) == ["gbnf", "max_tokens"]
    assert differing_fields(one, ScoreRequest("ctx", (" x",))) == ["kind"]


@pytest.mark.parametrize(
    ("margin", "runner_up", "near"),
    [(0.0, False, True), (NEAR_TIE / 2, False, True), (-NEAR_TIE / 2, False, True), (2.0, False, False),
     (2.0, True, True)],
)
def test_near_tie(margin: float, runner_up: bool, near: bool) -> None:
    assert is_near_tie(margin, runner_up) is near


def test_the_recorder_keeps_requests_answers_and_rendered_prompts() -> None:
    inner = ScriptedBackend('{"a": 1}', check_grammar=False)
    recorder = Recorder(inner, lambda request: "PROMPT " + request.messages[-1].content)
    llm = structgen.LLM(backend=recorder)
    assert llm.generate(dict, "Give one key.") == {"a": 1}
    [step] = recorder.taken()
    assert (step.kind, step.text, step.finish) == ("complete", '{"a": 1}', "stop")
    assert step.prompt is not None and step.prompt.startswith("PROMPT ")
    summary = step.summary()
    assert summary["gbnf"] == summary["gbnf"][:12] and summary["text"] == '{"a": 1}'
    assert recorder.taken() == []


def _complete(text: str, gbnf: str = 'root ::= "a"', prompt: str = "P") -> Step:
    request = CompletionRequest(messages=(Message("user", "hi"),), gbnf=gbnf)
    return Step("complete", request, text=text, finish="stop", prompt=prompt)


def _score(per_token: float) -> Step:
    return Step("score", ScoreRequest("ctx", (" hi",)), scores=((per_token * 2, 2),))


def test_a_request_that_differs_after_scores_is_a_request_difference() -> None:
    ours = [_score(-1.0), _complete("a")]
    theirs = [_score(-1.25), _complete("a", gbnf='root ::= "b"')]
    found = diagnose(ours, theirs, model=None)  # type: ignore[arg-type]  (no numerics needed)
    assert (found["kind"], found["step"], found["fields"]) == ("request", 1, ["gbnf"])
    assert "up to 0.2500 nats" in found["detail"]
    assert found["gbnf"]["in-process"] != found["gbnf"]["llama-server"]
    assert explained(found).startswith("request; step 2 (complete; 2 steps in process, 2 on the server)")


def test_a_prompt_rendered_differently_is_a_prompt_difference() -> None:
    found = diagnose([_complete("a", prompt="<s>user")], [_complete("b", prompt="<s>User")],
                     model=None)  # type: ignore[arg-type]
    assert found["kind"] == "prompt" and found["prompt"]["at"] == 3


def test_equal_runs_leave_nothing_explained() -> None:
    found = diagnose([_complete("a")], [_complete("a")], model=None)  # type: ignore[arg-type]
    assert found["kind"] == "unexplained"


def test_a_stopped_completion_answers_as_any_text_it_begins() -> None:
    whole, cut = _complete('{"a": 1}'), _complete('{"a"')
    assert not whole.answers_as(cut)
    cut.stopped = True  # the caller stopped it: how far each backend got depends on its stream
    assert whole.answers_as(cut) and cut.answers_as(whole)
    assert not _complete('{"b": 1}').answers_as(cut)


def test_server_tokens_asks_for_two_logprobs_and_keeps_the_sampled_tokens() -> None:
    import json

    import httpx

    from bench.suites.parity_recording import ServerTokens

    asked: list[dict[str, Any]] = []
    sampled = {"id": 7, "token": "a", "logprob": -0.1, "top_logprobs": [{"id": 7, "token": "a", "logprob": -0.1}]}
    events = [{"content": "a", "completion_probabilities": [sampled]},
              {"content": "", "stop": True, "completion_probabilities": []}]

    def reply(request: httpx.Request) -> httpx.Response:
        asked.append(json.loads(request.read()))
        return httpx.Response(200, content=b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events))

    tokens = ServerTokens(httpx.MockTransport(reply))
    with httpx.Client(transport=tokens, base_url="http://server") as client:
        client.post("/completion", json={"prompt": "p", "stream": True}).read()
        client.post("/completion", json={"prompt": "p", "n_probs": 1}).read()  # a score: left as it is
    assert [a.get("n_probs") for a in asked] == [2, 1]
    step = Step("complete", CompletionRequest(messages=(Message("user", "hi"),), gbnf='root ::= "a"'))
    tokens.fill(step)
    assert step.tokens == [7] and step.reported is not None and step.reported[0]["logprob"] == -0.1


@pytest.mark.parametrize(
    ("ours", "theirs", "our_rest", "their_rest", "alike"),
    [
        (b"<tool_call>", b"<", b"<tool_call>\n{", b"<tool_call>\n{", True),  # a special token against text tokens
        (b"mouse", b"m", b'mouse"}', b'mice"}', False),  # a choice: "mouse" is not how "mice" begins
        (b"", b"m", b"", b'mice"}', False),  # one answer ends there
    ],
)
def test_spells_alike(ours: bytes, theirs: bytes, our_rest: bytes, their_rest: bytes, alike: bool) -> None:
    assert spells_alike(ours, theirs, our_rest, their_rest) is alike

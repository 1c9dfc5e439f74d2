"""The rules table is the dispatch: every rule of a Policy is a row, every value a hook of its
phase's signature, and each rule switched off through the table alone changes what a turn does
(a scripted backend and a stand-in encoder: no model)."""

from __future__ import annotations

import typing
from dataclasses import dataclass, field, fields
from typing import Any

import pytest

from structgen._backends._seam import Message, Score, ScoreRequest
from structgen._generate._attempts import Sampling
from structgen._generate._steps import finish, run_blocking
from structgen._tools._formats import HERMES_FORMAT, JSON_FORMAT, ToolFormat
from structgen._tools._tool import as_tools
from structgen._tools._turn import TurnSettings, run_turn
from structgen._tools.policy import _table
from structgen._tools.policy._meanings import Meanings
from structgen._tools.policy._phases import PHASES
from structgen._tools.policy._policies import Policy
from structgen.testing import ScriptedBackend
from tests.support.policy import TopicEncoder


def get_forecast(city: str, unit: typing.Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Weather forecast for a city."""
    return "mild"


def send_email(to: str, body: str) -> str:
    """Send an email message."""
    return "sent"


TOOLS = as_tools([get_forecast, send_email])


class Scoring(ScriptedBackend):
    """Scripted answers, and scores: a continuation after the forecast's context is likelier."""

    def __init__(self, *answers: str) -> None:
        super().__init__(*answers, check_grammar=False)
        self.scored: list[ScoreRequest] = []

    def score(self, request: ScoreRequest) -> tuple[Score, ...]:
        self.scored.append(request)
        gain = 3.0 if "forecast" in request.context else 0.0
        return tuple(Score(-10.0 + gain, 2) for _ in request.continuations)


def json_calls(*calls: tuple[str, dict[str, Any]]) -> str:
    import json

    return json.dumps([{"name": name, "arguments": arguments} for name, arguments in calls])


FORECAST = ("get_forecast", {"city": "Oslo"})
EMAIL = ("send_email", {"to": "Ann", "body": "rain in Oslo"})
CALLED = [Message("user", "Oslo forecast?"),
          Message("assistant", "", ({"id": "c1", "type": "function",
                                     "function": {"name": "get_forecast", "arguments": '{"city": "Lima"}'}},)),
          Message("tool", "rain", tool_call_id="c1", name="get_forecast")]


@dataclass
class Case:
    """A turn in which one rule's value shows: the rules set, the conversation, the script."""

    rules: dict[str, str]
    conversation: str | list[Message]
    script: tuple[str, ...]
    format: ToolFormat = JSON_FORMAT
    scoring: bool = False
    rest: dict[str, Any] = field(default_factory=dict)


#: For each rule, a turn its value changes (the other rules as small-model's defaults).
CASES: dict[str, Case] = {
    "later_steps": Case({"later_steps": "model", "decision": "words"}, CALLED, (json_calls(FORECAST), "Rain.")),
    "decision": Case({"decision": "words"}, "Oslo forecast?", (json_calls(FORECAST),)),
    "channel": Case({"decision": "meaning"}, "Email the Oslo forecast to bob", (json_calls(FORECAST), "Fine."),
                    scoring=True),
    "offered_tools": Case({"decision": "meaning"}, "rain forecast umbrella weather in Oslo, and email",
                          (json_calls(FORECAST), "Fine.")),
    "listed_tools": Case({"decision": "words", "listed_tools": "all"}, "Oslo forecast?",
                         ('<tool_call>\n{"name": "get_forecast", "arguments": {"city": "Oslo"}}\n</tool_call>',),
                         HERMES_FORMAT),
    "reply_tools": Case({"decision": "meaning"}, "Hi there, how are you?", ("Fine, thanks.",), HERMES_FORMAT),
    "listed_values": Case({"decision": "words"}, "Oslo forecast in fahrenheit",
                          (json_calls(("get_forecast", {"city": "Oslo", "unit": "fahrenheit"})),)),
    "arguments": Case({"decision": "words", "arguments": "copied"}, "Email Ann: rain",
                      (json_calls(("send_email", {"to": "Ann", "body": "rain"})),)),
    "alternatives": Case({"decision": "words"}, "Oslo forecast?", (json_calls(FORECAST),)),
    "second_call": Case({"decision": "words"}, "Oslo forecast?", (json_calls(FORECAST),)),
    "grounding": Case({"decision": "words"}, "Oslo forecast?",
                      (json_calls(("get_forecast", {"city": "Lima"})), "I cannot tell.")),
    "offered_call": Case({"decision": "words", "arguments": "free"}, "Get the Oslo forecast and email Ann about the rain",
                         (json_calls(FORECAST, EMAIL),)),
    "call_in_reply": Case({"decision": "meaning", "call_in_reply": "kept"}, "Hi there, how are you?",
                          ('{"name": "get_forecast", "arguments": {"city": "Oslo"}}',), HERMES_FORMAT),
}


def outcome(case: Case) -> tuple[Any, ...]:
    """All a caller and the backend see of the turn: calls, text, and each request's prompt
    tools, grammar and choices, and the scoring passes."""
    backend = Scoring(*case.script) if case.scoring else ScriptedBackend(*case.script, check_grammar=False)
    conversation = [Message("user", case.conversation)] if isinstance(case.conversation, str) else case.conversation
    settings = TurnSettings(TOOLS, "auto", True, 3, Sampling.of({}, seed=0, max_tokens=200, max_retries=0),
                            case.format)
    policy = Policy(**case.rules)  # type: ignore[arg-type]
    turn = finish(run_blocking(run_turn(conversation, settings, policy, Meanings(TopicEncoder())), backend))
    requests = [(tuple(t["function"]["name"] for t in r.tools), r.gbnf, r.choices is None) for r in backend.requests]
    return ([(c.name, c.text) for c in turn.calls], turn.text, requests, len(getattr(backend, "scored", ())))


def test_every_rule_of_a_policy_is_a_row_of_the_table_and_every_value_a_hook() -> None:
    hints = typing.get_type_hints(Policy)
    assert {f.name for f in fields(Policy)} == set(_table.RULES) == set(CASES)
    for name, values in _table.RULES.items():
        assert set(typing.get_args(hints[name])) == set(values), name
        for hooks in values.values():
            assert hooks and set(hooks) <= set(PHASES), name


@pytest.mark.parametrize("rule", list(CASES))
def test_a_rule_switched_off_through_the_table_changes_the_turn(rule: str, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[rule]
    on = outcome(case)
    monkeypatch.setitem(_table.RULES, rule, _table.switched_off(rule))
    assert outcome(case) != on


def test_every_phase_runs_its_rules_in_the_table_order() -> None:
    policy = Policy()
    assert [h.__name__ for h in _table.hooks("decide", policy)] == [
        "decides_again", "action_decision", "every_channel", "close_tools"]
    assert [h.__name__ for h in _table.hooks("grammar", policy)] == [
        "named_values", "auto_arguments", "whole_alternatives", "offered_second_call"]
    assert [h.__name__ for h in _table.hooks("keep", policy)] == ["judged_as_planned", "said_first_call", "same_tool"]

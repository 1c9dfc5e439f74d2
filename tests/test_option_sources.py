"""Every default is stated once: sampling in ``DEFAULT_SAMPLING``, grammar options in ``PRESETS``.
The keyword signatures that restate names (for typing) are held to those sources here."""

from __future__ import annotations

import inspect
import typing
from dataclasses import fields
from typing import Any

from structgen import LLM, SamplingSettings
from structgen._backends._seam import DEFAULT_SAMPLING
from structgen._generate._llm import GenerateOptions

SAMPLING = [f.name for f in fields(SamplingSettings)]


def _keywords(function: Any) -> dict[str, inspect.Parameter]:
    return {name: p for name, p in inspect.signature(function).parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and not name.startswith("_")}


def test_generate_options_are_the_keywords_of_a_generation() -> None:
    keywords = _keywords(LLM._events)
    assert set(typing.get_type_hints(GenerateOptions)) == set(keywords) - {"on_refusal"}
    assert set(SAMPLING) <= set(keywords)


def test_every_call_takes_its_sampling_defaults_from_one_place() -> None:
    for function in (LLM._events, LLM.call_tools, LLM._turn_events):
        keywords = _keywords(function)
        for name in SAMPLING:
            default = keywords[name].default
            # seed None means the LLM's own seed; the others are DEFAULT_SAMPLING's values
            expected = None if name == "seed" else getattr(DEFAULT_SAMPLING, name)
            assert default == expected, (function.__qualname__, name)

"""Prove that your models and their grammars agree — copy this file into your tests/.

Run with ``pytest examples/testing/test_my_models.py`` (needs ``structgen[test]`` and the
default model's vocabulary). Replace the example models with imports of your own.
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Callable
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, Field

from structgen.testing import (
    assert_round_trip,
    assert_samples_validate,
    round_trip_tests,
)

# ---------------------------------------------------------------- your models (replace these)


class Priority(enum.Enum):
    LOW = "low"
    HIGH = "high"


class Assignee(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=40)]
    email: Optional[Annotated[str, Field(pattern=r"^[a-z0-9.]+@[a-z0-9]+\.[a-z]{2,6}$")]] = None


class Ticket(BaseModel):
    title: Annotated[str, Field(min_length=3, max_length=80)]
    priority: Priority
    status: Literal["open", "closed"] = "open"
    estimate_hours: Annotated[float, Field(ge=0, le=100)]
    due: Optional[datetime.date] = None
    labels: Annotated[list[str], Field(max_length=5)] = []
    assignee: Optional[Assignee] = None


# ---------------------------------------------------------------- one line per model

# Two cases per type, on the grammar llm.generate sends for it: "round_trip" (every valid
# instance can be produced: its JSON is accepted by llama.cpp's grammar sampler and parses back
# equal) and "samples_validate" (every string the grammar derives validates). Raise the example
# count with `pytest --structgen-max-examples 500`; pick your model's vocabulary with
# `pytest --structgen-model=PATH.gguf` (or model=).
test_models = round_trip_tests(Ticket, Assignee, list[Priority])

# The same, with grammar options changed as @structured(whitespace="minified") would.
test_models_minified = round_trip_tests(Ticket, whitespace="minified", max_examples=25)


# ---------------------------------------------------------------- or explicitly

def test_ticket_with_refusal_branch() -> None:
    # The refusal option adds {"refusal": "..."} as an alternative; real tickets still pass.
    assert_round_trip(Ticket, refusal=True, max_examples=25)


def test_ticket_with_fixture(
    structgen_round_trip: Callable[..., None], structgen_samples_validate: Callable[..., None]
) -> None:
    # The pytest plugin's fixtures honour --structgen-max-examples.
    structgen_round_trip(Ticket, key_order="required-first")
    structgen_samples_validate(Ticket, key_order="required-first")


# A hand-written grammar can be held to the same standard as a generated one.
PRIORITY_GRAMMAR = r'''
root ::= "\"" ("low" | "high") "\""
'''


def test_hand_written_grammar() -> None:
    assert_round_trip(Priority, grammar=PRIORITY_GRAMMAR, max_examples=10)
    assert_samples_validate(Priority, grammar=PRIORITY_GRAMMAR, max_examples=10)

"""``reasoning=``: a bounded free section the model writes before its typed answer or its calls.

The section is written between the markers the model's chat template uses for reasoning
(``<think>``/``</think>`` and the like), or :data:`DEFAULT_MARKERS` for templates that have
none; the backend bounds it (see :class:`~structgen.backends.Reasoning`). A template that opens the
section by itself gets it bounded even when ``reasoning`` is not given: a grammar from the
first token would forbid it, and an unbounded one could take the whole budget.
"""

from __future__ import annotations

from typing import Any, Union

from .._backends._seam import Reasoning

ReasoningOption = Union[bool, int, None]
"""``reasoning=``: None or False (no section unless the template opens one), True
(:data:`DEFAULT_REASONING_BUDGET` tokens) or a budget of tokens."""

#: The budget of ``reasoning=True``, in tokens.
DEFAULT_REASONING_BUDGET = 256

#: The budget of a section a chat template opens by itself when ``reasoning`` is not given.
OPENED_REASONING_BUDGET = 1024

#: Reasoning markers as chat templates spell them, longest first (each opening marker is
#: looked for in the template's source).
TEMPLATE_MARKERS: tuple[tuple[str, str], ...] = (
    ("<|START_THINKING|>", "<|END_THINKING|>"),
    ("<seed:think>", "</seed:think>"),
    ("<think>", "</think>"),
    ("[THINK]", "[/THINK]"),
)

#: The markers of templates that know none: ordinary text to the model.
DEFAULT_MARKERS = ("<think>", "</think>")


def checked_budget(reasoning: Any) -> int | None:
    """The section's budget ``reasoning=`` asks for (None: none), or a clear error."""
    if reasoning is None or reasoning is False:
        return None
    if reasoning is True:
        return DEFAULT_REASONING_BUDGET
    if not isinstance(reasoning, int):
        raise TypeError(f"reasoning must be None, True or a number of tokens, not {type(reasoning).__name__}")
    if reasoning < 1:
        raise ValueError(f"reasoning must be a budget of at least 1 token, not {reasoning}")
    return reasoning


def template_markers(template: str | None) -> tuple[str, str] | None:
    """The reasoning markers ``template`` (a chat template's source) uses, if any."""
    if not template:
        return None
    return next((pair for pair in TEMPLATE_MARKERS if pair[0] in template and pair[1] in template), None)


def reasoning_section(reasoning: Any, template: str | None) -> Reasoning | None:
    """The section a request asks for with ``reasoning=`` on a model with chat ``template``."""
    budget = checked_budget(reasoning)
    markers = template_markers(template)
    if budget is None:
        return None if markers is None else Reasoning(*markers, OPENED_REASONING_BUDGET, always=False)
    return Reasoning(*(markers or DEFAULT_MARKERS), budget)


__all__ = [
    "DEFAULT_MARKERS", "DEFAULT_REASONING_BUDGET", "OPENED_REASONING_BUDGET", "ReasoningOption",
    "TEMPLATE_MARKERS", "checked_budget", "reasoning_section", "template_markers",
]

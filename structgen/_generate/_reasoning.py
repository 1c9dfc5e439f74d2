"""``reasoning=``: a bounded free section the model writes before its typed answer or its calls.

The section is written between the markers the model's chat template uses for reasoning
(``<think>``/``</think>`` and the like), or :data:`DEFAULT_MARKERS` for templates that have
none; the backend bounds it (see :class:`~structgen.backends.Reasoning`). A model whose template
knows reasoning markers thinks unless told not to: when ``reasoning`` is not given it gets a
bounded section (a grammar from the first token would forbid the thinking it was trained to
do, and an unbounded one could take the whole budget), whether its template opens the section
(DeepSeek-R1's) or leaves the model to open it (Qwen3's); a template told not to think (its
prompt already closes the section) gets none. ``reasoning=False`` turns thinking off: a
section is closed at once.
"""

from __future__ import annotations

from typing import Any, Union

from .._backends._seam import Reasoning

ReasoningOption = Union[bool, int, None]
"""``reasoning=``: None (a bounded section where the template knows reasoning markers), False
(none: a section the template knows is closed at once), True (:data:`DEFAULT_REASONING_BUDGET`
tokens) or a budget of tokens."""

#: The budget of ``reasoning=True``, in tokens: room for a worked reply to a word problem (fewer cut
#: short than at 256: docs/benchmarks.md, "Does thinking first help?").
DEFAULT_REASONING_BUDGET = 512

#: The budget of the section of a template that knows reasoning, when ``reasoning`` is not given.
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

#: A typed answer's section on a model whose template knows no reasoning markers: the model's own
#: reply, asked to work the request out (``_describe.WORKED_LEAD``), then this text, then the
#: answer. Such models close a ``<think>`` they were never trained on after a sentence; their
#: own reply keeps the working (docs/generation.md, "Does structured output cost accuracy?").
WORKED_REPLY = ("", "\n\nAnswer as JSON: ")


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
    """The reasoning markers ``template`` (a chat template's source) uses, if any: a template
    that names the closing marker knows the model reasons, even where it never writes the
    opening one (DeepSeek-R1 distills' first template only cuts earlier turns at ``</think>``)."""
    if not template:
        return None
    return next((pair for pair in TEMPLATE_MARKERS if pair[1] in template), None)


def reasoning_section(reasoning: Any, template: str | None, *, typed: bool = False) -> Reasoning | None:
    """The section a request asks for with ``reasoning=`` on a model with chat ``template``;
    ``typed``: before a typed answer (a model whose template knows no markers then works the
    request out in its own reply, :data:`WORKED_REPLY`)."""
    budget = checked_budget(reasoning)
    markers = template_markers(template)
    if budget is None:
        if markers is None:
            return None
        return Reasoning(*markers, 0 if reasoning is False else OPENED_REASONING_BUDGET, always=False)
    if markers is None and typed:
        return Reasoning(*WORKED_REPLY, budget, separator="")
    return Reasoning(*(markers or DEFAULT_MARKERS), budget)


__all__ = [
    "DEFAULT_MARKERS", "DEFAULT_REASONING_BUDGET", "OPENED_REASONING_BUDGET", "ReasoningOption",
    "TEMPLATE_MARKERS", "WORKED_REPLY", "checked_budget", "reasoning_section", "template_markers",
]

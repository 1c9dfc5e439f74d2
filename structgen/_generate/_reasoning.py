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

from typing import Any, NamedTuple, Union

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

class TemplateMarkers(NamedTuple):
    """Reasoning markers as a family of chat templates spells them: the section's ``open`` and
    ``close``, the ``sign`` in a template's source that it knows them, and the ``separator``
    between the closed section and the answer."""

    open: str
    close: str
    sign: str
    separator: str = "\n\n"


#: The families' markers, the first whose sign a template holds wins. A template that names the
#: closing marker knows the model reasons, even where it never writes the opening one (DeepSeek-R1
#: distills' first template only cuts earlier turns at ``</think>``). GPT-OSS's harmony format
#: reasons in an analysis channel, then answers in the final one.
TEMPLATE_MARKERS: tuple[TemplateMarkers, ...] = (
    TemplateMarkers("<|channel|>analysis<|message|>", "<|end|>", "<|channel|>analysis<|message|>",
                    "<|start|>assistant<|channel|>final<|message|>"),
    TemplateMarkers("<|START_THINKING|>", "<|END_THINKING|>", "<|END_THINKING|>"),
    TemplateMarkers("<seed:think>", "</seed:think>", "</seed:think>"),
    TemplateMarkers("<think>", "</think>", "</think>"),
    TemplateMarkers("[THINK]", "[/THINK]", "[/THINK]"),
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


def known_markers(template: str | None) -> TemplateMarkers | None:
    """The reasoning markers of ``template``'s family (a chat template's source), if any."""
    if not template:
        return None
    return next((markers for markers in TEMPLATE_MARKERS if markers.sign in template), None)


def template_markers(template: str | None) -> tuple[str, str] | None:
    """The opening and closing reasoning markers ``template`` uses, if any."""
    markers = known_markers(template)
    return None if markers is None else (markers.open, markers.close)


def reasoning_section(reasoning: Any, template: str | None, *, typed: bool = False) -> Reasoning | None:
    """The section a request asks for with ``reasoning=`` on a model with chat ``template``;
    ``typed``: before a typed answer (a model whose template knows no markers then works the
    request out in its own reply, :data:`WORKED_REPLY`)."""
    budget = checked_budget(reasoning)
    markers = known_markers(template)
    if budget is None:
        if markers is None:
            return None
        return Reasoning(markers.open, markers.close, 0 if reasoning is False else OPENED_REASONING_BUDGET,
                         separator=markers.separator, always=False)
    if markers is None:
        return Reasoning(*WORKED_REPLY, budget, separator="") if typed else Reasoning(*DEFAULT_MARKERS, budget)
    return Reasoning(markers.open, markers.close, budget, separator=markers.separator)


__all__ = [
    "DEFAULT_MARKERS", "DEFAULT_REASONING_BUDGET", "OPENED_REASONING_BUDGET", "ReasoningOption",
    "TEMPLATE_MARKERS", "TemplateMarkers", "WORKED_REPLY", "checked_budget", "known_markers", "reasoning_section",
    "template_markers",
]

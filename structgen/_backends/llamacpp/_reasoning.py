"""A reasoning section in-process: free text between two markers, at most a budget of tokens.

The section is sampled without a grammar, so the model thinks in its own words; the answer's
grammar starts only after the closing marker, which is forced when the model does not write
it within the budget. The model never starts its answer unconstrained: whatever it writes after
its own closing marker in the same token is cut away, and the grammar starts after the
separator.
"""

from __future__ import annotations

import codecs
from collections.abc import Generator

from .._section_grammar import held_back
from .._seam import Reasoning, ReasoningDelta, Usage
from ._runner import ModelRunner
from ._sampling import TokenPicker
from ._vocab import VocabTables


def write_reasoning(
    runner: ModelRunner, tables: VocabTables, picker: TokenPicker, section: Reasoning,
    *, opened: bool, usage: Usage,
) -> Generator[ReasoningDelta, None, str]:
    """Write the section after the primed prompt (``opened``: the prompt already ends with its
    opening marker); yields its text as it comes and returns it whole, markers left out.

    On return the cache holds the prompt, the section, the closing marker and the separator,
    with the logits of the last token: the answer is sampled next. A full context raises
    :class:`~._runner.ContextFullError`, as in the answer."""
    if not opened:
        _force(runner, tables, section.open, usage)
    start = runner.position
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    ends: list[int] = []  # text length after each sampled token
    text, shown, closed_at = "", 0, -1
    while len(ends) < section.budget:
        token = picker.pick(runner.logits())
        if token is None or token in tables.eog:
            break  # the model would end its turn: the section is closed for it
        runner.decode([token])
        text += decoder.decode(tables.pieces[token] or tables.special_text(token).encode())
        ends.append(len(text))
        closed_at = text.find(section.close, max(0, shown - len(section.close)))
        if closed_at >= 0:
            break
        safe = len(text) - held_back(text, section.close)
        if safe > shown:
            yield ReasoningDelta(text[shown:safe])
            shown = safe
    kept = len(ends)
    if closed_at >= 0:  # the model closed it: keep what came before the marker, as it was written
        kept = sum(1 for end in ends if end <= closed_at)
        runner.truncate(start + kept)
        head = text[ends[kept - 1] if kept else 0 : closed_at]
        if head:
            _force(runner, tables, head, usage)
        text = text[:closed_at]
    usage.reasoning_tokens += kept
    if len(text) > shown:
        yield ReasoningDelta(text[shown:])
    _force(runner, tables, section.close + section.separator, usage)
    return text


def _force(runner: ModelRunner, tables: VocabTables, text: str, usage: Usage) -> None:
    tokens = tables.tokenize(text, parse_special=True)
    runner.decode(tokens)
    usage.reasoning_tokens += len(tokens)


__all__ = ["write_reasoning"]

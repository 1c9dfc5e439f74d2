"""Lazy grammars in-process: free text until a trigger, then the grammar from the trigger on.

llama.cpp's own lazy sampler accepts tokens unchecked while it waits and, once a trigger
matches, replays the text into the grammar, aborting the process if the grammar rejects it.
We keep our rule that no token reaches the native grammar unchecked: the free text is sampled
without a grammar, triggers are found here with the same rules (a token id, or a regex whose
first non-empty group, else the whole match, marks where the grammar starts), the cache is cut
back to the trigger, and the constrained part is fed token by token through the check-then-
accept loop, starting with the trigger's own text.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._grammar_state import GrammarState
from ._runner import ContextFullError, ModelRunner
from ._sampling import TokenPicker
from .._seam import Usage
from ._vocab import VocabTables


@dataclass
class FreeText:
    """The end of the free phase: ``text`` before the trigger and ``triggered`` whether the
    grammar took over; ``produced`` counts the tokens kept."""

    text: str
    triggered: bool
    produced: int
    stopped: bool  # the model ended the answer (end of generation) before any trigger
    #: The tokens from the trigger on, still in the cache: sampled, evaluated, not yet checked
    #: by the grammar (empty where the trigger starts inside a token: those are re-spelled).
    pending: tuple[int, ...] = ()


class Triggers:
    """Trigger token ids and compiled patterns."""

    def __init__(self, triggers: Sequence[str | int]) -> None:
        self.tokens = frozenset(t for t in triggers if isinstance(t, int))
        self.patterns = [re.compile(t) for t in triggers if isinstance(t, str)]

    def start(self, text: str) -> int | None:
        """Where the grammar starts in ``text``, if a pattern matches."""
        for pattern in self.patterns:
            match = pattern.search(text)
            if match is None:
                continue
            groups = [match.start(i) for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
            return groups[0] if groups else match.start()
        return None


def run_free(
    runner: ModelRunner, tables: VocabTables, picker: TokenPicker, triggers: Triggers,
    *, max_tokens: int, usage: Usage,
) -> tuple[FreeText, str]:
    """Sample without a grammar until a trigger, the end of generation or ``max_tokens``.

    Returns the free phase and the text from the trigger on (to be fed through the grammar);
    on return the cache holds the prompt and the free text before the trigger only."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    base = runner.position
    tokens: list[int] = []
    ends: list[int] = []  # text length after each token
    text = ""
    while len(tokens) < max_tokens:
        token = picker.pick(runner.logits())
        if token is None or token in tables.eog:
            usage.sampled_tokens += len(tokens)
            return FreeText(text, False, len(tokens), True), ""
        before = len(text)
        text += decoder.decode(tables.pieces[token])
        if token in triggers.tokens:
            tokens.append(token)
            ends.append(len(text))
            start: int | None = before
        else:
            try:
                runner.decode([token])
            except ContextFullError:  # ends like max_tokens: the caller reports which ran out
                text = text[:before]
                break
            tokens.append(token)
            ends.append(len(text))
            start = triggers.start(text)
        if start is not None:
            kept = sum(1 for end in ends if end <= start)
            after = tokens[kept:]
            if (ends[kept - 1] if kept else 0) == start and not triggers.tokens.intersection(after):
                # The trigger starts where a token does: what the model wrote from there on is
                # kept as it is, to be checked by the grammar without being evaluated again.
                usage.sampled_tokens += kept
                return FreeText(text[:start], True, kept, False, tuple(after)), text[start:]
            runner.truncate(base + kept)
            usage.sampled_tokens += kept
            head = text[ends[kept - 1] if kept else 0 : start]
            if head:  # the part of a straddling token before the trigger, as its own tokens
                head_tokens = tables.tokenize(head)
                runner.decode(head_tokens)
                usage.forced_tokens += len(head_tokens)
                kept += len(head_tokens)
            return FreeText(text[:start], True, kept, False), text[start:]
    usage.sampled_tokens += len(tokens)
    return FreeText(text, False, len(tokens), False), ""


def feed_constrained(
    runner: ModelRunner, tables: VocabTables, state: GrammarState, text: str, usage: Usage,
    pending: tuple[int, ...] = (),
) -> tuple[str, int]:
    """Feed the trigger's text through the grammar (checked token by token) and evaluate it;
    with ``pending`` (the free phase's own tokens of that text, already in the cache), check
    those instead, and drop from the cache the ones the grammar refuses.

    Returns the text accepted and the number of tokens; what the grammar does not accept is
    dropped (the model continues under the grammar from the accepted part)."""
    if pending:
        taken = state.accept_prefix(pending)
        accepted = list(pending[:taken])
        usage.sampled_tokens += taken
        if taken < len(pending):
            runner.truncate(runner.position - (len(pending) - taken))
            _refresh_logits(runner)
    else:
        tokens = tables.tokenize(text, parse_special=True)
        accepted = tokens[: state.accept_prefix(tokens)]
        if accepted:
            runner.decode(accepted)
        else:
            _refresh_logits(runner)
        usage.forced_tokens += len(accepted)
    return b"".join(tables.pieces[t] for t in accepted).decode("utf-8", errors="replace"), len(accepted)


def _refresh_logits(runner: ModelRunner) -> None:
    """Evaluate the last cached token again: the decoder needs its logits, and a cut cache
    keeps those of a token it no longer holds."""
    if runner.tokens:
        last = runner.tokens[-1]
        runner.truncate(runner.position - 1)
        runner.decode([last])


__all__ = ["FreeText", "Triggers", "feed_constrained", "run_free"]

"""Whole-alternative choices: at a JSON position whose value is one of a few spellings, every
spelling is scored by its full log-likelihood and the best (or one sampled by it) is written.

A small model under a grammar picks a value by its first token, which goes wrong when the
alternatives differ late; the :class:`~structgen.backends.ChoiceTable` of a request names the positions
where the schema leaves only a few spellings.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator

import numpy as np
import numpy.typing as npt

from .._choices import JsonCursor
from .._seam import Alternative, ChoiceTable, Event
from ._decoding import Decoding
from ._runner import ModelRunner
from ._sampling import TokenPicker, log_softmax
from ._vocab import VocabTables

Apply = Callable[[list[int]], Iterator[Event]]


class Chooser:
    """Finds where a choice starts and makes it. ``apply`` (given by the loop) accepts,
    evaluates and writes tokens already checked on a fork of the grammar."""

    def __init__(self, decoding: Decoding, choices: ChoiceTable, picker: TokenPicker) -> None:
        self.decoding = decoding
        self.choices = choices
        self.picker = picker

    def along(self, cursor: JsonCursor | None, text: str) -> Iterator[tuple[int, tuple[Alternative, ...]]]:
        """(offset, alternatives) for every offset of ``text`` (its end included) where a
        whole-alternative choice starts, feeding ``text`` to ``cursor`` on the way."""
        if cursor is None:
            return
        for offset in range(len(text) + 1):
            if offset:
                cursor.feed(text[offset - 1])
            path = cursor.value_path
            alternatives = self.choices.get(path) if path is not None else None
            if alternatives:
                yield offset, alternatives

    def starts_here(self) -> bool:
        """Whether a choice starts at the current position."""
        return next(self.along(self.decoding.cursor, ""), None) is not None

    def starts_in(self, written: str, text: str) -> bool:
        """Whether a choice would start inside ``text`` once ``written`` has been written."""
        if self.decoding.cursor is None:
            return False
        cursor = self.decoding.cursor.copy()
        cursor.feed(written)
        return next(self.along(cursor, text), None) is not None

    def choose(self, forced_text: str, apply: Apply) -> Generator[Event, None, bool]:
        """Make the choice that starts here or inside ``forced_text``; whether there was one."""
        decoding = self.decoding
        assert decoding.cursor is not None
        # A choice may start anywhere inside the forced text (an enum's opening quote is
        # itself forced; whitespace may come before the value), so look at every offset.
        valid: list[tuple[list[int], Alternative]] = []
        for offset, alternatives in self.along(decoding.cursor.copy(), forced_text):
            valid = self._valid(forced_text[:offset], alternatives)
            if len(valid) >= 2:
                break
        if len(valid) < 2:
            return False
        # Tokens every alternative starts with are forced: evaluate them once, up front
        # (not when an alternative carries natural-language cues, scored from here).
        if not any(alternative.cues for _, alternative in valid):
            shared = _shared_prefix([tokens for tokens, _ in valid])[: decoding.room]
            if shared:
                yield from apply(shared)
                valid = [(tokens[len(shared) :], alternative) for tokens, alternative in valid]
        if decoding.room <= 0:
            return True
        # Scoring decodes overwrite the logits buffer: take the next-token distribution first.
        # (The buffer is current again once the chosen alternative is decoded.)
        first = log_softmax(decoding.runner.logits())
        scored = [
            score_continuations(
                decoding.runner, decoding.tables,
                [tokens, *(decoding.tables.tokenize(c) for c in alternative.cues)], first,
            )
            for tokens, alternative in valid
        ]
        pick = self.picker.choose([
            max(s) / max(len(tokens), 1) if alternative.per_token else max(s)
            for s, (tokens, alternative) in zip(scored, valid)
        ])
        best, alternative = valid[pick]
        yield from apply(best[: decoding.room])
        cue = _best_cue(alternative, scored[pick])
        if cue is not None:
            yield from self._open_with(cue, apply)
        return True

    def _open_with(self, cue: str, apply: Apply) -> Iterator[Event]:
        """Start the chosen alternative's free text with the likeliest of its cues ("I'm sorry"):
        the model then explains itself as it was about to, instead of guessing at a JSON string
        (left alone after ``{"refusal": "``, small models wrote a stray ``}`` and rambled)."""
        quote, _ = self.decoding.forced_text()  # the string's opening quote
        tokens = self.decoding.tables.tokenize(quote + cue)[: self.decoding.room]
        if self.decoding.fits(tokens):
            yield from apply(tokens)

    def _valid(self, forced_text: str, alternatives: tuple[Alternative, ...]) -> list[tuple[list[int], Alternative]]:
        result: list[tuple[list[int], Alternative]] = []
        for alternative in alternatives:
            tokens = self.decoding.tables.tokenize(forced_text + alternative.text)
            if self.decoding.fits(tokens):
                result.append((tokens, alternative))
        return result


def prefix_logprob(tables: VocabTables, logprobs: npt.NDArray[np.float64], token: int) -> float:
    """Log-probability that the next token *starts with* ``token``'s text.

    An alternative's last token may merge with what follows (``"`` then ``,`` is usually
    the single token ``",``), so its own probability says more about tokenization than
    about the choice; the probability of its text as a prefix does not (token healing).
    """
    if not tables.extendable(token):
        return float(logprobs[token])
    ids = np.append(tables.extensions(token), token)
    values = logprobs[ids]
    top = float(values.max())
    return top + float(np.log(np.exp(values - top).sum()))


def score_continuations(
    runner: ModelRunner, tables: VocabTables, continuations: list[list[int]],
    first: npt.NDArray[np.float64],
) -> list[float]:
    """Full log-likelihood of each token sequence right after what the cache holds now, given
    ``first``, the log-probabilities of the next token. The cache is left as it was; the
    logits buffer is not."""
    start = runner.position
    scores: list[float] = []
    try:
        for tokens in continuations:
            if not tokens:
                scores.append(0.0)
                continue
            if len(tokens) == 1:
                scores.append(prefix_logprob(tables, first, tokens[0]))
                continue
            score = float(first[tokens[0]])
            runner.decode(tokens[:-1], all_logits=True)
            for i, token in enumerate(tokens[1:-1]):
                score += float(log_softmax(runner.logits(i))[token])
            last = log_softmax(runner.logits(len(tokens) - 2))
            scores.append(score + prefix_logprob(tables, last, tokens[-1]))
            runner.truncate(start)
    finally:
        runner.truncate(start)
    return scores


def _best_cue(alternative: Alternative, scores: list[float]) -> str | None:
    """The most likely of ``alternative``'s cues (scores: its own spelling, then its cues)."""
    if not alternative.cues:
        return None
    return alternative.cues[max(range(len(alternative.cues)), key=lambda i: scores[i + 1])]


def _shared_prefix(sequences: list[list[int]]) -> list[int]:
    """The longest common prefix, leaving at least one token in every sequence."""
    limit = min(len(s) for s in sequences) - 1
    n = 0
    while n < limit and all(s[n] == sequences[0][n] for s in sequences):
        n += 1
    return sequences[0][:n]


__all__ = ["Chooser", "prefix_logprob", "score_continuations"]

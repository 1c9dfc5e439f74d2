"""The constrained sampling loop: sample-then-check, fast-forward, whole-alternative choices.

Each step does one of three things:

1. **Fast-forward.** If the grammar allows exactly one continuation (keys, punctuation, the
   rest of the last possible enum value), tokenize it and evaluate it as one batch. If its last
   token could merge with what follows (it is a prefix of a longer token), that token is held
   back and left to the model, so the model's own tokenization stays natural (token healing).
2. **Choose.** At a JSON position whose value is one of a few whole alternatives, score every
   alternative by its full log-likelihood and take the best (or sample by it).
3. **Sample, then check.** Pick a token from the raw logits, check just that token against the
   grammar; only if it is rejected mask the whole vocabulary and pick again.

No token is ever accepted by the native grammar without being checked first.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Generator, Iterator

import numpy as np

from .._errors import BackendError
from ._choices import Alternative, ChoiceTable, JsonCursor
from ._grammar_state import GrammarState
from ._runner import ContextFullError, ModelRunner
from ._sampling import TokenPicker, log_softmax
from ._types import Completion, Event, FinishReason, TextDelta, Usage
from ._vocab import VocabTables


#: How many of the most likely tokens are checked before masking the whole vocabulary.
RESCUE_CANDIDATES = 256


class ConstrainedDecoder:
    """Runs one generation after the prompt has been evaluated (logits ready)."""

    def __init__(
        self,
        runner: ModelRunner,
        tables: VocabTables,
        state: GrammarState,
        picker: TokenPicker,
        *,
        max_tokens: int,
        choices: ChoiceTable | None,
        usage: Usage,
    ) -> None:
        self.runner = runner
        self.tables = tables
        self.state = state
        self.picker = picker
        self.max_tokens = max_tokens
        self.choices = choices or None
        self.usage = usage
        self.produced = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._text: list[str] = []
        self._cursor = JsonCursor() if self.choices else None

    def run(self) -> Iterator[Event]:
        reason: FinishReason
        try:
            reason = yield from self._steps()
        except ContextFullError:
            reason = "length"
        tail = self._decoder.decode(b"", final=True)
        if tail:
            self._text.append(tail)
            yield TextDelta(tail)
        self.usage.grammar_seconds += self.state.seconds
        yield Completion("".join(self._text), reason, self.usage)

    def _emit(self, tokens: list[int]) -> Iterator[Event]:
        text = self._decoder.decode(b"".join(self.tables.pieces[t] for t in tokens))
        if text:
            self._text.append(text)
            if self._cursor is not None:
                self._cursor.feed(text)
            yield TextDelta(text)

    def _steps(self) -> Generator[Event, None, FinishReason]:
        while True:
            forced, complete = self.state.forced()
            if complete:
                return "stop"
            if self.produced >= self.max_tokens:
                return "length"
            forced_text = _complete_utf8_prefix(forced)
            if self.choices is not None and (yield from self._maybe_choose(forced_text)):
                continue
            if forced_text and (yield from self._fast_forward(forced_text)):
                continue
            token = self._sample()
            if token in self.tables.eog:
                return "stop"
            self.runner.decode([token])
            self.produced += 1
            self.usage.sampled_tokens += 1
            yield from self._emit([token])

    def _sample(self) -> int:
        logits = self.runner.logits()
        token = self.picker.pick(logits)
        if token is not None and self.state.accept(token):
            return token
        # Rejected: look among the most likely candidates first (for greedy decoding this is
        # exactly the constrained choice), and mask the whole vocabulary only if none fits.
        top = np.argpartition(-logits, RESCUE_CANDIDATES)[:RESCUE_CANDIDATES].astype(np.intc)
        masked = self.state.mask_subset(top, logits[top])
        index = self.picker.pick(masked)
        token = int(top[index]) if index is not None else self.picker.pick(self.state.mask(logits))
        if token is None or not self.state.accept(token):
            raise BackendError("the grammar allows no token here (is the grammar satisfiable?)")
        return token

    def _fast_forward(self, forced_text: str) -> Generator[Event, None, bool]:
        tokens = self.tables.tokenize(forced_text)
        if tokens and self.tables.extendable(tokens[-1]):
            tokens.pop()  # token healing: let the model write the boundary token itself
        tokens = tokens[: self.max_tokens - self.produced]
        taken: list[int] = []
        for token in tokens:
            if not self.state.accept(token):
                break
            taken.append(token)
        if not taken:
            return False
        self.runner.decode(taken)
        self.produced += len(taken)
        self.usage.forced_tokens += len(taken)
        yield from self._emit(taken)
        return True

    def _maybe_choose(self, forced_text: str) -> Generator[Event, None, bool]:
        assert self._cursor is not None and self.choices is not None
        # A choice may start anywhere inside the forced text (an enum's opening quote is
        # itself forced), so look at every offset.
        cursor = self._cursor.copy()
        alternatives = None
        for offset in range(len(forced_text) + 1):
            if offset:
                cursor.feed(forced_text[offset - 1])
            path = cursor.value_path
            alternatives = self.choices.get(path) if path is not None else None
            if alternatives:
                break
        if not alternatives:
            return False
        candidates = self._valid_continuations(forced_text[:offset], alternatives)
        if len(candidates) < 2:
            return False
        scores = self._score(candidates)
        best = candidates[self.picker.choose(scores)]
        best = best[: self.max_tokens - self.produced]
        for token in best:
            if not self.state.accept(token):  # validated on a fork, so this cannot fail
                raise BackendError("grammar state diverged while applying a chosen alternative")
        self.runner.decode(best)
        self.produced += len(best)
        self.usage.forced_tokens += len(best)
        yield from self._emit(best)
        return True

    def _valid_continuations(
        self, forced_text: str, alternatives: tuple[Alternative, ...]
    ) -> list[list[int]]:
        result: list[list[int]] = []
        for alternative in alternatives:
            tokens = self.tables.tokenize(forced_text + alternative.text)
            fork = self.state.fork()
            try:
                if tokens and all(fork.accept(t) for t in tokens):
                    result.append(tokens)
            finally:
                self.state.seconds += fork.seconds
                fork.close()
        return result

    def _score(self, candidates: list[list[int]]) -> list[float]:
        """Full log-likelihood of each candidate continuation; the cache is left unchanged."""
        first = log_softmax(self.runner.logits())
        start = self.runner.position
        scores: list[float] = []
        try:
            for tokens in candidates:
                score = float(first[tokens[0]])
                if len(tokens) > 1:
                    self.runner.decode(tokens[:-1], all_logits=True)
                    for i, token in enumerate(tokens[1:]):
                        score += float(log_softmax(self.runner.logits(i))[token])
                    self.runner.truncate(start)
                scores.append(score)
        finally:
            self.runner.truncate(start)
        # The logits buffer now holds a scoring row; the caller decodes the chosen
        # alternative next, which makes the logits current again.
        return scores


def _complete_utf8_prefix(data: bytes) -> str:
    """The longest prefix of ``data`` that is whole UTF-8 characters, decoded."""
    for cut in range(len(data), max(len(data) - 4, -1), -1):
        try:
            return data[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return ""


def finish_usage(usage: Usage, started: float) -> Usage:
    usage.total_seconds += time.perf_counter() - started
    return usage


__all__ = ["ConstrainedDecoder", "FinishReason"]

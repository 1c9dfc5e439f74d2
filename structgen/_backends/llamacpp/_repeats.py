"""Noticing a model that repeats itself, so the loop can close the value instead of writing on.

Small models under a grammar fall into loops: ``"sofas": 1, "sofas": 1, …`` or one sentence
again and again inside a string, until ``max_tokens`` ends the call. :class:`LoopDetector`
watches the tokens as they are written and reports a loop once the latest tokens are one short
sequence repeated: at least :data:`MIN_REPEATS` times and over at least :data:`MIN_RUN` tokens,
for any period up to :data:`MAX_PERIOD` tokens. So a loop is noticed within
``max(MIN_RUN + period, MIN_REPEATS * period)`` tokens of its start — 144 at most.
"""

from __future__ import annotations

#: Longest repeated sequence looked for, in tokens (a sentence or a whole object member).
MAX_PERIOD = 48
#: Fewest repetitions of the sequence that count as a loop.
MIN_REPEATS = 3
#: Fewest repeated tokens (after the first occurrence) that count as a loop: a word written
#: three times is not yet one.
MIN_RUN = 16


class LoopDetector:
    """Incremental check for a periodic suffix of the token stream."""

    def __init__(self) -> None:
        self._tokens: list[int] = []
        # _runs[p]: how many of the latest tokens equal the token p positions before them.
        self._runs = [0] * (MAX_PERIOD + 1)

    def push(self, token: int) -> int | None:
        """Record ``token``; the period of the loop it completes, or None."""
        tokens, runs = self._tokens, self._runs
        tokens.append(token)
        n = len(tokens)
        found: int | None = None
        for period in range(1, min(MAX_PERIOD, n - 1) + 1):
            if tokens[-1 - period] == token:
                runs[period] += 1
                if found is None and runs[period] >= max(MIN_RUN, (MIN_REPEATS - 1) * period):
                    found = period
            else:
                runs[period] = 0
        if len(tokens) > 4 * MAX_PERIOD:
            del tokens[: len(tokens) - 2 * MAX_PERIOD]
        return found

    def latest(self, count: int) -> list[int]:
        """The last ``count`` tokens pushed."""
        return self._tokens[-count:]

    def forget(self, period: int) -> None:
        """Start the counts of periods up to ``period`` over (a loop of that period was closed),
        keeping longer ones: a short loop inside each repetition of a longer one (a run of
        digits in every item of a looping list) must not hide the longer loop."""
        for shorter in range(1, min(period, MAX_PERIOD) + 1):
            self._runs[shorter] = 0


__all__ = ["LoopDetector", "MAX_PERIOD", "MIN_REPEATS", "MIN_RUN"]

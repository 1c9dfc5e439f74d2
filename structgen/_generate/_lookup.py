"""Prompt-lookup drafts: guessing the next tokens by copying from what the context already holds.

Extraction answers mostly copy the prompt ("Maria Garcia", "12 Oak Street"), and a small model
that falls into a loop copies itself. Where the last few tokens occurred before, the tokens that
followed them then are a cheap, often right, guess of what comes next. The loop evaluates the
guess in the same batch as the token just picked and keeps the longest prefix the model itself
would have picked (checked position by position), so the text is the one token-by-token decoding
produces (up to the rounding differences between batched and single-token evaluation, which can
flip exact near-ties) — one batch instead of several single-token evaluations when it is right.

Whether a guess pays depends on the machine and the model: on a CPU a batch of two tokens with
their logits costs 1.8 to 2.5 single-token evaluations (a 262k-token vocabulary makes every
logits row expensive), a batch of nine 5 to 6. :class:`DraftCosts` holds batch times measured
on the model itself, and guesses are as long as pays off on average.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: A guess is made only where the last MAX_MATCH tokens occurred before. Replaying
#: bench/generate.py's outputs, the token after an 8-token match was confirmed 98 % of the
#: time, after 2- to 7-token matches 60-80 % — too rarely to pay for the batch on a CPU; and
#: guessing after 10-token matches saved the most model time.
MAX_MATCH = 10

#: Share of each guessed token the model is assumed to confirm (after a full match).
CONFIRM_RATE = 0.95


@dataclass(frozen=True)
class DraftCosts:
    """Measured seconds of one decode of ``1 + k`` tokens with ``1 + k`` logits rows, for
    k = 0 (a single token) up to ``len(seconds) - 1`` guessed tokens."""

    seconds: tuple[float, ...]

    def best_length(self, limit: int) -> int:
        """The guess length with the largest expected saving: each guessed token is confirmed
        with probability CONFIRM_RATE (and all after a wrong one are lost), each confirmed
        token saves one single-token evaluation, and the batch costs what was measured. 0 when
        no length saves anything."""
        single = self.seconds[0]
        best, best_gain, expected = 0, 0.0, 0.0
        for k in range(1, min(limit, len(self.seconds) - 1) + 1):
            expected += CONFIRM_RATE**k
            gain = expected * single - (self.seconds[k] - single)
            if gain > best_gain:
                best, best_gain = k, gain
        return best

    def worthwhile_head(self) -> bool:
        """Whether one sure guess (the held-back last token of forced text, nearly always
        confirmed) is cheaper in the batch than evaluated on its own afterwards."""
        return len(self.seconds) > 1 and self.seconds[1] < 2 * self.seconds[0]


def lookup_draft(context: Sequence[int], limit: int, costs: DraftCosts | None = None) -> list[int]:
    """The tokens that followed the latest earlier occurrence of ``context``'s last MAX_MATCH
    tokens, as many as pay off (``limit`` at most; all of them when ``costs`` is None).

    Empty when those tokens did not occur before or ``limit`` is 0.
    """
    n = len(context)
    length = limit if costs is None else costs.best_length(limit)
    if length <= 0 or n <= MAX_MATCH:
        return []
    tail = list(context[n - MAX_MATCH :])
    last = tail[-1]
    # Latest occurrence first: in a loop it is the previous repetition.
    for end in range(n - 2, MAX_MATCH - 2, -1):
        if context[end] == last and list(context[end - MAX_MATCH + 1 : end + 1]) == tail:
            # Copy on past the context's end through the guess itself: a loop with a period
            # shorter than the guess repeats the guess too.
            draft: list[int] = []
            for i in range(end + 1, end + 1 + length):
                draft.append(context[i] if i < n else draft[i - n])
            return draft
    return []


__all__ = ["CONFIRM_RATE", "DraftCosts", "MAX_MATCH", "lookup_draft"]

"""Prompt-lookup drafts: guessing the next tokens by copying from what the context already holds.

Extraction answers mostly copy the prompt ("Maria Garcia", "12 Oak Street"), and a small model
that falls into a loop copies itself. Where the last few tokens occurred before, the tokens that
followed them then are a cheap, often right, guess of what comes next. The loop evaluates the
guess in the same batch as the token just picked and keeps the longest prefix the model itself
would have picked (checked position by position), so the text is the one token-by-token decoding
produces (up to the rounding differences between batched and single-token evaluation, which can
flip exact near-ties) — one batch instead of several single-token evaluations when it is right.

Whether a guess pays depends on the model: on a CPU a batch of several tokens with their
logits costs much less than as many single-token evaluations, so a long guess after a sure
match pays on every model measured; a single extra position (the held-back last token of forced
text) pays only where logits rows are cheap — with a large vocabulary a two-token batch costs
more than two single ones (the measurements are in bench/notes/benchmarks-history.md, "Prompt-lookup
guesses"). :class:`DraftPolicy` decides from the model's shape, not from timings, so that the
same prompt gives the same text on a busy machine and an idle one.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ._decoding import Decoding

#: A guess is made only where the last MAX_MATCH tokens occurred before: after shorter matches
#: the guess is confirmed too rarely to pay for the batch on a CPU, and this length saved the
#: most model time (bench/notes/benchmarks-history.md, "Prompt-lookup guesses").
MAX_MATCH = 10

#: Above this share of the model's weights in its output layer (vocabulary x embedding),
#: an extra logits row costs more than it saves on a one-token guess; the two models measured
#: fall clearly on either side (bench/notes/benchmarks-history.md, "Prompt-lookup guesses").
CHEAP_ROWS_SHARE = 0.4


@dataclass(frozen=True)
class DraftPolicy:
    """How the loop guesses on one model: ``length`` tokens after a full match (0: never), and
    whether a held-back boundary token rides along as a one-token guess (``head``)."""

    length: int
    head: bool = True

    @classmethod
    def for_model(cls, lookahead: int, n_vocab: int, n_embd: int, n_params: int) -> DraftPolicy:
        output_share = n_vocab * n_embd / max(n_params, 1)
        return cls(length=lookahead, head=output_share < CHEAP_ROWS_SHARE)


def lookup_draft(context: Sequence[int], length: int) -> list[int]:
    """The ``length`` tokens that followed the latest earlier occurrence of ``context``'s last
    MAX_MATCH tokens (continued periodically in a loop). Empty when those tokens did not occur
    before or ``length`` is 0.
    """
    n = len(context)
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


class Drafts:
    """The guesses of one generation, by its model's :class:`DraftPolicy`."""

    def __init__(self, decoding: Decoding, policy: DraftPolicy) -> None:
        self.decoding = decoding
        self.policy = policy

    def guess(self, tokens: list[int], head: int | None) -> list[int]:
        """The guess after ``tokens``: ``head``, then a prompt lookup, cut to the token budget
        and the context, before an end-of-generation token and where the grammar rejects."""
        decoding = self.decoding
        runner = decoding.runner
        room = min(decoding.room - len(tokens), runner.n_ctx - runner.position - len(tokens))
        guess = [head] if head is not None and self.policy.head else []
        guess += lookup_draft([*runner.tokens, *tokens, *guess], self.policy.length)
        eog = decoding.tables.eog
        guess = list(itertools.takewhile(lambda token: token not in eog, guess[: max(room, 0)]))
        return guess[: decoding.accepted_prefix(guess)]


__all__ = ["CHEAP_ROWS_SHARE", "MAX_MATCH", "DraftPolicy", "Drafts", "lookup_draft"]

"""Prompt-lookup drafts: guessing the next tokens by copying from what the context already holds.

Extraction answers mostly copy the prompt ("Maria Garcia", "12 Oak Street"), and a small model
that falls into a loop copies itself. Where the last few tokens occurred before, the tokens that
followed them then are a cheap, often right, guess of what comes next. The loop evaluates the
guess in the same batch as the token just picked and keeps the longest prefix the model itself
would have picked (checked position by position), so the text is the one token-by-token decoding
produces (up to the rounding differences between batched and single-token evaluation, which can
flip exact near-ties) — one batch instead of several single-token evaluations when it is right.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Longest suffix compared when looking for an earlier occurrence.
MAX_MATCH = 8


def draft_length(match: int, limit: int) -> int:
    """How many tokens to guess after a ``match``-token suffix match: a longer match is a
    surer guess. On a CPU every guessed position costs about half a single-token evaluation
    (its logits row included), so short matches are not worth a guess (tuned by replaying
    bench/generate.py's outputs: ``match - 2`` beat fixed lengths and ``match``, ``2 * match``)."""
    return max(0, min(limit, match - 2))


def lookup_draft(context: Sequence[int], limit: int) -> list[int]:
    """The tokens that followed the latest, longest earlier occurrence of ``context``'s tail.

    Empty when the last token never occurred before or ``limit`` is 0.
    """
    n = len(context)
    if limit <= 0 or n < 2:
        return []
    last = context[-1]
    best_match, best_end = 0, -1
    # Latest occurrence first, so that among equally long matches the most recent text wins
    # (in a loop it is the previous repetition).
    for end in range(n - 2, -1, -1):
        if context[end] != last:
            continue
        match = 1
        while match < MAX_MATCH and match <= end and context[end - match] == context[n - 1 - match]:
            match += 1
        if match > best_match:
            best_match, best_end = match, end
            if match == MAX_MATCH:
                break
    if best_end < 0:
        return []
    start = best_end + 1
    return list(context[start : start + draft_length(best_match, limit)])


__all__ = ["lookup_draft", "draft_length", "MAX_MATCH"]

"""A string's opening quote, put back where a small model left it out.

Under a grammar, a model that writes a string's text without its quote (``[Ann`` for
``["Ann``) has its token rejected; the quote is then written for it, so its text follows. And a
rejected pick's best-allowed stand-in that opens a string with more (``",`` writes an item
``", "``) is cut to the quote alone, so the model writes the string's text itself.
"""

from __future__ import annotations

import numpy as np

from ..._errors import BackendError
from ._decoding import Decoding
from ._repeat_guard import RepeatGuard

_QUOTE = 0x22


class QuoteRepair:
    """Knows when a quote is missing and writes it (``guard``: the quote must not repeat a member)."""

    def __init__(self, decoding: Decoding, guard: RepeatGuard) -> None:
        self.decoding = decoding
        self.guard = guard

    def missing_quote(self, token: int) -> bool:
        """Whether the rejected ``token`` would be allowed after an opening quote."""
        quote = self.decoding.tables.byte_tokens.get(_QUOTE)
        return (quote is not None and token != quote and not self.guard.repeats(quote)
                and self.decoding.accepted_prefix([quote, token]) == 2)

    def open_quote(self) -> int:
        """The quote, accepted by the grammar (checked on a fork by :meth:`missing_quote`)."""
        quote = self.decoding.tables.byte_tokens[_QUOTE]
        if not self.decoding.state.accept(quote):  # checked on a fork, so this cannot fail
            raise BackendError("grammar state diverged while opening a string")
        return quote

    def alone(self, token: int) -> int:
        """``"`` for a rejected pick's stand-in that opens a string with more (``",``, ``""``)."""
        tables, state = self.decoding.tables, self.decoding.state
        piece = tables.pieces[token]
        quote = tables.byte_tokens.get(_QUOTE)
        if len(piece) < 2 or piece[:1] != b'"' or quote is None:
            return token
        ids = np.array([quote], dtype=np.intc)
        masked = self.guard.without_repeats(ids, state.mask_subset(ids, np.zeros(1, dtype=np.float32)))
        return quote if np.isfinite(masked[0]) else token


__all__ = ["QuoteRepair"]

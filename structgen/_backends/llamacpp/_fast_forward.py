"""Fast-forward: where the grammar allows exactly one continuation (keys, punctuation, the rest
of the last possible enum value), it is tokenized and evaluated as one batch.

If its last token could merge with what follows (a longer token starting with it is allowed
here), that token is the model's to decide (token healing): the loop lets it ride along in the
batch as a guess, the model picks at that position from the batch's logits, and a wrong guess
is dropped from the KV cache.
"""

from __future__ import annotations

import numpy as np

from ._decoding import Decoding


class ForcedText:
    """Turns the text the grammar forces into tokens the grammar has accepted."""

    def __init__(self, decoding: Decoding) -> None:
        self.decoding = decoding

    def take(self, forced_text: str, budget: int) -> tuple[list[int], int | None]:
        """Tokens of the forced text (at most ``budget``), accepted by the grammar, and the
        last token held back when the model could merge it with what follows."""
        state = self.decoding.state
        tokens = self.decoding.tables.tokenize(forced_text)[: max(budget, 0)]
        body, last = tokens[:-1], tokens[-1:]
        taken = body[: state.accept_prefix(body)]
        if len(taken) < len(body) or not last:
            return taken, None
        if self._could_merge(last[0]):
            return taken, last[0]  # the model decides the boundary token itself
        return (tokens, None) if state.accept(last[0]) else (taken, None)

    def _could_merge(self, token: int) -> bool:
        """Whether the grammar allows a longer token that starts with ``token``'s text here."""
        tables = self.decoding.tables
        if not tables.extendable(token):
            return False
        longer = tables.extensions(token)
        masked = self.decoding.state.mask_subset(longer, np.zeros(len(longer), dtype=np.float32))
        return bool(np.isfinite(masked).any())


__all__ = ["ForcedText"]

"""Picking a token from logits: greedy at temperature 0, else top-k / top-p / min-p / temperature.

Sampling runs in numpy on the raw logits (no grammar): the loop then checks only the picked
token against the grammar, and masks the whole vocabulary only when that token is rejected.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._seam import SamplingSettings


def log_softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    values = logits.astype(np.float64)
    finite = np.isfinite(values)
    top = values[finite].max() if finite.any() else 0.0
    shifted = values - top
    result: npt.NDArray[np.float64] = shifted - np.log(np.exp(shifted[finite]).sum())
    return result


class TokenPicker:
    """Picks tokens for one generation; seeded so that a seed reproduces a run."""

    def __init__(self, settings: SamplingSettings) -> None:
        self.settings = settings
        self._rng = np.random.default_rng(settings.seed)

    @property
    def greedy(self) -> bool:
        return self.settings.temperature == 0.0

    def pick(self, logits: npt.NDArray[np.float32]) -> int | None:
        """A token id, or None when every logit is -inf."""
        if self.greedy:
            best = int(np.argmax(logits))
            return None if np.isneginf(logits[best]) else best
        s = self.settings
        candidates = np.flatnonzero(np.isfinite(logits))
        if candidates.size == 0:
            return None
        values = logits[candidates].astype(np.float64)
        if 0 < s.top_k < candidates.size:
            keep = np.argpartition(-values, s.top_k - 1)[: s.top_k]
            candidates, values = candidates[keep], values[keep]
        order = np.argsort(-values, kind="stable")
        candidates, values = candidates[order], values[order] / s.temperature
        probs = np.exp(values - values[0])
        probs /= probs.sum()
        if s.min_p > 0:
            keep_n = max(1, int(np.count_nonzero(probs >= s.min_p * probs[0])))
            candidates, probs = candidates[:keep_n], probs[:keep_n]
        if s.top_p < 1:
            cumulative = np.cumsum(probs) / probs.sum()
            keep_n = int(np.searchsorted(cumulative, s.top_p)) + 1
            candidates, probs = candidates[:keep_n], probs[:keep_n]
        probs = probs / probs.sum()
        return int(candidates[self._rng.choice(len(candidates), p=probs)])

    def choose(self, scores: list[float]) -> int:
        """Index of an alternative given full log-likelihoods: best when greedy, else sampled."""
        if self.greedy:
            return int(np.argmax(scores))
        values = np.array(scores, dtype=np.float64) / self.settings.temperature
        probs = np.exp(values - values.max())
        return int(self._rng.choice(len(scores), p=probs / probs.sum()))

"""Saved prompt prefixes: KV-cache states of earlier calls, kept in host memory.

The context evaluates every call on one sequence, which can hold only one prompt's prefix.
Before it loses what it holds (a prompt that shares less with it comes), the runner copies the
sequence's KV state out (``llama_state_seq_get_data``) into a :class:`PrefixStore`, keyed by
its tokens; a later prompt that shares more with a saved state than with the sequence gets that
state copied back (``llama_state_seq_set_data``) and evaluates only the tokens after the
shared prefix. So a system message, a type's instructions or a tool listing is evaluated once,
however calls of different types interleave.

The store is bounded by a byte budget (``prompt_cache_bytes``); the least recently used states
are dropped first. Why host copies rather than more sequences in the context: see
docs/benchmarks.md, "Prompts paid once".
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: Host memory kept for saved prompt states when the backend is given no budget: 256 MiB,
#: about 11,000 tokens of SmolLM2-135M (23 KiB a token) or 1,000 of an 8B Llama (128 KiB).
DEFAULT_PROMPT_CACHE_BYTES = 256 * 2**20

#: A state is worth copying (out to the store, or back) when it spares evaluating at least one
#: token in this many it holds: copying a token's state costs far less than evaluating it
#: (docs/benchmarks.md, "Prompts paid once").
TOKENS_PER_SPARED = 64


@dataclass(eq=False)
class SavedPrefix:
    """One sequence's KV state as ``llama_state_seq_get_data`` wrote it, and its tokens."""

    tokens: npt.NDArray[np.int64]
    data: ctypes.Array[ctypes.c_uint8]

    @property
    def nbytes(self) -> int:
        return len(self.data)


class PrefixStore:
    """Saved states, least recently used first, within ``budget`` bytes."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.nbytes = 0
        self._saved: OrderedDict[int, SavedPrefix] = OrderedDict()

    def __len__(self) -> int:
        return len(self._saved)

    def best(self, prompt: Sequence[int]) -> tuple[SavedPrefix | None, int]:
        """The saved state sharing the longest prefix with ``prompt``, and that length."""
        query = np.asarray(prompt, dtype=np.int64)
        best: SavedPrefix | None = None
        longest = 0
        for saved in self._saved.values():
            shared = shared_length(query, saved.tokens)
            if shared > longest:
                best, longest = saved, shared
        return best, longest

    def covers(self, tokens: Sequence[int]) -> bool:
        """Whether a saved state starts with all of ``tokens``."""
        query = np.asarray(tokens, dtype=np.int64)
        return any(shared_length(query, saved.tokens) == len(query) for saved in self._saved.values())

    def fits(self, nbytes: int) -> bool:
        return nbytes <= self.budget

    def add(self, saved: SavedPrefix, keep: SavedPrefix | None = None) -> None:
        """Keep ``saved``; states it extends are dropped, then the oldest while over budget,
        but never ``keep`` (``saved`` itself goes last, if even that is not enough)."""
        for key, old in list(self._saved.items()):
            if old is not keep and shared_length(old.tokens, saved.tokens) == len(old.tokens):
                self._drop(key)
        self._saved[id(saved)] = saved
        self.nbytes += saved.nbytes
        for key, old in list(self._saved.items()):
            if self.nbytes <= self.budget:
                break
            if old is not keep:
                self._drop(key)

    def used(self, saved: SavedPrefix) -> None:
        """Mark ``saved`` as the most recently used."""
        self._saved.move_to_end(id(saved))

    def clear(self) -> None:
        self._saved.clear()
        self.nbytes = 0

    def _drop(self, key: int) -> None:
        self.nbytes -= self._saved.pop(key).nbytes


def worth_copying(spared: int, held: int) -> bool:
    """Whether copying a state of ``held`` tokens is worth it to spare evaluating ``spared``."""
    return spared >= 1 and spared * TOKENS_PER_SPARED >= held


def shared_length(a: Sequence[int] | npt.NDArray[np.int64], b: Sequence[int] | npt.NDArray[np.int64]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    differ = np.flatnonzero(np.asarray(a[:n]) != np.asarray(b[:n]))
    return int(differ[0]) if differ.size else n

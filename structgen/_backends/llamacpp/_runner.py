"""Model evaluation on one sequence of a llama.cpp context: decode, logits, KV-cache bookkeeping.

The runner remembers which tokens sit in its sequence of the KV cache, so a new prompt that
shares a prefix with the previous call only evaluates the rest; and it keeps earlier calls'
states in a :class:`~._prefixes.PrefixStore`, so a prompt that shares more with one of those
starts from it instead.

A runner alone on its context evaluates tokens itself. Runners that share a context (one
sequence each, several generations at once) hand their tokens to the context's
:class:`~._batching.StepBatcher`, which evaluates the steps of all of them together.
"""

from __future__ import annotations

import ctypes
import time
from contextlib import AbstractContextManager, nullcontext
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._errors import BackendError
from ._batching import Step, StepBatcher
from ._prefixes import PrefixStore, SavedPrefix, shared_length, worth_copying


class ContextFullError(Exception):
    """The context window has no room for more tokens."""


class ModelRunner:
    """Evaluates tokens on sequence ``seq`` of a context. One generation uses a runner at a
    time (the backend hands them out); runners sharing a context share ``batcher``, and
    ``saved`` if they are given the same store."""

    def __init__(self, lib: Any, ctx: Any, n_vocab: int, n_ctx: int, n_batch: int,
                 saved: PrefixStore, *, seq: int = 0, batcher: StepBatcher | None = None) -> None:
        self.lib = lib
        self.ctx = ctx
        self.n_vocab = n_vocab
        self.n_ctx = n_ctx  # positions this sequence may hold
        self.n_batch = n_batch
        self.seq = seq
        self.batcher = batcher
        self.memory = lib.llama_get_memory(ctx)
        self.saved = saved
        # Calls on the context other than decoding: under the batcher's lock when shared.
        self._context: AbstractContextManager[Any] = nullcontext() if batcher is None else batcher.lock
        self._batch: Any = lib.llama_batch_init(n_batch, 0, 1) if batcher is None else None
        self._rows: dict[int, npt.NDArray[np.float32]] = {}  # shared: logits by cache position
        self.peers: Sequence[ModelRunner] = ()  # the runners of the context's other sequences
        self.tokens: list[int] = []  # what the KV cache holds, position by position
        self.seconds = 0.0  # in llama_decode
        self.state_seconds = 0.0  # copying states to and from the store
        self._batch_start = 0  # cache position of the first token of the last decoded batch

    def close(self) -> None:
        self.saved.clear()
        batch, self._batch = self._batch, None
        if batch is not None:
            self.lib.llama_batch_free(batch)

    def __del__(self) -> None:
        self.close()

    @property
    def position(self) -> int:
        return len(self.tokens)

    def forget(self) -> None:
        """Drop everything: the cache and the saved states (the next prompt is evaluated whole)."""
        self.lost()
        self.saved.clear()

    def lost(self) -> None:
        """Drop the cache (the context was used by someone else); saved states stay valid."""
        with self._context:
            if self.batcher is None:
                self.lib.llama_memory_clear(self.memory, True)
            else:
                self.lib.llama_memory_seq_rm(self.memory, self.seq, -1, -1)
            self.tokens = []  # under the lock: other sequences read it to copy from

    def truncate(self, keep: int) -> None:
        """Remove cached tokens from position ``keep`` on."""
        if keep >= len(self.tokens):
            return
        with self._context:
            removed = self.lib.llama_memory_seq_rm(self.memory, self.seq, keep, -1)
            if removed:
                del self.tokens[keep:]
        if not removed:
            self.lost()

    def prime(self, prompt: list[int]) -> int:
        """Make the cache hold exactly ``prompt`` with logits for its last token.

        Returns how many prompt tokens were reused: from the cache, from another sequence of
        the context, or from a saved state that shares more of the prompt.
        """
        last = len(prompt) - 1  # the last token is evaluated anyway, for its logits
        common = min(shared_length(prompt, self.tokens), last)
        with self._context:  # the store and the other sequences are shared
            saved, shared = self.saved.best(prompt)
            peer, held = self._peer_holding(prompt)
            if worth_copying(len(self.tokens) - common, len(self.tokens)):
                self._save(keep=saved)  # what the cache holds beyond ``common`` is about to go
            if peer is not None and min(held, last) > common and held >= shared:
                self._copy_from(peer, min(held, last))
                common = min(held, last)
            elif saved is not None and worth_copying(min(shared, last) - common, len(saved.tokens)):
                self._restore(saved)
                common = min(shared, last)
        self.truncate(common)
        if len(self.tokens) != common:  # the cache could not be cut: start over
            common = 0
        # The last token always goes alone: a single token and a batch row round differently,
        # and a cached prompt re-evaluates only its last token, so evaluating it alone here too
        # makes the answer the same whether the prompt was cached or not.
        self.decode(prompt[common:-1])
        self.decode(prompt[-1:])
        return common

    def _peer_holding(self, prompt: list[int]) -> tuple[ModelRunner | None, int]:
        """The other sequence of the context that holds the longest prefix of ``prompt``."""
        best: ModelRunner | None = None
        longest = 0
        for peer in self.peers:
            if peer is not self:
                held = shared_length(prompt, peer.tokens)
                if held > longest:
                    best, longest = peer, held
        return best, longest

    def _copy_from(self, peer: ModelRunner, length: int) -> None:
        """Make this sequence hold ``peer``'s first ``length`` tokens. In a unified KV cache
        the cells are shared, not copied: the prefix is evaluated once for all sequences."""
        lib = self.lib
        lib.llama_memory_seq_rm(self.memory, self.seq, -1, -1)
        lib.llama_memory_seq_cp(self.memory, peer.seq, self.seq, 0, length)
        self.tokens = peer.tokens[:length]

    def _save(self, keep: SavedPrefix | None = None) -> None:
        """Copy the cache's state into the store, unless a saved state already holds it;
        ``keep`` (the state about to be copied back) is not dropped to make room."""
        if not self.tokens or not self.saved.budget or self.saved.covers(self.tokens):
            return
        start = time.perf_counter()
        size = self.lib.llama_state_seq_get_size(self.ctx, self.seq)
        if self.saved.fits(size):
            data = (ctypes.c_uint8 * size)()
            written = self.lib.llama_state_seq_get_data(self.ctx, data, size, self.seq)
            if written != size:
                raise BackendError(f"llama.cpp wrote {written} bytes of a {size}-byte sequence state")
            self.saved.add(SavedPrefix(np.array(self.tokens, dtype=np.int64), data), keep=keep)
        self.state_seconds += time.perf_counter() - start

    def _restore(self, saved: SavedPrefix) -> None:
        """Make the cache hold ``saved``'s tokens, copied back from the store."""
        start = time.perf_counter()
        read = self.lib.llama_state_seq_set_data(self.ctx, saved.data, saved.nbytes, self.seq)
        self.state_seconds += time.perf_counter() - start
        if read != saved.nbytes:  # llama.cpp cleared the sequence; the store is suspect
            self.saved.clear()
            self.tokens = []
            raise BackendError(f"llama.cpp read {read} bytes of a {saved.nbytes}-byte saved prompt state")
        self.tokens = saved.tokens.tolist()
        self.saved.used(saved)

    def decode(self, tokens: list[int], *, all_logits: bool = False, last_rows: int = 1) -> None:
        """Evaluate ``tokens`` after the cached ones; logits for the last ``last_rows`` of them
        (or all of the last ``n_batch``). Row ``i`` of :meth:`logits` belongs to ``tokens[i]``."""
        if not tokens:
            return
        if len(self.tokens) + len(tokens) > self.n_ctx:
            raise ContextFullError()
        start = time.perf_counter()
        try:
            if self.batcher is None:
                self._decode_here(tokens, all_logits, last_rows)
            else:
                self._decode_shared(tokens, all_logits, last_rows)
        finally:
            self.seconds += time.perf_counter() - start

    def _decode_here(self, tokens: list[int], all_logits: bool, last_rows: int) -> None:
        lib, batch = self.lib, self._batch
        for offset in range(0, len(tokens), self.n_batch):
            chunk = tokens[offset : offset + self.n_batch]
            last_chunk = offset + self.n_batch >= len(tokens)
            pos0 = len(self.tokens)
            for i, token in enumerate(chunk):
                batch.token[i] = token
                batch.pos[i] = pos0 + i
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = self.seq
                batch.logits[i] = last_chunk and (all_logits or i >= len(chunk) - last_rows)
            batch.n_tokens = len(chunk)
            status = lib.llama_decode(self.ctx, batch)
            if status != 0:
                raise BackendError(f"llama_decode failed with status {status}")
            self._batch_start = pos0
            self.tokens.extend(chunk)

    def _decode_shared(self, tokens: list[int], all_logits: bool, last_rows: int) -> None:
        assert self.batcher is not None
        pos0 = len(self.tokens)
        # Rows as _decode_here numbers them: from the start of the last n_batch chunk.
        self._batch_start = pos0 + (len(tokens) - 1) // self.n_batch * self.n_batch
        first = self._batch_start - pos0 if all_logits else max(len(tokens) - last_rows, 0)
        step = Step(self.seq, pos0, tokens, range(first, len(tokens)))
        self.batcher.evaluate(step)
        self._rows = {pos0 + i: row for i, row in step.logits.items()}
        self.tokens.extend(tokens)

    def logits(self, row: int | None = None) -> npt.NDArray[np.float32]:
        """Logits of the last decode: batch index ``row``, or by default the row of the last
        token still in the cache (after :meth:`truncate` dropped a batch's tail, that is not
        the batch's last row)."""
        if row is None:
            row = len(self.tokens) - 1 - self._batch_start
            if row < 0:
                raise BackendError("no logits for the last cached token")
        if self.batcher is not None:
            logits = self._rows.get(self._batch_start + row)
            if logits is None:
                raise BackendError(f"no logits were asked for row {row}")
            return logits
        pointer = self.lib.llama_get_logits_ith(self.ctx, row)
        if not pointer:
            raise BackendError("llama.cpp returned no logits")
        return np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))

"""Several generations decoded together: their steps share ``llama_decode`` calls.

A context made with ``n_seq_max = N`` holds N sequences, one per running generation. Each
generation runs in its own thread, exactly as it would alone (its own grammar state, sampler,
fast-forward and guesses); only evaluating tokens is shared. A generation that needs tokens
evaluated hands them to the :class:`StepBatcher` as a :class:`Step` and waits. Whichever
waiting thread sees that every generation present has handed in its step (or that the oldest
has waited :data:`GATHER_SECONDS`) takes them all, evaluates them as one batch (one row per
token, each with its sequence id) and hands every step its logits. One step of N generations
then costs about one ``llama_decode``, which on a CPU is far less than N of them.

A generation counts as present while it runs structgen's code, not while its caller holds an
event it yielded (:meth:`StepBatcher.away`), so a slow consumer of one stream delays the
others by at most the gather time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._errors import BackendError

#: Longest a handed-in step waits for the other generations' steps before it is evaluated
#: with those that came. Generations present hand in their next step within the time of one
#: sampling step (well under this); the bound only matters for one busy elsewhere.
GATHER_SECONDS = 0.05


@dataclass(eq=False)
class Step:
    """Tokens of one sequence to evaluate after its first ``position`` cached ones; the
    logits of the rows in ``wanted`` (indices into ``tokens``) come back in ``logits``."""

    seq: int
    position: int
    tokens: list[int]
    wanted: range
    logits: dict[int, npt.NDArray[np.float32]] = field(default_factory=dict)
    done: bool = False
    error: BaseException | None = None


class StepBatcher:
    """Evaluates the steps of the generations running on one context, several per batch.

    ``lock`` guards the context itself: every other call on it (the KV memory, sequence
    states) holds it too, since llama.cpp's context is not thread-safe.
    """

    def __init__(self, lib: Any, ctx: Any, n_vocab: int, n_batch: int) -> None:
        self.lib = lib
        self.ctx = ctx
        self.n_vocab = n_vocab
        self.n_batch = n_batch
        self.lock = threading.Lock()
        self._changed = threading.Condition()
        self._queue: list[Step] = []
        self._present = 0  # generations running structgen's code on this context
        self._leading = False  # a thread is evaluating a batch
        self._batch = lib.llama_batch_init(n_batch, 0, 1)
        self.decodes = 0  # llama_decode calls, the rows they evaluated, and the calls that
        self.rows = 0  # held steps of more than one sequence
        self.shared = 0

    def close(self) -> None:
        batch, self._batch = self._batch, None
        if batch is not None:
            self.lib.llama_batch_free(batch)

    @contextmanager
    def present(self) -> Iterator[None]:
        """Count the calling generation as present for the duration."""
        self._arrive()
        try:
            yield
        finally:
            self._depart()

    @contextmanager
    def away(self) -> Iterator[None]:
        """Not present for the duration (the generation's caller holds control)."""
        self._depart()
        try:
            yield
        finally:
            self._arrive()

    def evaluate(self, step: Step) -> None:
        """Evaluate ``step`` (in a batch with whatever the other generations hand in)."""
        with self._changed:
            self._queue.append(step)
            self._changed.notify_all()
            deadline = time.monotonic() + GATHER_SECONDS
            while not step.done:
                now = time.monotonic()
                if not self._leading and (len(self._queue) >= self._present or now >= deadline):
                    taken, self._queue = self._queue, []
                    self._leading = True
                    break
                self._changed.wait(max(deadline - now, 0.001))
            else:
                if step.error is not None:
                    raise step.error
                return
        try:
            with self.lock:
                self._decode(taken)
        except BaseException as error:
            for each in taken:
                each.error = error
        finally:
            with self._changed:
                for each in taken:
                    each.done = True
                self._leading = False
                self._changed.notify_all()
        if step.error is not None:
            raise step.error

    def _arrive(self) -> None:
        with self._changed:
            self._present += 1

    def _depart(self) -> None:
        with self._changed:
            self._present -= 1
            self._changed.notify_all()  # the steps handed in may now be all there will be

    def _decode(self, steps: list[Step]) -> None:
        """All rows of ``steps``, ``n_batch`` at a time; the wanted logits copied out (the next
        decode overwrites them)."""
        rows = [(step, i) for step in steps for i in range(len(step.tokens))]
        lib, batch = self.lib, self._batch
        for start in range(0, len(rows), self.n_batch):
            chunk = rows[start : start + self.n_batch]
            for r, (step, i) in enumerate(chunk):
                batch.token[r] = step.tokens[i]
                batch.pos[r] = step.position + i
                batch.n_seq_id[r] = 1
                batch.seq_id[r][0] = step.seq
                batch.logits[r] = i in step.wanted
            batch.n_tokens = len(chunk)
            status = lib.llama_decode(self.ctx, batch)
            if status != 0:
                raise BackendError(f"llama_decode failed with status {status}")
            self.decodes += 1
            self.rows += len(chunk)
            self.shared += len({step.seq for step, _ in chunk}) > 1
            for r, (step, i) in enumerate(chunk):
                if i in step.wanted:
                    pointer = lib.llama_get_logits_ith(self.ctx, r)
                    if not pointer:
                        raise BackendError("llama.cpp returned no logits")
                    step.logits[i] = np.ctypeslib.as_array(pointer, shape=(self.n_vocab,)).copy()


__all__ = ["GATHER_SECONDS", "Step", "StepBatcher"]

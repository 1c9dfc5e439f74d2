"""llama.cpp's native grammar sampler, compiled once per (grammar, model), one state per request.

Three objects with three lifetimes:

- :class:`CompiledGrammar` — the parsed native sampler for one vocabulary; built once and kept
  in a :class:`GrammarCache` (parsing a large grammar is the expensive part). The backend and
  the vocabulary-only judge of ``structgen.testing`` (``_native``) each keep one.
- :class:`GrammarState` — one request's parser state, a native clone of the compiled sampler.
- The probe arrays inside a state, reused for every check.

Safety rule: llama.cpp aborts the process when a sampler accepts a token its grammar rejects,
so every ``accept`` here is preceded by a one-candidate ``apply`` that checks the token.
"""

from __future__ import annotations

import ctypes
import math
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._errors import GrammarError
from ..._llama_log import errors_logged
from ._vocab import VocabTables

_TOKEN_DATA = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
#: Longest forced text probed at once; longer skeletons are fast-forwarded in several rounds.
MAX_FORCED_BYTES = 256


class StepTooSlow(Exception):
    """One native grammar step used more CPU time than the state's ``step_limit``; the backend
    turns it into SlowGrammarError with the text so far."""

    def __init__(self, seconds: float, limit: float) -> None:
        super().__init__(seconds, limit)
        self.seconds = seconds
        self.limit = limit


class CompiledGrammar:
    """A GBNF grammar parsed by llama.cpp against one vocabulary."""

    def __init__(self, tables: VocabTables, gbnf: str, root: str) -> None:
        self.tables = tables
        lib = tables.lib
        self._lib = lib
        with errors_logged() as said_lines:
            sampler = lib.llama_sampler_init_grammar(tables.vocab, gbnf.encode("utf-8"), root.encode("utf-8"))
        if not sampler:
            said = "; ".join(line.strip() for line in said_lines if line.strip())
            raise GrammarError(
                f"llama.cpp rejected the grammar: {said or f'a parse error, or no rule named {root!r}'}"
            )
        self._sampler = sampler

    def new_state(self, step_limit: float | None = None) -> GrammarState:
        """A fresh parser state; ``step_limit``: CPU seconds one native step may take before
        it raises StepTooSlow (None: no limit)."""
        return GrammarState(self.tables, self._lib.llama_sampler_clone(self._sampler), step_limit)

    def __del__(self) -> None:
        sampler, self._sampler = getattr(self, "_sampler", None), None
        if sampler:
            self._lib.llama_sampler_free(sampler)


class GrammarCache:
    """The compiled grammars of one vocabulary, by (gbnf, root); beyond ``size`` of them the
    least recently used is dropped (its native sampler is freed with it). Not thread-safe:
    its owner serializes calls."""

    def __init__(self, tables: VocabTables, size: int) -> None:
        self.tables = tables
        self.size = size
        self._grammars: OrderedDict[tuple[str, str], CompiledGrammar] = OrderedDict()

    def get(self, gbnf: str, root: str) -> CompiledGrammar:
        """The compiled ``gbnf`` (parsed now if it is not cached; GrammarError if llama.cpp
        refuses it)."""
        key = (gbnf, root)
        compiled = self._grammars.get(key)
        if compiled is not None:
            self._grammars.move_to_end(key)
            return compiled
        compiled = CompiledGrammar(self.tables, gbnf, root)
        self._grammars[key] = compiled
        while len(self._grammars) > self.size:
            self._grammars.popitem(last=False)
        return compiled

    def forget(self, gbnf: str, root: str) -> None:
        """Drop the compiled ``gbnf`` if it is cached."""
        self._grammars.pop((gbnf, root), None)

    def clear(self) -> None:
        self._grammars.clear()


class GrammarState:
    """One request's position in the grammar. Not thread-safe; one per generation."""

    def __init__(self, tables: VocabTables, sampler: Any, step_limit: float | None = None) -> None:
        self.tables = tables
        self._lib = tables.lib
        self._sampler = sampler
        self.step_limit = step_limit
        self.seconds = 0.0
        lib = self._lib
        # One-candidate array for checking a single token.
        self._cell = lib.llama_token_data()
        self._one = lib.llama_token_data_array(
            data=ctypes.pointer(self._cell), size=1, selected=-1, sorted=False
        )
        # Probe array: every single-byte token plus one end-of-generation token.
        probe_bytes = sorted(tables.byte_tokens)
        self._probe_bytes = np.array(probe_bytes, dtype=np.intc)
        self._probe = np.zeros(len(probe_bytes) + 1, dtype=_TOKEN_DATA)
        self._probe["id"][:-1] = [tables.byte_tokens[b] for b in probe_bytes]
        self._probe["id"][-1] = tables.eos
        self._probe_array = self._array_over(self._probe)
        self._full: npt.NDArray[Any] | None = None

    def _array_over(self, data: npt.NDArray[Any]) -> Any:
        lib = self._lib
        return lib.llama_token_data_array(
            data=data.ctypes.data_as(ctypes.POINTER(lib.llama_token_data)),
            size=len(data),
            selected=-1,
            sorted=False,
        )

    def close(self) -> None:
        if self._sampler:
            self._lib.llama_sampler_free(self._sampler)
            self._sampler = None

    def __del__(self) -> None:
        self.close()

    def _charge(self, start: float, cpu: float) -> None:
        """Count a step's wall time; raise StepTooSlow if its CPU time (this thread's, so that
        other work on the machine does not count) exceeded the limit."""
        self.seconds += time.perf_counter() - start
        if self.step_limit is not None:
            used = time.thread_time() - cpu
            if used > self.step_limit:
                raise StepTooSlow(used, self.step_limit)

    # -- checks -----------------------------------------------------------------------------

    def allows(self, token: int) -> bool:
        """Whether the grammar accepts ``token`` next (end-of-generation: the grammar is complete)."""
        start, cpu = time.perf_counter(), time.thread_time()
        self._cell.id, self._cell.logit, self._cell.p = token, 0.0, 0.0
        self._one.size = 1
        self._lib.llama_sampler_apply(self._sampler, ctypes.byref(self._one))
        self._charge(start, cpu)
        return not math.isinf(self._cell.logit)

    def accept(self, token: int) -> bool:
        """Advance by ``token`` if the grammar allows it; False (and no change) otherwise."""
        if not self.allows(token):
            return False
        start, cpu = time.perf_counter(), time.thread_time()
        self._lib.llama_sampler_accept(self._sampler, token)
        self._charge(start, cpu)
        return True

    def accept_prefix(self, tokens: Sequence[int]) -> int:
        """Advance by ``tokens`` as far as the grammar allows them, one checked token at a time;
        how many it took."""
        for taken, token in enumerate(tokens):
            if not self.accept(token):
                return taken
        return len(tokens)

    def mask(self, logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """A copy of ``logits`` with every token the grammar rejects set to -inf."""
        start, cpu = time.perf_counter(), time.thread_time()
        if self._full is None:
            self._full = np.zeros(len(logits), dtype=_TOKEN_DATA)
            self._full["id"] = self.tables.ids[: len(logits)]
        full = self._full
        full["logit"] = logits
        self._lib.llama_sampler_apply(self._sampler, ctypes.byref(self._array_over(full)))
        masked: npt.NDArray[np.float32] = full["logit"].copy()
        self._charge(start, cpu)
        return masked

    def mask_subset(
        self, ids: npt.NDArray[np.intc], logits: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """Like :meth:`mask`, for the candidates ``ids`` (with their ``logits``) only."""
        start, cpu = time.perf_counter(), time.thread_time()
        subset = np.zeros(len(ids), dtype=_TOKEN_DATA)
        subset["id"] = ids
        subset["logit"] = logits
        self._lib.llama_sampler_apply(self._sampler, ctypes.byref(self._array_over(subset)))
        masked: npt.NDArray[np.float32] = subset["logit"].copy()
        self._charge(start, cpu)
        return masked

    # -- forced text --------------------------------------------------------------------------

    def _probe_once(self, sampler: Any) -> tuple[list[int], bool]:
        """(bytes the grammar allows next, whether it may end here) for ``sampler``'s state."""
        probe = self._probe
        probe["logit"] = 0.0
        self._lib.llama_sampler_apply(sampler, ctypes.byref(self._probe_array))
        open_ = ~np.isinf(probe["logit"][:-1])
        allowed = self._probe_bytes[open_]
        return [int(b) for b in allowed[:2]], not math.isinf(float(probe["logit"][-1]))

    def complete(self) -> bool:
        """Whether the grammar can end here and allows nothing else (one probe, no clone)."""
        start, cpu = time.perf_counter(), time.thread_time()
        allowed, may_end = self._probe_once(self._sampler)
        self._charge(start, cpu)
        return may_end and not allowed

    def forced(self) -> tuple[bytes, bool]:
        """The bytes the grammar allows as the only continuation, and whether it is complete.

        ``complete`` is True when the grammar can end here and allows nothing else. The state
        itself is not advanced: the probe runs on a native clone.
        """
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            allowed, may_end = self._probe_once(self._sampler)
            if not allowed:
                return b"", may_end
            if len(allowed) > 1 or may_end:
                return b"", False
            forced = bytearray()
            probe = self._lib.llama_sampler_clone(self._sampler)
            try:
                while len(allowed) == 1 and not may_end and len(forced) < MAX_FORCED_BYTES:
                    byte = allowed[0]
                    forced.append(byte)
                    # The probe just allowed this single-byte token: accepting it is safe.
                    self._lib.llama_sampler_accept(probe, self.tables.byte_tokens[byte])
                    allowed, may_end = self._probe_once(probe)
            finally:
                self._lib.llama_sampler_free(probe)
            return bytes(forced), False
        finally:
            self._charge(start, cpu)

    def fork(self) -> GrammarState:
        """An independent copy of this state (for trying alternatives)."""
        start, cpu = time.perf_counter(), time.thread_time()
        copy = GrammarState(self.tables, self._lib.llama_sampler_clone(self._sampler), self.step_limit)
        self._charge(start, cpu)
        return copy

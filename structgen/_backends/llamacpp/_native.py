"""llama.cpp's own grammar sampler on a real vocabulary: the ground truth for "does it accept".

The vocabulary of the default model is loaded once (``vocab_only``: no weights). A grammar is
compiled to a native sampler once and cloned per check. Every token is checked with a
one-candidate ``apply`` before it is ``accept``-ed: accepting a token the grammar rejects
aborts the whole process inside llama.cpp.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ..._errors import BackendError, GrammarError
from ..._llama_log import recent_errors, silence_llama_logs
from ..._model_path import check_model_file, default_model_path
from ._vocab import VocabTables

_lock = threading.Lock()


@dataclass(frozen=True)
class Verdict:
    """The outcome of feeding a text to a grammar: accepted, or where it was first rejected.

    ``rejected_at`` is the offset (in characters) of the first character the grammar refused,
    or ``len(text)`` when every character passed but the grammar could not end there.
    """

    accepted: bool
    rejected_at: int | None = None


class NativeVocab:
    """A model's vocabulary loaded into llama.cpp without weights."""

    def __init__(self, model_path: str | os.PathLike[str]) -> None:
        import llama_cpp

        silence_llama_logs()
        path = check_model_file(model_path)
        llama_cpp.llama_backend_init()
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
        if not model:
            raise BackendError(f"llama.cpp could not load the vocabulary of {path}")
        self._llama = llama_cpp
        self._model = model
        self.vocab = llama_cpp.llama_model_get_vocab(model)
        tables = VocabTables(llama_cpp, self.vocab)
        self.eos = tables.eos
        self.byte_tokens = tables.byte_tokens  # to feed text one byte at a time
        self.tokenize = tables.tokenize
        self._compiled: OrderedDict[tuple[str, str], Any] = OrderedDict()  # native sampler pointers

    def compile(self, gbnf: str, root: str) -> None:
        """Load ``gbnf`` into a native sampler now (GrammarError if llama.cpp refuses it)."""
        with _lock:
            self._compile(gbnf, root)

    def forget(self, gbnf: str, root: str) -> None:
        """Free the native sampler of ``gbnf`` if one is cached."""
        with _lock:
            sampler = self._compiled.pop((gbnf, root), None)
            if sampler is not None:
                self._llama.llama_sampler_free(sampler)

    def _compile(self, gbnf: str, root: str) -> Any:
        key = (gbnf, root)
        sampler = self._compiled.get(key)
        if sampler is not None:
            self._compiled.move_to_end(key)
            return sampler
        recent_errors.clear()
        sampler = self._llama.llama_sampler_init_grammar(self.vocab, gbnf.encode(), root.encode())
        if not sampler:
            said = "; ".join(line.strip() for line in recent_errors if line.strip())
            raise GrammarError(f"llama.cpp rejected the grammar: {said or 'no reason given'}")
        self._compiled[key] = sampler
        if len(self._compiled) > 64:
            _, old = self._compiled.popitem(last=False)
            self._llama.llama_sampler_free(old)
        return sampler

    def feed(self, gbnf: str, root: str, tokens: list[int]) -> int | None:
        """Index of the first token the grammar rejects (``len(tokens)`` for end-of-sequence)."""
        lib = self._llama
        sampler = lib.llama_sampler_clone(self._compile(gbnf, root))
        try:
            cell = lib.llama_token_data()
            array = lib.llama_token_data_array(
                data=ctypes.pointer(cell), size=1, selected=-1, sorted=False
            )
            for i, token in enumerate([*tokens, self.eos]):
                cell.id, cell.logit, cell.p = token, 0.0, 0.0
                array.size = 1
                lib.llama_sampler_apply(sampler, ctypes.byref(array))
                if math.isinf(cell.logit):
                    return i
                if i < len(tokens):
                    lib.llama_sampler_accept(sampler, token)
            return None
        finally:
            lib.llama_sampler_free(sampler)

    def check(self, gbnf: str, root: str, text: str) -> Verdict:
        with _lock:
            if self.feed(gbnf, root, self.tokenize(text)) is None:
                return Verdict(True)
            tokens, char_of_token = self._fine_tokens(text)
            at = self.feed(gbnf, root, tokens)
            if at is None:  # llama.cpp's grammar verdict must not depend on the tokenization
                raise BackendError("grammar verdict depends on tokenization")
            return Verdict(False, char_of_token[at] if at < len(tokens) else len(text))

    def _fine_tokens(self, text: str) -> tuple[list[int], list[int]]:
        """Tokens of ``text`` one byte (or, lacking a byte token, one character) at a time,
        with the character offset each token starts in, to locate the first refused character.
        """
        tokens: list[int] = []
        char_of_token: list[int] = []
        for i, ch in enumerate(text):
            data = ch.encode("utf-8")
            pieces = [self.byte_tokens.get(b) for b in data]
            if all(p is not None for p in pieces):
                ids = [p for p in pieces if p is not None]
            else:
                ids = self.tokenize(ch)
            tokens += ids
            char_of_token += [i] * len(ids)
        return tokens, char_of_token


@functools.lru_cache(maxsize=4)
def native_vocab(model_path: str | None = None) -> NativeVocab:
    """The shared vocabulary of ``model_path`` (default model when None), loaded once."""
    with _lock:
        return NativeVocab(model_path or default_model_path())

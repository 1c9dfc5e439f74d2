"""llama.cpp's own grammar sampler on a real vocabulary: the ground truth for "does it accept".

The vocabulary of the default model is loaded once (``vocab_only``: no weights). A grammar is
compiled once into the same :class:`~._grammar_state.CompiledGrammar` the backend uses (kept
in a :class:`~._grammar_state.GrammarCache`), and each check feeds the text to a fresh
:class:`~._grammar_state.GrammarState`, whose ``accept`` checks every token before the
native sampler takes it.
"""

from __future__ import annotations

import atexit
import functools
import os
import threading
from dataclasses import dataclass

from ..._errors import BackendError
from ..._llama_log import silence_llama_logs
from ..._model_path import check_model_file, default_model_path
from ._grammar_state import GrammarCache
from ._vocab import VocabTables

#: Compiled grammars kept by the judge (least recently used are freed first).
GRAMMAR_CACHE_SIZE = 64

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
        self._model = model
        self.vocab = llama_cpp.llama_model_get_vocab(model)
        self.tables = VocabTables(llama_cpp, self.vocab)
        self.eos = self.tables.eos
        self.byte_tokens = self.tables.byte_tokens  # to feed text one byte at a time
        self.tokenize = self.tables.tokenize
        self.grammars = GrammarCache(self.tables, GRAMMAR_CACHE_SIZE)
        # The judge lives as long as the process: free its samplers while llama_cpp still
        # can, not from ``__del__`` once module teardown has begun.
        atexit.register(self.grammars.clear)

    def compile(self, gbnf: str, root: str) -> None:
        """Load ``gbnf`` into a native sampler now (GrammarError if llama.cpp refuses it)."""
        with _lock:
            self.grammars.get(gbnf, root)

    def forget(self, gbnf: str, root: str) -> None:
        """Free the native sampler of ``gbnf`` if one is cached."""
        with _lock:
            self.grammars.forget(gbnf, root)

    def feed(self, gbnf: str, root: str, tokens: list[int]) -> int | None:
        """Index of the first token the grammar rejects (``len(tokens)`` for end-of-sequence);
        None when it accepts them all and then the end. Callers hold ``_lock``."""
        state = self.grammars.get(gbnf, root).new_state()
        try:
            taken = state.accept_prefix(tokens)
            if taken < len(tokens):
                return taken
            return None if state.allows(self.eos) else len(tokens)
        finally:
            state.close()

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
            ids = [self.byte_tokens[b] for b in data if b in self.byte_tokens]
            if len(ids) < len(data):  # a byte without a token of its own
                ids = self.tokenize(ch)
            tokens += ids
            char_of_token += [i] * len(ids)
        return tokens, char_of_token


@functools.lru_cache(maxsize=4)
def native_vocab(model_path: str | None = None) -> NativeVocab:
    """The shared vocabulary of ``model_path`` (default model when None), loaded once."""
    with _lock:
        return NativeVocab(model_path or default_model_path())

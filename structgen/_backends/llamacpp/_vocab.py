"""What the sampling loop needs to know about a model's vocabulary, computed once per model."""

from __future__ import annotations

import ctypes
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt


class VocabTables:
    """Token pieces, single-byte tokens, end-of-generation tokens and "extendable" tokens.

    A token is *extendable* when its text is a proper prefix of another token's text: forced
    text that ends with such a token is where a model could naturally merge the forced text with
    what it writes next, so the fast-forward stops before it (token healing).
    """

    def __init__(self, lib: Any, vocab: Any) -> None:
        self.lib = lib
        self.vocab = vocab
        self.n_vocab: int = lib.llama_vocab_n_tokens(vocab)
        buf = ctypes.create_string_buffer(256)
        pieces: list[bytes] = []
        for tid in range(self.n_vocab):
            n = lib.llama_token_to_piece(vocab, tid, buf, 256, 0, False)
            pieces.append(buf.raw[:n] if n > 0 else b"")
        self.pieces = pieces
        self.eog: frozenset[int] = frozenset(
            t for t in range(self.n_vocab) if lib.llama_vocab_is_eog(vocab, t)
        )
        eos = lib.llama_vocab_eos(vocab)
        self.eos: int = eos if eos >= 0 else min(self.eog, default=0)
        byte_tokens: dict[int, int] = {}
        for tid, piece in enumerate(pieces):
            if len(piece) == 1 and tid not in self.eog:
                byte_tokens.setdefault(piece[0], tid)
        self.byte_tokens = byte_tokens
        self.ids: npt.NDArray[np.intc] = np.arange(self.n_vocab, dtype=np.intc)
        self._extensions: dict[int, npt.NDArray[np.intc]] = {}

    @cached_property
    def _prefixes(self) -> frozenset[bytes]:
        """Every proper prefix of a token's text (built on first use: the vocabulary-only
        judge of ``structgen.testing`` never asks)."""
        return frozenset(piece[:end] for piece in self.pieces for end in range(1, len(piece)))

    def extendable(self, token: int) -> bool:
        return self.pieces[token] in self._prefixes

    def extensions(self, token: int) -> npt.NDArray[np.intc]:
        """Ids of the tokens whose text strictly extends ``token``'s text (cached per token)."""
        found = self._extensions.get(token)
        if found is None:
            piece = self.pieces[token]
            found = np.array(
                [t for t, p in enumerate(self.pieces) if len(p) > len(piece) and p.startswith(piece)],
                dtype=np.intc,
            )
            self._extensions[token] = found
        return found

    def tokenize(self, text: str, *, add_special: bool = False, parse_special: bool = False) -> list[int]:
        lib = self.lib
        data = text.encode("utf-8")
        cap = len(data) + 16
        out = (lib.llama_token * cap)()
        n = lib.llama_tokenize(self.vocab, data, len(data), out, cap, add_special, parse_special)
        if n < 0:
            cap = -n
            out = (lib.llama_token * cap)()
            n = lib.llama_tokenize(self.vocab, data, len(data), out, cap, add_special, parse_special)
        return list(out[:n])

    def special_text(self, token: int) -> str:
        """The text of a special token such as BOS, as chat templates spell it."""
        buf = ctypes.create_string_buffer(256)
        n = self.lib.llama_token_to_piece(self.vocab, token, buf, 256, 0, True)
        return buf.raw[: max(n, 0)].decode("utf-8", errors="replace")

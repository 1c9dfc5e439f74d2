"""Test helpers: native acceptance (the ground truth), hypothesis strategies, round trips."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._native import Verdict, native_vocab

if TYPE_CHECKING:
    from ._grammar import Grammar

__all__ = ["Verdict", "accepts", "check"]


def _source(grammar: Grammar | str, root: str | None) -> tuple[str, str]:
    if isinstance(grammar, str):
        return grammar, root or "root"
    return grammar.gbnf, root or grammar.root


def check(grammar: Grammar | str, text: str, *, root: str | None = None) -> Verdict:
    """Feed ``text`` to llama.cpp's native grammar sampler; say where it was first rejected."""
    gbnf, start = _source(grammar, root)
    return native_vocab().check(gbnf, start, text)


def accepts(grammar: Grammar | str, text: str, *, root: str | None = None) -> bool:
    """True if llama.cpp's native grammar sampler accepts ``text`` and then end-of-sequence.

    ``grammar`` is a :class:`~structgen.Grammar` or GBNF text. The default model's vocabulary
    is loaded once (vocab only); the text is fed token by token, each token checked first.
    """
    return check(grammar, text, root=root).accepted

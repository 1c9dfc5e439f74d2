"""Does a backend's answer match the grammar it was asked for? Backends that do not sample
themselves (servers, scripts) check what they hand back with the pure-Python recognizer."""

from __future__ import annotations


from .._memo import memo
from .._errors import GrammarError
from .._gbnf._recognizer import Recognizer
from ._seam import Completion, CompletionRequest


def grammar_mismatch(request: CompletionRequest, completion: Completion) -> str | None:
    """None when the completion's text is allowed (a "length" or "repeat" answer may stop early:
    it must be a prefix); else where it first departs from the grammar, in words."""
    if request.triggers:
        return None  # a lazy grammar constrains only the text after its trigger
    recognizer = _recognizer(request.gbnf, request.root)
    if recognizer is None:
        return None
    text = completion.text
    state = recognizer.initial().advance_text(text)
    if state is not None and (completion.finish_reason != "stop" or state.is_accepting()):
        return None
    at = recognizer.first_rejected(text)
    return f"text the grammar does not allow (from character {at}: {text[:120]!r})"


@memo(32)
def _recognizer(gbnf: str, root: str) -> Recognizer | None:
    try:
        return Recognizer(gbnf, root)
    except GrammarError:
        return None  # token references: they name a vocabulary's tokens, not text to check

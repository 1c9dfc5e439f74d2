"""What the sampling loop and its policies share for one generation: the model, the
vocabulary, the grammar state, the token budget and the text written so far."""

from __future__ import annotations

import codecs

from .._choices import JsonCursor
from .._seam import Usage
from ._grammar_state import GrammarState
from ._runner import ModelRunner
from ._vocab import VocabTables


class Decoding:
    """One generation's shared state (after the prompt has been evaluated)."""

    def __init__(
        self, runner: ModelRunner, tables: VocabTables, state: GrammarState, *,
        max_tokens: int, usage: Usage, cursor: JsonCursor | None,
    ) -> None:
        self.runner = runner
        self.tables = tables
        self.state = state
        self.max_tokens = max_tokens
        self.usage = usage
        self.cursor = cursor  # follows the JSON text, where a policy needs to know where it stands
        self.produced = 0
        self.text: list[str] = []
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    @property
    def room(self) -> int:
        """Tokens the budget still allows."""
        return self.max_tokens - self.produced

    def write(self, tokens: list[int]) -> str:
        """Record ``tokens`` as written; their text (whole characters so far), which the
        cursor follows."""
        text = self._decoder.decode(b"".join(self.tables.pieces[t] for t in tokens))
        if text:
            self.text.append(text)
            if self.cursor is not None:
                self.cursor.feed(text)
        return text

    def flush(self) -> str:
        """The text of a character left incomplete at the end."""
        tail = self._decoder.decode(b"", final=True)
        if tail:
            self.text.append(tail)
        return tail

    def count(self, tokens: list[int], *, forced: bool = False, drafted: bool = False) -> None:
        self.produced += len(tokens)
        if forced:
            self.usage.forced_tokens += len(tokens)
            return
        self.usage.sampled_tokens += len(tokens)
        if drafted:
            self.usage.drafted_tokens += len(tokens)

    def forced_text(self) -> tuple[str, bool]:
        """The text the grammar forces next (whole UTF-8 characters), and whether it is complete."""
        data, complete = self.state.forced()
        return complete_utf8_prefix(data), complete

    def accepted_prefix(self, tokens: list[int]) -> int:
        """How many of ``tokens`` the grammar accepts in a row from here, tried on a fork."""
        if not tokens:
            return 0
        fork = self.state.fork()
        try:
            return fork.accept_prefix(tokens)
        finally:
            self.state.seconds += fork.seconds
            fork.close()

    def fits(self, tokens: list[int]) -> bool:
        """Whether the grammar accepts ``tokens`` (at least one) from here."""
        return bool(tokens) and self.accepted_prefix(tokens) == len(tokens)


def complete_utf8_prefix(data: bytes) -> str:
    """The longest prefix of ``data`` that is whole UTF-8 characters, decoded."""
    for cut in range(len(data), max(len(data) - 4, -1), -1):
        try:
            return data[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return ""


__all__ = ["Decoding", "complete_utf8_prefix"]

"""The constrained sampling loop: sample-then-check, with its policies.

Each step does one of three things:

1. **Fast-forward** (``_fast_forward.py``): the grammar allows exactly one continuation; it is
   evaluated as one batch (its last token, if it could merge with what follows, is the model's
   to decide).
2. **Choose** (``_choosing.py``): at a JSON position whose value is one of a few whole
   alternatives, every alternative is scored by its full log-likelihood.
3. **Sample, then check.** Pick a token from the raw logits, check just that token against the
   grammar (and the :class:`~._repeat_guard.RepeatGuard`); only if it is rejected mask the
   whole vocabulary and pick again (``_repair.py`` puts back a string's missing quote). The
   picked token is evaluated together with a prompt-lookup guess of the tokens after it
   (``_lookup.py``); the model then picks at each guessed position from the batch's logits, and
   the guess is kept up to the first position where the model picks something else.

No token is ever accepted by the native grammar without being checked first. The shared state
of one generation is a :class:`~._decoding.Decoding`; each policy owns the rest of its own.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator

import numpy as np
import numpy.typing as npt

from ..._errors import BackendError
from .._choices import JsonCursor
from .._seam import ChoiceTable, Completion, Event, FinishReason, MemberRules, TextDelta, Usage
from ._choosing import Chooser
from ._decoding import Decoding
from ._fast_forward import ForcedText
from ._grammar_state import GrammarState
from ._lookup import DraftPolicy, Drafts
from ._repair import QuoteRepair
from ._repeat_guard import RepeatGuard, Repeating
from ._runner import ContextFullError, ModelRunner
from ._sampling import TokenPicker
from ._vocab import VocabTables

#: How many of the most likely tokens are checked before masking the whole vocabulary.
RESCUE_CANDIDATES = 256


class ConstrainedDecoder:
    """Runs one generation after the prompt has been evaluated (logits ready)."""

    def __init__(
        self,
        runner: ModelRunner,
        tables: VocabTables,
        state: GrammarState,
        picker: TokenPicker,
        *,
        max_tokens: int,
        choices: ChoiceTable | None,
        usage: Usage,
        drafts: DraftPolicy = DraftPolicy(length=0),
        members: MemberRules | None = None,
    ) -> None:
        # The cursor follows the JSON text (``members``: from its start, so it can also tell
        # repeated members and close loops).
        cursor = JsonCursor(members) if members is not None else JsonCursor() if choices else None
        self.decoding = Decoding(runner, tables, state, max_tokens=max_tokens, usage=usage, cursor=cursor)
        self.picker = picker
        self.guard = RepeatGuard(self.decoding, guarded=members is not None)
        self.chooser = Chooser(self.decoding, choices, picker) if choices else None
        self.forced = ForcedText(self.decoding)
        self.drafts = Drafts(self.decoding, drafts)
        self.repair = QuoteRepair(self.decoding, self.guard)
        self._stopped = False  # the model ended the answer at a guessed position

    @property
    def produced(self) -> int:
        return self.decoding.produced

    @property
    def text(self) -> str:
        """The text written so far."""
        return "".join(self.decoding.text)

    def run(self) -> Generator[Event, None, None]:
        reason: FinishReason
        detail = ""
        try:
            reason = yield from self._steps()
        except ContextFullError:
            reason = "length"
        except Repeating as stuck:
            reason, detail = "repeat", str(stuck)
        tail = self.decoding.flush()
        if tail:
            yield TextDelta(tail)
        usage = self.decoding.usage
        usage.grammar_seconds += self.decoding.state.seconds
        yield Completion("".join(self.decoding.text), reason, usage, tuple(self.guard.closed), detail)

    def _steps(self) -> Generator[Event, None, FinishReason]:
        decoding = self.decoding
        while True:
            forced_text, complete = decoding.forced_text()
            if complete or self._stopped:
                return "stop"
            if decoding.room <= 0:
                return "length"
            if self.chooser is not None and (yield from self.chooser.choose(forced_text, self._apply)):
                continue
            if forced_text and (yield from self._fast_forward(forced_text)):
                continue
            token = self._sample(decoding.runner.logits())
            if token in decoding.tables.eog:
                return "stop"
            yield from self._evaluate([token], forced=False)

    def _emit(self, tokens: list[int]) -> Iterator[Event]:
        text = self.decoding.write(tokens)
        if text:
            yield TextDelta(text)
        self.guard.heard(tokens)

    def _apply(self, tokens: list[int]) -> Iterator[Event]:
        """Accept and evaluate tokens already validated on a fork of the grammar."""
        if self.decoding.state.accept_prefix(tokens) < len(tokens):  # validated on a fork: cannot fail
            raise BackendError("grammar state diverged while applying a chosen alternative")
        self.decoding.runner.decode(tokens)
        self.decoding.count(tokens, forced=True)
        yield from self._emit(tokens)

    def _fast_forward(self, forced_text: str) -> Generator[Event, None, bool]:
        taken, held = self.forced.take(forced_text, self.decoding.room)
        if not taken:
            return False
        # A held-back boundary token rides along as a guess: the model picks at its position
        # from the batch's logits (same result as sampling it one step later, one evaluation
        # fewer when the guess is right).
        yield from self._evaluate(taken, forced=True, head=held)
        return True

    def _evaluate(self, tokens: list[int], *, forced: bool, head: int | None = None) -> Iterator[Event]:
        """Evaluate ``tokens`` (already accepted by the grammar) in one batch, together with the
        text the grammar forces right after sampled tokens, and with a guess of what follows —
        ``head`` if given (a held-back boundary token), then a prompt lookup — kept as far as
        the model picks the same tokens."""
        decoding = self.decoding
        runner = decoding.runner
        while True:
            then: list[int] = []
            if not forced and head is None:
                then, head = self._forced_after(tokens)
            known = tokens + then
            draft = self.drafts.guess(known, head)
            start = runner.position
            runner.decode([*known, *draft], last_rows=len(draft) + 1)
            decoding.count(tokens, forced=forced)
            yield from self._emit(tokens)
            if then:
                decoding.count(then, forced=True)
                yield from self._emit(then)
            confirmed, own = 0, None  # guessed tokens the model picked; its pick at a wrong guess
            for row, guess in enumerate(draft, start=len(known) - 1):
                if self._leaves_sampling():
                    break
                pick = self._sample(runner.logits(row))
                if pick != guess:
                    own = pick
                    break
                confirmed += 1
                decoding.count([guess], drafted=True)
                yield from self._emit([guess])
            runner.truncate(start + len(known) + confirmed)  # drop unconfirmed guesses
            if own is None:
                return
            if own in decoding.tables.eog:
                self._stopped = True
                return
            tokens, forced, head = [own], False, None  # the model's own pick, evaluated likewise

    def _forced_after(self, sampled: list[int]) -> tuple[list[int], int | None]:
        """The forced text after just-sampled tokens, taken now so that it rides in their batch
        (one evaluation fewer) — unless a whole-alternative choice starts inside it."""
        decoding = self.decoding
        text, complete = decoding.forced_text()
        if complete or not text or len(sampled) >= decoding.room:
            return [], None
        if decoding.cursor is not None:
            try:
                before = b"".join(decoding.tables.pieces[t] for t in sampled).decode("utf-8")
            except UnicodeDecodeError:
                return [], None
            if self.chooser is not None and self.chooser.starts_in(before, text):
                return [], None
        return self.forced.take(text, decoding.room - len(sampled))

    def _leaves_sampling(self) -> bool:
        """Whether the main loop would stop or choose among alternatives here. (Forced text
        does not stop a guess: the model confirms forced tokens like any other.)"""
        if self.decoding.room <= 0 or self._stopped or self.decoding.state.complete():
            return True
        return self.chooser is not None and self.chooser.starts_here()

    def _sample(self, logits: npt.NDArray[np.float32]) -> int:
        """A token the grammar accepts (and has accepted), picked from ``logits``; one that
        closes a loop's value when a loop is being closed; never one that repeats a member."""
        state, guard = self.decoding.state, self.guard
        closer = guard.closer()
        if closer is not None:
            token = guard.best_closer(closer, logits)
            if token is not None:
                return token
        token = self.picker.pick(logits)
        if token is not None and not guard.repeats(token) and state.accept(token):
            return token
        if token is not None and self.repair.missing_quote(token):
            return self.repair.open_quote()
        # Rejected: look among the most likely candidates first (for greedy decoding this is
        # exactly the constrained choice), and mask the whole vocabulary only if none fits.
        top = np.argpartition(-logits, RESCUE_CANDIDATES)[:RESCUE_CANDIDATES].astype(np.intc)
        masked = guard.without_repeats(top, state.mask_subset(top, logits[top]))
        index = self.picker.pick(masked)
        if index is not None:
            token = int(top[index])
        else:
            token = self.picker.pick(guard.without_repeats(self.decoding.tables.ids, state.mask(logits)))
            if token is None:
                guard.no_token_left()
        if token is None:
            raise BackendError("the grammar allows no token here (is the grammar satisfiable?)")
        token = self.repair.alone(token)
        if not state.accept(token):
            raise BackendError("the grammar allows no token here (is the grammar satisfiable?)")
        return token


__all__ = ["ConstrainedDecoder", "FinishReason"]

"""The constrained sampling loop: sample-then-check, fast-forward, whole-alternative choices.

Each step does one of three things:

1. **Fast-forward.** If the grammar allows exactly one continuation (keys, punctuation, the
   rest of the last possible enum value), tokenize it and evaluate it as one batch. If its last
   token could merge with what follows (a longer token starting with it is allowed here), that
   token is the model's to decide (token healing): it rides along in the batch as a guess, and
   the model picks at that position from the batch's logits; a wrong guess is dropped from the
   KV cache and the model's own token is used instead.
2. **Choose.** At a JSON position whose value is one of a few whole alternatives, score every
   alternative by its full log-likelihood and take the best (or sample by it).
3. **Sample, then check.** Pick a token from the raw logits, check just that token against the
   grammar; only if it is rejected mask the whole vocabulary and pick again. The picked token
   is evaluated together with a prompt-lookup guess of the tokens after it (``_lookup.py``);
   the model then picks at each guessed position from the batch's logits, and the guess is
   kept up to the first position where the model picks something else.

No token is ever accepted by the native grammar without being checked first.

Two things the grammar cannot say are enforced here. A token that would write a member twice
(a key its object already has, an item already in a set; see ``JsonCursor.repeated``) is
refused like a token the grammar rejects. And when the model loops (``_repeats.py``), the loop
closes what it is writing at the first place the grammar allows — the string, or the container
whose members repeat — and reports where (``Completion.loops``); if the grammar does not allow
closing within :data:`CLOSE_WITHIN` tokens, or every allowed token would repeat a member, the
completion ends with finish reason "repeat".
"""

from __future__ import annotations

import codecs
import itertools
from collections import deque
from collections.abc import Generator, Iterator

import numpy as np
import numpy.typing as npt

from ..._errors import BackendError
from .._choices import Alternative, ChoiceTable, JsonCursor, MemberRules
from ._grammar_state import GrammarState
from ._lookup import DraftPolicy, lookup_draft
from ._repeats import MAX_PERIOD, MIN_REPEATS, LoopDetector
from ._runner import ContextFullError, ModelRunner
from ._sampling import TokenPicker, log_softmax
from .._seam import Completion, Event, FinishReason, TextDelta, Usage
from ._vocab import VocabTables


#: How many of the most likely tokens are checked before masking the whole vocabulary.
RESCUE_CANDIDATES = 256
#: How many tokens a loop's value may still take before the grammar lets it close.
CLOSE_WITHIN = 64


class _Repeating(Exception):
    """The model keeps repeating itself and the grammar offers no way out."""


class _Closing:
    """A loop being closed: a string value (``string``) or the container at ``depth``."""

    def __init__(self, pointer: str, string: bool, depth: int, container: object, started: int,
                 period: int) -> None:
        self.pointer = pointer
        self.string = string
        self.depth = depth
        self.container = container  # the cursor's open container being closed
        self.started = started
        self.period = period


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
        self.runner = runner
        self.tables = tables
        self.state = state
        self.picker = picker
        self.max_tokens = max_tokens
        self.choices = choices or None
        self.usage = usage
        self.drafts = drafts
        self.produced = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._text: list[str] = []
        # The cursor follows the JSON text (``members``: from its start, so it can also tell
        # repeated members and close loops).
        self._cursor = JsonCursor(members) if members is not None else JsonCursor() if self.choices else None
        self._guarded = members is not None
        self._stopped = False  # the model ended the answer inside a fast-forward step
        self._loops = LoopDetector()
        # Per token, the fewest containers open while it was written: a loop's container is the
        # outermost one its repetitions pass through (items repeating close their list; a tree
        # nesting itself closes where the nesting began).
        self._depths: deque[int] = deque(maxlen=MAX_PERIOD * MIN_REPEATS)
        self._closing: _Closing | None = None
        self._closed: list[str] = []  # JSON pointers of values closed because the model looped
        self._closed_in: list[tuple[object, int]] = []  # containers, and loops closed inside them
        self._detail = ""

    def run(self) -> Iterator[Event]:
        reason: FinishReason
        try:
            reason = yield from self._steps()
        except ContextFullError:
            reason = "length"
        except _Repeating as stuck:
            reason, self._detail = "repeat", str(stuck)
        tail = self._decoder.decode(b"", final=True)
        if tail:
            self._text.append(tail)
            yield TextDelta(tail)
        self.usage.grammar_seconds += self.state.seconds
        yield Completion("".join(self._text), reason, self.usage, tuple(self._closed), self._detail)

    def _emit(self, tokens: list[int]) -> Iterator[Event]:
        text = self._decoder.decode(b"".join(self.tables.pieces[t] for t in tokens))
        if text:
            self._text.append(text)
            if self._cursor is not None:
                self._cursor.feed(text)
            yield TextDelta(text)
        if self._cursor is not None:
            self._depths.extend([self._cursor.take_low_depth()] * len(tokens))
        for token in tokens:
            period = self._loops.push(token)
            if period is not None and self._closing is None:
                self._start_closing(period)

    # -- repeats: members written twice, loops --------------------------------------------------

    def _start_closing(self, period: int) -> None:
        """The model loops: close the string it is in, or else the container whose members
        repeat, at the first place the grammar allows."""
        cursor = self._cursor
        if cursor is None or not self._guarded:
            raise _Repeating(f"the model repeated a sequence of {period} tokens")
        latest = b"".join(self.tables.pieces[t] for t in self._loops.latest(period))
        string = cursor.in_value_string and b'"' not in latest
        if string:
            container, pointer, depth = None, cursor.pointer, cursor.depth
        elif cursor.depth < 1:  # between top-level values (tool-call formats): nothing to close
            raise _Repeating(f"the model repeated a sequence of {period} tokens outside any container")
        else:
            depth = max(1, min(list(self._depths)[-period * MIN_REPEATS:], default=cursor.depth))
            container, pointer = cursor.container_at(depth)
        outer = depth if string else depth - 1
        if outer >= 1:
            parent, parent_pointer = cursor.container_at(outer)
            if self._count_closing(parent) >= MIN_REPEATS:
                # Loops closed again and again in one container's members (a run of digits in
                # every item, each cut short) are that container looping, whatever its period.
                string, container, pointer, depth = False, parent, parent_pointer, outer
        self._closing = _Closing(pointer or "/", string, depth, container, self.produced, period)
        self._closed.append(self._closing.pointer)

    def _count_closing(self, container: object) -> int:
        """How many loops have now been closed inside ``container``, this one included."""
        for i, (seen, count) in enumerate(self._closed_in):
            if seen is container:
                self._closed_in[i] = (seen, count + 1)
                return count + 1
        self._closed_in.append((container, 1))
        return 1

    def _closer(self) -> str | None:
        """The character that closes what a loop is writing, once the loop has to end; None
        when it is closed, or while the next member has to be finished first (inside a key)."""
        closing, cursor = self._closing, self._cursor
        if closing is None or cursor is None:
            return None
        done = not cursor.in_value_string if closing.string else not cursor.holds(closing.container)
        if done:
            self._closing = None
            self._loops.forget(closing.period)
            return None
        waited = self.produced - closing.started
        if waited > CLOSE_WITHIN:
            raise _Repeating(f"the model repeated itself at {closing.pointer} and the grammar "
                             f"did not allow closing it within {CLOSE_WITHIN} tokens")
        if cursor.in_value_string:
            # A looping text ends with its sentence, a looping list's item as the model ends it
            # (with the list then: no "," is allowed), each within one more repetition.
            if waited < closing.period and not (closing.string and self._text_ends_sentence()):
                return None
            return '"'
        if cursor.in_key:
            return None
        return cursor.closing_bracket

    def _text_ends_sentence(self) -> bool:
        tail = self._text[-1] if self._text else ""
        return tail.rstrip(" ")[-1:] in (".", "!", "?", "\n")

    def _repeats(self, token: int) -> bool:
        """Whether ``token`` would write a member twice, or start another member of a
        container whose loop is being closed."""
        if not self._guarded or self._cursor is None:
            return False
        try:
            text = self.tables.pieces[token].decode("utf-8")
        except UnicodeDecodeError:
            return False  # part of a character: it completes nothing
        closing = self._closing
        if closing is not None and not closing.string and self._cursor.separates(text, closing.depth):
            return True
        return self._cursor.would_repeat(text)

    def _steps(self) -> Generator[Event, None, FinishReason]:
        while True:
            forced_text, complete = self._forced_text()
            if complete or self._stopped:
                return "stop"
            if self.produced >= self.max_tokens:
                return "length"
            if self.choices is not None and (yield from self._maybe_choose(forced_text)):
                continue
            if forced_text and (yield from self._fast_forward(forced_text)):
                continue
            token = self._sample(self.runner.logits())
            if token in self.tables.eog:
                return "stop"
            yield from self._evaluate([token], forced=False)

    def _evaluate(self, tokens: list[int], *, forced: bool, head: int | None = None) -> Iterator[Event]:
        """Evaluate ``tokens`` (already accepted by the grammar) in one batch, together with the
        text the grammar forces right after sampled tokens, and with a guess of what follows —
        ``head`` if given (a held-back boundary token), then a prompt lookup — kept as far as
        the model picks the same tokens."""
        while True:
            then: list[int] = []
            if not forced and head is None:
                then, head = self._forced_after(tokens)
            known = tokens + then
            draft = self._draft(known, head)
            start = self.runner.position
            self.runner.decode([*known, *draft], last_rows=len(draft) + 1)
            self._count(tokens, forced=forced)
            yield from self._emit(tokens)
            if then:
                self._count(then, forced=True)
                yield from self._emit(then)
            confirmed, own = 0, None  # guessed tokens the model picked; its pick at a wrong guess
            for row, guess in enumerate(draft, start=len(known) - 1):
                if self._leaves_sampling():
                    break
                pick = self._sample(self.runner.logits(row))
                if pick != guess:
                    own = pick
                    break
                confirmed += 1
                self._count([guess], drafted=True)
                yield from self._emit([guess])
            self.runner.truncate(start + len(known) + confirmed)  # drop unconfirmed guesses
            if own is None:
                return
            if own in self.tables.eog:
                self._stopped = True
                return
            tokens, forced, head = [own], False, None  # the model's own pick, evaluated likewise

    def _forced_after(self, sampled: list[int]) -> tuple[list[int], int | None]:
        """The forced text after just-sampled tokens, taken now so that it rides in their batch
        (one evaluation fewer) — unless a whole-alternative choice starts inside it."""
        text, complete = self._forced_text()
        if complete or not text or self.produced + len(sampled) >= self.max_tokens:
            return [], None
        if self._cursor is not None:
            try:
                before = b"".join(self.tables.pieces[t] for t in sampled).decode("utf-8")
            except UnicodeDecodeError:
                return [], None
            cursor = self._cursor.copy()
            cursor.feed(before)
            if next(self._choices_along(cursor, text), None) is not None:
                return [], None
        return self._take_forced(text, self.max_tokens - self.produced - len(sampled))

    def _forced_text(self) -> tuple[str, bool]:
        """The text the grammar forces next (whole UTF-8 characters), and whether it is complete."""
        data, complete = self.state.forced()
        return _complete_utf8_prefix(data), complete

    def _count(self, tokens: list[int], *, forced: bool = False, drafted: bool = False) -> None:
        self.produced += len(tokens)
        if forced:
            self.usage.forced_tokens += len(tokens)
            return
        self.usage.sampled_tokens += len(tokens)
        if drafted:
            self.usage.drafted_tokens += len(tokens)

    def _draft(self, tokens: list[int], head: int | None) -> list[int]:
        """The guess after ``tokens``: ``head``, then a prompt lookup, cut to the token budget
        and the context, before an end-of-generation token and where the grammar rejects."""
        room = min(self.max_tokens - self.produced - len(tokens),
                   self.runner.n_ctx - self.runner.position - len(tokens))
        guess = [head] if head is not None and self.drafts.head else []
        guess += lookup_draft([*self.runner.tokens, *tokens, *guess], self.drafts.length)
        eog = self.tables.eog
        guess = list(itertools.takewhile(lambda token: token not in eog, guess[: max(room, 0)]))
        return guess[: self._accepted_prefix(guess)]

    def _leaves_sampling(self) -> bool:
        """Whether the main loop would stop or choose among alternatives here. (Forced text
        does not stop a guess: the model confirms forced tokens like any other.)"""
        if self.produced >= self.max_tokens or self._stopped or self.state.complete():
            return True
        return next(self._choices_along(self._cursor, ""), None) is not None

    def _choices_along(
        self, cursor: JsonCursor | None, text: str
    ) -> Iterator[tuple[int, tuple[Alternative, ...]]]:
        """(offset, alternatives) for every offset of ``text`` (its end included) where a
        whole-alternative choice starts, feeding ``text`` to ``cursor`` on the way."""
        if cursor is None or self.choices is None:
            return
        for offset in range(len(text) + 1):
            if offset:
                cursor.feed(text[offset - 1])
            path = cursor.value_path
            alternatives = self.choices.get(path) if path is not None else None
            if alternatives:
                yield offset, alternatives

    def _sample(self, logits: npt.NDArray[np.float32]) -> int:
        """A token the grammar accepts (and has accepted), picked from ``logits``; one that
        closes a loop's value when a loop is being closed; never one that repeats a member."""
        closer = self._closer()
        if closer is not None:
            token = self._best_closer(closer, logits)
            if token is not None:
                return token
        token = self.picker.pick(logits)
        if token is not None and not self._repeats(token) and self.state.accept(token):
            return token
        if token is not None and self._missing_quote(token):
            return self._accepted_quote()
        # Rejected: look among the most likely candidates first (for greedy decoding this is
        # exactly the constrained choice), and mask the whole vocabulary only if none fits.
        top = np.argpartition(-logits, RESCUE_CANDIDATES)[:RESCUE_CANDIDATES].astype(np.intc)
        masked = self._without_repeats(top, self.state.mask_subset(top, logits[top]))
        index = self.picker.pick(masked)
        if index is not None:
            token = int(top[index])
        else:
            token = self.picker.pick(self._without_repeats(self.tables.ids, self.state.mask(logits)))
            if token is None and self._closing is not None:
                raise _Repeating(f"the model repeated itself at {self._closing.pointer} and the "
                                 "grammar does not allow closing it there")
            if token is None and self._guarded:
                raise _Repeating("every token the grammar allows would write a member twice at "
                                 f"{self._cursor.pointer if self._cursor else ''}")
        if token is None:
            raise BackendError("the grammar allows no token here (is the grammar satisfiable?)")
        token = self._quote_alone(token)
        if not self.state.accept(token):
            raise BackendError("the grammar allows no token here (is the grammar satisfiable?)")
        return token

    def _missing_quote(self, token: int) -> bool:
        """Whether the rejected ``token`` would be allowed after an opening quote: the model
        wrote a string's text without its quote (``[Ann`` for ``["Ann``)."""
        quote = self.tables.byte_tokens.get(0x22)
        return (quote is not None and token != quote and not self._repeats(quote)
                and self._accepted_prefix([quote, token]) == 2)

    def _accepted_quote(self) -> int:
        quote = self.tables.byte_tokens[0x22]
        if not self.state.accept(quote):  # checked on a fork, so this cannot fail
            raise BackendError("grammar state diverged while opening a string")
        return quote

    def _quote_alone(self, token: int) -> int:
        """``"`` for a rejected pick's stand-in that opens a string with more (``",``, ``""``).

        When the model's own pick is rejected (it wanted a newline, or a bare word), the best
        allowed token is often a common one such as ``",``, which writes an item ``", "``. The
        quote alone lets the model write the string's text itself at the next step."""
        piece = self.tables.pieces[token]
        quote = self.tables.byte_tokens.get(0x22)
        if len(piece) < 2 or piece[:1] != b'"' or quote is None:
            return token
        masked = self._without_repeats(
            np.array([quote], dtype=np.intc), self.state.mask_subset(np.array([quote], dtype=np.intc),
                                                                     np.zeros(1, dtype=np.float32)))
        return quote if np.isfinite(masked[0]) else token

    def _without_repeats(self, ids: npt.NDArray[np.intc], masked: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """``masked`` (logits of ``ids``) with tokens that would repeat a member masked too."""
        if not self._guarded:
            return masked
        for index in np.flatnonzero(np.isfinite(masked)):
            if self._repeats(int(ids[index])):
                masked[index] = -np.inf
        return masked

    def _best_closer(self, closer: str, logits: npt.NDArray[np.float32]) -> int | None:
        """The likeliest token that starts with ``closer`` and that the grammar accepts."""
        single = self.tables.byte_tokens.get(ord(closer))
        if single is None:
            return None
        ids = np.append(self.tables.extensions(single), single).astype(np.intc)
        masked = self._without_repeats(ids, self.state.mask_subset(ids, logits[ids]))
        if not np.isfinite(masked).any():
            return None
        token = int(ids[int(np.argmax(masked))])
        return token if self.state.accept(token) else None

    def _fast_forward(self, forced_text: str) -> Generator[Event, None, bool]:
        taken, held = self._take_forced(forced_text, self.max_tokens - self.produced)
        if not taken:
            return False
        # A held-back boundary token rides along as a guess: the model picks at its position
        # from the batch's logits (same result as sampling it one step later, one evaluation
        # fewer when the guess is right).
        yield from self._evaluate(taken, forced=True, head=held)
        return True

    def _take_forced(self, forced_text: str, budget: int) -> tuple[list[int], int | None]:
        """Tokens of the forced text, accepted by the grammar, and the last token held back
        when the model could merge it with what follows (token healing)."""
        tokens = self.tables.tokenize(forced_text)[: max(budget, 0)]
        body, last = tokens[:-1], tokens[-1:]
        taken = body[: self.state.accept_prefix(body)]
        if len(taken) < len(body) or not last:
            return taken, None
        if self._could_merge(last[0]):
            return taken, last[0]  # the model decides the boundary token itself
        return (tokens, None) if self.state.accept(last[0]) else (taken, None)

    def _could_merge(self, token: int) -> bool:
        """Whether the grammar allows a longer token that starts with ``token``'s text here."""
        if not self.tables.extendable(token):
            return False
        longer = self.tables.extensions(token)
        masked = self.state.mask_subset(longer, np.zeros(len(longer), dtype=np.float32))
        return bool(np.isfinite(masked).any())

    def _maybe_choose(self, forced_text: str) -> Generator[Event, None, bool]:
        assert self._cursor is not None
        # A choice may start anywhere inside the forced text (an enum's opening quote is
        # itself forced; whitespace may come before the value), so look at every offset.
        valid: list[tuple[list[int], Alternative]] = []
        for offset, alternatives in self._choices_along(self._cursor.copy(), forced_text):
            valid = self._valid_continuations(forced_text[:offset], alternatives)
            if len(valid) >= 2:
                break
        if len(valid) < 2:
            return False
        # Tokens every alternative starts with are forced: evaluate them once, up front
        # (not when an alternative carries natural-language cues, scored from here).
        if not any(alternative.cues for _, alternative in valid):
            shared = _shared_prefix([tokens for tokens, _ in valid])[: self.max_tokens - self.produced]
            if shared:
                yield from self._apply(shared)
                valid = [(tokens[len(shared) :], alternative) for tokens, alternative in valid]
        if self.produced >= self.max_tokens:
            return True
        # Scoring decodes overwrite the logits buffer: take the next-token distribution first.
        # (The buffer is current again once the chosen alternative is decoded.)
        first = log_softmax(self.runner.logits())
        scored = [
            score_continuations(
                self.runner, self.tables, [tokens, *(self.tables.tokenize(c) for c in alternative.cues)], first
            )
            for tokens, alternative in valid
        ]
        pick = self.picker.choose([
            max(s) / max(len(tokens), 1) if alternative.per_token else max(s)
            for s, (tokens, alternative) in zip(scored, valid)
        ])
        best, alternative = valid[pick]
        yield from self._apply(best[: self.max_tokens - self.produced])
        cue = _best_cue(alternative, scored[pick])
        if cue is not None:
            yield from self._open_with(cue)
        return True

    def _open_with(self, cue: str) -> Iterator[Event]:
        """Start the chosen alternative's free text with the likeliest of its cues ("I'm sorry"):
        the model then explains itself as it was about to, instead of guessing at a JSON string
        (left alone after ``{"refusal": "``, small models wrote a stray ``}`` and rambled)."""
        quote, _ = self._forced_text()  # the string's opening quote
        tokens = self.tables.tokenize(quote + cue)
        tokens = tokens[: self.max_tokens - self.produced]
        if self._fits(tokens):
            yield from self._apply(tokens)

    def _apply(self, tokens: list[int]) -> Iterator[Event]:
        """Accept and evaluate tokens already validated on a fork of the grammar."""
        if self.state.accept_prefix(tokens) < len(tokens):  # validated on a fork: cannot fail
            raise BackendError("grammar state diverged while applying a chosen alternative")
        self.runner.decode(tokens)
        self._count(tokens, forced=True)
        yield from self._emit(tokens)

    def _valid_continuations(
        self, forced_text: str, alternatives: tuple[Alternative, ...]
    ) -> list[tuple[list[int], Alternative]]:
        result: list[tuple[list[int], Alternative]] = []
        for alternative in alternatives:
            tokens = self.tables.tokenize(forced_text + alternative.text)
            if self._fits(tokens):
                result.append((tokens, alternative))
        return result

    def _fits(self, tokens: list[int]) -> bool:
        """Whether the grammar accepts ``tokens`` (at least one) from here."""
        return bool(tokens) and self._accepted_prefix(tokens) == len(tokens)

    def _accepted_prefix(self, tokens: list[int]) -> int:
        """How many of ``tokens`` the grammar accepts in a row from here, tried on a fork."""
        if not tokens:
            return 0
        fork = self.state.fork()
        try:
            return fork.accept_prefix(tokens)
        finally:
            self.state.seconds += fork.seconds
            fork.close()


def prefix_logprob(tables: VocabTables, logprobs: npt.NDArray[np.float64], token: int) -> float:
    """Log-probability that the next token *starts with* ``token``'s text.

    An alternative's last token may merge with what follows (``"`` then ``,`` is usually
    the single token ``",``), so its own probability says more about tokenization than
    about the choice; the probability of its text as a prefix does not (token healing).
    """
    if not tables.extendable(token):
        return float(logprobs[token])
    ids = np.append(tables.extensions(token), token)
    values = logprobs[ids]
    top = float(values.max())
    return top + float(np.log(np.exp(values - top).sum()))


def score_continuations(
    runner: ModelRunner, tables: VocabTables, continuations: list[list[int]],
    first: npt.NDArray[np.float64],
) -> list[float]:
    """Full log-likelihood of each token sequence right after what the cache holds now, given
    ``first``, the log-probabilities of the next token. The cache is left as it was; the
    logits buffer is not."""
    start = runner.position
    scores: list[float] = []
    try:
        for tokens in continuations:
            if not tokens:
                scores.append(0.0)
                continue
            if len(tokens) == 1:
                scores.append(prefix_logprob(tables, first, tokens[0]))
                continue
            score = float(first[tokens[0]])
            runner.decode(tokens[:-1], all_logits=True)
            for i, token in enumerate(tokens[1:-1]):
                score += float(log_softmax(runner.logits(i))[token])
            last = log_softmax(runner.logits(len(tokens) - 2))
            scores.append(score + prefix_logprob(tables, last, tokens[-1]))
            runner.truncate(start)
    finally:
        runner.truncate(start)
    return scores


def _best_cue(alternative: Alternative, scores: list[float]) -> str | None:
    """The most likely of ``alternative``'s cues (scores: its own spelling, then its cues)."""
    if not alternative.cues:
        return None
    return alternative.cues[max(range(len(alternative.cues)), key=lambda i: scores[i + 1])]


def _shared_prefix(sequences: list[list[int]]) -> list[int]:
    """The longest common prefix, leaving at least one token in every sequence."""
    limit = min(len(s) for s in sequences) - 1
    n = 0
    while n < limit and all(s[n] == sequences[0][n] for s in sequences):
        n += 1
    return sequences[0][:n]


def _complete_utf8_prefix(data: bytes) -> str:
    """The longest prefix of ``data`` that is whole UTF-8 characters, decoded."""
    for cut in range(len(data), max(len(data) - 4, -1), -1):
        try:
            return data[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return ""


__all__ = ["ConstrainedDecoder", "FinishReason"]

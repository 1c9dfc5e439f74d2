"""What generation and tool turns share: one :class:`Sampling` value built from the keywords,
and :class:`Attempts`, the retry-with-feedback loop (finish reasons, usage, the final error)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from typing_extensions import TypedDict

from .._backends._seam import DEFAULT_SAMPLING, Completion, Message, SamplingSettings, Usage
from .._errors import IncompleteOutputError, OutputValidationError

Errors = list[dict[str, Any]]
V = TypeVar("V")


class SamplingOptions(TypedDict, total=False):
    """The sampling and budget keywords every call takes (defaults: :data:`DEFAULT_SAMPLING`,
    and the LLM's own ``seed``, ``max_tokens`` and ``max_retries`` where they are None)."""

    max_tokens: int | None
    temperature: float
    top_p: float
    top_k: int
    min_p: float
    seed: int | None
    max_retries: int | None


SAMPLING_KEYWORDS = frozenset(SamplingOptions.__annotations__)


@dataclass(frozen=True)
class Sampling:
    """How one call samples and what it may spend, built once from its keywords."""

    settings: SamplingSettings
    max_tokens: int
    max_retries: int

    @classmethod
    def of(cls, options: SamplingOptions, *, seed: int, max_tokens: int, max_retries: int) -> Sampling:
        """From ``options`` (keywords of :class:`SamplingOptions`; a foreign one is a
        TypeError, as for any function; None is a keyword left out), the rest taken from the
        defaults given."""
        unknown = set(options) - SAMPLING_KEYWORDS
        if unknown:
            raise TypeError(f"unexpected keyword argument(s): {', '.join(sorted(unknown))}")
        sampling = cls(
            SamplingSettings(
                temperature=_given(options.get("temperature"), DEFAULT_SAMPLING.temperature),
                top_p=_given(options.get("top_p"), DEFAULT_SAMPLING.top_p),
                top_k=_given(options.get("top_k"), DEFAULT_SAMPLING.top_k),
                min_p=_given(options.get("min_p"), DEFAULT_SAMPLING.min_p),
                seed=_given(options.get("seed"), seed),
            ),
            max_tokens=_given(options.get("max_tokens"), max_tokens),
            max_retries=_given(options.get("max_retries"), max_retries),
        )
        if sampling.max_tokens < 1 or sampling.max_retries < 0:
            raise ValueError("max_tokens must be >= 1 and max_retries >= 0")
        return sampling


def _given(value: V | None, default: V) -> V:
    """A keyword's value, or ``default`` where it was left out (or given as None)."""
    return default if value is None else value


Noun = Literal["answer", "call"]
_ASK_AGAIN: dict[Noun, tuple[str, str]] = {
    "answer": ("(root)", "Answer again with corrected JSON."),
    "call": ("(call)", "Call again with corrected arguments."),
}


class Attempts:
    """One retry-with-feedback loop: iterate for each attempt, ``spend`` each completion's
    usage, ``check`` how it finished, ``reject`` an invalid answer (its errors are fed back
    in ``conversation``), and raise :meth:`exhausted` when no attempt is left."""

    def __init__(self, conversation: Sequence[Message], max_retries: int, noun: Noun) -> None:
        self.conversation = list(conversation)
        self.max_retries = max_retries
        self.noun = noun
        self.usage = Usage()
        self.rejected: list[tuple[str, Errors]] = []

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.max_retries + 1))

    def spend(self, usage: Usage) -> Usage:
        self.usage = self.usage + usage
        return self.usage

    def check(self, completion: Completion, max_tokens: int) -> None:
        """Raise ``IncompleteOutputError`` unless the grammar completed."""
        unit = "answer" if self.noun == "answer" else "turn"
        if completion.finish_reason == "length":
            raise IncompleteOutputError(
                f"{completion.length_cause(max_tokens)} before the {unit} was complete",
                text=completion.text, usage=self.usage,
            )
        if completion.finish_reason == "repeat":
            raise IncompleteOutputError(
                f"{completion.detail}; the {unit} was stopped there", text=completion.text, usage=self.usage
            )

    def reject(self, text: str, errors: Errors) -> None:
        self.rejected.append((text, errors))
        root, again = _ASK_AGAIN[self.noun]
        problems = "\n".join(f"- {'.'.join(str(p) for p in e['loc']) or root}: {e['msg']}" for e in errors)
        self.conversation += [
            Message("assistant", text),
            Message("user", f"That {self.noun} is invalid:\n{problems}\n{again}"),
        ]

    def exhausted(self) -> OutputValidationError:
        what = "value" if self.noun == "answer" else "call"
        return OutputValidationError(
            f"{len(self.rejected)} attempt(s) produced no valid {what}; last errors: {self.rejected[-1][1]}",
            attempts=self.rejected, usage=self.usage,
        )


__all__ = ["SAMPLING_KEYWORDS", "Attempts", "Sampling", "SamplingOptions"]

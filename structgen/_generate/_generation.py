"""One generation as an operation: the output type's grammar asked for, the answer checked
(finish reason, refusal, validation), retried with the errors fed back; and what streaming
and the answer's warnings need."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import ValidationError
from typing_extensions import Unpack

from .._backends._seam import CompletionRequest, Message, Reasoning, ReasoningDelta, TextDelta, Usage
from .._errors import RefusalError, ValidatorError
from .._pointers import escape_pointer_token
from ._attempts import Attempts, Sampling, SamplingOptions
from ._describe import DictionaryShape
from ._output import OutputSpec, Refusal, spec_for, validation_errors
from ._partial import PartialBuilder
from ._reasoning import ReasoningOption
from ._steps import Steps, complete
from ._warnings import outside_structgen, warn_looped

T = TypeVar("T")
OnRefusal = Literal["raise", "return"]


class PromptOptions(SamplingOptions, total=False):
    """The keyword arguments of a generation's prompt and sampling."""

    system: str | None
    messages: Sequence[Mapping[str, str] | Message] | None


class GenerateOptions(PromptOptions, total=False):
    """The keyword arguments every generation call takes (see :meth:`LLM.generate`)."""

    reasoning: ReasoningOption


@dataclass(frozen=True)
class Result(Generic[T]):
    """A generation with its bookkeeping: ``value``, the final ``text``, ``usage``, and the
    ``reasoning`` the model wrote before its answer ("" without a reasoning section)."""

    value: T
    text: str
    usage: Usage
    reasoning: str = ""


def generation(
    output_type: Any, prompt: str | None, sampling_of: Callable[[SamplingOptions], Sampling],
    record: Callable[[Usage], None], reasoning: Reasoning | None = None, dictionaries: DictionaryShape = "words",
    *, on_refusal: OnRefusal = "raise", system: str | None = None,
    messages: Sequence[Mapping[str, str] | Message] | None = None, **sampling_options: Unpack[SamplingOptions],
) -> Steps[TextDelta | ReasoningDelta | None, Result[Any]]:
    """One generation with its retries: yields text and reasoning deltas (None when a retry
    starts) and the backend requests (see ``_steps``); returns the Result. The keywords are
    ``on_refusal`` and :class:`PromptOptions`; ``sampling_of`` builds the sampling from its
    sampling keywords with the caller's defaults; ``record`` hears the usage so far after each
    attempt; ``reasoning`` is the section each attempt writes before its answer;
    ``dictionaries`` how the prompt shows a dictionary to this model."""
    if on_refusal not in ("raise", "return"):
        raise ValueError("on_refusal must be 'raise' or 'return'")
    sampling = sampling_of(sampling_options)
    spec: OutputSpec[Any] = spec_for(output_type)
    # A reply that works the request out is the section: the prompt asks for the working.
    worked = reasoning is not None and not reasoning.open
    conversation = spec.conversation(prompt, system=system, messages=messages, dictionaries=dictionaries, worked=worked)
    attempts = Attempts(conversation, sampling.max_retries, "answer")
    for attempt in attempts:
        if attempt:
            yield None
        request = CompletionRequest(
            messages=tuple(attempts.conversation), gbnf=spec.grammar.gbnf, root=spec.grammar.root,
            max_tokens=sampling.max_tokens, sampling=sampling.settings, choices=spec.choices,
            members=spec.members, reasoning=reasoning,
        )
        completion = yield from complete(request)
        thought = completion.reasoning.strip()
        record(attempts.spend(completion.usage))
        attempts.check(completion, sampling.max_tokens)
        reason = spec.refusal_reason(completion.text)
        if reason is not None:
            if on_refusal == "return":
                return Result(Refusal(reason), completion.text, attempts.usage, thought)
            raise RefusalError(reason, text=completion.text, usage=attempts.usage)
        try:
            value = spec.validate(completion.text)
        except ValidationError as error:
            attempts.reject(completion.text, validation_errors(error))
            continue
        except Exception as error:  # a bug in a validator: retrying cannot fix it
            raise ValidatorError(
                f"a validator raised {type(error).__name__}: {error}",
                text=completion.text, usage=attempts.usage,
            ) from error
        _warn_if_capped(completion.text, spec.options.grammar.max_string_length)
        warn_looped(completion.loops)
        return Result(value, completion.text, attempts.usage, thought)
    raise attempts.exhausted()



class Partials:
    """What a stream of a value shows: partial values from its text deltas (None: a retry
    starts over), and its reasoning deltas where the caller asked for ``reasoning``."""

    def __init__(self, output_type: Any, reasoning: ReasoningOption = None) -> None:
        self.output_type = output_type
        self.builder = PartialBuilder(output_type)
        self.shows_reasoning = reasoning not in (None, False)

    def feed(self, item: TextDelta | ReasoningDelta | None) -> Any:
        """What this piece gives the stream to show (a partial value, a reasoning delta), or None."""
        if item is None:
            self.builder = PartialBuilder(self.output_type)
            return None
        if isinstance(item, ReasoningDelta):
            return item if self.shows_reasoning else None
        return self.builder.update(item.text)


def _warn_if_capped(text: str, cap: int | None) -> None:
    """Warn when a string of the answer is exactly ``max_string_length`` long: the grammar may
    have closed it before the model was done (valid, but maybe cut short)."""
    if cap is None:
        return
    try:
        data = json.loads(text)
    except ValueError:
        return  # a raw (unquoted) root string
    at = _strings_of_length(data, cap, "")
    if at:
        warnings.warn(
            f"{', '.join(at)}: exactly max_string_length={cap} characters, so the model may "
            "have been cut off; raise it with @structgen.structured(max_string_length=...) or "
            "declare Field(max_length=...)", UserWarning, stacklevel=outside_structgen(),
        )


def _strings_of_length(data: Any, length: int, pointer: str) -> list[str]:
    """JSON pointers of the strings (values and keys) in ``data`` with exactly ``length`` characters."""
    if isinstance(data, str):
        return [pointer or "/"] if len(data) == length else []
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            here = f"{pointer}/{escape_pointer_token(key)}"
            if len(key) == length:
                found.append(f"{here} (key)")
            found += _strings_of_length(value, length, here)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            found += _strings_of_length(item, length, f"{pointer}/{i}")
    return found


__all__ = ["GenerateOptions", "OnRefusal", "Partials", "PromptOptions", "Result", "generation"]

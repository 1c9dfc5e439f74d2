"""``structgen.LLM``: typed generation — ``llm.generate(Model, prompt) -> Model``.

The LLM knows output types, prompts, retries and errors; the model itself sits behind a
:class:`~structgen.Backend` (in-process llama.cpp by default), which only
turns (messages, grammar, sampling settings) into text.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, overload

from pydantic import ValidationError
from typing_extensions import TypedDict, TypeForm, Unpack

from .._backends._seam import (
    DEFAULT_SAMPLING,
    AsyncBackend,
    Backend,
    CompletionRequest,
    Message,
    SamplingSettings,
    TextDelta,
    Usage,
)
from .._errors import IncompleteOutputError, OutputValidationError, RefusalError, ValidatorError
from .._pointers import escape_pointer_token
from ._aio import Done, Exchange, drive, iterate_in_thread
from ._messages import drain
from ._output import OutputSpec, Refusal, spec_for, validation_errors
from ._partial import PartialBuilder
from ._tool_api import ToolCalling
from ._warnings import outside_structgen, warn_looped

T = TypeVar("T")
_PENDING = object()  # a streamed piece of text that completed no partial value
OnRefusal = Literal["raise", "return"]
MessagesArg = Sequence[Mapping[str, str] | Message] | None


class GenerateOptions(TypedDict, total=False):
    """The keyword arguments every generation call takes (see :meth:`LLM.generate`)."""

    system: str | None
    messages: MessagesArg
    max_tokens: int | None
    temperature: float
    top_p: float
    top_k: int
    min_p: float
    seed: int | None
    max_retries: int | None


@dataclass(frozen=True)
class Result(Generic[T]):
    """A generation with its bookkeeping: ``value``, the final ``text`` and ``usage``."""

    value: T
    text: str
    usage: Usage


class LLM(ToolCalling):
    """A local model that answers with typed, validated values.

    ``LLM()`` loads the default model (SmolLM2-135M-Instruct); ``LLM(path)`` any GGUF file;
    ``LLM(backend=...)`` runs on any :class:`Backend` (a server, or
    :class:`structgen.testing.ScriptedBackend` in tests) and loads nothing; :meth:`from_llama`
    wraps an existing ``llama_cpp.Llama``.
    One LLM may be shared by threads and asyncio tasks: generations are serialized.
    CPU threads default as in llama-cpp-python (half the CPUs per token, all of them for
    batches); ``n_threads=N`` sets both, ``n_threads_batch=N`` batches alone.
    ``prompt_cache_bytes`` bounds the host memory that keeps earlier prompts' KV states, so a
    prefix seen before is not evaluated again (None: 256 MiB; 0: only the previous call's).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_batch: int = 512,
        seed: int = 0,
        max_tokens: int = 512,
        max_retries: int = 1,
        lookahead: int | None = None,
        prompt_cache_bytes: int | None = None,
        backend: Backend | None = None,
        **llama_options: Any,
    ) -> None:
        if max_tokens < 1 or max_retries < 0:
            raise ValueError("max_tokens must be >= 1 and max_retries >= 0")
        if backend is None:
            from .._backends.llamacpp import LlamaCppBackend

            backend = LlamaCppBackend.load(
                model_path, n_ctx=n_ctx, n_threads=n_threads, n_batch=n_batch, seed=seed,
                lookahead=lookahead, prompt_cache_bytes=prompt_cache_bytes, **llama_options
            )
        elif (model_path is not None or n_threads is not None or lookahead is not None
              or prompt_cache_bytes is not None or llama_options):
            raise TypeError("model options are the backend's own: give a model or a backend, not both")
        elif not isinstance(backend, Backend):
            raise TypeError(f"backend must implement complete() and close(), not {type(backend).__name__}")
        self.backend: Backend = backend
        self.seed = seed
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self._local = threading.local()

    @classmethod
    def from_llama(
        cls, llama: Any, *, seed: int = 0, max_tokens: int = 512, max_retries: int = 1,
        lookahead: int | None = None, prompt_cache_bytes: int | None = None,
    ) -> LLM:
        """Wrap an existing ``llama_cpp.Llama`` (it stays usable; the caller keeps ownership).

        ``lookahead`` and ``prompt_cache_bytes`` as for :class:`LlamaCppBackend` (None: its
        defaults)."""
        from .._backends.llamacpp import LlamaCppBackend

        backend = LlamaCppBackend(llama, lookahead=lookahead, prompt_cache_bytes=prompt_cache_bytes)
        return cls.from_backend(backend, seed=seed, max_tokens=max_tokens, max_retries=max_retries)

    @classmethod
    def from_backend(
        cls, backend: Backend, *, seed: int = 0, max_tokens: int = 512, max_retries: int = 1
    ) -> LLM:
        """``LLM(backend=backend, ...)``."""
        return cls(backend=backend, seed=seed, max_tokens=max_tokens, max_retries=max_retries)

    def close(self) -> None:
        """Close the backend (the model's memory, a server's connections); later calls raise
        ``BackendError``."""
        self.backend.close()

    def __enter__(self) -> LLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def last_usage(self) -> Usage | None:
        """Usage of this thread's most recent call (also on errors, as ``error.usage``)."""
        usage: Usage | None = getattr(self._local, "usage", None)
        return usage

    # -- generate -------------------------------------------------------------------------

    @overload
    def generate(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", **options: Unpack[GenerateOptions],
    ) -> T: ...
    @overload
    def generate(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], **options: Unpack[GenerateOptions],
    ) -> T | Refusal: ...
    def generate(self, output_type: Any, prompt: str | None = None, **kwargs: Any) -> Any:
        """Generate a value of ``output_type`` (a Pydantic model or any TypeAdapter type).

        ``prompt`` is the user message; ``system`` and ``messages`` add context. Greedy at
        ``temperature=0``; ``seed`` reproduces sampling. A failing Pydantic validator triggers up
        to ``max_retries`` retries with the error fed back. Raises ``IncompleteOutputError``
        (``max_tokens`` or the context window ran out), ``RefusalError`` (the model refused; or
        pass ``on_refusal="return"`` to get a :class:`Refusal` value), ``OutputValidationError``,
        ``ValidatorError`` (a validator raised something other than ValueError/AssertionError),
        ``BackendError`` (e.g. the prompt does not fit in the context).
        """
        return self.run(output_type, prompt, **kwargs).value

    @overload
    def run(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", **options: Unpack[GenerateOptions],
    ) -> Result[T]: ...
    @overload
    def run(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], **options: Unpack[GenerateOptions],
    ) -> Result[T | Refusal]: ...
    def run(self, output_type: Any, prompt: str | None = None, **kwargs: Any) -> Any:
        """Like :meth:`generate`, but returns a :class:`Result` with the text and usage."""
        events = self._events(output_type, prompt, **kwargs)
        while True:
            try:
                next(events)
            except StopIteration as stop:
                return stop.value

    # -- streaming ------------------------------------------------------------------------

    @overload
    def stream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", **options: Unpack[GenerateOptions],
    ) -> Generator[T, None, None]: ...
    @overload
    def stream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], **options: Unpack[GenerateOptions],
    ) -> Generator[T | Refusal, None, None]: ...
    def stream(self, output_type: Any, prompt: str | None = None, **kwargs: Any) -> Generator[Any, None, None]:
        """Yield partial values as top-level fields (or list items) complete, then the final
        validated value. Partial models hold only completed, individually validated fields
        (see ``model_fields_set``); a retry starts the partials over. Stopping early (``break``,
        ``close()``, or dropping the generator) frees the model for the next call."""
        items = self._stream_items(output_type, prompt, **kwargs)
        try:
            for item in items:
                if item is not _PENDING:
                    yield item
        finally:
            items.close()  # at once, not whenever the garbage collector gets to it

    def _stream_items(self, output_type: Any, prompt: str | None, **kwargs: Any) -> Generator[Any, None, None]:
        """:meth:`stream`'s values, with ``_PENDING`` for each piece of text that completed none
        (so a consumer in another thread can stop between any two pieces, not only at a value)."""
        events = self._events(output_type, prompt, **kwargs)
        partial = PartialBuilder(output_type)
        try:
            while True:
                try:
                    event = next(events)
                except StopIteration as stop:
                    yield stop.value.value
                    return
                if event is None:  # a retry begins
                    partial = PartialBuilder(output_type)
                    continue
                value = partial.update(event.text)
                yield _PENDING if value is None else value
        finally:
            events.close()  # a consumer that stops early frees the model at once

    # -- async ----------------------------------------------------------------------------

    @overload
    async def agenerate(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", **options: Unpack[GenerateOptions],
    ) -> T: ...
    @overload
    async def agenerate(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], **options: Unpack[GenerateOptions],
    ) -> T | Refusal: ...
    async def agenerate(self, output_type: Any, prompt: str | None = None, **kwargs: Any) -> Any:
        """:meth:`generate` without blocking the event loop: natively on a backend with
        ``acomplete`` (the HTTP backends: no thread per call), else in a worker thread."""
        if isinstance(self.backend, AsyncBackend):
            async with aclosing(self._drive(output_type, prompt, kwargs)) as items:
                async for item in items:
                    if isinstance(item, Done):
                        return item.value.value
            raise AssertionError("drive() always ends with Done")  # pragma: no cover
        run: Any = self.run
        result: Result[Any] = await asyncio.to_thread(run, output_type, prompt, **kwargs)
        self._local.usage = result.usage
        return result.value

    @overload
    def astream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", **options: Unpack[GenerateOptions],
    ) -> AsyncIterator[T]: ...
    @overload
    def astream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], **options: Unpack[GenerateOptions],
    ) -> AsyncIterator[T | Refusal]: ...
    def astream(self, output_type: Any, prompt: str | None = None, **kwargs: Any) -> AsyncIterator[Any]:
        """:meth:`stream` for ``async for``: natively on a backend with ``acomplete``, else the
        model runs in a worker thread, which stops at the next piece of text when the consumer
        stops or is cancelled."""
        if isinstance(self.backend, AsyncBackend):
            return self._astream_native(output_type, prompt, kwargs)
        return iterate_in_thread(
            lambda: self._stream_items(output_type, prompt, **kwargs), skip=_PENDING
        )

    def _drive(
        self, output_type: Any, prompt: str | None, kwargs: dict[str, Any]
    ) -> AsyncGenerator[TextDelta | None | Done[Result[Any]], None]:
        """The attempts loop of :meth:`_events` on the event loop, the backend's ``acomplete``
        answering its requests."""
        assert isinstance(self.backend, AsyncBackend)
        exchange = Exchange()
        return drive(self._events(output_type, prompt, _exchange=exchange, **kwargs), exchange, self.backend)

    async def _astream_native(
        self, output_type: Any, prompt: str | None, kwargs: dict[str, Any]
    ) -> AsyncIterator[Any]:
        partial = PartialBuilder(output_type)
        async with aclosing(self._drive(output_type, prompt, kwargs)) as items:
            async for item in items:
                if isinstance(item, Done):
                    yield item.value.value
                    return
                if item is None:  # a retry begins
                    partial = PartialBuilder(output_type)
                    continue
                value = partial.update(item.text)
                if value is not None:
                    yield value

    # -- the loop over attempts ---------------------------------------------------------------

    def _events(
        self,
        output_type: Any,
        prompt: str | None,
        *,
        on_refusal: OnRefusal = "raise",
        system: str | None = None,
        messages: MessagesArg = None,
        max_tokens: int | None = None,
        temperature: float = DEFAULT_SAMPLING.temperature,
        top_p: float = DEFAULT_SAMPLING.top_p,
        top_k: int = DEFAULT_SAMPLING.top_k,
        min_p: float = DEFAULT_SAMPLING.min_p,
        seed: int | None = None,
        max_retries: int | None = None,
        _exchange: Exchange | None = None,
    ) -> Generator[TextDelta | None, None, Result[Any]]:
        """Yields text deltas (None when a retry starts); returns the Result. With ``_exchange``
        the requests go to an async driver (see ``_aio.drive``) instead of ``backend.complete``."""
        if on_refusal not in ("raise", "return"):
            raise ValueError("on_refusal must be 'raise' or 'return'")
        spec: OutputSpec[Any] = spec_for(output_type)
        settings = SamplingSettings(
            temperature=temperature, top_p=top_p, top_k=top_k, min_p=min_p,
            seed=self.seed if seed is None else seed,
        )
        budget = self.max_tokens if max_tokens is None else max_tokens
        retries = self.max_retries if max_retries is None else max_retries
        if budget < 1 or retries < 0:
            raise ValueError("max_tokens must be >= 1 and max_retries >= 0")
        conversation = spec.conversation(prompt, system=system, messages=messages)
        usage = Usage()
        attempts: list[tuple[str, Any]] = []
        for attempt in range(retries + 1):
            if attempt:
                yield None
            request = CompletionRequest(
                messages=tuple(conversation), gbnf=spec.grammar.gbnf, root=spec.grammar.root,
                max_tokens=budget, sampling=settings, choices=spec.choices, members=spec.members,
            )
            completion = yield from (
                _exchange.ask(request) if _exchange is not None else drain(self.backend.complete(request))
            )
            usage = usage + completion.usage
            self._local.usage = usage
            if completion.finish_reason == "length":
                raise IncompleteOutputError(
                    f"{completion.length_cause(budget)} before the answer was complete",
                    text=completion.text, usage=usage,
                )
            if completion.finish_reason == "repeat":
                raise IncompleteOutputError(
                    f"{completion.detail}; the answer was stopped there", text=completion.text, usage=usage
                )
            reason = spec.refusal_reason(completion.text)
            if reason is not None:
                if on_refusal == "return":
                    return Result(Refusal(reason), completion.text, usage)
                raise RefusalError(reason, text=completion.text, usage=usage)
            try:
                value = spec.validate(completion.text)
            except ValidationError as error:
                attempts.append((completion.text, validation_errors(error)))
                conversation = [*conversation, *_feedback(completion.text, error)]
                continue
            except Exception as error:  # a bug in a validator: retrying cannot fix it
                raise ValidatorError(
                    f"a validator raised {type(error).__name__}: {error}",
                    text=completion.text, usage=usage,
                ) from error
            _warn_if_capped(completion.text, spec.options.grammar.max_string_length)
            warn_looped(completion.loops)
            return Result(value, completion.text, usage)
        raise OutputValidationError(
            f"{len(attempts)} attempt(s) produced no valid value; last errors: {attempts[-1][1]}",
            attempts=attempts, usage=usage,
        )


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


def _feedback(text: str, error: ValidationError) -> list[Message]:
    problems = "\n".join(
        f"- {'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in validation_errors(error)
    )
    return [
        Message("assistant", text),
        Message("user", f"That answer is invalid:\n{problems}\nAnswer again with corrected JSON."),
    ]

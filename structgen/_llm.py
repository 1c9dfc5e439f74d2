"""``structgen.LLM``: typed generation — ``llm.generate(Model, prompt) -> Model``.

The LLM knows output types, prompts, retries and errors; the model itself sits behind a
:class:`~structgen.backends.Backend` (in-process llama.cpp by default), which only
turns (messages, grammar, sampling settings) into text.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Generator, Iterator, Mapping, Sequence
from contextlib import aclosing
from typing import Any, Literal, TypeVar, overload

from typing_extensions import TypeForm, Unpack

from ._backends._seam import Backend, Reasoning, ReasoningDelta, TextDelta, Usage, chat_template_of
from ._backends.llamacpp._options import LlamaOptions
from ._description import ModelDescription, describe_backend
from ._errors import StructgenError
from ._generate._attempts import Sampling, SamplingOptions
from ._generate._describe import DictionaryShape
from ._generate._generation import GenerateOptions, Partials, PromptOptions, Result, generation
from ._generate._reasoning import ReasoningOption, reasoning_section
from ._generate._output import Refusal
from ._generate._steps import Done, Steps, finish, result_of, run_async, run_blocking
from ._tools._api import (
    Caller,
    ToolErrors,
    ToolFormatName,
    ToolOptions,
    PromptOrMessages,
    ToolStreamEvent,
    one_call,
    run_steps,
    tool_format_for,
    turn_steps,
)
from ._tools._calls import ToolCall, ToolRun, ToolTurn
from ._tools._tool import ToolSource
from ._tools._turn import TurnEvent
from ._tools.policy._policies import Policy, PolicyName, resolve_policy

T = TypeVar("T")


class LLM:
    """A local model that answers with typed, validated values.

    ``LLM()`` loads the default model (SmolLM2-135M-Instruct); ``LLM(path)`` any GGUF file;
    ``LLM(backend=...)`` runs on any :class:`Backend` (a server, or
    :class:`structgen.testing.ScriptedBackend` in tests) and loads nothing; :meth:`from_llama`
    wraps an existing ``llama_cpp.Llama``.
    One LLM may be shared by threads and asyncio tasks. In-process, generations take turns;
    with ``sequences=N`` up to N run at once, their decoding steps evaluated together in one
    ``llama_decode`` (more throughput for concurrent calls; N times the KV-cache memory).
    CPU threads default as in llama.cpp's own tools (one per physical core per token, every
    usable CPU for batches); ``n_threads=N`` sets both, ``n_threads_batch=N`` batches alone.
    llama.cpp's other settings (GPU layers, memory mapping, ...) are :class:`LlamaOptions`,
    passed to ``llama_cpp.Llama`` as they are: ``LLM(path, n_gpu_layers=-1)``.
    ``chat_template`` replaces the GGUF file's chat template (a Jinja template, or the path of a
    ``.jinja`` file or of a GGUF file to read one from); the tool format, the tool policy and
    the reasoning markers follow it. ``template_options`` are extra variables for every render
    of the template (``{"enable_thinking": False}``). :meth:`describe` shows what the model gets.
    ``prompt_cache_bytes`` bounds the host memory that keeps earlier prompts' KV states, so a
    prefix seen before is not evaluated again (None: 256 MiB; 0: only the previous call's).
    ``grammar_step_seconds`` bounds the CPU time of one step of llama.cpp's grammar sampler: a
    grammar whose ways of reading the text multiply ends the call with SlowGrammarError instead
    of hanging (None: 20 s; ``math.inf``: no limit).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        n_batch: int = 512,
        seed: int = 0,
        max_tokens: int = 512,
        max_retries: int = 1,
        lookahead: int | None = None,
        prompt_cache_bytes: int | None = None,
        sequences: int | None = None,
        grammar_step_seconds: float | None = None,
        chat_template: str | os.PathLike[str] | None = None,
        template_options: Mapping[str, Any] | None = None,
        backend: Backend | None = None,
        **llama: Unpack[LlamaOptions],
    ) -> None:
        if max_tokens < 1 or max_retries < 0:
            raise ValueError("max_tokens must be >= 1 and max_retries >= 0")
        if backend is None:
            from ._backends.llamacpp import LlamaCppBackend

            backend = LlamaCppBackend.load(
                model_path, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads_batch, n_batch=n_batch,
                seed=seed, lookahead=lookahead, prompt_cache_bytes=prompt_cache_bytes, sequences=sequences,
                grammar_step_seconds=grammar_step_seconds, chat_template=chat_template,
                template_options=template_options, **llama,
            )
        elif (model_path is not None or n_threads is not None or n_threads_batch is not None
              or lookahead is not None or prompt_cache_bytes is not None or sequences is not None
              or grammar_step_seconds is not None or chat_template is not None or template_options is not None
              or llama):
            raise TypeError("model options are the backend's own: give a model or a backend, not both")
        elif not isinstance(backend, Backend):
            raise TypeError(f"backend must implement complete() and close(), not {type(backend).__name__}")
        self.backend: Backend = backend
        self.seed = seed
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self._local = threading.local()
        self._caller = Caller(self._sampling, self._tool_format, self._record, self._reasoning)

    @classmethod
    def from_llama(
        cls, llama: Any, *, seed: int = 0, max_tokens: int = 512, max_retries: int = 1,
        lookahead: int | None = None, prompt_cache_bytes: int | None = None,
        sequences: int | None = None, grammar_step_seconds: float | None = None,
        chat_template: str | os.PathLike[str] | None = None, template_options: Mapping[str, Any] | None = None,
    ) -> LLM:
        """Wrap an existing ``llama_cpp.Llama`` (it stays usable; the caller keeps ownership).

        ``lookahead``, ``prompt_cache_bytes``, ``sequences``, ``grammar_step_seconds``,
        ``chat_template`` and ``template_options`` as for :class:`LlamaCppBackend` (None: its
        defaults)."""
        from ._backends.llamacpp import LlamaCppBackend

        backend = LlamaCppBackend(
            llama, lookahead=lookahead, prompt_cache_bytes=prompt_cache_bytes, sequences=sequences,
            grammar_step_seconds=grammar_step_seconds, chat_template=chat_template, template_options=template_options,
        )
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
    def generate(
        self, output_type: Any, prompt: str | None = None, *,
        on_refusal: Literal["raise", "return"] = "raise", **options: Unpack[GenerateOptions],
    ) -> Any:
        """Generate a value of ``output_type`` (a Pydantic model or any TypeAdapter type).

        The keywords are ``on_refusal`` and :class:`~structgen.GenerateOptions` (every
        generation method takes them; a function of yours passing them on annotates them
        ``**options: Unpack[GenerateOptions]``).

        ``prompt`` is the user message; ``system`` and ``messages`` add context. Greedy at
        ``temperature=0``; ``seed`` reproduces sampling. A failing Pydantic validator triggers up
        to ``max_retries`` retries with the error fed back. Raises ``IncompleteOutputError``
        (``max_tokens`` or the context window ran out), ``RefusalError`` (the model refused; or
        pass ``on_refusal="return"`` to get a :class:`Refusal` value), ``OutputValidationError``,
        ``ValidatorError`` (a validator raised something other than ValueError/AssertionError),
        ``BackendError`` (e.g. the prompt does not fit in the context).

        ``reasoning``: True (256 tokens) or a budget of tokens lets the model think in free
        text before it answers, between its template's reasoning markers; the answer is
        constrained as without it, and the reasoning is on :meth:`run`'s ``Result.reasoning``
        (docs/generation.md, "Think, then answer"). A template that opens reasoning by itself
        gets it bounded (1024 tokens) without the option.
        """
        return self.run(output_type, prompt, on_refusal=on_refusal, **options).value

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
    def run(
        self, output_type: Any, prompt: str | None = None, *,
        on_refusal: Literal["raise", "return"] = "raise", **options: Unpack[GenerateOptions],
    ) -> Any:
        """Like :meth:`generate`, but returns a :class:`Result` with the text and usage."""
        steps = self._generation(output_type, prompt, on_refusal=on_refusal, **options)
        return finish(run_blocking(steps, self.backend))

    # -- streaming ------------------------------------------------------------------------

    @overload
    def stream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", reasoning: None = None, **options: Unpack[PromptOptions],
    ) -> Generator[T, None, None]: ...
    @overload
    def stream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], reasoning: None = None, **options: Unpack[PromptOptions],
    ) -> Generator[T | Refusal, None, None]: ...
    @overload
    def stream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", reasoning: int, **options: Unpack[PromptOptions],
    ) -> Generator[T | ReasoningDelta, None, None]: ...
    @overload
    def stream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], reasoning: int, **options: Unpack[PromptOptions],
    ) -> Generator[T | Refusal | ReasoningDelta, None, None]: ...
    def stream(
        self, output_type: Any, prompt: str | None = None, *,
        on_refusal: Literal["raise", "return"] = "raise", **options: Unpack[GenerateOptions],
    ) -> Generator[Any, None, None]:
        """Yield partial values as top-level fields (or list items) complete, then the final
        validated value. Partial models hold only completed, individually validated fields
        (see ``model_fields_set``); a retry starts the partials over. With ``reasoning``, the
        reasoning section comes first, as :class:`ReasoningDelta` pieces. Stopping early
        (``break``, ``close()``, or dropping the generator) frees the model for the next call."""
        items = run_blocking(self._generation(output_type, prompt, on_refusal=on_refusal, **options), self.backend)
        partials = Partials(output_type, options.get("reasoning"))
        try:
            while True:
                try:
                    item = next(items)
                except StopIteration as stop:
                    yield stop.value.value
                    return
                value = partials.feed(item)
                if value is not None:
                    yield value
        finally:
            items.close()  # at once, not whenever the garbage collector gets to it

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
    async def agenerate(
        self, output_type: Any, prompt: str | None = None, *,
        on_refusal: Literal["raise", "return"] = "raise", **options: Unpack[GenerateOptions],
    ) -> Any:
        """:meth:`generate` without blocking the event loop: natively on a backend with
        ``acomplete`` (the HTTP backends: no thread per call), else in a worker thread."""
        steps = self._generation(output_type, prompt, on_refusal=on_refusal, **options)
        result: Result[Any] = await self._finish_async(steps)
        self._record(result.usage)
        return result.value

    @overload
    def astream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", reasoning: None = None, **options: Unpack[PromptOptions],
    ) -> AsyncIterator[T]: ...
    @overload
    def astream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], reasoning: None = None, **options: Unpack[PromptOptions],
    ) -> AsyncIterator[T | Refusal]: ...
    @overload
    def astream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["raise"] = "raise", reasoning: int, **options: Unpack[PromptOptions],
    ) -> AsyncIterator[T | ReasoningDelta]: ...
    @overload
    def astream(
        self, output_type: TypeForm[T], prompt: str | None = None, *,
        on_refusal: Literal["return"], reasoning: int, **options: Unpack[PromptOptions],
    ) -> AsyncIterator[T | Refusal | ReasoningDelta]: ...
    async def astream(
        self, output_type: Any, prompt: str | None = None, *,
        on_refusal: Literal["raise", "return"] = "raise", **options: Unpack[GenerateOptions],
    ) -> AsyncIterator[Any]:
        """:meth:`stream` for ``async for``: natively on a backend with ``acomplete``, else the
        model runs in a worker thread, which stops at the next piece of text when the consumer
        stops or is cancelled."""
        partials = Partials(output_type, options.get("reasoning"))
        steps = self._generation(output_type, prompt, on_refusal=on_refusal, **options)
        async with aclosing(run_async(steps, self.backend)) as items:
            async for item in items:
                if isinstance(item, Done):
                    yield item.value.value
                    return
                value = partials.feed(item)
                if value is not None:
                    yield value

    # -- tools: one turn ----------------------------------------------------------------------

    @property
    def tool_policy(self) -> Literal["model", "tool-trained", "small-model"]:
        """The policy ``policy="auto"`` means for this model, by whether its chat template
        renders tools (a model trained to call them: "tool-trained") or not ("small-model");
        docs/tools.md, "Calling or answering". ``structgen.policy(llm.tool_policy)`` holds its
        rules."""
        return resolve_policy("auto", self._tool_format("auto").native)

    def describe(self) -> ModelDescription:
        """What this model gets from structgen, and why: the model, where its chat template came
        from, the tool format and policy that follow from the template, the reasoning markers,
        the context and threads and the other settings that are not their defaults;
        ``print(llm.describe())`` shows it as a few lines. On a server this asks it (``/props``)."""
        return describe_backend(self.backend)

    def __repr__(self) -> str:
        try:
            return f"LLM({self.describe()._line()})"
        except StructgenError:  # a server that does not answer: what is known without it
            return f"LLM(backend={self.backend!r})"

    def call_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
    ) -> ToolTurn:
        """One turn: the calls the model makes with ``tools``, or its text reply. The keywords
        are :class:`~structgen.ToolOptions`, which lists their defaults.

        ``tool_choice``: "auto" (calling or answering, as ``policy`` decides), "required"
        (at least one call), "none" (a text answer) or a tool's name (a call to that tool).
        ``policy``: "auto" (the default: :attr:`tool_policy`, chosen by what the model is),
        "model", "tool-trained", "small-model", or a :class:`~structgen.Policy` of your own;
        docs/policy.md describes every rule. With ``parallel`` the model decides how many calls
        to make, at most ``max_calls``. A call whose arguments fail a validator is retried with
        the errors fed back, up to ``max_retries`` times, then ``OutputValidationError`` holds
        every attempt. The sampling keywords (``temperature``, ``max_tokens``, ...) and
        ``reasoning`` are :meth:`generate`'s; the reasoning comes before the turn's calls or
        reply (``ToolTurn.reasoning``), after the policy's decision.
        """
        steps = turn_steps(self._caller, prompt_or_messages, tools, policy, **options)
        return finish(run_blocking(steps, self.backend))

    def call_tool(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
    ) -> ToolCall:
        """Exactly one call (to any of ``tools``, or to the one named by ``tool_choice``)."""
        turn = self.call_tools(prompt_or_messages, tools, policy=policy, **one_call(options))
        return turn.calls[0]

    def stream_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
    ) -> Iterator[ToolStreamEvent]:
        """:meth:`call_tools`, streamed: text deltas of a reply, :class:`ArgumentsDelta` pieces of
        the call being written, each :class:`ToolCall` once its JSON is complete and validated,
        and finally the :class:`ToolTurn`. ``None`` is never yielded; a retry starts the calls
        over (calls yielded before it are superseded by the final turn's)."""
        events = run_blocking(turn_steps(self._caller, prompt_or_messages, tools, policy, **options), self.backend)
        try:
            while True:
                try:
                    event = next(events)
                except StopIteration as stop:
                    yield stop.value
                    return
                if event is not None:
                    yield event
        finally:
            events.close()

    async def acall_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
    ) -> ToolTurn:
        """:meth:`call_tools` without blocking the event loop: natively on a backend with
        ``acomplete``, else the model runs in a worker thread."""
        turn: ToolTurn = await self._finish_async(turn_steps(self._caller, prompt_or_messages, tools, policy, **options))
        self._record(turn.usage)
        return turn

    async def acall_tool(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
    ) -> ToolCall:
        """:meth:`call_tool` without blocking the event loop."""
        turn = await self.acall_tools(prompt_or_messages, tools, policy=policy, **one_call(options))
        return turn.calls[0]

    async def astream_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
    ) -> AsyncIterator[ToolStreamEvent]:
        """:meth:`stream_tools` for ``async for``."""
        steps = turn_steps(self._caller, prompt_or_messages, tools, policy, **options)
        async with aclosing(run_async(steps, self.backend)) as items:
            async for item in items:
                if isinstance(item, Done):
                    yield item.value
                elif item is not None:
                    yield item

    # -- tools: the agent loop --------------------------------------------------------------

    @overload
    def run_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: None = None, max_rounds: int = ..., tool_errors: ToolErrors = ...,
        policy: PolicyName | Policy = ..., **options: Unpack[ToolOptions],
    ) -> ToolRun[str]: ...
    @overload
    def run_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: TypeForm[T], max_rounds: int = ..., tool_errors: ToolErrors = ...,
        policy: PolicyName | Policy = ..., **options: Unpack[ToolOptions],
    ) -> ToolRun[T]: ...
    def run_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: Any = None, max_rounds: int = 8, tool_errors: ToolErrors = "feed_back",
        policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
    ) -> ToolRun[Any]:
        """Call tools and run them until the model answers; the answer is typed with
        ``output_type``. A turn's calls run concurrently and their results go back to the
        model as tool messages. A tool that raises: its error goes back as the call's result
        (``tool_errors="feed_back"``), so the model can retry or change course, or
        ToolExecutionError ends the run (``"raise"``); a tool raising
        :class:`~structgen.ModelRetry` asks for a corrected call either way. A step whose calls
        only ask again for results the model already has is not run: the model is asked for
        its answer (``ToolRun.ended == "repeated"``). MaxRoundsError after ``max_rounds``
        rounds of calls, with the conversation. To continue, call again with
        ``run.messages`` and the next user message (docs/tools.md, "Agents").
        With ``output_type``, the answer is a call of a ``final_result`` tool whose arguments
        are the output type: every step must call a tool, and any tool may be called there,
        the policy's decision not asked which (it would rank ``final_result`` against the
        request and could leave it out); the policy's other rules apply as set. The keywords
        are :class:`~structgen.ToolOptions` but ``tool_choice``."""
        steps = run_steps(self._caller, prompt_or_messages, tools, output_type, max_rounds, tool_errors, policy, options)
        return finish(run_blocking(steps, self.backend))

    @overload
    async def arun_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: None = None, max_rounds: int = ..., tool_errors: ToolErrors = ...,
        policy: PolicyName | Policy = ..., **options: Unpack[ToolOptions],
    ) -> ToolRun[str]: ...
    @overload
    async def arun_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: TypeForm[T], max_rounds: int = ..., tool_errors: ToolErrors = ...,
        policy: PolicyName | Policy = ..., **options: Unpack[ToolOptions],
    ) -> ToolRun[T]: ...
    async def arun_tools(
        self, prompt_or_messages: PromptOrMessages, tools: Sequence[ToolSource], *,
        output_type: Any = None, max_rounds: int = 8, tool_errors: ToolErrors = "feed_back",
        policy: PolicyName | Policy = "auto", **options: Unpack[ToolOptions],
    ) -> ToolRun[Any]:
        """:meth:`run_tools` on the event loop: tools (async ones awaited) run here; the model
        runs here too on a backend with ``acomplete``, else in a worker thread."""
        steps = run_steps(self._caller, prompt_or_messages, tools, output_type, max_rounds, tool_errors, policy, options)
        run: ToolRun[Any] = await self._finish_async(steps)
        return run

    # -- what the operations need -------------------------------------------------------------

    def _generation(
        self, output_type: Any, prompt: str | None, *, on_refusal: Literal["raise", "return"] = "raise",
        reasoning: ReasoningOption = None, **options: Unpack[PromptOptions],
    ) -> Steps[TextDelta | ReasoningDelta | None, Result[Any]]:
        """One generation of ``output_type`` with the keywords of :meth:`generate`."""
        return generation(
            output_type, prompt, self._sampling, self._record, self._reasoning(reasoning, typed=True),
            self._dictionary_shape(),
            on_refusal=on_refusal, **options,
        )

    def _dictionary_shape(self) -> DictionaryShape:
        """How the prompt shows this model a dictionary: a model trained to call tools reads
        the braced shape; a small one copies its placeholder as a key, and reads words."""
        return "braces" if self._tool_format("auto").native else "words"

    def _reasoning(self, reasoning: ReasoningOption, *, typed: bool = False) -> Reasoning | None:
        """The reasoning section ``reasoning=`` asks for on this model, before a typed answer or
        not (docs/generation.md, "Think, then answer")."""
        return reasoning_section(reasoning, chat_template_of(self.backend), typed=typed)

    async def _finish_async(self, steps: Steps[Any, Any]) -> Any:
        """The result of an operation driven on the event loop (see ``_generate._steps.run_async``)."""
        async with aclosing(run_async(steps, self.backend)) as items:
            return await result_of(items)

    def _sampling(self, options: SamplingOptions) -> Sampling:
        return Sampling.of(options, seed=self.seed, max_tokens=self.max_tokens, max_retries=self.max_retries)

    def _record(self, usage: Usage) -> None:
        self._local.usage = usage

    def _tool_format(self, name: ToolFormatName) -> Any:
        return tool_format_for(self.backend, name)

"""The in-process backend: llama-cpp-python's low-level API on one ``llama_cpp.Llama``.

Thread safety: a generation holds one sequence of the context (a :class:`ModelRunner`) from
prompt to last token. With ``sequences=1`` (the default) there is one, on the ``Llama``'s own
context, so generations take turns. With ``sequences=N`` the backend makes a context of N
sequences and up to N generations run at once, their steps evaluated together
(``_batching.py``). Errors from llama-cpp-python are translated into :class:`~structgen.BackendError` here, at the
seam, so callers only ever see structgen's own errors.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
import warnings
from contextlib import AbstractContextManager, closing, contextmanager, nullcontext
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from typing_extensions import Unpack

from ..._callers import outside_structgen
from ..._errors import BackendError, GrammarError, SlowGrammarError, StructgenError
from ..._llama_log import silence_llama_logs
from ..._model_path import check_model_file, default_model_path
from ._grammar_state import CompiledGrammar, GrammarCache, StepTooSlow
from ._lookup import DraftPolicy
from ._lazy import Triggers, feed_constrained, run_free
from ._reasoning import write_reasoning
from ._batching import StepBatcher
from ._choosing import score_continuations
from ._loop import ConstrainedDecoder
from ._prefixes import DEFAULT_PROMPT_CACHE_BYTES, PrefixStore
from ._runner import ContextFullError, ModelRunner
from ._slots import Slots
from ._sampling import TokenPicker, log_softmax
from ._options import LlamaOptions, checked_llama_options, llama_settings
from ._template import PLAIN_FALLBACK, ChatTemplate, model_adds_bos, read_chat_template
from ._threads import chosen_threads
from .._seam import (
    Completion,
    CompletionRequest,
    Event,
    Message,
    Score,
    ScoreRequest,
    StopGeneration,
    TemplateSource,
    TextDelta,
    Usage,
)
from .._template_options import checked_template_options
from ._vocab import VocabTables

#: Compiled grammars kept per backend (least recently used are freed first).
GRAMMAR_CACHE_SIZE = 32

#: Most tokens guessed by prompt lookup after a sampled token (0 turns guessing off).
DEFAULT_LOOKAHEAD = 8

#: CPU seconds one step of the native grammar sampler may take (see docs/generation.md,
#: "Grammars that branch too much").
DEFAULT_GRAMMAR_STEP_SECONDS = 20.0


class LlamaCppBackend:
    """Runs constrained completions in this process on a llama.cpp model.

    ``lookahead``: after each sampled token, up to this many tokens guessed by prompt lookup
    are evaluated in the same batch and kept as far as the model confirms them (see
    ``_lookup.py``); None is DEFAULT_LOOKAHEAD, 0 evaluates one sampled token at a time.

    ``prompt_cache_bytes``: host memory for the KV states of earlier prompts, so that a prefix
    seen before (a system message, a type's instructions, a tool listing) is not evaluated
    again however calls interleave (see ``_prefixes.py``); None is
    DEFAULT_PROMPT_CACHE_BYTES (256 MiB), 0 keeps only what the context holds from the
    previous call.

    ``sequences``: how many generations run at once, their decoding steps evaluated together
    in one ``llama_decode`` (concurrent ``agenerate``/``astream`` calls, threads, ``structgen
    extract --concurrency N``). 1 (the default, None) uses the ``Llama``'s context and runs
    one generation at a time. N > 1 makes a new context of N sequences of the ``Llama``'s
    ``n_ctx`` tokens each, so its KV cache takes N times the memory; see docs/generation.md,
    "Several generations at once".

    ``grammar_step_seconds``: the CPU time one step of llama.cpp's grammar sampler may take
    (masking the vocabulary, checking or accepting a token); a longer step ends the generation
    with SlowGrammarError instead of letting it hang. None is DEFAULT_GRAMMAR_STEP_SECONDS
    (20 s); ``math.inf`` sets no limit.

    ``chat_template``: the chat template prompts are rendered with, instead of the GGUF file's
    (``tokenizer.chat_template``): the Jinja source itself (a string holding ``{{`` or ``{%``),
    or the path of a ``.jinja`` file or of a GGUF file to read one from (its vocabulary only, no
    weights). The tool format and the reasoning markers follow it. A model with neither is
    given plain ``role: content`` text, which it was not trained on, and a UserWarning says so.

    ``template_options``: extra variables every render of the chat template gets, such as
    ``{"enable_thinking": False}`` for Qwen3's (JSON values; not a name the render sets itself,
    such as ``messages`` or ``tools``).
    """

    def __init__(self, llama: Any, *, owns_llama: bool = False,
                 lookahead: int | None = None, prompt_cache_bytes: int | None = None,
                 sequences: int | None = None, grammar_step_seconds: float | None = None,
                 chat_template: str | os.PathLike[str] | None = None,
                 template_options: Mapping[str, Any] | None = None) -> None:
        import llama_cpp

        self.lookahead = _checked_lookahead(lookahead)
        self.grammar_step_seconds = _checked_step_seconds(grammar_step_seconds)
        cache_bytes = _checked_cache_bytes(prompt_cache_bytes)
        self.sequences = _checked_sequences(sequences)
        self._cache_bytes = cache_bytes
        options = checked_template_options(template_options)
        template = None if chat_template is None else read_chat_template(chat_template)
        silence_llama_logs()
        self._lib = llama_cpp
        self.llama = llama
        self._owns_llama = owns_llama
        self._closed = False
        self._freed = False
        self._compiling = threading.Lock()
        self._ctx: Any = None  # a context of our own (several sequences)
        self._batcher: StepBatcher | None = None
        try:
            vocab = llama_cpp.llama_model_get_vocab(llama.model)
            self.tables = VocabTables(llama_cpp, vocab)
            source: TemplateSource = "user"
            if template is None:
                template = dict(llama.metadata).get("tokenizer.chat_template") or None
                source = "none" if template is None else "gguf"
            self.chat_template_source: TemplateSource = source
            self.template = ChatTemplate(template, self.tables, model_adds_bos(self.tables), options)
            self._slots = Slots(self._runners(PrefixStore(cache_bytes)))
            self.drafts = DraftPolicy.for_model(
                self.lookahead, self.tables.n_vocab, llama_cpp.llama_model_n_embd(llama.model),
                llama_cpp.llama_model_n_params(llama.model),
            )
        except StructgenError:
            raise
        except Exception as e:
            raise BackendError(f"could not prepare the llama.cpp model: {e}") from e
        self._grammars = GrammarCache(self.tables, GRAMMAR_CACHE_SIZE)
        self._settings = self._loaded_with()  # now: a closed Llama must not be asked
        if source == "none":
            warnings.warn(
                f"{self.model_name} has no chat template (tokenizer.chat_template): its prompts are "
                f"{PLAIN_FALLBACK}, which the model was not trained on; chat_template= names one (a "
                "Jinja template, a .jinja file or a GGUF file to read it from)",
                UserWarning, stacklevel=outside_structgen(),
            )

    def _runners(self, store: PrefixStore) -> list[ModelRunner]:
        """One runner on the ``Llama``'s context, or one per sequence of a context of our own."""
        lib, llama, n_vocab = self._lib, self.llama, self.tables.n_vocab
        if self.sequences == 1:
            return [ModelRunner(lib, llama.ctx, n_vocab, llama.n_ctx(), llama.n_batch, store)]
        params = lib.llama_context_params()
        ctypes.pointer(params)[0] = llama.context_params  # a copy, then changed
        params.n_seq_max = self.sequences
        params.n_ctx = llama.n_ctx() * self.sequences
        # One KV cache for all sequences, n_ctx cells for each: a prefix that several prompts
        # share (instructions, a tool listing) is held once and copied between sequences
        # without evaluating it again (llama_memory_seq_cp).
        params.kv_unified = True
        self._ctx = lib.llama_init_from_model(llama.model, params)
        if not self._ctx:
            raise BackendError(f"llama.cpp could not make a context of {self.sequences} sequences")
        self._batcher = StepBatcher(lib, self._ctx, n_vocab, llama.n_batch)
        runners = [
            ModelRunner(lib, self._ctx, n_vocab, llama.n_ctx(), llama.n_batch, store,
                        seq=seq, batcher=self._batcher)
            for seq in range(self.sequences)
        ]
        for runner in runners:
            runner.peers = runners  # a prompt starts from the longest prefix any of them holds
        return runners

    @classmethod
    def load(
        cls,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        n_batch: int = 512,
        seed: int = 0,
        lookahead: int | None = None,
        prompt_cache_bytes: int | None = None,
        sequences: int | None = None,
        grammar_step_seconds: float | None = None,
        chat_template: str | os.PathLike[str] | None = None,
        template_options: Mapping[str, Any] | None = None,
        **llama: Unpack[LlamaOptions],
    ) -> LlamaCppBackend:
        """Load a GGUF file (the default model when None) into a new ``llama_cpp.Llama``.

        Threads as llama.cpp's own tools set them: single tokens on one thread per physical
        core, batches (the prompt, forced text, guesses) on every usable CPU
        (:func:`~._threads.chosen_threads`). A given ``n_threads`` applies to batches too
        unless ``n_threads_batch`` says otherwise. llama.cpp's threads spin at every barrier,
        so on a machine busy with other work, fewer threads are faster (see docs/benchmarks.md,
        "Generation speed"). llama.cpp's other settings (GPU layers, memory mapping, ...) are
        :class:`~structgen.LlamaOptions`, passed to ``llama_cpp.Llama`` as they are.
        ``chat_template`` and ``template_options`` as for the constructor.
        """
        path = default_model_path() if model_path is None else check_model_file(model_path)
        _checked_lookahead(lookahead)  # before the slow load, not after
        _checked_cache_bytes(prompt_cache_bytes)
        _checked_sequences(sequences)
        _checked_step_seconds(grammar_step_seconds)
        checked_template_options(template_options)
        settings = checked_llama_options(llama)
        template = None if chat_template is None else read_chat_template(chat_template)
        threads = chosen_threads(n_threads, n_threads_batch)
        silence_llama_logs()
        import llama_cpp

        try:
            model = llama_cpp.Llama(
                str(path),
                n_ctx=n_ctx,
                n_threads=threads.token,
                n_threads_batch=threads.batch,
                n_batch=n_batch,
                seed=seed,
                verbose=False,
                **settings,
            )
        except Exception as e:
            raise BackendError(f"llama.cpp could not load {path}: {e}") from e
        try:
            return cls(model, owns_llama=True, lookahead=lookahead, prompt_cache_bytes=prompt_cache_bytes,
                       sequences=sequences, grammar_step_seconds=grammar_step_seconds, chat_template=template,
                       template_options=template_options)
        except BaseException:
            model.close()
            raise

    @property
    def _runner(self) -> ModelRunner:
        """The runner of sequence 0 (the only one when ``sequences`` is 1)."""
        return self._slots.runners[0]

    @property
    def chat_template(self) -> str | None:
        """The Jinja source of the model's chat template (the GGUF file's, or ``chat_template=``);
        None where there is none."""
        source: str | None = self.template.source
        return source

    @property
    def model_name(self) -> str:
        """The GGUF file's name."""
        return Path(str(getattr(self.llama, "model_path", "") or "")).name or type(self.llama).__name__

    @property
    def template_options(self) -> Mapping[str, Any]:
        """The extra variables every render of the chat template gets."""
        return self.template.options

    @property
    def settings(self) -> Mapping[str, Any]:
        """How the model was loaded, for people to read: the context's size (``n_ctx``, tokens a
        generation has), its threads (``n_threads`` for single tokens, ``n_threads_batch`` for
        batches), and every other setting whose value is not its default (``n_gpu_layers``,
        ``sequences``, ...)."""
        return MappingProxyType(self._settings)

    def _loaded_with(self) -> dict[str, Any]:
        shown = llama_settings(self.llama)
        for name, value, default in (
            ("sequences", self.sequences, 1), ("lookahead", self.lookahead, DEFAULT_LOOKAHEAD),
            ("prompt_cache_bytes", self._cache_bytes, DEFAULT_PROMPT_CACHE_BYTES),
            ("grammar_step_seconds", self.grammar_step_seconds, DEFAULT_GRAMMAR_STEP_SECONDS),
        ):
            if value != default:
                shown[name] = value
        return shown

    def __repr__(self) -> str:
        parts = [repr(self.model_name), f"chat_template={self.chat_template_source!r}"]
        parts += [f"{name}={value!r}" for name, value in self.settings.items()]
        if self.template_options:
            parts.append(f"template_options={dict(self.template_options)!r}")
        return f"LlamaCppBackend({', '.join(parts)})"

    def close(self) -> None:
        """Free the model; later calls raise BackendError. Generations in progress in other
        threads finish first; one this thread holds open (an unfinished stream) keeps the
        model until it ends, instead of waiting for itself forever."""
        self._closed = True  # no new generation starts from here on
        if self._slots.held_here():
            return  # the last generation to end frees the model
        self._slots.when_idle(self._free)

    def _free(self) -> None:
        if self._freed:
            return
        self._freed = True  # llama.cpp's freed context must never be touched again
        self._grammars.clear()
        for runner in self._slots.runners:
            runner.close()
        if self._batcher is not None:
            self._batcher.close()
        if self._ctx is not None:
            self._lib.llama_free(self._ctx)
            self._ctx = None
        if self._owns_llama:
            self.llama.close()

    # -- the seam -------------------------------------------------------------------------

    def complete(self, request: CompletionRequest) -> Iterator[Event]:
        if self._slots.held_here():
            raise BackendError(
                "this thread is already generating with this model: finish or close the "
                "first stream before starting another"
            )
        try:
            with self._slots.taken(self._check_open) as runner:
                started = time.perf_counter()
                compiled, prompt, text = self._prepared(request, runner)  # before joining a batch:
                with self._present():  # a large grammar can take a while to compile
                    events = self._complete(request, runner, compiled, prompt, text, started)
                    yield from self._handed_over(events)
        finally:
            if self._closed:  # close() was called while this generation held a sequence
                self._slots.if_idle(self._free)

    def _handed_over(self, events: Generator[Event, None, None]) -> Iterator[Event]:
        """``events``; while the caller holds one, the generation does not count as present."""
        if self._batcher is None:
            yield from events
            return
        with closing(events):
            for event in events:
                with self._batcher.away():
                    try:
                        yield event
                    except StopGeneration as stop:
                        yield events.throw(stop)  # its completion so far
                        return

    def _prepared(self, request: CompletionRequest, runner: ModelRunner) -> tuple[CompiledGrammar, list[int], str]:
        """The request's compiled grammar, prompt tokens and prompt text."""
        try:
            compiled = self._compile(request.gbnf, request.root)
            text = self.template.text(request.messages, request.tools)
            prompt = self.template.encode(text)
        except StructgenError:
            raise
        except Exception as e:
            raise BackendError(f"llama.cpp failed: {e}") from e
        if len(prompt) >= runner.n_ctx:
            raise BackendError(f"the prompt has {len(prompt)} tokens; the context holds {runner.n_ctx}")
        return compiled, prompt, text

    def _complete(
        self, request: CompletionRequest, runner: ModelRunner, compiled: CompiledGrammar,
        prompt: list[int], text: str, started: float,
    ) -> Generator[Event, None, None]:
        usage = Usage(attempts=1, prompt_tokens=len(prompt))
        try:
            self._claim_context(runner)
            model_before = runner.seconds
            usage.cached_prompt_tokens = runner.prime(prompt)
            usage.prompt_seconds = runner.seconds - model_before
            state = compiled.new_state(self.grammar_step_seconds)
        except (StructgenError, ContextFullError) as e:
            if isinstance(e, ContextFullError):
                raise BackendError("the prompt does not fit in the context") from None
            raise
        except Exception as e:
            raise BackendError(f"llama.cpp failed: {e}") from e
        decoder: ConstrainedDecoder | None = None
        head = reasoning = ""
        try:
            picker = TokenPicker(request.sampling)
            budget = request.max_tokens
            section = request.reasoning
            if section is not None and section.wanted(text):
                try:
                    reasoning = yield from write_reasoning(
                        runner, self.tables, picker, section, opened=section.opened_by(text), usage=usage)
                except ContextFullError:
                    usage.model_seconds += runner.seconds - model_before
                    usage.total_seconds += time.perf_counter() - started
                    yield Completion("", "length", usage, reasoning=reasoning)
                    return
            if request.triggers:
                free, rest = run_free(
                    runner, self.tables, picker, Triggers(request.triggers),
                    max_tokens=budget, usage=usage,
                )
                budget -= free.produced
                if free.text:
                    yield TextDelta(free.text)
                if not free.triggered:
                    usage.model_seconds += runner.seconds - model_before
                    usage.total_seconds += time.perf_counter() - started
                    yield Completion(free.text, "stop" if free.stopped else "length", usage, reasoning=reasoning)
                    return
                try:
                    accepted, count = feed_constrained(runner, self.tables, state, rest, usage, free.pending)
                except ContextFullError:  # no room left for the trigger's text
                    usage.model_seconds += runner.seconds - model_before
                    usage.total_seconds += time.perf_counter() - started
                    yield Completion(free.text, "length", usage, reasoning=reasoning)
                    return
                budget -= count
                if accepted:
                    yield TextDelta(accepted)
                head = free.text + accepted
            decoder = ConstrainedDecoder(
                runner,
                self.tables,
                state,
                picker,
                max_tokens=max(budget, 0),
                choices=None if request.triggers else request.choices,
                usage=usage,
                drafts=self.drafts,
                members=None if request.triggers else request.members,
            )
            run = decoder.run()
            for event in run:
                if isinstance(event, Completion):
                    usage.model_seconds += runner.seconds - model_before
                    usage.total_seconds += time.perf_counter() - started
                    yield replace(event, text=head + event.text, usage=usage, reasoning=reasoning)
                    continue
                try:
                    yield event
                except StopGeneration:  # the caller needs no more: what was spent so far
                    run.close()
                    usage.grammar_seconds += state.seconds
                    usage.model_seconds += runner.seconds - model_before
                    usage.total_seconds += time.perf_counter() - started
                    yield Completion(head + decoder.text, "stop", usage, reasoning=reasoning)
                    return
        except StepTooSlow as slow:
            usage.grammar_seconds += state.seconds
            usage.model_seconds += runner.seconds - model_before
            usage.total_seconds += time.perf_counter() - started
            raise SlowGrammarError(
                f"one step of llama.cpp's grammar sampler took {slow.seconds:.1f} s of CPU time, "
                f"over the limit of {slow.limit:g} s (grammar_step_seconds): the grammar keeps "
                "too many ways of reading the text alive (alternatives that begin alike, nested "
                "or recursive)",
                text=head + (decoder.text if decoder is not None else ""), usage=usage,
                seconds=slow.seconds, limit=slow.limit) from None
        except StructgenError:
            raise
        except Exception as e:
            raise BackendError(f"llama.cpp failed during generation: {e}") from e
        finally:
            state.close()
            self._release_context(runner)

    def score(self, request: ScoreRequest) -> tuple[Score, ...]:
        """Each continuation's log-likelihood right after ``request.context`` (its tokens as
        the tokenizer spells the text alone; the last one as a prefix of what may follow)."""
        if self._slots.held_here():
            raise BackendError("this thread is already generating with this model")
        with self._slots.taken(self._check_open) as runner, self._present():
            try:
                with _translated("while scoring"):
                    context = self.tables.tokenize(request.context, add_special=self.template.add_bos)
                    sequences = [self.tables.tokenize(text) for text in request.continuations]
                    if not context or len(context) + max(map(len, sequences), default=0) >= runner.n_ctx:
                        raise BackendError("the context to score after is empty or does not fit")
                    self._claim_context(runner)
                    runner.prime(context)
                    first = log_softmax(runner.logits())
                    values = score_continuations(runner, self.tables, sequences, first)
            finally:
                self._release_context(runner)
            return tuple(Score(value, len(tokens)) for value, tokens in zip(values, sequences))

    # -- pieces -----------------------------------------------------------------------------

    def _compile(self, gbnf: str, root: str) -> CompiledGrammar:
        """The native grammar for (gbnf, root), parsed once and cached."""
        self._check_open()
        if "\x00" in gbnf:
            raise GrammarError("the grammar contains a NUL character")
        with self._compiling:
            return self._grammars.get(gbnf, root)

    def render(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] = ()) -> list[int]:
        """Prompt tokens for ``messages`` (and ``tools``) in the model's own chat template."""
        self._check_open()
        return self.template.tokens(messages, tools)

    def _check_open(self) -> None:
        if self._closed:
            raise BackendError("this model was closed; load a new LLM to generate again")

    def _present(self) -> AbstractContextManager[Any]:
        """Counted among the generations whose steps are batched (when there are several)."""
        return nullcontext() if self._batcher is None else self._batcher.present()

    def _claim_context(self, runner: ModelRunner) -> None:
        # ``Llama`` keeps its own idea of the cache; a non-zero n_tokens means someone used
        # the Llama object directly since our last call, so our record of the cache is stale.
        # (A context of our own is ours alone.)
        if self._batcher is not None:
            return
        if getattr(self.llama, "n_tokens", 0):
            runner.lost()
            self.llama.n_tokens = 0

    def _release_context(self, runner: ModelRunner) -> None:
        # Tell the Llama object its cache is unknown, so its own methods start from scratch.
        if self._batcher is None and hasattr(self.llama, "reset"):
            self.llama.reset()


@contextmanager
def _translated(doing: str) -> Iterator[None]:
    """llama-cpp-python's failures as BackendError; structgen's own errors pass as they are."""
    try:
        yield
    except StructgenError:
        raise
    except Exception as e:
        raise BackendError(f"llama.cpp failed {doing}: {e}") from e


def _checked_lookahead(lookahead: int | None) -> int:
    return _checked_count("lookahead", lookahead, DEFAULT_LOOKAHEAD)


def _checked_sequences(sequences: int | None) -> int:
    if sequences is None:
        return 1
    if isinstance(sequences, bool) or not isinstance(sequences, int) or sequences < 1:
        raise ValueError("sequences must be an int >= 1")
    return sequences


def _checked_step_seconds(seconds: float | None) -> float:
    if seconds is None:
        return DEFAULT_GRAMMAR_STEP_SECONDS
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError("grammar_step_seconds must be a number > 0 (math.inf: no limit)")
    return float(seconds)


def _checked_cache_bytes(prompt_cache_bytes: int | None) -> int:
    return _checked_count("prompt_cache_bytes", prompt_cache_bytes, DEFAULT_PROMPT_CACHE_BYTES)


def _checked_count(name: str, value: int | None, default: int) -> int:
    """``value`` (``default`` for None), which must be an int >= 0."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0")
    return value

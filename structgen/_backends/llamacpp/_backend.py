"""The in-process backend: llama-cpp-python's low-level API on one ``llama_cpp.Llama``.

Thread safety: one lock guards the context; a generation holds it from prompt to last token.
Errors from llama-cpp-python are translated into :class:`~structgen.BackendError` here, at the
seam, so callers only ever see structgen's own errors.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..._errors import BackendError, GrammarError, StructgenError
from ..._llama_log import silence_llama_logs
from ..._model_path import check_model_file, default_model_path
from ._grammar_state import CompiledGrammar, GrammarCache
from ._lookup import DraftPolicy
from ._lazy import Triggers, feed_constrained, run_free
from ._choosing import score_continuations
from ._loop import ConstrainedDecoder
from ._prefixes import DEFAULT_PROMPT_CACHE_BYTES
from ._runner import ContextFullError, ModelRunner
from ._sampling import TokenPicker, log_softmax
from ._template import ChatTemplate
from .._seam import Completion, CompletionRequest, Event, Message, Score, ScoreRequest, TextDelta, Usage
from ._vocab import VocabTables

#: Compiled grammars kept per backend (least recently used are freed first).
GRAMMAR_CACHE_SIZE = 32

#: Most tokens guessed by prompt lookup after a sampled token (0 turns guessing off).
DEFAULT_LOOKAHEAD = 8


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
    """

    def __init__(self, llama: Any, *, owns_llama: bool = False,
                 lookahead: int | None = None, prompt_cache_bytes: int | None = None) -> None:
        import llama_cpp

        self.lookahead = _checked_lookahead(lookahead)
        cache_bytes = _checked_cache_bytes(prompt_cache_bytes)
        silence_llama_logs()
        self._lib = llama_cpp
        self.llama = llama
        self._owns_llama = owns_llama
        self._lock = threading.Lock()
        self._holder: int | None = None
        self._closed = False
        self._freed = False
        try:
            vocab = llama_cpp.llama_model_get_vocab(llama.model)
            self.tables = VocabTables(llama_cpp, vocab)
            self.template = ChatTemplate.from_metadata(dict(llama.metadata), self.tables)
            self.runner = ModelRunner(
                llama_cpp, llama.ctx, self.tables.n_vocab, llama.n_ctx(), llama.n_batch,
                cache_bytes,
            )
            self.drafts = DraftPolicy.for_model(
                self.lookahead, self.tables.n_vocab, llama_cpp.llama_model_n_embd(llama.model),
                llama_cpp.llama_model_n_params(llama.model),
            )
        except StructgenError:
            raise
        except Exception as e:
            raise BackendError(f"could not prepare the llama.cpp model: {e}") from e
        self._grammars = GrammarCache(self.tables, GRAMMAR_CACHE_SIZE)

    @classmethod
    def load(
        cls,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_batch: int = 512,
        seed: int = 0,
        lookahead: int | None = None,
        prompt_cache_bytes: int | None = None,
        **llama_options: Any,
    ) -> LlamaCppBackend:
        """Load a GGUF file (the default model when None) into a new ``llama_cpp.Llama``.

        Threads as llama-cpp-python sets them: single tokens on half the CPUs, batches (the
        prompt, forced text, guesses) on all of them. A given ``n_threads`` applies to batches
        too unless ``n_threads_batch`` says otherwise. llama.cpp's threads spin at every
        barrier, so on a machine busy with other work, fewer batch threads are faster (see
        docs/benchmarks.md, "Generation").
        """
        path = default_model_path() if model_path is None else check_model_file(model_path)
        _checked_lookahead(lookahead)  # before the slow load, not after
        _checked_cache_bytes(prompt_cache_bytes)
        cpus = os.cpu_count() or 2
        llama_options.setdefault("n_threads_batch", n_threads or cpus)
        if n_threads is None:
            n_threads = max(1, cpus // 2)
        silence_llama_logs()
        import llama_cpp

        try:
            llama = llama_cpp.Llama(
                str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_batch=n_batch,
                seed=seed,
                verbose=False,
                **llama_options,
            )
        except Exception as e:
            raise BackendError(f"llama.cpp could not load {path}: {e}") from e
        return cls(llama, owns_llama=True, lookahead=lookahead, prompt_cache_bytes=prompt_cache_bytes)

    @property
    def chat_template(self) -> str | None:
        """The Jinja source of the model's chat template (from the GGUF metadata)."""
        source: str | None = self.template.source
        return source

    def close(self) -> None:
        """Free the model; later calls raise BackendError. A generation in progress in another
        thread finishes first; one this thread holds open (an unfinished stream) keeps the
        model until it ends, instead of waiting for itself forever."""
        self._closed = True  # no new generation starts from here on
        if self._holder == threading.get_ident():
            return  # complete() frees the model when this thread's stream ends
        with self._lock:
            self._free()

    def _free(self) -> None:
        if self._freed:
            return
        self._freed = True  # llama.cpp's freed context must never be touched again
        self._grammars.clear()
        self.runner.close()
        if self._owns_llama:
            self.llama.close()

    # -- the seam -------------------------------------------------------------------------

    def complete(self, request: CompletionRequest) -> Iterator[Event]:
        me = threading.get_ident()
        if self._holder == me:
            raise BackendError(
                "this thread is already generating with this model: finish or close the "
                "first stream before starting another"
            )
        with self._lock:
            self._check_open()
            self._holder = me
            try:
                yield from self._complete(request)
            finally:
                self._holder = None
                if self._closed:  # close() was called while this generation held the model
                    self._free()

    def _complete(self, request: CompletionRequest) -> Iterator[Event]:
        started = time.perf_counter()
        usage = Usage(attempts=1)
        try:
            compiled = self._compile(request.gbnf, request.root)
            prompt = self.render(request.messages, request.tools)
            usage.prompt_tokens = len(prompt)
            if len(prompt) >= self.runner.n_ctx:
                raise BackendError(
                    f"the prompt has {len(prompt)} tokens; the context holds {self.runner.n_ctx}"
                )
            self._claim_context()
            model_before = self.runner.seconds
            usage.cached_prompt_tokens = self.runner.prime(prompt)
            state = compiled.new_state()
        except (StructgenError, ContextFullError) as e:
            if isinstance(e, ContextFullError):
                raise BackendError("the prompt does not fit in the context") from None
            raise
        except Exception as e:
            raise BackendError(f"llama.cpp failed: {e}") from e
        try:
            picker = TokenPicker(request.sampling)
            head, budget = "", request.max_tokens
            if request.triggers:
                free, rest = run_free(
                    self.runner, self.tables, picker, Triggers(request.triggers),
                    max_tokens=budget, usage=usage,
                )
                budget -= free.produced
                if free.text:
                    yield TextDelta(free.text)
                if not free.triggered:
                    usage.model_seconds += self.runner.seconds - model_before
                    usage.total_seconds += time.perf_counter() - started
                    yield Completion(free.text, "stop" if free.stopped else "length", usage)
                    return
                try:
                    accepted, count = feed_constrained(self.runner, self.tables, state, rest, usage)
                except ContextFullError:  # no room left for the trigger's text
                    usage.model_seconds += self.runner.seconds - model_before
                    usage.total_seconds += time.perf_counter() - started
                    yield Completion(free.text, "length", usage)
                    return
                budget -= count
                if accepted:
                    yield TextDelta(accepted)
                head = free.text + accepted
            decoder = ConstrainedDecoder(
                self.runner,
                self.tables,
                state,
                picker,
                max_tokens=max(budget, 0),
                choices=None if request.triggers else request.choices,
                usage=usage,
                drafts=self.drafts,
                members=None if request.triggers else request.members,
            )
            for event in decoder.run():
                if isinstance(event, Completion):
                    usage.model_seconds += self.runner.seconds - model_before
                    usage.total_seconds += time.perf_counter() - started
                    event = replace(event, text=head + event.text, usage=usage)
                yield event
        except StructgenError:
            raise
        except Exception as e:
            raise BackendError(f"llama.cpp failed during generation: {e}") from e
        finally:
            state.close()
            self._release_context()

    def score(self, request: ScoreRequest) -> tuple[Score, ...]:
        """Each continuation's log-likelihood right after ``request.context`` (its tokens as
        the tokenizer spells the text alone; the last one as a prefix of what may follow)."""
        if self._holder == threading.get_ident():
            raise BackendError("this thread is already generating with this model")
        with self._lock:
            self._check_open()
            try:
                with _translated("while scoring"):
                    context = self.tables.tokenize(request.context, add_special=self.template.add_bos)
                    sequences = [self.tables.tokenize(text) for text in request.continuations]
                    if not context or len(context) + max(map(len, sequences), default=0) >= self.runner.n_ctx:
                        raise BackendError("the context to score after is empty or does not fit")
                    self._claim_context()
                    self.runner.prime(context)
                    first = log_softmax(self.runner.logits())
                    values = score_continuations(self.runner, self.tables, sequences, first)
            finally:
                self._release_context()
            return tuple(Score(value, len(tokens)) for value, tokens in zip(values, sequences))

    # -- pieces -----------------------------------------------------------------------------

    def _compile(self, gbnf: str, root: str) -> CompiledGrammar:
        """The native grammar for (gbnf, root), parsed once and cached."""
        self._check_open()
        if "\x00" in gbnf:
            raise GrammarError("the grammar contains a NUL character")
        return self._grammars.get(gbnf, root)

    def render(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] = ()) -> list[int]:
        """Prompt tokens for ``messages`` (and ``tools``) in the model's own chat template."""
        self._check_open()
        return self.template.tokens(messages, tools)

    def _check_open(self) -> None:
        if self._closed:
            raise BackendError("this model was closed; load a new LLM to generate again")

    def _claim_context(self) -> None:
        # ``Llama`` keeps its own idea of the cache; a non-zero n_tokens means someone used
        # the Llama object directly since our last call, so our record of the cache is stale.
        if getattr(self.llama, "n_tokens", 0):
            self.runner.lost()
            self.llama.n_tokens = 0

    def _release_context(self) -> None:
        # Tell the Llama object its cache is unknown, so its own methods start from scratch.
        if hasattr(self.llama, "reset"):
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


def _checked_cache_bytes(prompt_cache_bytes: int | None) -> int:
    return _checked_count("prompt_cache_bytes", prompt_cache_bytes, DEFAULT_PROMPT_CACHE_BYTES)


def _checked_count(name: str, value: int | None, default: int) -> int:
    """``value`` (``default`` for None), which must be an int >= 0."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0")
    return value

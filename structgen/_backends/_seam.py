"""The values that cross the backend seam: requests, sampling settings, events, usage.

A backend turns one :class:`CompletionRequest` (chat messages + grammar + sampling settings)
into a stream of :class:`TextDelta` events that ends with one :class:`Completion`. Nothing in
here knows about llama.cpp, so an HTTP backend for a llama.cpp server can speak the same seam.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Union, runtime_checkable


Role = Literal["system", "user", "assistant", "tool"]
"""Who says a :class:`Message`."""
FinishReason = Literal["stop", "length", "repeat"]
"""Why a completion ended (see :class:`Completion`)."""


JsonPath = tuple[str | None, ...]
"""Where a value sits in a JSON answer: property names, and None for "any array item"."""


@dataclass(frozen=True)
class Alternative:
    """One spelling a value at a choice position may start with (see
    :class:`CompletionRequest`). ``complete``: the whole value, not just its opening.

    ``cues`` are natural-language openings that express the same intent: a small model that would
    say "I'm sorry" cannot say it under a JSON grammar, so the refusal branch also counts the
    likelihood of its usual refusal phrases, and when it is chosen, the most likely of them
    opens its free text (the reason), which the model then continues.

    ``per_token`` alternatives are compared by their mean log-likelihood per token: the total
    favours short spellings, which decides between tool names more by length than by meaning.
    """

    text: str
    complete: bool
    cues: tuple[str, ...] = ()
    per_token: bool = False  # scored by mean log-likelihood per token (names of unequal length)


ChoiceTable = Mapping[JsonPath, tuple[Alternative, ...]]
"""Positions whose value is one of a few whole :class:`Alternative` spellings."""


@dataclass(frozen=True)
class MemberRules:
    """What may not repeat inside one container of a JSON answer.

    Keys never repeat within one object (JSON parsers keep the last value and lose the rest).
    Items do not repeat in arrays at ``unique`` paths (``uniqueItems``, which Pydantic writes for
    ``set`` and ``frozenset``); only scalar items are compared. ``finite`` gives, for objects
    and unique arrays whose keys or items come from a known finite set, how many distinct ones
    there are: once all are written, another member could only repeat one.
    """

    unique: frozenset[JsonPath] = frozenset()
    finite: Mapping[JsonPath, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Message:
    """One chat message.

    An assistant message may carry the ``tool_calls`` it made (OpenAI's shape:
    ``{"id", "type": "function", "function": {"name", "arguments"}}``, arguments as JSON text);
    a ``tool`` message is a call's result, naming the call (``tool_call_id``) and tool (``name``).
    """

    role: Role
    content: str
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The message as chat templates and chat APIs read it."""
        message: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [dict(call) for call in self.tool_calls]
        if self.tool_call_id is not None:
            message["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            message["name"] = self.name
        return message


@dataclass(frozen=True)
class SamplingSettings:
    """How the next token is picked. ``temperature == 0`` is greedy (and ignores the rest).

    ``seed`` makes sampling at temperature > 0 reproducible; ``top_k == 0`` disables top-k,
    ``top_p == 1`` disables nucleus sampling and ``min_p == 0`` disables min-p.
    """

    temperature: float = 0.0
    top_p: float = 0.95
    top_k: int = 40
    min_p: float = 0.05
    seed: int | None = None

    def __post_init__(self) -> None:
        for name in ("temperature", "top_p", "top_k", "min_p"):
            value = getattr(self, name)
            kinds = int if name == "top_k" else (int, float)
            if isinstance(value, bool) or not isinstance(value, kinds):
                noun = "an int" if name == "top_k" else "a number"
                raise TypeError(f"{name} must be {noun}, not {type(value).__name__}")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)):
            raise TypeError(f"seed must be an int or None, not {type(self.seed).__name__}")
        if self.temperature < 0:
            raise ValueError("temperature must be >= 0")
        if not 0 < self.top_p <= 1:
            raise ValueError("top_p must be in (0, 1]")
        if self.top_k < 0:
            raise ValueError("top_k must be >= 0")
        if not 0 <= self.min_p < 1:
            raise ValueError("min_p must be in [0, 1)")


#: The sampling a call gets when it says nothing: the keywords of ``generate``, ``call_tools``
#: and the rest take their defaults from here.
DEFAULT_SAMPLING = SamplingSettings()


@dataclass(frozen=True)
class Reasoning:
    """A free section the model writes before its answer, between ``open`` and ``close``.

    The model writes at most ``budget`` tokens of it, without a grammar; the section ends where
    the model writes ``close``, and where it does not (the budget ran out, or it ended its
    turn), ``close`` is written for it. Then ``separator``, then the answer under the request's
    grammar. A prompt that already ends with ``open`` (a template that opens the section
    itself) is not given it again. ``always=False`` is a section the model's template knows:
    written unless the prompt already closes one (a template told not to think, such as
    Qwen3's with ``enable_thinking=False``). A ``budget`` of 0 closes the section at once.
    """

    open: str
    close: str
    budget: int
    separator: str = "\n\n"
    always: bool = True

    def opened_by(self, prompt: str) -> bool:
        """Whether ``prompt`` (the rendered prompt text) already opens the section."""
        return prompt.rstrip().endswith(self.open.rstrip())

    def closed_by(self, prompt: str) -> bool:
        """Whether ``prompt`` already closes a section (the template turned thinking off)."""
        return prompt.rstrip().endswith(self.close.rstrip())

    def wanted(self, prompt: str) -> bool:
        """Whether a completion after ``prompt`` writes the section."""
        return self.always or not self.closed_by(prompt)


@dataclass(frozen=True)
class CompletionRequest:
    """Everything a backend needs for one constrained completion.

    ``gbnf``/``root`` is the grammar the whole answer must match. ``choices`` optionally names
    JSON positions whose value is one of a few whole alternatives; a backend that can score
    alternatives by their full likelihood uses it, others ignore it. ``tools`` (OpenAI-style
    tool dicts) are handed to the chat template. With ``triggers`` (regex patterns and token
    ids) the grammar is lazy: the model writes freely until a trigger appears, and from the
    trigger on the rest must match the grammar, which starts with the trigger's text.
    ``members`` says the answer is JSON from its first character, and what may not repeat in
    it (keys always; see :class:`~structgen._backends._choices.MemberRules`); a backend that
    samples itself refuses tokens that would repeat a member, and closes loops. With
    ``reasoning`` the model first writes a bounded free section (see :class:`Reasoning`),
    streamed as :class:`ReasoningDelta` events and returned as ``Completion.reasoning``;
    ``max_tokens`` counts the answer's tokens only.
    """

    messages: tuple[Message, ...]
    gbnf: str
    root: str = "root"
    max_tokens: int = 512
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    choices: ChoiceTable | None = None
    tools: tuple[Mapping[str, Any], ...] = ()
    triggers: tuple[str | int, ...] = ()
    members: MemberRules | None = None
    reasoning: Reasoning | None = None


@dataclass(frozen=True)
class ScoreRequest:
    """How likely each of ``continuations`` is right after the plain text ``context`` (no
    chat template: the model reads the context as it is, with its BOS token where it wants one)."""

    context: str
    continuations: tuple[str, ...]


@dataclass(frozen=True)
class Score:
    """One continuation's log-likelihood (natural log) and how many tokens it took."""

    logprob: float
    tokens: int

    @property
    def per_token(self) -> float:
        """The mean log-likelihood per token (0 for an empty continuation)."""
        return self.logprob / self.tokens if self.tokens else 0.0


@dataclass
class Usage:
    """What one call cost. Summed over attempts when a call retries.

    - ``prompt_tokens``: tokens of the rendered prompt(s); ``cached_prompt_tokens`` of them were
      already in the KV cache from an earlier call and were not evaluated again.
    - ``sampled_tokens``: tokens the model picked (one position at a time).
    - ``drafted_tokens``: those of the sampled tokens that were guessed ahead (by prompt
      lookup, or the held-back last token of forced text) and evaluated in one batch before the
      model confirmed them.
    - ``forced_tokens``: tokens the grammar forced and that were evaluated as one batch
      (fast-forward), plus tokens of whole alternatives chosen by likelihood.
    - ``grammar_seconds``: time in the grammar (checks, masks, forced-text probes).
    - ``model_seconds``: time in model evaluation (``llama_decode``); ``prompt_seconds`` of it
      evaluating the prompt (the part not cached), the rest writing the answer.
    - ``total_seconds``: wall time of the call.
    - ``attempts``: generations run (1 + retries).
    - ``reasoning_tokens``: tokens of reasoning sections (see :class:`Reasoning`), their
      markers included; not counted among the sampled or forced tokens.
    """

    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    sampled_tokens: int = 0
    forced_tokens: int = 0
    grammar_seconds: float = 0.0
    model_seconds: float = 0.0
    total_seconds: float = 0.0
    attempts: int = 0
    drafted_tokens: int = 0
    reasoning_tokens: int = 0
    prompt_seconds: float = 0.0

    @property
    def completion_tokens(self) -> int:
        """Tokens written after the prompts: reasoning, sampled and forced."""
        return self.reasoning_tokens + self.sampled_tokens + self.forced_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            cached_prompt_tokens=self.cached_prompt_tokens + other.cached_prompt_tokens,
            sampled_tokens=self.sampled_tokens + other.sampled_tokens,
            drafted_tokens=self.drafted_tokens + other.drafted_tokens,
            forced_tokens=self.forced_tokens + other.forced_tokens,
            grammar_seconds=self.grammar_seconds + other.grammar_seconds,
            model_seconds=self.model_seconds + other.model_seconds,
            total_seconds=self.total_seconds + other.total_seconds,
            attempts=self.attempts + other.attempts,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            prompt_seconds=self.prompt_seconds + other.prompt_seconds,
        )


@dataclass(frozen=True)
class TextDelta:
    """A piece of answer text, in order; concatenated they give the completion's text."""

    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of a reasoning section (see :class:`Reasoning`), in order, markers left out."""

    text: str


@dataclass(frozen=True)
class Completion:
    """The end of a completion. ``finish_reason`` is "stop" when the grammar completed,
    "length" when the token budget or the context ran out first, "repeat" when the model kept
    repeating itself and the grammar allowed no way out (``detail`` says where).

    ``loops`` lists the JSON pointers of values the sampling loop closed early because the
    model was repeating itself there (the answer is complete, but those values may be cut).
    ``reasoning`` is the text of the request's reasoning section, markers left out ("" when
    there was none); ``text`` never holds it.
    """

    text: str
    finish_reason: FinishReason
    usage: Usage
    loops: tuple[str, ...] = ()
    detail: str = ""
    reasoning: str = ""

    def length_cause(self, max_tokens: int) -> str:
        """What a "length" finish ran out of: the token budget or, before it, the context."""
        spent = self.usage.sampled_tokens + self.usage.forced_tokens
        if spent >= max_tokens:
            return f"max_tokens={max_tokens} ran out"
        return f"the context window filled after {spent} of max_tokens={max_tokens} tokens"


Event = Union[TextDelta, ReasoningDelta, Completion]
"""What a backend's ``complete`` yields: reasoning deltas (with ``reasoning``), text deltas,
then one :class:`Completion`."""


class StopGeneration(BaseException):
    """Thrown into a backend's event stream (``stream.throw``, ``athrow``) by a caller that needs
    no more of it (a tool turn that ends before a call it will not keep). A stream that can
    answers with one :class:`Completion` of what it wrote so far, whose usage counts the tokens
    spent (finish reason "stop": the caller stopped it); a stream that cannot lets it propagate,
    and is closed. Either way the generation ends there. Not an ``Exception``, like
    ``GeneratorExit``: handlers that translate a library's errors let it through."""


@runtime_checkable
class Backend(Protocol):
    """The seam between ``generate`` and a model: ``complete`` and ``close``.

    ``complete`` yields the answer as :class:`TextDelta` events and ends with exactly one
    :class:`Completion` (early, for a caller that throws :class:`StopGeneration` into it, where
    it can); ``close`` frees what the backend holds (a model, connections). Errors of the underlying library are raised as ``BackendError``.
    Implementations must be safe to call from several threads.
    """

    def complete(self, request: CompletionRequest) -> Iterator[Event]: ...

    def close(self) -> None: ...


@runtime_checkable
class ScoringBackend(Protocol):
    """The optional side of the seam that scores texts instead of writing them. Tool
    decisions use it to ask the model how well each tool fits a request; a backend without
    it (an HTTP API that returns no log-probabilities) gets decisions from the other signals."""

    def score(self, request: ScoreRequest) -> tuple[Score, ...]: ...


@runtime_checkable
class TemplatedBackend(Protocol):
    """The optional side of the seam that tells which chat template the model was trained
    with (Jinja source). ``tool_format="auto"`` writes calls in that template's own format
    (Hermes, Llama 3, Mistral); a backend without it gets the generic JSON format."""

    @property
    def chat_template(self) -> str | None: ...


def chat_template_of(backend: object) -> str | None:
    """The chat template ``backend`` reports; None for a backend that tells none."""
    return backend.chat_template if isinstance(backend, TemplatedBackend) else None


TemplateSource = Literal["gguf", "user", "server", "none", "unknown"]
"""Where a backend's chat template came from: the GGUF file's metadata ("gguf"), the caller's
``chat_template=`` ("user"), the server, which renders prompts with its own ("server"), nowhere
("none": the in-process backend writes plain ``role: content`` text), or a backend that does not
say ("unknown")."""


@runtime_checkable
class DescribedBackend(Protocol):
    """The optional side of the seam that says which model a backend runs and how it was set up:
    what ``LLM.describe()`` and ``repr(llm)`` show. Each attribute is read on its own, so a
    backend may have only some of them (the others are shown as unknown).

    - ``model_name``: the model, as a person recognises it: the GGUF file's name, or the
      server's URL (and the model it serves, where it says).
    - ``chat_template_source``: where the chat template (``chat_template``, see
      :class:`TemplatedBackend`) came from.
    - ``template_options``: the extra variables every render of the chat template gets
      (``{"enable_thinking": False}``).
    - ``settings``: how the model was loaded or the server started, for people to read: the
      keys ``n_ctx`` (tokens of context a generation has), ``n_threads`` and ``n_threads_batch``
      (CPU threads for single tokens and for batches) where known, and any other setting whose
      value is not its default (``n_gpu_layers``, ``sequences``, ``slots``, ...).
    """

    @property
    def model_name(self) -> str: ...

    @property
    def chat_template_source(self) -> TemplateSource: ...

    @property
    def template_options(self) -> Mapping[str, Any]: ...

    @property
    def settings(self) -> Mapping[str, Any]: ...


@runtime_checkable
class AsyncBackend(Protocol):
    """The optional asyncio side of the seam, for backends whose work is I/O (HTTP servers).

    ``acomplete`` yields the same events as ``complete`` without blocking the event loop, so
    ``LLM.agenerate`` and ``LLM.astream`` run many requests at once with no thread each; on a
    backend without it they run ``complete`` in a worker thread.
    """

    def acomplete(self, request: CompletionRequest) -> AsyncIterator[Event]: ...

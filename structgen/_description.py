"""``llm.describe()``: what a model gets from structgen, shown — its chat template and where it came
from, the tool format and policy that follow from it, the reasoning markers, how it was loaded."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import astuple, dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal, cast

from ._backends._seam import Backend, TemplateSource, chat_template_of
from ._generate._reasoning import DEFAULT_MARKERS, template_markers
from ._tools._api import policy, tool_format_for
from ._tools.policy._policies import Policy, resolve_policy

_SOURCES: dict[str, str] = {
    "gguf": "the GGUF file's (tokenizer.chat_template)",
    "user": "chat_template=",
    "server": "the server's",
    "none": "none: prompts are plain `role: content` text",
    "unknown": "the backend does not say",
}


@dataclass(frozen=True)
class ModelDescription:
    """What a model gets from structgen (``llm.describe()``); ``print`` shows it as a few lines.

    - ``model``: the GGUF file's name, or the server's URL; ``backend``: the backend's class.
    - ``chat_template``: where the chat template came from: the GGUF file ("gguf"),
      ``chat_template=`` ("user"), the server ("server"), nowhere ("none": plain
      ``role: content`` text), or a backend that does not say ("unknown").
    - ``tool_format``: how tool calls are written under ``tool_format="auto"``: the template's
      own family where it renders tools ("hermes", "llama3", "mistral"), else "json".
    - ``tool_policy``: what ``policy="auto"`` means for the model (:attr:`LLM.tool_policy`),
      and ``policy`` its rules.
    - ``reasoning_markers``: what a reasoning section is written between; ``reasoning_unasked``:
      the template knows them, so a bounded section is written without ``reasoning=`` (unless
      its prompt already closes one; ``reasoning=False`` closes it at once). Else the markers are
      the default pair, used only where ``reasoning=`` asks for a section.
    - ``template_options``: the extra variables every render of the template gets.
    - ``n_ctx``, ``n_threads``, ``n_threads_batch``: the context a generation has, in tokens,
      and the CPU threads for single tokens and for batches (None where the backend does not
      say); ``settings``: the backend's other settings whose value is not their default
      (:class:`~structgen.LlamaOptions` such as ``n_gpu_layers``, ``sequences``, a server's
      ``slots``).
    """

    model: str
    backend: str
    chat_template: TemplateSource
    tool_format: Literal["json", "hermes", "llama3", "mistral"]
    tool_policy: Literal["model", "tool-trained", "small-model"]
    policy: Policy
    reasoning_markers: tuple[str, str]
    reasoning_unasked: bool
    template_options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    n_ctx: int | None = None
    n_threads: int | None = None
    n_threads_batch: int | None = None
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __str__(self) -> str:
        opened, closed = self.reasoning_markers
        when = "the template's: a bounded section unasked, unless its prompt closes one or reasoning=False" \
            if self.reasoning_unasked else "the default pair: a section only where reasoning= asks"
        fmt = "the template's own" if self.tool_format != "json" else "generic: the template renders no tools"
        rules = ", ".join(f"{f.name}={v!r}" for f, v in zip(fields(Policy), astuple(self.policy)))
        lines = [
            ("model", f"{self.model} ({self.backend})"),
            ("chat template", _SOURCES[self.chat_template]),
            ("tool format", f"{self.tool_format} ({fmt})"),
            ("tool policy", self.tool_policy),
            ("policy rules", rules),
            ("reasoning", f"{opened} ... {closed} ({when})"),
            ("context", "unknown" if self.n_ctx is None else f"{self.n_ctx} tokens"),
        ]
        if self.n_threads is not None or self.n_threads_batch is not None:
            lines.append(("threads", f"{self.n_threads} for tokens, {self.n_threads_batch} for batches"))
        if self.template_options:
            lines.append(("template options", _pairs(self.template_options)))
        if self.settings:
            lines.append(("settings", _pairs(self.settings)))
        width = max(len(name) for name, _ in lines) + 2
        return "\n".join(
            textwrap.fill(text, 100, initial_indent=name.ljust(width), subsequent_indent=" " * width)
            for name, text in lines
        )

    def _line(self) -> str:
        """The description in one line, as ``repr(llm)`` shows it."""
        parts = [repr(self.model), f"backend={self.backend!r}", f"chat_template={self.chat_template!r}",
                 f"tool_format={self.tool_format!r}", f"tool_policy={self.tool_policy!r}",
                 f"reasoning_markers={self.reasoning_markers!r}"]
        if self.template_options:
            parts.append(f"template_options={dict(self.template_options)!r}")
        parts += [f"{name}={value!r}" for name, value in
                  (("n_ctx", self.n_ctx), ("n_threads", self.n_threads), ("n_threads_batch", self.n_threads_batch))
                  if value is not None]
        return ", ".join(parts + [f"{name}={value!r}" for name, value in self.settings.items()])


def _pairs(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in values.items())


def describe_backend(backend: Backend) -> ModelDescription:
    """What a model on ``backend`` gets: what the backend says of itself (see
    :class:`~structgen.backends.DescribedBackend`), and what follows from its chat template."""
    template = chat_template_of(backend)
    fmt = tool_format_for(backend, "auto")
    name = resolve_policy("auto", fmt.native)
    markers = template_markers(template)
    settings = dict(_told(backend, "settings", Mapping) or {})
    counts = {key: settings.pop(key, None) for key in ("n_ctx", "n_threads", "n_threads_batch")}
    source = _told(backend, "chat_template_source", str)
    return ModelDescription(
        model=_told(backend, "model_name", str) or type(backend).__name__,
        backend=type(backend).__name__,
        chat_template=cast(TemplateSource, source if source in _SOURCES else "unknown"),
        tool_format=cast(Literal["json", "hermes", "llama3", "mistral"], fmt.name),
        tool_policy=name,
        policy=policy(name),
        reasoning_markers=markers or DEFAULT_MARKERS,
        reasoning_unasked=markers is not None,
        template_options=MappingProxyType(dict(_told(backend, "template_options", Mapping) or {})),
        n_ctx=_count(counts["n_ctx"]),
        n_threads=_count(counts["n_threads"]),
        n_threads_batch=_count(counts["n_threads_batch"]),
        settings=MappingProxyType(settings),
    )


def _told(backend: Backend, name: str, kind: type[Any]) -> Any:
    """The backend's ``name`` attribute where it has one of that kind (None otherwise)."""
    value = getattr(backend, name, None)
    return value if isinstance(value, kind) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


__all__ = ["ModelDescription", "describe_backend"]

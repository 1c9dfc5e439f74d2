"""Rendering chat messages with the model's own chat template (GGUF ``tokenizer.chat_template``),
or the one ``chat_template=`` names (:func:`read_chat_template`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..._errors import BackendError
from ..._llama_log import silence_llama_logs
from .._seam import Message
from ._vocab import VocabTables

#: What a model without a chat template is given: each message as ``role: content``.
PLAIN_FALLBACK = "plain `role: content` text"

ChatTemplateChoice = str | os.PathLike[str]
"""``chat_template=``: the Jinja source itself, or the path of a ``.jinja`` file or of a GGUF file
whose ``tokenizer.chat_template`` is read."""


class ChatTemplate:
    """A model's chat template, or a plain fallback when there is none. ``options`` are extra
    variables every render gives the template (``template_options``)."""

    def __init__(
        self, template: str | None, tables: VocabTables, add_bos: bool, options: Mapping[str, Any] | None = None,
    ) -> None:
        self.source = None if template is None else str(template)
        self.tables = tables
        self.add_bos = add_bos
        self.options: Mapping[str, Any] = MappingProxyType(dict(options or {}))
        self._bos_text = tables.special_text(tables.lib.llama_vocab_bos(tables.vocab)) if add_bos else ""
        self._formatter: Any = None
        if template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            eos_text = tables.special_text(tables.eos)
            bos_text = tables.special_text(tables.lib.llama_vocab_bos(tables.vocab))
            self._formatter = Jinja2ChatFormatter(template, eos_text, bos_text, add_generation_prompt=True)

    @classmethod
    def from_metadata(
        cls, metadata: Mapping[str, str], tables: VocabTables, options: Mapping[str, Any] | None = None,
    ) -> ChatTemplate:
        return cls(metadata.get("tokenizer.chat_template") or None, tables, model_adds_bos(tables), options)

    def text(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] = ()) -> str:
        """The prompt text, ending where the assistant's answer begins. ``tools`` (OpenAI-style
        dicts) are given to the template, for templates that render them."""
        plain = [m.as_dict() for m in messages]
        if self._formatter is None:
            lines = [f"{m['role']}: {m['content']}" for m in plain]
            return "\n\n".join(lines) + "\n\nassistant: "
        try:
            response = self._formatter(messages=plain, tools=[dict(t) for t in tools] or None, **self.options)
            return str(response.prompt)
        except Exception as e:
            raise BackendError(f"the model's chat template failed to render: {e}") from e

    def tokens(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] = ()) -> list[int]:
        return self.encode(self.text(messages, tools))

    def encode(self, text: str) -> list[int]:
        """The tokens of a prompt :meth:`text` rendered."""
        # Templates that spell BOS themselves must not get a second one from the tokenizer.
        add_bos = self.add_bos and not (self._bos_text and text.startswith(self._bos_text))
        return self.tables.tokenize(text, add_special=add_bos, parse_special=True)


def model_adds_bos(tables: VocabTables) -> bool:
    return bool(tables.lib.llama_vocab_get_add_bos(tables.vocab))


class TemplateText(str):
    """A chat template's source as :func:`read_chat_template` read it (not to be read again)."""


def read_chat_template(choice: ChatTemplateChoice) -> TemplateText:
    """The Jinja source ``chat_template=`` names: a string holding ``{{`` or ``{%`` is the source
    itself; anything else is a path, of a GGUF file (its ``tokenizer.chat_template``, read
    without loading the weights) or of a text file (a ``.jinja`` file)."""
    if isinstance(choice, TemplateText):
        return choice
    if isinstance(choice, str) and ("{{" in choice or "{%" in choice):
        return TemplateText(choice)
    if not isinstance(choice, (str, os.PathLike)):
        raise TypeError(f"chat_template must be a template or a path, not {type(choice).__name__}")
    path = Path(choice).expanduser()
    if not path.is_file():
        raise ValueError(
            f"chat_template is neither a Jinja template (it has no {{{{ or {{%) nor a file: {str(choice)!r}"
        )
    with path.open("rb") as f:
        gguf = f.read(4) == b"GGUF"
    if gguf:
        template = _gguf_chat_template(path)
        if not template:
            raise ValueError(f"chat_template: {path} has no chat template (tokenizer.chat_template)")
        return TemplateText(template)
    try:
        return TemplateText(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"chat_template: cannot read {path}: {e}") from e


def _gguf_chat_template(path: Path) -> str | None:
    """A GGUF file's ``tokenizer.chat_template``, read with its vocabulary only (no weights)."""
    silence_llama_logs()
    import llama_cpp

    try:
        llama = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)
    except Exception as e:
        raise ValueError(f"chat_template: llama.cpp cannot read {path}: {e}") from e
    try:
        template = llama.metadata.get("tokenizer.chat_template")
    finally:
        llama.close()
    return template if isinstance(template, str) and template else None


__all__ = [
    "PLAIN_FALLBACK", "ChatTemplate", "ChatTemplateChoice", "TemplateText", "model_adds_bos", "read_chat_template",
]

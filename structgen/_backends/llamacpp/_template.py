"""Rendering chat messages with the model's own chat template (GGUF ``tokenizer.chat_template``),
or the one ``chat_template=`` names (:func:`read_chat_template`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ..._errors import BackendError
from .._seam import Message
from .._template_files import ChatTemplateChoice, read_named_template
from ._vocab import VocabTables

#: What a model without a chat template is given: each message as ``role: content``.
PLAIN_FALLBACK = "plain `role: content` text"



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
    """The Jinja source ``chat_template=`` names: the source itself, or a GGUF file's
    ``tokenizer.chat_template`` (read without the weights), or a text file (``_template_files``)."""
    if isinstance(choice, TemplateText):
        return choice
    return TemplateText(read_named_template(choice).text)


__all__ = [
    "PLAIN_FALLBACK", "ChatTemplate", "ChatTemplateChoice", "TemplateText", "model_adds_bos", "read_chat_template",
]

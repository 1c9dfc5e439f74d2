"""Rendering chat messages with the model's own chat template (GGUF ``tokenizer.chat_template``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._errors import BackendError
from .._seam import Message
from ._vocab import VocabTables


class ChatTemplate:
    """A model's chat template, or a plain fallback when the GGUF file carries none."""

    def __init__(self, template: str | None, tables: VocabTables, add_bos: bool) -> None:
        self.source = template
        self.tables = tables
        self.add_bos = add_bos
        self._bos_text = tables.special_text(tables.lib.llama_vocab_bos(tables.vocab)) if add_bos else ""
        self._formatter: Any = None
        if template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            eos_text = tables.special_text(tables.eos)
            bos_text = tables.special_text(tables.lib.llama_vocab_bos(tables.vocab))
            self._formatter = Jinja2ChatFormatter(template, eos_text, bos_text, add_generation_prompt=True)

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, str], tables: VocabTables) -> ChatTemplate:
        add_bos = bool(tables.lib.llama_vocab_get_add_bos(tables.vocab))
        return cls(metadata.get("tokenizer.chat_template"), tables, add_bos)

    def text(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] = ()) -> str:
        """The prompt text, ending where the assistant's answer begins. ``tools`` (OpenAI-style
        dicts) are given to the template, for templates that render them."""
        plain = [m.as_dict() for m in messages]
        if self._formatter is None:
            lines = [f"{m['role']}: {m['content']}" for m in plain]
            return "\n\n".join(lines) + "\n\nassistant: "
        try:
            return str(self._formatter(messages=plain, tools=[dict(t) for t in tools] or None).prompt)
        except Exception as e:
            raise BackendError(f"the model's chat template failed to render: {e}") from e

    def tokens(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] = ()) -> list[int]:
        return self.encode(self.text(messages, tools))

    def encode(self, text: str) -> list[int]:
        """The tokens of a prompt :meth:`text` rendered."""
        # Templates that spell BOS themselves must not get a second one from the tokenizer.
        add_bos = self.add_bos and not (self._bos_text and text.startswith(self._bos_text))
        return self.tables.tokenize(text, add_special=add_bos, parse_special=True)

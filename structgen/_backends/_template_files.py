"""``chat_template=``: the chat template a caller names, read the same way by every backend."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from .._llama_log import silence_llama_logs

ChatTemplateChoice = Union[str, "os.PathLike[str]"]
"""``chat_template=``: the Jinja source itself (a string holding ``{{`` or ``{%``), or the path
of a ``.jinja`` (text) file or of a GGUF file whose ``tokenizer.chat_template`` is read."""


@dataclass(frozen=True)
class NamedTemplate:
    """The template ``chat_template=`` names: its ``text``, what named it (``detail``), and the
    texts of the model's BOS and EOS tokens where a GGUF file told them ("" otherwise)."""

    text: str
    detail: str
    bos: str = ""
    eos: str = ""


def read_named_template(choice: ChatTemplateChoice) -> NamedTemplate:
    """The template ``choice`` names (see :data:`ChatTemplateChoice`), or a clear error."""
    if isinstance(choice, str) and ("{{" in choice or "{%" in choice):
        return NamedTemplate(choice, "chat_template= (the Jinja source)")
    if not isinstance(choice, (str, os.PathLike)):
        raise TypeError(f"chat_template must be a Jinja template or a path, not {type(choice).__name__}")
    path = Path(choice).expanduser()
    if not path.is_file():
        raise ValueError(
            f"chat_template is neither a Jinja template (it has no {{{{ or {{%) nor a file: {str(choice)!r}"
        )
    with path.open("rb") as f:
        gguf = f.read(4) == b"GGUF"
    if gguf:
        text, bos, eos = _from_gguf(path)
        return NamedTemplate(text, f"chat_template={str(path)!r} (a GGUF file)", bos, eos)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"chat_template: cannot read {path}: {e}") from e
    if not text.strip():
        raise ValueError(f"chat_template: {path} is empty")
    return NamedTemplate(text, f"chat_template={str(path)!r}")


def _from_gguf(path: Path) -> tuple[str, str, str]:
    """A GGUF file's ``tokenizer.chat_template`` and the texts of its BOS and EOS tokens, read
    with its vocabulary only (no weights)."""
    silence_llama_logs()
    import llama_cpp

    try:
        llama = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)
    except Exception as e:
        raise ValueError(f"chat_template: llama.cpp cannot read {path}: {e}") from e
    try:
        template = llama.metadata.get("tokenizer.chat_template")
        bos = llama.detokenize([llama.token_bos()], special=True).decode("utf-8", "replace")
        eos = llama.detokenize([llama.token_eos()], special=True).decode("utf-8", "replace")
    finally:
        llama.close()
    if not isinstance(template, str) or not template:
        raise ValueError(f"chat_template: {path} has no chat template (tokenizer.chat_template)")
    return template, bos, eos


__all__ = ["ChatTemplateChoice", "NamedTemplate", "read_named_template"]

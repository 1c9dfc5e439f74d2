"""The chat template of a model behind an OpenAI-compatible URL: where it is read from, and
rendering prompts with it here.

A template decides how structgen treats a model (its tool format, its tool policy, its
reasoning markers: :func:`~structgen._backends._seam.chat_template_of`), so a backend on a
server must know the one the server uses. It comes from the caller (``chat_template=``: the
Jinja source, or the path of a ``.jinja`` file or of the GGUF file it was read from) or from
the server, where the server tells it:

==============  ===========================================================================
llama-server    ``GET /props``: ``chat_template``, with ``bos_token`` and ``eos_token``
vLLM            ``GET /tokenizer_info``: the tokenizer's configuration, ``chat_template``
                among it, served only when vLLM was started with
                ``--enable-tokenizer-info-endpoint`` (404 otherwise)
SGLang          nowhere: ``/get_model_info`` names the model and tokenizer paths and
                ``/get_server_info`` the ``--chat-template`` argument (a name or a path), not
                the template itself
==============  ===========================================================================

:class:`PromptTemplate` renders prompts here with the same Jinja rendering as the in-process
backend (llama-cpp-python's ``Jinja2ChatFormatter``), which for the templates of the tests is
also the text llama-server's own ``/apply-template`` gives (checked in the tests).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..._errors import BackendError
from .._seam import Message
from .._template_files import ChatTemplateChoice, read_named_template

TemplateSource = Literal["gguf", "user", "server", "none", "unknown"]
"""Where a backend's chat template came from, coarsely: the caller's ``chat_template=``
("user"), the server ("server"), nowhere ("none": assumed to render no tools and know no
reasoning markers)."""


@dataclass(frozen=True)
class KnownTemplate:
    """A chat template and where it came from. ``source`` is the coarse kind, ``detail`` says it
    for people (``GET /props``, a file's path, ...). ``bos``/``eos`` are the texts of the
    model's special tokens, where known ("" otherwise), for templates that spell them."""

    text: str | None
    source: TemplateSource
    detail: str
    bos: str = ""
    eos: str = ""


def read_chat_template(choice: ChatTemplateChoice) -> KnownTemplate:
    """The template ``chat_template=`` names (see :data:`ChatTemplateChoice`), or a clear error."""
    named = read_named_template(choice)
    return KnownTemplate(named.text, "user", named.detail, named.bos, named.eos)


def from_props(props: Mapping[str, Any]) -> KnownTemplate | None:
    """llama-server's template, from its ``GET /props`` reply (None where it has none)."""
    text = props.get("chat_template")
    if not isinstance(text, str) or not text:
        return None
    return KnownTemplate(text, "server", "GET /props", _token_text(props.get("bos_token")),
                         _token_text(props.get("eos_token")))


def from_tokenizer_info(info: Mapping[str, Any]) -> KnownTemplate | None:
    """vLLM's template, from its ``GET /tokenizer_info`` reply: the tokenizer's configuration,
    whose ``chat_template`` is a string or, for tokenizers with several, a list of named ones
    (``tool_use`` is the one a request with tools renders; else ``default``)."""
    template = info.get("chat_template")
    if isinstance(template, list):
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("tool_use") or named.get("default")
    if not isinstance(template, str) or not template:
        return None
    return KnownTemplate(template, "server", "GET /tokenizer_info", _token_text(info.get("bos_token")),
                         _token_text(info.get("eos_token")))


def _token_text(token: Any) -> str:
    """A special token as a server reports it: its text, or Hugging Face's serialized
    ``AddedToken`` (``{"content": ...}``)."""
    if isinstance(token, dict):
        token = token.get("content")
    return token if isinstance(token, str) else ""


class PromptTemplate:
    """Renders chat messages into the prompt text the model continues (its answer begins where
    the text ends), as the in-process backend does."""

    def __init__(self, known: KnownTemplate) -> None:
        if known.text is None:
            raise ValueError("a prompt template needs the template's text")
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.known = known
        self._formatter: Any = Jinja2ChatFormatter(known.text, known.eos, known.bos, add_generation_prompt=True)

    def text(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] = ()) -> str:
        plain = [m.as_dict() for m in messages]
        try:
            return str(self._formatter(messages=plain, tools=[dict(t) for t in tools] or None).prompt)
        except Exception as e:
            raise BackendError(f"the chat template ({self.known.detail}) failed to render: {e}") from e


__all__ = [
    "ChatTemplateChoice", "KnownTemplate", "PromptTemplate", "TemplateSource", "from_props", "from_tokenizer_info",
    "read_chat_template",
]

"""``template_options``: extra variables for every render of a model's chat template, in process
and on llama-server (``chat_template_kwargs``), such as Qwen3's ``{"enable_thinking": False}``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

#: The variables a render gives the template itself (llama-cpp-python's chat formatter, and
#: llama-server's): an option may not replace one.
RESERVED = frozenset({
    "messages", "tools", "add_generation_prompt", "bos_token", "eos_token", "raise_exception",
    "functions", "function_call", "tool_choice", "strftime_now",
})


def checked_template_options(options: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """``options`` as a read-only mapping (empty for None), or a clear error: names are strings
    that are not :data:`RESERVED`, values are JSON (a server is sent them as JSON)."""
    if options is None:
        return MappingProxyType({})
    if not isinstance(options, Mapping):
        raise TypeError(f"template_options must be a mapping of names to values, not {type(options).__name__}")
    for name, value in options.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"template_options: {name!r} is not a name a template can read")
        if name in RESERVED:
            raise ValueError(f"template_options: {name!r} is given to the template by the render itself")
        try:
            json.dumps(value)
        except (TypeError, ValueError) as e:
            raise ValueError(f"template_options[{name!r}] must be a JSON value: {e}") from None
    return MappingProxyType(dict(options))


__all__ = ["RESERVED", "checked_template_options"]

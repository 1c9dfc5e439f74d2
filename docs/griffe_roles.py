"""A griffe extension for the API reference: structgen's docstrings use Sphinx roles.

``:class:`~structgen.Grammar``` and friends would show as raw text in Markdown. A role naming a
public name (of ``structgen``, ``structgen.backends``, ``structgen.gbnf`` or
``structgen.testing``, or a member of one) becomes a link to its API entry; any other role
becomes plain code. The docstrings stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

import structgen
import structgen.backends
import structgen.gbnf
import structgen.testing

ROLE = re.compile(r":(?:class|func|meth|attr|data|exc|mod|obj):`~?([^`]+)`")
# A name in two modules (a concrete backend, Message, Usage...) links to its top-level entry.
MODULES = (structgen.testing, structgen.gbnf, structgen.backends, structgen)
PUBLIC = {name: f"{module.__name__}.{name}" for module in MODULES for name in module.__all__}


def _reference(match: re.Match[str]) -> str:
    target = match.group(1)
    for module in MODULES:
        target = target.removeprefix(f"{module.__name__}.")
    shown = target.rsplit(".", 1)[-1]
    owner, _, member = target.partition(".")
    if owner in PUBLIC and (not member or (member.isidentifier() and not member.startswith("_")
                                           and hasattr(_public(owner), member))):
        return f"[`{shown}`][{PUBLIC[owner]}{'.' + member if member else ''}]"
    return f"`{shown}`"


def _public(name: str) -> Any:
    module, _, attribute = PUBLIC[name].rpartition(".")
    return getattr(next(m for m in MODULES if m.__name__ == module), attribute)


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(_reference, obj.docstring.value)

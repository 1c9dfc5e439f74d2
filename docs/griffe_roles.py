"""A griffe extension for the API reference: structgen's docstrings use Sphinx roles.

``:class:`~structgen.Grammar``` and friends would show as raw text in Markdown. A role naming a
public name (of ``structgen`` or ``structgen.testing``, or a member of one) becomes a link to
its API entry; any other role becomes plain code. The docstrings stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

import structgen
import structgen.testing

ROLE = re.compile(r":(?:class|func|meth|attr|data|exc|mod|obj):`~?([^`]+)`")
PUBLIC = {name: f"structgen.{name}" for name in structgen.__all__}
PUBLIC.update({name: f"structgen.testing.{name}" for name in structgen.testing.__all__})


def _reference(match: re.Match[str]) -> str:
    target = match.group(1).removeprefix("structgen.testing.").removeprefix("structgen.")
    shown = target.rsplit(".", 1)[-1]
    owner, _, member = target.partition(".")
    if owner in PUBLIC and (not member or (member.isidentifier() and not member.startswith("_")
                                           and hasattr(_public(owner), member))):
        return f"[`{shown}`][{PUBLIC[owner]}{'.' + member if member else ''}]"
    return f"`{shown}`"


def _public(name: str) -> Any:
    module = structgen.testing if PUBLIC[name].startswith("structgen.testing.") else structgen
    return getattr(module, name)


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(_reference, obj.docstring.value)

"""What the object and array emitters see of the :class:`~.emitter.Emitter` that calls them:
:class:`EmitContext`, a protocol, so the emitter can import them and not the other way round."""

from __future__ import annotations

from typing import Any, Protocol

from ..._gbnf._rules import RuleSet
from ..ir.atoms import IR, StringSpec
from ..normalize.normalizer import Normalizer
from ..options import GrammarOptions


class EmitContext(Protocol):
    """Rules under construction, the separators of the whitespace mode, and emitting a child."""

    norm: Normalizer
    options: GrammarOptions
    rules: RuleSet
    #: GBNF of the item separator, the key-value colon, and the opening brackets with whatever
    #: whitespace the mode allows after them.
    sep: str
    colon: str
    open_obj: str
    open_arr: str

    def emit(self, ir: IR, hint: str, pointer: str, head: frozenset[str] = frozenset()
             ) -> str | None: ...

    def container(self, open_token: str, content: str | None, close: str, optional: bool
                  ) -> str: ...

    def string(self, spec: StringSpec, hint: str, pointer: str, raw: bool = False
               ) -> str | None: ...

    def literal(self, value: Any, hint: str) -> str: ...

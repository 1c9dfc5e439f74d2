"""What a keyword function sees of the conversion: :class:`SchemaContext`, a protocol, so that
``keywords`` and ``applicators`` need not import the :class:`~.normalizer.Normalizer` that
dispatches to them."""

from __future__ import annotations

from typing import Any, Protocol

from ..algebra.context import AlgebraContext
from ..ir.atoms import IR
from .refs import Resolver, Target


class SchemaContext(AlgebraContext, Protocol):
    """Subschemas to IR, references to resolve, and the unsupported-keyword policy."""

    @property
    def resolver(self) -> Resolver: ...

    def schema(self, schema: Any, base: str, pointer: str) -> IR: ...

    def value_schema(self, schema: Any, base: str, pointer: str) -> IR: ...

    def ref(self, ref: Any, base: str, pointer: str) -> IR: ...

    def ref_to(self, target: Target) -> IR: ...

    def dynamic_target(self, name: str) -> str | None: ...

    def check_pattern(self, pattern: str, pointer: str, keyword: str) -> None: ...

    def unsupported(self, pointer: str, keyword: str, message: str) -> None:
        """Strict: raise :class:`~structgen.UnsupportedSchemaError`; otherwise the keyword is
        dropped (and named in one warning) and the caller goes on without it."""

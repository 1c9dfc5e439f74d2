"""JSON string languages: the StringSpec value and its GBNF (work in progress by the strings helper)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StringSpec:
    patterns: tuple[str, ...] = ()
    not_patterns: tuple[str, ...] = ()
    min_length: int = 0
    max_length: int | None = None
    formats: tuple[str, ...] = ()
    exclude: frozenset[str] = frozenset()
    only: frozenset[str] | None = None

"""JSON Schema → GBNF, our own converter (see ``_converter.py`` for the entry points)."""

from __future__ import annotations

from ._converter import canonical_json, convert, json_schema_to_gbnf, refusal_json

__all__ = ["canonical_json", "convert", "json_schema_to_gbnf", "refusal_json"]

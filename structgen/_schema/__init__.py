"""JSON Schema → GBNF, our own converter.

Pipeline: ``_refs`` indexes the documents ($id, $anchor, pointers, ``refs=``) → ``_normalize``
turns every schema into a union of typed atoms (``_ir``), one small function per keyword
(``_keywords`` for type keywords, ``_applicators`` for allOf/anyOf/oneOf/not/if/$ref/...), with
exact set operations in ``_algebra``/``_complement`` and a small validator (``_validate``) for
enum filtering → ``_emit`` / ``_emit_objects`` / ``_emit_arrays`` write the rules through
``_rules.RuleSet``, strings via ``_strings`` and numbers via ``_integers``/``_numbers``.

Policy (see ``docs``): a keyword that changes validity and cannot be enforced exactly raises
``UnsupportedSchemaError`` with its pointer and keyword (``strict=False``: dropped, one warning).
Formats that JSON Schema defines are enforced (``regex`` cannot be and raises); custom format
names are annotations. Key order is the declared order (``prop_order``, ``key_order``).
"""

from __future__ import annotations

from ._converter import canonical_json, convert, json_schema_to_gbnf, refusal_json

__all__ = ["canonical_json", "convert", "json_schema_to_gbnf", "refusal_json"]

"""JSON Schema → GBNF, our own converter.

The pipeline, one subpackage a stage, each importing only the ones below it::

    converter ─ options                 convert(schema, options) -> GBNF text; presets
      emit        IR → GBNF rules        (emitter, objects, arrays, numbers, integers, digits)
      normalize   schema → IR            (refs, meta, keywords, applicators, normalizer)
      algebra     exact set operations   (sets, complement, validate; see algebra.context)
      strings     string languages       (language, formats, key_trie)
      ir          the atoms              (atoms: the typed atoms and StringSpec; leaves)
      automata    charsets, regex, DFA   (charset, regex, dfa, minimize, operations, to_gbnf)
      gbnf        writing rules          (rules)

Policy (see ``docs/conversion.md``): a keyword that changes validity and cannot be enforced exactly
raises ``UnsupportedSchemaError`` with its pointer and keyword (``strict=False``: dropped, one
warning). Formats that JSON Schema defines are enforced (``regex`` cannot be and raises); custom
format names are annotations. Key order is the declared order (``prop_order``, ``key_order``).
"""

from __future__ import annotations

from .converter import canonical_json, convert, refusal_json

__all__ = ["canonical_json", "convert", "refusal_json"]

"""The one typed options object of the JSON Schema → GBNF conversion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Whitespace = Literal["compact", "minified", "flexible"]
KeyOrder = Literal["declared", "required-first", "any"]

#: Separators of each whitespace mode: (after comma, after colon).
#: "compact" is what ``json.dumps`` writes by default and what chat models emit naturally.
SEPARATORS: dict[str, tuple[str, str]] = {
    "compact": (", ", ": "),
    "minified": (",", ":"),
}
#: In "flexible" mode at most this many whitespace characters stand between two tokens.
FLEXIBLE_WHITESPACE_LIMIT = 20
#: The default budget of a grammar's size in bytes of GBNF text (``max_grammar_bytes``): about
#: twice the largest grammar of MaskBench (see docs/benchmarks.md, "Native cost").
DEFAULT_MAX_GRAMMAR_BYTES = 4_000_000


@dataclass(frozen=True)
class GrammarOptions:
    """How a JSON Schema becomes a grammar. Every field has a safe default.

    - ``prop_order``: property names to put first, in this order; others keep declaration order.
    - ``key_order``: "declared" (what Pydantic serializes), "required-first" (llama.cpp's order),
      or "any" (declared keys in any order: exact for small objects, declared order beyond).
    - ``whitespace``: "compact" (``{"a": 1, "b": 2}``, exactly), "minified" (``{"a":1}``), or
      "flexible" (any JSON whitespace between tokens, at most FLEXIBLE_WHITESPACE_LIMIT chars).
    - ``strict``: unenforceable keywords raise ``UnsupportedSchemaError``; when False they are
      dropped with one warning listing each keyword's JSON pointer.
    - ``dotall``: ``.`` in patterns also matches line terminators.
    - ``raw_pattern``: a root string schema's pattern is emitted without JSON quotes/escapes.
    - ``refs``: other schema documents by URI, resolved locally; ``allow_fetch`` permits HTTPS.
    - ``refusal``: the root also accepts ``{"refusal": "<reason>"}``.
    - ``additional_properties``: None follows the schema (absent means allowed, as JSON Schema
      says); False closes every object that does not say otherwise (what ``from_type`` uses, so
      models emit only declared fields).
    - ``max_string_length``: an upper bound for free-text strings (no pattern, format, enum or
      excluded names) that have none (None: unbounded); a larger minLength wins.
    - ``integer_zero_fraction``: integers may also be spelled with a zero fraction (``1.0``), as
      JSON Schema allows; ``from_type`` turns it off so models write plain integers.
    - ``max_grammar_bytes``: a grammar larger than this (UTF-8 bytes of GBNF) is refused with
      ``UnsupportedSchemaError`` instead of being handed to llama.cpp, whose loading and per-request
      copying grow with the size (None: no limit).
    """

    prop_order: tuple[str, ...] = ()
    key_order: KeyOrder = "declared"
    whitespace: Whitespace = "compact"
    strict: bool = True
    dotall: bool = False
    raw_pattern: bool = False
    refs: Mapping[str, Any] = field(default_factory=dict)
    allow_fetch: bool = False
    refusal: bool = False
    additional_properties: bool | None = None
    max_string_length: int | None = None
    integer_zero_fraction: bool = True
    max_grammar_bytes: int | None = DEFAULT_MAX_GRAMMAR_BYTES

    def __post_init__(self) -> None:
        if isinstance(self.prop_order, str) or not isinstance(self.prop_order, Sequence):
            raise TypeError("prop_order must be a sequence of property names")
        object.__setattr__(self, "prop_order", tuple(self.prop_order))
        if self.key_order not in ("declared", "required-first", "any"):
            raise ValueError(
                f"key_order must be 'declared', 'required-first' or 'any', not {self.key_order!r}"
            )
        if self.whitespace not in ("compact", "minified", "flexible"):
            raise ValueError(
                f"whitespace must be 'compact', 'minified' or 'flexible', not {self.whitespace!r}"
            )
        for name in ("strict", "dotall", "raw_pattern", "allow_fetch", "refusal",
                     "integer_zero_fraction"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool")
        if self.additional_properties is not None and not isinstance(self.additional_properties, bool):
            raise TypeError("additional_properties must be None or a bool")
        if self.max_string_length is not None and (
            isinstance(self.max_string_length, bool)
            or not isinstance(self.max_string_length, int)
            or self.max_string_length < 0
        ):
            raise ValueError("max_string_length must be None or a non-negative int")
        if self.max_grammar_bytes is not None and (
            isinstance(self.max_grammar_bytes, bool)
            or not isinstance(self.max_grammar_bytes, int)
            or self.max_grammar_bytes <= 0
        ):
            raise ValueError("max_grammar_bytes must be None or a positive int")
        if not isinstance(self.refs, Mapping):
            raise TypeError("refs must be a mapping of URI to schema")

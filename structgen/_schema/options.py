"""The one typed options object of the JSON Schema → GBNF conversion, and its named presets.

Every default lives here: a field's default is what a JSON Schema's faithful conversion uses (the
``"schema"`` preset), and :data:`PRESETS` states the other presets as changes to it. The help
text of each option is its field's metadata, from which ``structured()``'s docs, the CLI flags
and the docs tables are derived.
"""

from __future__ import annotations

import json

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal

from typing_extensions import TypedDict, Unpack

Whitespace = Literal["compact", "minified", "flexible"]
"""Whitespace between JSON tokens: one space after separators, none, or a bounded run."""
KeyOrder = Literal["declared", "required-first", "any"]
"""The order object keys are written in (see :class:`GrammarOptions`)."""
Escapes = Literal["any", "needed"]
"""How strings may be spelled: every JSON spelling, or only the escapes JSON needs (one
spelling a value, as Pydantic writes it; see :class:`GrammarOptions`)."""
PresetName = Literal["schema", "type", "generation", "tool-arguments"]
"""The named option sets of :meth:`GrammarOptions.preset`."""

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


def _option(default: Any, help: str) -> Any:
    """A field with its help text (read by the CLI, the docs tables and ``structured()``)."""
    if isinstance(default, dict):
        return field(default_factory=dict, metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class GrammarOptions:
    """How a JSON Schema becomes a grammar. The defaults convert a schema faithfully.

    Each field's help text is in its metadata (``option_help``); :data:`PRESETS` names the
    option sets structgen uses (``GrammarOptions.preset("generation")`` is what
    ``llm.generate`` uses for a type that says nothing).
    """

    prop_order: tuple[str, ...] = _option(
        (), "property names to put first, in this order; the others keep declaration order")
    key_order: KeyOrder = _option(
        "declared", '"declared" (what Pydantic serializes), "required-first" (llama.cpp\'s '
        'order), or "any" (the keys of small objects in any order, declared order beyond)')
    whitespace: Whitespace = _option(
        "compact", '"compact": exactly json.dumps\' ", " and ": "; "minified": no spaces; '
        f'"flexible": any JSON whitespace between tokens, at most {FLEXIBLE_WHITESPACE_LIMIT} '
        'characters')
    escapes: Escapes = _option(
        "any", '"any": a string may be written in every JSON spelling (raw, short escapes, '
        '\\uXXXX in either case, surrogate pairs), as any JSON writer may; "needed": only the '
        'escapes JSON requires (\\" \\\\ \\b \\f \\n \\r \\t, \\u00xx for other control '
        'characters), everything else raw, as Pydantic and json.dumps(ensure_ascii=False) '
        'write it: one spelling a value, so a model cannot spend its tokens on escapes')
    strict: bool = _option(
        True, "a keyword that cannot be enforced is an UnsupportedSchemaError; off: it is "
        "dropped with one warning naming its pointer")
    dotall: bool = _option(False, '"." in patterns also matches line terminators')
    raw_pattern: bool = _option(
        False, "a root string schema's pattern is emitted without JSON quotes or escapes")
    refs: Mapping[str, Any] = _option(
        {}, "other schema documents by URI, resolved locally")
    allow_fetch: bool = _option(False, "$refs to https:// URLs not in refs may be fetched")
    refusal: bool = _option(False, 'the root also accepts {"refusal": "<reason>"}')
    additional_properties: bool | None = _option(
        None, "None (or True) follows the schema, where an absent additionalProperties allows "
        "any key; False closes every object that does not say otherwise, so a model writes "
        "only its declared fields")
    max_string_length: int | None = _option(
        None, "an upper bound for free-text strings (no pattern, format, enum or excluded "
        "names) that have none; a larger minLength wins; None: unbounded")
    integer_zero_fraction: bool = _option(
        True, "integers may also be written with a zero fraction (1.0), as JSON Schema allows; "
        "off: plain integers, as Pydantic writes them")
    max_grammar_bytes: int | None = _option(
        DEFAULT_MAX_GRAMMAR_BYTES, "a grammar larger than this many UTF-8 bytes is an "
        "UnsupportedSchemaError instead of being handed to llama.cpp, whose loading and "
        "per-request copying grow with its size; None: no limit")

    @classmethod
    def preset(cls, name: PresetName, **changes: Unpack[GrammarChanges]) -> GrammarOptions:
        """The options of the named preset (see :data:`PRESETS`), with ``changes`` applied."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown preset {name!r}: one of {', '.join(PRESETS)}") from None
        return base.with_changes(**changes)

    def with_changes(self, **changes: Unpack[GrammarChanges]) -> GrammarOptions:
        """A copy with ``changes`` applied (an unknown name is a TypeError)."""
        unknown = sorted(set(changes) - OPTION_NAMES)
        if unknown:
            raise TypeError(f"unknown grammar option(s): {', '.join(unknown)}")
        return replace(self, **changes) if changes else self  # type: ignore[arg-type]  # prop_order: any sequence

    @cached_property
    def cache_key(self) -> str:
        """A text equal for equal options (``refs`` holds mappings, so options are not hashable);
        written once per options object, which every conversion with them reuses."""
        return repr(self)

    @cached_property
    def refs_use_dynamic_ref(self) -> bool:
        """Whether a document of ``refs`` uses ``$dynamicRef``; read once per options object,
        like ``cache_key`` (serializing every document on every conversion cost more than
        converting a small schema)."""
        return any("$dynamicRef" in json.dumps(doc) for doc in self.refs.values())

    def __post_init__(self) -> None:
        if isinstance(self.prop_order, str) or not isinstance(self.prop_order, Sequence):
            raise TypeError("prop_order must be a sequence of property names")
        object.__setattr__(self, "prop_order", tuple(self.prop_order))
        if self.key_order not in ("declared", "required-first", "any"):
            raise ValueError(
                f"key_order must be 'declared', 'required-first' or 'any', not {self.key_order!r}"
            )
        if self.escapes not in ("any", "needed"):
            raise ValueError(f"escapes must be 'any' or 'needed', not {self.escapes!r}")
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
        if self.refs is None:
            object.__setattr__(self, "refs", {})
        if not isinstance(self.refs, Mapping):
            raise TypeError("refs must be a mapping of URI to schema")


class GrammarChanges(TypedDict, total=False):
    """The fields of :class:`GrammarOptions` as keywords, each one changing that field of the
    options a call starts from (its preset): ``Grammar.from_type(Model, whitespace="minified")``,
    ``@structured(refusal=True)``, ``GrammarOptions.preset("generation", escapes="any")``.
    What each field means is said in GrammarOptions; a function of yours passing them on
    annotates them ``**changes: Unpack[GrammarChanges]``."""

    prop_order: Sequence[str]
    key_order: KeyOrder
    whitespace: Whitespace
    escapes: Escapes
    strict: bool
    dotall: bool
    raw_pattern: bool
    refs: Mapping[str, Any]
    allow_fetch: bool
    refusal: bool
    additional_properties: bool | None
    max_string_length: int | None
    integer_zero_fraction: bool
    max_grammar_bytes: int | None


OPTION_NAMES = frozenset(f.name for f in fields(GrammarOptions))


def option_help(name: str) -> str:
    """The help text of the option ``name``."""
    for f in fields(GrammarOptions):
        if f.name == name:
            return str(f.metadata["help"])
    raise KeyError(name)


#: Generation's cap, in characters, for strings the type leaves unbounded. A small model that
#: starts repeating itself inside a string otherwise writes until max_tokens and the call fails;
#: with the cap the grammar closes the string and the object completes.
GENERATION_MAX_STRING_LENGTH = 500
#: The cap for the string arguments of a tool call (arguments are short; a loop is caught sooner).
TOOL_MAX_STRING_LENGTH = 200

_SCHEMA = GrammarOptions()
_TYPE = replace(_SCHEMA, additional_properties=False, integer_zero_fraction=False)

#: The named option sets, and the only place a default other than a field's own is stated.
PRESETS: Mapping[str, GrammarOptions] = MappingProxyType({
    "schema": _SCHEMA,
    "type": _TYPE,
    "generation": replace(_TYPE, max_string_length=GENERATION_MAX_STRING_LENGTH, escapes="needed"),
    "tool-arguments": replace(_TYPE, max_string_length=TOOL_MAX_STRING_LENGTH, escapes="needed"),
})

#: What each preset is for (CLI help and docs).
PRESET_HELP: Mapping[str, str] = MappingProxyType({
    "schema": "a JSON Schema, converted faithfully (the fields' defaults)",
    "type": "a Python type as Pydantic reads and writes it: objects closed, integers plain "
            "(Grammar.from_type)",
    "generation": f"what llm.generate uses: a type's, with free-text strings capped at "
                  f"{GENERATION_MAX_STRING_LENGTH} characters and only the escapes JSON needs",
    "tool-arguments": f"a tool call's arguments: a type's, with free-text strings capped at "
                      f"{TOOL_MAX_STRING_LENGTH} characters and only the escapes JSON needs",
})

"""The two properties that tie a type to its grammar, with readable reports (the machinery
behind :mod:`structgen.testing`). Round trip: the JSON of every valid instance, with object keys
in the order the grammar emits them, is accepted by llama.cpp's grammar sampler and parses back
equal. Soundness: every string the grammar derives validates against the type and is accepted
natively. A failure names the type and the text, with a caret under the first rejected
character, and says which grammar was checked, on which vocabulary, within which bounds; the
instances themselves come from :mod:`._instances`.

The grammar checked is by default the one ``llm.generate`` sends: it comes from ``spec_for``,
the function generation itself calls, so the test and the generation cannot drift apart.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._instance_schema import RECURSION_DEPTH, draft7_validator, resolve_pointer
from ._type_names import type_name
from ._types import type_adapter

if TYPE_CHECKING:
    from ._backends.llamacpp._native import NativeVocab, Verdict
    from ._generate._output import OutputSpec
    from ._grammar import Grammar
    from ._schema.options import GrammarChanges, GrammarOptions

__all__ = [
    "GRAMMAR_CHOICES",
    "Judge",
    "Prepared",
    "RawNumber",
    "RoundTripCheck",
    "bounds_note",
    "caret_excerpt",
    "judge",
    "prepare",
    "json_data",
    "numbers_where_schema_says",
    "order_keys",
    "run_property",
    "write_json",
]


# ---------------------------------------------------------------- key order


def _dereferenced(document: Any, node: Any) -> Any:
    """``node`` with its ``$ref`` chain (within ``document``) followed."""
    seen = 0
    while isinstance(node, Mapping) and "$ref" in node and seen < 64:
        node, seen = resolve_pointer(document, node["$ref"], "#"), seen + 1
    return node


def order_keys(data: Any, schema: Any, *, prop_order: tuple[str, ...] = (),
               required_first: bool = False) -> Any:
    """``data`` with object keys in the order the grammar emits them (``prop_order`` names
    first, then declaration order; required keys before optional ones if ``required_first``).
    Of a union, the first branch that ``data`` is valid against decides."""
    document = schema

    def resolve(node: Any) -> Any:
        return _dereferenced(document, node)

    def branch(node: Any, value: Any) -> Any:
        node = resolve(node)
        if not isinstance(node, Mapping):
            return {}
        for word in ("anyOf", "oneOf", "allOf"):
            for option in node.get(word, ()):
                option = resolve(option)
                if word == "allOf" or draft7_validator({**option, "$defs": document.get("$defs", {})}
                                                  ).is_valid(value):
                    picked = branch(option, value)
                    if picked:
                        return picked
        return node

    def walk(value: Any, node: Any) -> Any:
        node = branch(node, value)
        if isinstance(value, list):
            items = node.get("prefixItems", [])
            rest = node.get("items", True)
            return [walk(v, items[i] if i < len(items) else rest) for i, v in enumerate(value)]
        if not isinstance(value, dict):
            return value
        properties: Mapping[str, Any] = node.get("properties", {})
        required = set(node.get("required", ()))
        declared = [k for k in properties if k in value]
        keys = [k for k in prop_order if k in declared]
        keys += [k for k in declared if k not in keys]
        if required_first:
            keys = [k for k in keys if k in required] + [k for k in keys if k not in required]
        keys += [k for k in value if k not in keys]
        extra = node.get("additionalProperties", True)
        return {k: walk(value[k], properties.get(k, extra)) for k in keys}

    return walk(data, schema)


# ---------------------------------------------------------------- reports


def _visible(ch: str) -> str:
    if ch.isprintable() and unicodedata.east_asian_width(ch) not in ("W", "F"):
        return ch
    if ch.isprintable():
        return ch + " "  # wide characters take two columns; keep the caret aligned
    return ch.encode("unicode_escape").decode("ascii")


def caret_excerpt(text: str, offset: int, *, indent: str = "  ", width: int = 100) -> str:
    """Two lines: ``text`` (a window of it when long) and a caret under character ``offset``."""
    start = max(0, min(offset - width // 2, len(text) - width))
    end = min(len(text), start + width)
    shown = [_visible(ch) for ch in text[start:end]]
    head = "…" if start > 0 else ""
    tail = "…" if end < len(text) else ""
    column = len(head) + sum(len(piece) for piece in shown[: offset - start])
    line = f"{indent}{head}{''.join(shown)}{tail}"
    if offset >= len(text):
        note = f"offset {offset}: the text ends where the grammar needs more"
    else:
        note = f"offset {offset}: first rejected character {text[offset]!r}"
    return f"{line}\n{indent}{' ' * column}^ {note}"


def json_data(adapter: Any, value: Any) -> Any:
    """``value`` as the JSON data validation reads back: Pydantic's JSON dump, with keys by
    validation alias (the names the validation schema uses), secrets revealed (the dump masks
    them), computed fields left out (they are not in the validation schema)."""
    try:
        data = adapter.dump_python(value, mode="json", by_alias=True, round_trip=True,
                                   exclude_computed_fields=True)
    except TypeError:  # Pydantic < 2.12 has no exclude_computed_fields
        data = adapter.dump_python(value, mode="json", by_alias=True, round_trip=True)
    return _as_validation_reads(value, data)


def _as_validation_reads(value: Any, data: Any) -> Any:
    """``data`` (the JSON dump of ``value``) with what the dump writes differently from what
    validation reads put right, walking both together as far as their shapes agree."""
    from pydantic import RootModel, Secret, SecretBytes, SecretStr
    from pydantic_core import to_jsonable_python

    if isinstance(value, (SecretStr, SecretBytes, Secret)):
        return to_jsonable_python(value.get_secret_value())
    if isinstance(value, RootModel):
        return _as_validation_reads(value.root, data)
    fields = _pydantic_fields(value)
    if fields is not None and isinstance(data, dict):
        by_key = {(info.serialization_alias or name): (name, _validation_key(value, name, info))
                  for name, info in fields.items()}
        renamed = {}
        for key, item in data.items():
            if key in by_key:
                name, key = by_key[key]
                item = _as_validation_reads(getattr(value, name, None), item)
            renamed[key] = item
        return renamed
    if isinstance(value, (list, tuple, set, frozenset)) and isinstance(data, list) and len(
            value) == len(data):
        return [_as_validation_reads(v, d) for v, d in zip(value, data)]
    if isinstance(value, dict) and isinstance(data, dict) and len(value) == len(data):
        return {k: _as_validation_reads(v, d) for v, (k, d) in zip(value.values(), data.items())}
    return data


def _pydantic_fields(value: Any) -> Mapping[str, Any] | None:
    """The FieldInfos of a model or Pydantic dataclass instance, else None."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return type(value).model_fields
    fields = getattr(type(value), "__pydantic_fields__", None)
    return fields if isinstance(fields, Mapping) and not isinstance(value, type) else None


def _validation_key(value: Any, name: str, info: Any) -> str:
    """The key Pydantic's validation schema names for a field (as its JSON Schema does)."""
    from pydantic import AliasChoices, AliasPath

    config = getattr(value, "model_config", None) or getattr(
        type(value), "__pydantic_config__", {})
    if config.get("validate_by_alias") is False:
        return name
    alias = info.validation_alias
    if isinstance(alias, str):
        return alias
    choices = alias.choices if isinstance(alias, AliasChoices) else []
    for choice in choices:
        if isinstance(choice, str):
            return choice
        if isinstance(choice, AliasPath) and len(choice.path) == 1 and isinstance(
                choice.path[0], str):
            return choice.path[0]
    return name


class RawNumber(float):
    """A number whose JSON text is ``text`` exactly (a Decimal the grammar writes as a number)."""

    text: str

    def __new__(cls, text: str) -> RawNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number


_NUMBER_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def _grammar_number_text(text: str) -> str:
    """A number as the grammar spells it: beyond 20 integer digits, with an exponent."""
    value = Decimal(text)
    if abs(value) < 10**20:
        return text
    mantissa, exponent = f"{value:E}".split("E")
    return f"{mantissa.rstrip('0').rstrip('.')}E{exponent}"


def numbers_where_schema_says(data: Any, schema: Any) -> Any:
    """``data`` with the strings the schema admits only as numbers (Pydantic dumps a Decimal as
    a string; with bounds, its schema is a number) as :class:`RawNumber`. Of a union, the first
    branch the converted value is valid against decides."""
    document = schema

    def resolve(node: Any) -> Any:
        return _dereferenced(document, node)

    def valid(value: Any, node: Any) -> bool:
        return bool(draft7_validator({**node, "$defs": document.get("$defs", {})}
                                     ).is_valid(value))

    def walk(value: Any, node: Any) -> Any:
        node = resolve(node)
        if not isinstance(node, Mapping):
            return value
        options = [o for word in ("anyOf", "oneOf") for o in map(resolve, node.get(word, ()))
                   if isinstance(o, Mapping)]
        if options:
            # A branch the value is valid against as it is comes first (a Decimal's string).
            for option in sorted(options, key=lambda o: not valid(value, o)):
                converted = walk(value, option)
                if valid(converted, option):
                    return converted
            return value
        if isinstance(value, str):
            kinds = node.get("type")
            kinds = [kinds] if isinstance(kinds, str) else kinds or []
            if ("number" in kinds or "integer" in kinds) and "string" not in kinds and \
                    _NUMBER_TEXT.fullmatch(value):
                return RawNumber(_grammar_number_text(value))
            return value
        if isinstance(value, list):
            items = node.get("prefixItems", [])
            rest = node.get("items", True)
            return [walk(v, items[i] if i < len(items) else rest) for i, v in enumerate(value)]
        if isinstance(value, dict):
            properties: Mapping[str, Any] = node.get("properties", {})
            extra = node.get("additionalProperties", True)
            return {k: walk(v, properties.get(k, extra)) for k, v in value.items()}
        return value

    return walk(data, schema)


def write_json(data: Any, whitespace: str = "compact", escapes: str = "any") -> str:
    """``canonical_json`` of ``data``, with each :class:`RawNumber` written as its own text."""
    from ._schema import canonical_json

    texts: list[str] = []

    def placeholders(value: Any) -> Any:
        if isinstance(value, RawNumber):
            texts.append(value.text)
            return f"\x00structgen-number-{len(texts) - 1}\x00"
        if isinstance(value, list):
            return [placeholders(v) for v in value]
        if isinstance(value, dict):
            return {k: placeholders(v) for k, v in value.items()}
        return value

    text = canonical_json(placeholders(data), whitespace=whitespace, escapes=escapes)
    if not texts:
        return text
    return re.sub(r'"\\u0000structgen-number-([0-9]+)\\u0000"',
                  lambda m: texts[int(m.group(1))], text)


class RoundTripCheck:
    """Checks one type against one grammar; each method returns None or a failure report.

    ``serialize`` turns ``json_data(adapter, value)`` into the grammar's text and
    ``parse`` reads such a text back (default: ``adapter.validate_json``); ``verdict(text)`` is
    the native check (a ``Verdict``); ``spellable(ch)`` says whether the vocabulary behind
    ``verdict`` can write the character at all. With ``refusal``, a sample that is the refusal
    alternative ``{"refusal": "..."}`` need not validate. ``note`` (which grammar, vocabulary
    and bounds) ends every report.
    """

    def __init__(self, tp: Any, serialize: Callable[[Any], str],
                 verdict: Callable[[str], Any],
                 spellable: Callable[[str], bool] = lambda ch: True,
                 parse: Callable[[str], Any] | None = None, refusal: bool = False,
                 note: str = "") -> None:
        self.tp = tp
        self.name = type_name(tp)
        self.adapter = type_adapter(tp)
        self.serialize = serialize
        self.verdict = verdict
        self.spellable = spellable
        self.parse = parse or self.adapter.validate_json
        self.refusal = refusal
        self.note = note

    def round_trip_problem(self, instance: Any) -> str | None:
        report = self._round_trip_problem(instance)
        return None if report is None else self._noted(report)

    def sample_problem(self, text: str) -> str | None:
        report = self._sample_problem(text)
        return None if report is None else self._noted(report)

    def _noted(self, report: str) -> str:
        return f"{report}\n{self.note}" if self.note else report

    def _round_trip_problem(self, instance: Any) -> str | None:
        text = self.serialize(json_data(self.adapter, instance))
        head = f"round trip of {self.name} failed"
        shown = f"  instance: {instance!r}"
        verdict = self.verdict(text)
        at = verdict.rejected_at or 0
        # A raw character no token can write (escapes="needed" leaves no other spelling) is the
        # vocabulary's limit, not the grammar's: ``_native_problem`` excuses it too.
        if not verdict.accepted and (at >= len(text) or self.spellable(text[at])):
            return (f"{head}: llama.cpp's grammar sampler rejects the JSON of a valid instance\n"
                    f"{shown}\n  text (first rejected character marked):\n"
                    f"{caret_excerpt(text, verdict.rejected_at or 0, indent='    ')}")
        try:
            back = self.parse(text)
        except ValueError as error:
            return f"{head}: the JSON does not validate back\n{shown}\n  text: {text}\n{error}"
        if back != instance:
            return (f"{head}: parsing the JSON back gives a different value\n{shown}\n"
                    f"  parsed:   {back!r}\n  text: {text}")
        return None

    def _sample_problem(self, text: str) -> str | None:
        head = f"soundness of the grammar of {self.name} failed"
        try:
            self.parse(text)
        except ValueError as error:
            if not (self.refusal and _is_refusal(text)):
                return (f"{head}: a string the grammar derives does not validate\n"
                        f"  text: {text!r}\n{error}")
        return self._native_problem(head, text)

    def _native_problem(self, head: str, text: str) -> str | None:
        verdict = self.verdict(text)
        at = verdict.rejected_at or 0
        if not verdict.accepted and (at >= len(text) or self.spellable(text[at])):
            # (A character no token of the vocabulary can write is no disagreement: a model
            # with this vocabulary never emits it.)
            return (f"{head}: llama.cpp's grammar sampler rejects a string the grammar derives"
                    " (the sampler and the pure-Python derivation disagree)\n"
                    f"{caret_excerpt(text, at)}")
        return None


def _is_refusal(text: str) -> bool:
    """Whether ``text`` is the refusal alternative: ``{"refusal": "<reason>"}``."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and list(value) == ["refusal"] and isinstance(
        value["refusal"], str)


def run_property(strategy: Any, problem: Callable[[Any], str | None], *,
                 max_examples: int, note: str = "") -> None:
    """Run ``problem`` on ``max_examples`` values of ``strategy``; raise AssertionError with the
    report of the (shrunk) failing value. A starving instance strategy gets its cause noted,
    with ``note`` (the grammar and the bounds the instances were drawn within)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import FailedHealthCheck, Unsatisfiable

    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise ValueError(f"max_examples must be a positive int, not {max_examples!r}")

    @settings(max_examples=max_examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy)
    def holds(value: Any) -> None:
        report = problem(value)
        if report is not None:
            raise AssertionError(report)

    try:
        holds()
    except (FailedHealthCheck, Unsatisfiable) as error:
        rejections = getattr(strategy, "structgen_rejections", None)
        if rejections is None or not rejections.count:
            raise
        # Same exception type, with the cause spelled out (add_note needs Python 3.11).
        raise type(error)(
            f"{error}\nstructgen: Pydantic refused {rejections.count} documents generated from"
            f" the JSON Schema (the type has constraints its schema does not state, such as"
            f" validators); last error: {rejections.last}"
            + (f"\n{note}\n  (a type whose valid values all lie beyond these bounds cannot be"
               " produced by this grammar)" if note else "")
        ) from None


# ---------------------------------------------------------------- which grammar, which vocabulary

#: The named grammars a property can check: what ``llm.generate`` sends, or ``Grammar.from_type``.
GRAMMAR_CHOICES = ("generation", "type")


@dataclass(frozen=True)
class Judge:
    """llama.cpp's grammar sampler on one model's vocabulary (``name``: the GGUF file's)."""

    vocab: NativeVocab
    name: str

    def verdict(self, gbnf: str, root: str, text: str) -> Verdict:
        return self.vocab.check(gbnf, root, text)

    def spellable(self, ch: str) -> bool:
        """Whether the vocabulary has a byte token for every byte of ``ch`` (SmolLM2's has none
        for the UTF-8 lead bytes of U+40000..U+BFFFF, unassigned planes 4-11)."""
        return all(b in self.vocab.byte_tokens for b in ch.encode("utf-8"))


def judge(model: Any = None) -> Judge:
    """The judge of ``model``: None (the default model), a GGUF path, or an ``LLM`` running a
    llama.cpp model in this process. Only the vocabulary is loaded (once per file)."""
    from ._backends.llamacpp._native import native_vocab

    if model is None:
        from ._model_path import default_model_path

        return Judge(native_vocab(), default_model_path().name)
    path = _gguf_of(model)
    return Judge(native_vocab(path), Path(path).name)


def _gguf_of(model: Any) -> str:
    """The GGUF file of a path or an ``LLM`` (TypeError for anything else)."""
    from ._llm import LLM

    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    if isinstance(model, LLM):
        llama = getattr(model.backend, "llama", None)
        path = getattr(llama, "model_path", None)
        if isinstance(path, str) and path:
            return path
        raise TypeError(
            f"model=: this LLM's backend ({type(model.backend).__name__}) holds no llama.cpp "
            "model in this process, so its vocabulary cannot be read here; give the GGUF path "
            "of the model it runs")
    raise TypeError(f"model= takes a GGUF path or an LLM, not {type(model).__name__}")


def bounds_note(max_string_length: int | None, cap_source: str = "max_string_length") -> str:
    """The bounds the instances of a round trip are drawn within, as a report line."""
    from ._schema.emit.digits import digits_cap

    strings = (f"strings without a maxLength at most {max_string_length} characters"
               f" ({cap_source})" if max_string_length is not None else
               "strings without a maxLength unbounded")
    digits = len(str(digits_cap(0)))
    return (f"  bounds: {strings}; integers without a bound on a side at most {digits} digits"
            f" there (the converter's digit cap); recursion unrolled {RECURSION_DEPTH} levels")


@dataclass(frozen=True)
class Prepared:
    """A type with the grammar a property checks, its checker, and the string cap its
    instances are drawn within."""

    grammar: Grammar
    check: RoundTripCheck
    max_string_length: int | None


def prepare(output_type: Any, grammar: Any, options: GrammarChanges, model: Any) -> Prepared:
    """The grammar to check (``grammar``: ``"generation"``, ``"type"``, a Grammar or GBNF
    text), how its JSON is written and read back, and the native judge of ``model``."""
    from ._grammar import Grammar
    from ._schema.options import PRESETS

    name = type_name(output_type)
    parse: Callable[[str], Any] | None = None
    cap_source = "max_string_length, given here"
    if grammar == "generation":
        spec = _generation_spec(output_type, options)
        built, chosen = spec.grammar, spec.options.grammar
        parse = spec.validate  # read back as generate reads its answer
        what = (f"the grammar llm.generate sends for {name}"
                f" ({_generation_note(output_type, options)})")
        if "max_string_length" not in options:
            own = _decorated_options(output_type)
            cap_source = ('max_string_length of the "generation" preset' if own is None or
                          own.max_string_length == PRESETS["generation"].max_string_length
                          else "max_string_length, from @structured")
    elif grammar == "type":
        chosen = PRESETS["type"].with_changes(**options)
        built = Grammar.from_type(output_type, **options)
        what = (f'Grammar.from_type({name}) (the "type" preset{_changes(options, " with ")};'
                " not what llm.generate sends)")
    elif isinstance(grammar, str) and "::=" not in grammar:
        raise ValueError(f"grammar= is {' or '.join(map(repr, GRAMMAR_CHOICES))}, a Grammar or "
                         f"GBNF text (rules written name ::= ...), not {grammar!r}")
    elif isinstance(grammar, (Grammar, str)):
        if set(options) - {"whitespace"}:
            raise TypeError("with a grammar of your own only the whitespace option may be given "
                            "(it says how to write the JSON), not "
                            f"{sorted(set(options) - {'whitespace'})}")
        built = grammar if isinstance(grammar, Grammar) else Grammar.from_string(grammar)
        chosen = PRESETS["schema"].with_changes(**options)
        what = "the grammar given (grammar=)"
    else:
        raise TypeError(f"grammar= takes {' or '.join(map(repr, GRAMMAR_CHOICES))}, a Grammar or "
                        f"GBNF text, not {type(grammar).__name__}")
    referee = judge(model)
    schema = _schema_of(output_type)
    serialize, raw = _writer(chosen, schema)
    if raw and parse is None:
        # raw_pattern: the root string is written bare, so it is read back as that string.
        adapter = type_adapter(output_type)
        parse = lambda text: adapter.validate_json(json.dumps(text))  # noqa: E731
    note = (f"  checked: {what}, on the vocabulary of {referee.name}\n"
            f"{bounds_note(chosen.max_string_length, cap_source)}")
    gbnf, root = built.gbnf, built.root
    check = RoundTripCheck(output_type, serialize, lambda text: referee.verdict(gbnf, root, text),
                           referee.spellable, parse, refusal=chosen.refusal, note=note)
    return Prepared(built, check, chosen.max_string_length)


def _schema_of(output_type: Any) -> Any:
    from ._types import json_schema_of

    return json_schema_of(output_type)


def _generation_spec(output_type: Any, options: Mapping[str, Any]) -> OutputSpec[Any]:
    """The OutputSpec ``llm.generate`` uses for the type (``spec_for``, its own call), with
    ``options`` changing its grammar options as ``@structured`` would."""
    from ._generate._output import spec_for

    spec = spec_for(output_type)
    if not options:
        return spec
    changed = spec.options.grammar.with_changes(**options)
    return spec_for(output_type, replace(spec.options, grammar=changed))


def _decorated_options(output_type: Any) -> GrammarOptions | None:
    """The grammar options of a ``@structured`` class, None for a type that says nothing."""
    from ._generate._output import _SPEC_ATTRIBUTE

    own = vars(output_type).get(_SPEC_ATTRIBUTE) if isinstance(output_type, type) else None
    return None if own is None else own.options.grammar


def _generation_note(output_type: Any, options: Mapping[str, Any]) -> str:
    """Where the generation grammar's options come from: the preset, ``@structured``'s changes
    to it, the changes given here."""
    from ._schema.options import PRESETS

    own = _decorated_options(output_type)
    text = 'the "generation" preset'
    if own is not None:
        base = PRESETS["generation"]
        said = {f.name: getattr(own, f.name) for f in fields(own)
                if getattr(own, f.name) != getattr(base, f.name)}
        text += f" with @structured({_changes(said)})" if said else ", @structured"
    return text + (_changes(options, "; changed here: ") if options else "")


def _changes(options: Mapping[str, Any], lead: str = "") -> str:
    return lead + ", ".join(f"{k}={v!r}" for k, v in options.items()) if options else ""


def _writer(chosen: GrammarOptions, schema: Any) -> tuple[Callable[[Any], str], bool]:
    """How the grammar writes a value's JSON data (and whether a root string is written bare)."""
    reorder = bool(chosen.prop_order) or chosen.key_order == "required-first"
    raw = chosen.raw_pattern and _is_plain_string_schema(schema)

    def serialize(data: Any) -> str:
        if raw and isinstance(data, str):
            return data
        # A bounded Decimal is dumped as a string but written by the grammar as a number.
        data = numbers_where_schema_says(data, schema)
        if reorder:
            data = order_keys(data, schema, prop_order=chosen.prop_order,
                              required_first=chosen.key_order == "required-first")
        return write_json(data, whitespace=chosen.whitespace, escapes=chosen.escapes)

    return serialize, raw


def _is_plain_string_schema(schema: Any) -> bool:
    """Whether the converter's ``raw_pattern`` applies: the root is one plain string schema."""
    combinators = {"enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "if"}
    return (isinstance(schema, dict) and schema.get("type") in ("string", ["string"])
            and not combinators & set(schema))

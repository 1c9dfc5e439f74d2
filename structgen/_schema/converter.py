"""The conversion entry points: options in, GBNF text out."""

from __future__ import annotations

import json
from typing import Any

from .._errors import SchemaError, StructgenError, UnsupportedSchemaError
from .._escapes import gbnf_literal
from .emit.emitter import Emitter
from .ir.atoms import Irreducible, StrAtom, StringSpec
from .normalize.meta import check_meta_schema
from .normalize.normalizer import Normalizer
from .normalize.refs import Resolver
from .options import GrammarOptions

#: Length bounds of the refusal reason.
REFUSAL_MAX_LENGTH = 500


def _load(schema: Any) -> Any:
    if isinstance(schema, str):
        try:
            return json.loads(schema)
        except ValueError as exc:
            raise SchemaError(f"the schema is not valid JSON: {exc}") from exc
    if isinstance(schema, (bool, dict)):
        return schema  # only ever read: the conversion never writes into schema documents
    raise TypeError(f"a JSON Schema must be a dict, a bool or a JSON string, not "
                    f"{type(schema).__name__}")


def convert(schema: Any, options: GrammarOptions) -> str:
    """GBNF text (root rule ``root``) accepting exactly the JSON texts of the schema's instances."""
    document = _load(schema)
    if not isinstance(document, (dict, bool)):
        raise SchemaError("a JSON Schema must be an object or a boolean")
    outcome = _convert_or_explain(document, options)
    if isinstance(outcome, StructgenError):
        raise outcome
    return outcome


def _convert_or_explain(document: Any, options: GrammarOptions) -> str | StructgenError:
    """The grammar, or the typed error to raise once this conversion's structures are gone.

    Raised from here, an error's traceback would hold every frame of the conversion, and so
    every structure it built, until the caller drops the error (a typed refusal is an answer,
    not a crash: its message names the pointer and the keyword, the frames add nothing).
    """
    try:
        check_meta_schema(document)  # the converter reads keywords as valid: an invalid one is named
    except SchemaError as exc:
        return _without_frames(exc)
    except RecursionError:  # jsonschema's walk is about as deep as ours
        return UnsupportedSchemaError("the schema nests too deeply to convert", pointer="#")
    resolver = Resolver(document, options.refs, options.allow_fetch,
                        options.refs_use_dynamic_ref)
    norm = Normalizer(options, resolver)
    try:
        return _convert(document, resolver, norm, options)
    except Irreducible as exc:
        # Last resort: an exact set operation failed outside the keyword that asked for it.
        pointer, keyword = norm.current_keyword()
        return UnsupportedSchemaError(str(exc), pointer=pointer, keyword=keyword)
    except RecursionError:
        pointer, keyword = norm.current_keyword()
        return UnsupportedSchemaError("the schema nests too deeply to convert", pointer=pointer,
                                      keyword=keyword)
    except StructgenError as exc:
        return _without_frames(exc)


def _without_frames(error: StructgenError) -> StructgenError:
    """``error`` and the errors chained to it, each without its traceback."""
    link: BaseException | None = error
    while link is not None:
        link.__traceback__ = None
        link = link.__cause__ or link.__context__
    return error


def _convert(document: Any, resolver: Resolver, norm: Normalizer, options: GrammarOptions
             ) -> str:
    ir = norm.value_schema(document, resolver.root_base, "#")
    emitter = Emitter(norm, options)
    emitter.rules.reserve("root")
    if options.raw_pattern and len(ir) == 1 and isinstance(ir[0], StrAtom):
        expr = emitter.string(ir[0].spec, "root-string", "#", raw=True)
    else:
        expr = emitter.emit(ir, "root-value", "#") if ir else None
    if expr is None:
        raise SchemaError("the schema accepts no value", pointer="#")
    if options.refusal:
        expr = f"{expr} | {refusal_rule(emitter)}"
    emitter.rules.define("root", emitter.rules.unaliased(expr))
    gbnf = emitter.rules.to_gbnf("root")
    check_grammar_budget(gbnf, options.max_grammar_bytes)
    norm.warn_dropped()
    return gbnf


def check_grammar_budget(gbnf: str, max_bytes: int | None) -> None:
    """Refuse a grammar over the size budget before llama.cpp ever loads it."""
    if max_bytes is None or len(gbnf) <= max_bytes // 4:  # at most 4 UTF-8 bytes a character
        return
    size = len(gbnf.encode("utf-8"))
    if size > max_bytes:
        raise UnsupportedSchemaError(
            f"the grammar would be {size:,} bytes, over the budget of {max_bytes:,} "
            "(max_grammar_bytes; None lifts it): llama.cpp's time to load and copy a grammar "
            "grows with its size", pointer="#")


def refusal_rule(emitter: Emitter) -> str:
    reason = emitter.string(StringSpec(min_length=1, max_length=REFUSAL_MAX_LENGTH),
                            "refusal-reason", "#")
    body = f'{emitter.open_obj} {gbnf_literal(json.dumps("refusal"))} {emitter.colon} {reason}' \
           f' {emitter.tail} "}}"'
    return emitter.rules.add("refusal", " ".join(body.split()))


def refusal_json(reason: str, whitespace: str = "compact") -> str:
    """The text of the refusal alternative for ``reason``."""
    return canonical_json({"refusal": reason}, whitespace)


def canonical_json(value: Any, whitespace: str = "compact", escapes: str = "any") -> str:
    """The exact text the grammar accepts for ``value``: ``json.dumps`` with the mode's separators
    (``escapes="needed"``: non-ASCII characters raw, the one spelling that mode leaves)."""
    ascii_only = escapes != "needed"
    if whitespace == "minified":
        return json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only)
    if whitespace in ("compact", "flexible"):
        return json.dumps(value, ensure_ascii=ascii_only)
    raise ValueError(f"whitespace must be 'compact', 'minified' or 'flexible', not {whitespace!r}")

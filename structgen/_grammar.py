"""``Grammar``, an immutable GBNF definition, and ``SchemaConverter``, which builds them.

A Grammar owns no native resources. Compiling it against a vocabulary is a separate, cached
step done by a backend; per-request sampler state is a third object owned by the request.
The converter owns the grammars it built (a cache with a byte budget) and, through
``structgen._memo``, can clear the memo tables of the conversion's pure functions.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, Union

from typing_extensions import Unpack

from ._memo import clear_memos, memo_entries
from ._schema import convert
from ._schema.options import PRESETS, GrammarChanges, GrammarOptions

__all__ = ["ConverterCacheInfo", "Grammar", "SchemaConverter", "Trigger", "json_schema_to_gbnf"]

Trigger = Union[str, int]
"""What starts a lazy grammar: a regex over the text, or a token id."""
V = TypeVar("V")
_DERIVED = object()  # tags the keys of derived values apart from any schema text
_ROOT_NAME = re.compile(r"[A-Za-z0-9-]+")
_MAX_TOKEN_ID = 2**31


def _check_text(gbnf: object) -> str:
    if not isinstance(gbnf, str):
        raise TypeError(f"grammar must be a str, not {type(gbnf).__name__}")
    if not gbnf.strip():
        raise ValueError("grammar is empty")
    if "\x00" in gbnf:
        raise ValueError("grammar contains a NUL character")
    return gbnf


def _check_root(root: object) -> str:
    if not isinstance(root, str):
        raise TypeError(f"root must be a str, not {type(root).__name__}")
    if not _ROOT_NAME.fullmatch(root):
        raise ValueError(f"root must match [A-Za-z0-9-]+, got {root!r}")
    return root


def _check_triggers(triggers: Iterable[Trigger] | None) -> tuple[Trigger, ...]:
    if triggers is None:
        return ()
    if isinstance(triggers, (str, bytes)) or not isinstance(triggers, Iterable):
        raise TypeError("triggers must be a list of regex strings and token ids")
    checked: list[Trigger] = []
    for t in triggers:
        if isinstance(t, bool):
            raise TypeError("a trigger token id must be an int, not a bool")
        if isinstance(t, int):
            if not 0 <= t < _MAX_TOKEN_ID:
                raise ValueError(f"trigger token id {t} is outside [0, 2**31)")
        elif isinstance(t, str):
            if not t:
                raise ValueError("a trigger pattern must not be empty")
            if "\x00" in t:
                raise ValueError("a trigger pattern must not contain NUL")
        else:
            raise TypeError(f"a trigger must be a str or an int, not {type(t).__name__}")
        checked.append(t)
    return tuple(checked)


class Grammar:
    """A GBNF grammar: ``gbnf`` text, the ``root`` rule it starts from, and lazy ``triggers``.

    Immutable and hashable; ``str(grammar)`` is the GBNF text. Build one with a factory:
    :meth:`from_string`, :meth:`from_file`, :meth:`from_json_schema` or :meth:`from_type`.
    Text given here (or to ``from_string``/``from_file``) is parsed and checked (line and
    column on error), so llama.cpp never sees a grammar that is known to be broken; grammars
    the converter writes are safe by construction and are not parsed again.
    """

    __slots__ = ("_gbnf", "_root_name", "_triggers")
    _gbnf: str
    _root_name: str
    _triggers: tuple[Trigger, ...]

    def __init__(
        self, gbnf: str, *, root: str = "root", triggers: Iterable[Trigger] | None = None
    ) -> None:
        from ._gbnf import check_safe

        text = _check_text(gbnf)
        start = _check_root(root)
        check_safe(text, start)
        object.__setattr__(self, "_gbnf", text)
        object.__setattr__(self, "_root_name", start)
        object.__setattr__(self, "_triggers", _check_triggers(triggers))

    @classmethod
    def _trusted(cls, gbnf: str, root: str = "root", triggers: tuple[Trigger, ...] = ()
                 ) -> Grammar:
        """A Grammar of text structgen wrote itself, not parsed or checked again.

        Only for the converter's output (safe by construction: tests lint every corpus
        grammar), whose re-parse by the pure-Python parser cost more than converting.
        """
        grammar = object.__new__(cls)
        object.__setattr__(grammar, "_gbnf", gbnf)
        object.__setattr__(grammar, "_root_name", root)
        object.__setattr__(grammar, "_triggers", triggers)
        return grammar

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Grammar is immutable")

    @property
    def gbnf(self) -> str:
        return self._gbnf

    @property
    def root(self) -> str:
        return self._root_name

    @property
    def triggers(self) -> tuple[Trigger, ...]:
        return self._triggers

    # llama-cpp-python reads these two attributes from any grammar object it is given.
    @property
    def _grammar(self) -> str:
        return self._gbnf

    @property
    def _root(self) -> str:
        return self._root_name

    def __str__(self) -> str:
        return self._gbnf

    def __repr__(self) -> str:
        first = self._gbnf.strip().splitlines()[0]
        more = " …" if len(self._gbnf.strip().splitlines()) > 1 else ""
        return f"Grammar({first[:60]!r}{more}, root={self._root_name!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grammar):
            return NotImplemented
        return (self._gbnf, self._root_name, self._triggers) == (
            other._gbnf,
            other._root_name,
            other._triggers,
        )

    def __hash__(self) -> int:
        return hash((self._gbnf, self._root_name, self._triggers))

    @classmethod
    def from_string(
        cls, gbnf: str, *, root: str = "root", triggers: Iterable[Trigger] | None = None
    ) -> Grammar:
        """Wrap GBNF text; ``root`` selects the start rule."""
        return cls(gbnf, root=root, triggers=triggers)

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        root: str = "root",
        triggers: Iterable[Trigger] | None = None,
    ) -> Grammar:
        """Read a UTF-8 GBNF file (FileNotFoundError if missing, OSError if not UTF-8)."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise OSError(f"grammar file {p} is not valid UTF-8: {e}") from e
        return cls(text, root=root, triggers=triggers)

    @classmethod
    def from_json_schema(
        cls,
        schema: dict[str, Any] | str | bool,
        *,
        triggers: Iterable[Trigger] | None = None,
        **changes: Unpack[GrammarChanges],
    ) -> Grammar:
        """Convert a JSON Schema (dict, bool or JSON text) with the shared converter.

        The options are the ``"schema"`` preset (a faithful conversion); keyword ``changes``
        (:class:`~structgen.GrammarChanges`) change single fields of it
        (``whitespace="minified"``). Options of your own: :meth:`SchemaConverter.convert`.
        """
        opts = PRESETS["schema"].with_changes(**changes)
        return SchemaConverter.shared().convert_schema(schema, options=opts).with_triggers(
            triggers)

    @classmethod
    def from_type(
        cls,
        output_type: Any,
        *,
        triggers: Iterable[Trigger] | None = None,
        **changes: Unpack[GrammarChanges],
    ) -> Grammar:
        """The grammar of a Pydantic model or any type Pydantic's ``TypeAdapter`` handles.

        The options are the ``"type"`` preset: objects are closed unless the type says
        otherwise, so a model emits only its declared fields, in declaration order, and integers
        are written plainly, as Pydantic serializes them; keyword ``changes``
        (:class:`~structgen.GrammarChanges`) change single fields of it
        (``additional_properties=None`` follows the schema). Options of your own:
        :meth:`SchemaConverter.convert`.
        """
        opts = PRESETS["type"].with_changes(**changes)
        return SchemaConverter.shared().convert_type(output_type, options=opts).with_triggers(
            triggers)

    def with_triggers(self, triggers: Iterable[Trigger] | None) -> Grammar:
        """This grammar with ``triggers`` in place of its own (itself when they are the same);
        the text is not parsed again."""
        checked = _check_triggers(triggers)
        if checked == self._triggers:
            return self
        return Grammar._trusted(self._gbnf, self._root_name, checked)


def json_schema_to_gbnf(schema: dict[str, Any] | str | bool, **changes: Unpack[GrammarChanges]) -> str:
    """Convert a JSON Schema (dict, bool or JSON text) to GBNF whose root rule is ``root``.

    The options are the ``"schema"`` preset; keyword ``changes`` (:class:`~structgen.GrammarChanges`)
    change single fields of it (``json_schema_to_gbnf(schema, whitespace="minified", refusal=True)``).
    """
    return Grammar.from_json_schema(schema, **changes).gbnf


class ConverterCacheInfo(NamedTuple):
    """What a :class:`SchemaConverter`'s caches hold (see :meth:`SchemaConverter.cache_info`)."""

    hits: int
    misses: int
    #: Grammars in the converter's own cache, and their size with their keys (characters).
    grammars: int
    bytes: int
    max_bytes: int
    #: Entries of the memo tables of pure functions: conversion, grammar checks, tool-call
    #: grammars (process-wide, bounded by entry counts).
    memo_entries: int
    #: Values kept beside the grammars, in the same budget (generation's output specs: a
    #: type's grammar, instructions and validator).
    derived: int = 0


#: The default budget of a converter's grammar cache: GBNF text and keys, in characters.
DEFAULT_CACHE_BYTES = 64 * 2**20


class SchemaConverter:
    """The embedded JSON Schema → GBNF converter: one set of options and the grammars it built.

    ``SchemaConverter(options)`` converts everything with ``options``; without them a JSON
    Schema gets the ``"schema"`` preset and a Python type the ``"type"`` preset, as
    :meth:`Grammar.from_json_schema` and :meth:`Grammar.from_type` do (they, and
    :func:`json_schema_to_gbnf`, are calls into :meth:`shared`).

    Grammars are cached by the schema's JSON text and the options, least recently used first
    out once ``max_cache_bytes`` is reached; values derived from them (:meth:`derive`) share
    the cache and its budget. The converter is thread-safe: conversions run in
    parallel, and two threads converting the same schema at once both get a correct grammar.
    """

    _shared: SchemaConverter | None = None
    _shared_lock = threading.Lock()

    def __init__(self, options: GrammarOptions | None = None, *,
                 max_cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if options is not None and not isinstance(options, GrammarOptions):
            raise TypeError("options must be a GrammarOptions")
        if isinstance(max_cache_bytes, bool) or not isinstance(max_cache_bytes, int) \
                or max_cache_bytes < 0:
            raise ValueError("max_cache_bytes must be a non-negative int")
        self._options = options
        self._max_bytes = max_cache_bytes
        # Grammars by (schema text, options key), and derived values by (_DERIVED, key); each
        # with its size in characters, least recently used first.
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._hits = self._misses = 0
        self._lock = threading.Lock()

    @classmethod
    def shared(cls) -> SchemaConverter:
        """The converter behind ``Grammar.from_json_schema``/``from_type``, ``json_schema_to_gbnf``
        and generation (no options of its own: each call brings its preset)."""
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    @property
    def options(self) -> GrammarOptions | None:
        """The options every conversion uses (None: each input's preset)."""
        return self._options

    def convert(self, schema_or_type: Any, *, options: GrammarOptions | None = None) -> Grammar:
        """The grammar of a JSON Schema (a dict, a bool or JSON text) or of a Python type.

        ``options`` replace the converter's own for this call. Raises ``SchemaError`` for an
        invalid schema and ``UnsupportedSchemaError`` (pointer, keyword) for one that cannot be
        enforced.
        """
        if isinstance(schema_or_type, (dict, str, bool)):
            return self.convert_schema(schema_or_type, options=options)
        return self.convert_type(schema_or_type, options=options)

    def convert_schema(self, schema: dict[str, Any] | str | bool, *,
                       options: GrammarOptions | None = None) -> Grammar:
        """The grammar of a JSON Schema (anything else is a ``TypeError``)."""
        return self._convert(schema, options or self._options or PRESETS["schema"])

    def convert_type(self, output_type: Any, *, options: GrammarOptions | None = None) -> Grammar:
        """The grammar of a Python type: of the JSON Schema Pydantic validates it against."""
        from ._types import json_schema_of

        return self._convert(json_schema_of(output_type),
                             options or self._options or PRESETS["type"])

    def _convert(self, schema: dict[str, Any] | str | bool, options: GrammarOptions) -> Grammar:
        key = _cache_key(schema, options)
        if key is None:
            return Grammar._trusted(convert(schema, options))
        return self._kept(key, lambda: Grammar._trusted(convert(schema, options)),
                          lambda grammar: len(key[0]) + len(key[1]) + len(grammar.gbnf))

    def derive(self, key: Hashable, make: Callable[[], V], size: Callable[[V], int]) -> V:
        """``make()``, kept by ``key`` with this converter's grammars and in their budget
        (``size`` says what it counts, in characters). For values built from a grammar this
        converter wrote, so one budget bounds them and :meth:`clear_cache` drops them."""
        return self._kept((_DERIVED, key), make, size)

    def _kept(self, key: Hashable, make: Callable[[], V], size: Callable[[V], int]) -> V:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self._hits += 1
                return found[0]  # type: ignore[no-any-return]
            self._misses += 1
        value = make()  # outside the lock: conversions run in parallel
        cost = size(value)
        if cost > self._max_bytes:
            return value
        with self._lock:
            if key in self._entries:
                return self._entries[key][0]  # type: ignore[no-any-return]
            self._entries[key] = (value, cost)
            self._bytes += cost
            while self._bytes > self._max_bytes:
                _, (_, freed) = self._entries.popitem(last=False)
                self._bytes -= freed
        return value

    def clear_cache(self) -> None:
        """Empty this converter's cache (grammars and derived values) and the memo tables."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0
        clear_memos()

    def cache_info(self) -> ConverterCacheInfo:
        """Hits and misses of this converter's cache, what it holds, and the memo entries."""
        with self._lock:
            derived = sum(1 for key in self._entries if isinstance(key, tuple) and key[0] is _DERIVED)
            return ConverterCacheInfo(self._hits, self._misses, len(self._entries) - derived, self._bytes,
                                      self._max_bytes, memo_entries(), derived)

    def __repr__(self) -> str:
        return f"SchemaConverter({self._options!r}, max_cache_bytes={self._max_bytes})"


def _cache_key(schema: dict[str, Any] | str | bool, options: GrammarOptions
               ) -> tuple[str, str] | None:
    """(the schema's JSON text, the options' key), or None for a schema JSON cannot write
    (it is converted, and fails there, uncached). Key order is kept: it is the declared order."""
    if isinstance(schema, str):
        return schema, options.cache_key
    try:
        return json.dumps(schema, ensure_ascii=False, allow_nan=False), options.cache_key
    except (TypeError, ValueError, RecursionError):
        return None

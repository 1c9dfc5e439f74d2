"""``Grammar``: an immutable, printable GBNF definition (text, start rule, lazy triggers).

A Grammar owns no native resources. Compiling it against a vocabulary is a separate, cached
step done by a backend; per-request sampler state is a third object owned by the request.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Union

from ._schema import convert
from ._schema.options import GrammarOptions

__all__ = ["Grammar", "Trigger"]

Trigger = Union[str, int]
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
    The text is parsed and checked here (line and column on error), so llama.cpp never sees a
    grammar that is known to be broken.
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
        options: GrammarOptions | None = None,
        **option_fields: Any,
    ) -> Grammar:
        """Convert a JSON Schema (dict or JSON text); options as in ``json_schema_to_gbnf``."""
        opts = _options(options, option_fields)
        return cls(convert(schema, opts), triggers=triggers)

    @classmethod
    def from_type(
        cls,
        output_type: Any,
        *,
        triggers: Iterable[Trigger] | None = None,
        options: GrammarOptions | None = None,
        **option_fields: Any,
    ) -> Grammar:
        """The grammar of a Pydantic model or any type Pydantic's ``TypeAdapter`` handles.

        Objects are closed unless the type says otherwise (``additional_properties=False``),
        so a model emits only its declared fields, in declaration order; integers are written
        plainly (``integer_zero_fraction=False``), as Pydantic serializes them.
        """
        from ._types import json_schema_of

        option_fields.setdefault("additional_properties", False)
        option_fields.setdefault("integer_zero_fraction", False)
        opts = _options(options, option_fields)
        return cls(convert(json_schema_of(output_type), opts), triggers=triggers)


def _options(options: GrammarOptions | None, fields: dict[str, Any]) -> GrammarOptions:
    if options is None:
        return GrammarOptions(**fields)
    if fields:
        from dataclasses import replace

        return replace(options, **fields)
    return options

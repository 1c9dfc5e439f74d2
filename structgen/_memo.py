"""Memo tables of the conversion's pure functions, registered so one call can clear them all.

Each table is an ``lru_cache`` bounded by its entry count; the registry lets
:meth:`structgen.SchemaConverter.clear_cache` empty every one of them and
:meth:`~structgen.SchemaConverter.cache_info` count their entries. They are process-wide, like
the functions they remember: a result depends only on the arguments, so any converter may reuse
it, and clearing one costs only the time to compute it again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Table(Protocol):
    def clear(self) -> None: ...
    def __len__(self) -> int: ...


class _LruTable:
    __slots__ = ("_cached",)

    def __init__(self, cached: Any) -> None:
        self._cached = cached

    def clear(self) -> None:
        self._cached.cache_clear()

    def __len__(self) -> int:
        return int(self._cached.cache_info().currsize)


_TABLES: list[Table] = []


def memo(maxsize: int | None) -> Callable[[F], F]:
    """``functools.lru_cache(maxsize)``, registered (``maxsize=None`` only for tables whose keys
    are few by nature, such as one entry per JSON Schema draft)."""

    def decorate(function: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _TABLES.append(_LruTable(cached))
        return cached  # type: ignore[return-value]

    return decorate


def register(table: Table) -> None:
    """Register a table kept by hand (a dict with its own bound)."""
    _TABLES.append(table)


def clear_memos() -> None:
    for table in _TABLES:
        table.clear()


def memo_entries() -> int:
    return sum(len(table) for table in _TABLES)

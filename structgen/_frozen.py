"""Hash caching for the immutable values the converter uses as dictionary and cache keys."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def cached_hash(cls: type[T]) -> type[T]:
    """Make a frozen dataclass remember its hash and its repr.

    IR atoms, string specs and character sets are nested tuples of such values; Python does not
    cache tuple hashes, so every dictionary lookup would rehash the whole tree. The value is the
    one the dataclass computes (hash of the field tuple), so set and dict behaviour is unchanged.
    The repr tells equal values with different spellings apart (1 and 1.0) where the emitter
    reuses what it wrote for an equal atom; it too would walk the whole tree every time.
    """

    def __getstate__(self: Any) -> dict[str, Any]:
        # Only the fields: string hashes differ between processes, so a pickled hash (or any
        # other memo kept beside the fields) would be wrong wherever the value is unpickled.
        return {f.name: getattr(self, f.name) for f in fields(self)}

    cls.__hash__ = _remembered(cls.__hash__, "_hash")  # type: ignore[method-assign,assignment]
    cls.__repr__ = _remembered(cls.__repr__, "_repr")  # type: ignore[method-assign]
    cls.__getstate__ = __getstate__  # type: ignore[attr-defined]
    return cls


def _remembered(compute: Callable[[Any], R], slot: str) -> Callable[[Any], R]:
    """``compute`` as a method that keeps its answer in the instance's ``slot``."""

    def method(self: Any) -> R:
        try:
            return self.__dict__[slot]  # type: ignore[no-any-return]
        except KeyError:
            value = compute(self)
            object.__setattr__(self, slot, value)
            return value

    return method

"""Readable names of Python types for failure reports and test ids: ``User``, ``list[int]``,
``Optional[Address]``, ``Literal['a']``, ``Annotated[int, Gt(gt=0)]``. A type's own repr carries
module paths (``typing.Optional[...]``, ``<class 'app.models.User'>``), while a report or a pytest
case id should show the type as its user wrote it, so the name is rebuilt from the type's origin
and arguments.
"""

from __future__ import annotations

from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

__all__ = ["type_name"]


def type_name(tp: Any) -> str:
    """A short readable name: ``User``, ``list[int]``, ``Optional[Address]``, ``Literal['a']``."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is None or not args:
        if tp is Ellipsis:
            return "..."
        if tp is type(None):
            return "None"
        name = getattr(tp, "__name__", None)
        return name if isinstance(name, str) else repr(tp).replace("typing.", "")
    if origin is Literal:
        return f"Literal[{', '.join(repr(a) for a in args)}]"
    if origin is Annotated:
        marks: list[str] = []
        for mark in tp.__metadata__:
            inner = getattr(mark, "metadata", None)  # a pydantic FieldInfo lists its constraints
            if isinstance(inner, list):
                marks += [repr(m) for m in inner]
            else:
                marks.append(repr(mark))
        return f"Annotated[{', '.join([type_name(args[0]), *marks])}]"
    if origin in (Union, UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 < len(args):
            return f"Optional[{type_name(rest[0])}]"
        return " | ".join(type_name(a) for a in args)
    return f"{type_name(origin)}[{', '.join(type_name(a) for a in args)}]"

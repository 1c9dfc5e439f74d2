"""Python types → JSON Schema, through Pydantic (the schema Pydantic validates against)."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, TypeAdapter


@functools.lru_cache(maxsize=512)
def _adapter(output_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(output_type)


def type_adapter(output_type: Any) -> TypeAdapter[Any]:
    """A cached TypeAdapter (unhashable types get a fresh one)."""
    try:
        return _adapter(output_type)
    except TypeError:
        return TypeAdapter(output_type)


def json_schema_of(output_type: Any) -> dict[str, Any]:
    """The JSON Schema Pydantic validates ``output_type`` against (validation mode)."""
    if isinstance(output_type, type) and issubclass(output_type, BaseModel):
        return output_type.model_json_schema(mode="validation")
    return type_adapter(output_type).json_schema(mode="validation")

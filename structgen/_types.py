"""Python types → JSON Schema, through Pydantic (the schema Pydantic validates against)."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema


class StructgenJsonSchema(GenerateJsonSchema):
    """Pydantic's schema generator, told what Pydantic itself will accept.

    Pydantic describes a Decimal's string form as any string, then refuses strings that are not
    numbers; a grammar built from that would let a model write ``"amount": ""``. Here the
    string branch carries the pattern of decimal text (and of ``max_digits``/``decimal_places``).
    """

    def get_decimal_pattern(self, schema: core_schema.DecimalSchema) -> str | None:
        return self.build_decimal_pattern(schema)


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
        return output_type.model_json_schema(mode="validation", schema_generator=StructgenJsonSchema)
    return type_adapter(output_type).json_schema(
        mode="validation", schema_generator=StructgenJsonSchema
    )

"""Python types → JSON Schema, through Pydantic (the schema Pydantic validates against)."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema


class StructgenJsonSchema(GenerateJsonSchema):
    """Pydantic's schema generator, told what Pydantic itself will accept.

    Pydantic describes a Decimal's string form as any string, then refuses strings that are not
    numbers; a grammar built from that would let a model write ``"amount": ""``. Here the
    string branch carries the pattern of decimal text (and of ``max_digits``/``decimal_places``).

    A ``set`` or ``frozenset`` is built from the list Pydantic reads, so duplicates in it are no
    error, and its length bounds are checked on the set: ``uniqueItems`` goes, except with a
    ``min_length`` of 2 or more, which duplicates could undercut (``[1, 1]`` is one member).
    There it stays, enforced over small item sets and refused by name over large ones.
    """

    def get_decimal_pattern(self, schema: core_schema.DecimalSchema) -> str | None:
        return self.build_decimal_pattern(schema)

    def set_schema(self, schema: core_schema.SetSchema) -> JsonSchemaValue:
        return _duplicates_allowed(super().set_schema(schema))

    def frozenset_schema(self, schema: core_schema.FrozenSetSchema) -> JsonSchemaValue:
        return _duplicates_allowed(super().frozenset_schema(schema))


def _duplicates_allowed(json_schema: JsonSchemaValue) -> JsonSchemaValue:
    """A set's array schema without ``uniqueItems`` where no duplicate can make it invalid."""
    if json_schema.get("minItems", 0) <= 1:
        json_schema.pop("uniqueItems", None)
    return json_schema


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

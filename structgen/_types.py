"""Python types → JSON Schema, through Pydantic (the schema Pydantic validates against)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.errors import PydanticInvalidForJsonSchema, PydanticSchemaGenerationError, PydanticUserError
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import core_schema

from ._errors import SchemaError, UnsupportedSchemaError
from ._memo import memo

#: Dict keys (JSON object names) of integers, as Pydantic writes and reads them.
_INTEGER_KEY = "^-?(?:0|[1-9][0-9]{0,19})$"
#: Number keys as ``repr`` writes floats, finite (exponents from -324 to +307).
_NUMBER_KEY = ("^-?(?:(?:0|[1-9][0-9]{0,15})(?:\\.[0-9]{1,17})?|[1-9](?:\\.[0-9]{1,16})?e"
               "(?:-(?:[0-9]{2}|[12][0-9]{2}|3[01][0-9]|32[0-4])|\\+(?:[0-9]{2}|[12][0-9]{2}|30[0-7])))$")


class _InvalidField(PydanticInvalidForJsonSchema):
    """Pydantic's own error (its union handling catches it), with the field it arose in."""

    def __init__(self, message: str, *, field_path: tuple[str, ...], what: str) -> None:
        super().__init__(message)
        self.field_path = field_path
        self.what = what


class StructgenJsonSchema(GenerateJsonSchema):
    """Pydantic's schema generator, told what Pydantic itself reads and writes.

    Where Pydantic's schema says more or less than its validator, the schema here follows the
    validator, so a grammar built from it writes only what validates and everything Pydantic's
    JSON dump writes:

    - ``set``/``frozenset``: the list Pydantic reads may repeat members, and length bounds are
      checked on the set: ``uniqueItems`` goes, except with a ``min_length`` of 2 or more, which
      duplicates could undercut (``[1, 1]`` is one member); there it stays, enforced over small
      item sets and refused by name over large ones.
    - ``Decimal``: its JSON form is a string (exact; a JSON number goes through a float). The
      string carries the pattern of decimal text, of ``max_digits``/``decimal_places`` exactly
      (Pydantic's validation pattern lets exponents past them). A number stays as an
      alternative where its constraints can be stated: finite, and within the digits. Bounds
      (``gt``, ``le``, ``multiple_of``) only a number can carry: then it is a number alone.
    - ``datetime``, ``time``: with an offset or without (``AwareDatetime``: with;
      ``NaiveDatetime``: without); ``timedelta``: Pydantic's ISO 8601 duration (signed,
      fractional seconds), not RFC 3339's.
    - ``EmailStr``, ``HttpUrl``, ``AnyUrl``: what email-validator and the URL parser accept.
    - ``dict[K, V]`` with keys other than strings: object names spell ``K`` (integers, enum
      and literal values as Pydantic reads them), and a key pattern closes the object.
    - Field aliases: a validation alias that names no key (``AliasPath("a", "b")``) is refused
      unless the field's own name validates too; a field Pydantic has no schema for (a callable,
      an arbitrary class) is refused naming the field.
    """

    _field_path: list[str]  # the fields being generated, outermost first (from generate on)
    _field_names: dict[int, str]

    # -- collections

    def set_schema(self, schema: core_schema.SetSchema) -> JsonSchemaValue:
        return _duplicates_allowed(super().set_schema(schema))

    def frozenset_schema(self, schema: core_schema.FrozenSetSchema) -> JsonSchemaValue:
        return _duplicates_allowed(super().frozenset_schema(schema))

    def dict_schema(self, schema: core_schema.DictSchema) -> JsonSchemaValue:
        json_schema = super().dict_schema(schema)
        keys = schema.get("keys_schema")
        if keys is not None:
            names = self._key_names(keys)
            if names is not None:
                json_schema.pop("patternProperties", None)
                json_schema["propertyNames"] = names
                json_schema.setdefault("additionalProperties", True)
        if "patternProperties" in json_schema:
            # Pydantic reads only keys that match: the others are no free pass.
            json_schema.setdefault("additionalProperties", False)
        return json_schema

    def _key_names(self, keys: core_schema.CoreSchema) -> JsonSchemaValue | None:
        """The string schema of the JSON names of keys that are no plain strings, else None."""
        kind = keys.get("type")
        if kind == "int":
            _refuse_bounds(keys, "an integer dict key", self._field_path)
            return {"pattern": _INTEGER_KEY}
        if kind == "float":
            _refuse_bounds(keys, "a number dict key", self._field_path)
            return {"pattern": _NUMBER_KEY}
        if kind == "bool":
            return {"enum": ["true", "false"]}
        if kind == "literal":  # Pydantic reads a literal key only as the very string
            return {"enum": [v for v in keys["expected"] if isinstance(v, str)]}
        if kind == "enum":
            return {"enum": [_key_text(m.value) for m in keys["members"]]}
        return None

    # -- numbers

    def decimal_schema(self, schema: core_schema.DecimalSchema) -> JsonSchemaValue:
        bounded = any(schema.get(k) is not None for k in ("gt", "ge", "lt", "le", "multiple_of"))
        number = self._decimal_number(schema)
        if bounded:
            if number is None:
                raise UnsupportedSchemaError(
                    f"{_where(self._field_path)}a Decimal with bounds and max_digits but no "
                    "decimal_places cannot be enforced (bounds need a JSON number, which cannot "
                    "count digits)")
            return number
        text: JsonSchemaValue = {"type": "string", "pattern": self._decimal_text_pattern(schema)}
        return text if number is None else {"anyOf": [number, text]}

    def _decimal_text_pattern(self, schema: core_schema.DecimalSchema) -> str:
        digits, places = schema.get("max_digits"), schema.get("decimal_places")
        if digits is None and places is None:
            return self.build_decimal_pattern(schema)
        return _counted_decimal_pattern(digits, places)

    def _decimal_number(self, schema: core_schema.DecimalSchema) -> JsonSchemaValue | None:
        """The JSON number form of a Decimal, or None where its constraints need text."""
        digits, places = schema.get("max_digits"), schema.get("decimal_places")
        if digits is not None and places is None:
            return None
        number: JsonSchemaValue = {"type": "number"}
        bounds: dict[str, Any] = dict(schema)
        for key, word in (("ge", "minimum"), ("gt", "exclusiveMinimum"),
                          ("le", "maximum"), ("lt", "exclusiveMaximum")):
            if bounds.get(key) is not None:
                number[word] = _plain_number(bounds[key])
        step = schema.get("multiple_of")
        if places is not None:
            unit = Decimal(1).scaleb(-places)
            if step is not None and Decimal(str(step)) % unit != 0:
                return None
            step = step if step is not None else unit
        if step is not None:
            number["multipleOf"] = _plain_number(step)
        if digits is not None:  # (the converter keeps any number within the float range)
            limit = 10 ** max(0, digits - (places or 0))
            if "maximum" not in number and "exclusiveMaximum" not in number:
                number["exclusiveMaximum"] = limit
            if "minimum" not in number and "exclusiveMinimum" not in number:
                number["exclusiveMinimum"] = -limit
        return number

    def get_decimal_pattern(self, schema: core_schema.DecimalSchema) -> str | None:
        return self.build_decimal_pattern(schema)

    # -- dates, times, durations

    def datetime_schema(self, schema: core_schema.DatetimeSchema) -> JsonSchemaValue:
        return _with_offset_or_not(schema.get("tz_constraint"), "date-time", "local-date-time")

    def time_schema(self, schema: core_schema.TimeSchema) -> JsonSchemaValue:
        return _with_offset_or_not(schema.get("tz_constraint"), "time", "local-time")

    def timedelta_schema(self, schema: core_schema.TimedeltaSchema) -> JsonSchemaValue:
        json_schema = super().timedelta_schema(schema)
        if json_schema.get("format") == "duration":
            json_schema["format"] = "iso8601-duration"
        return json_schema

    # -- strings with their own validators

    def url_schema(self, schema: core_schema.UrlSchema) -> JsonSchemaValue:
        schemes = schema.get("allowed_schemes")
        limit = schema.get("max_length")
        if (limit is None or limit >= 2083) and schemes is None:
            return {"type": "string", "format": "url"}
        if (limit is None or limit >= 2083) and schemes and set(schemes) <= {"http", "https"}:
            return {"type": "string", "format": "http-url"}
        return super().url_schema(schema)

    def generate(self, schema: core_schema.CoreSchema, mode: JsonSchemaMode = "validation") -> JsonSchemaValue:
        self._field_path, self._field_names = [], {}
        json_schema: JsonSchemaValue = _emails_as_validated(super().generate(schema, mode))
        return json_schema

    # -- fields: aliases, and which field a failure is in

    def model_fields_schema(self, schema: core_schema.ModelFieldsSchema) -> JsonSchemaValue:
        self._note_fields(schema["fields"].items())
        return super().model_fields_schema(schema)

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        self._note_fields(schema["fields"].items())
        return super().typed_dict_schema(schema)

    def dataclass_args_schema(self, schema: core_schema.DataclassArgsSchema) -> JsonSchemaValue:
        self._note_fields((field["name"], field) for field in schema["fields"])
        return super().dataclass_args_schema(schema)

    def _note_fields(self, fields: Any) -> None:
        by_name = bool(self._config.config_dict.get("validate_by_name")
                       or self._config.config_dict.get("populate_by_name"))
        for name, field in fields:
            self._field_names[id(field)] = name
            alias = field.get("validation_alias")
            if (isinstance(alias, list) and not _names_a_key(alias) and not by_name
                    and self._config.config_dict.get("validate_by_alias", True)):
                raise UnsupportedSchemaError(
                    f"{_where([*self._field_path, name])}its validation alias {alias!r} names "
                    "no key of the object, so no JSON key would validate (give the field a "
                    "plain alias, or set validate_by_name=True)")

    def model_field_schema(self, schema: core_schema.ModelField) -> JsonSchemaValue:
        return self._in_field(schema, super().model_field_schema)

    def typed_dict_field_schema(self, schema: core_schema.TypedDictField) -> JsonSchemaValue:
        return self._in_field(schema, super().typed_dict_field_schema)

    def dataclass_field_schema(self, schema: core_schema.DataclassField) -> JsonSchemaValue:
        return self._in_field(schema, super().dataclass_field_schema)

    def _in_field(self, schema: Any, generate: Any) -> JsonSchemaValue:
        self._field_path.append(self._field_names.get(id(schema), "?"))
        try:
            return generate(schema)  # type: ignore[no-any-return]
        finally:
            self._field_path.pop()

    def handle_invalid_for_json_schema(self, schema: Any, error_info: str) -> JsonSchemaValue:
        raise _InvalidField(f"Cannot generate a JsonSchema for {error_info}",
                            field_path=tuple(self._field_path), what=error_info)


def _where(path: list[str] | tuple[str, ...]) -> str:
    return f"field {'.'.join(path)!r}: " if path else ""


def _names_a_key(alias: list[Any]) -> bool:
    """Whether Pydantic's schema can name a key for this validation alias: one of its choices
    is a path of a single name (an ``AliasPath`` of several steps reads a nested value)."""
    return any(isinstance(p, list) and len(p) == 1 and isinstance(p[0], str) for p in alias)


def _refuse_bounds(keys: Any, what: str, path: list[str]) -> None:
    bounds = [k for k in ("gt", "ge", "lt", "le", "multiple_of") if keys.get(k) is not None]
    if bounds:
        raise UnsupportedSchemaError(
            f"{_where(path)}{what} with {', '.join(bounds)} cannot be enforced (JSON object "
            "names are strings; only their digits can be spelled)")


def _key_text(value: Any) -> str:
    """A dict key as Pydantic writes it in JSON (and reads it back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _counted_decimal_pattern(digits: int | None, places: int | None) -> str:
    """Plain decimal text (no exponent, which Pydantic's own pattern lets past the counts) of
    at most ``digits`` digits, ``places`` of them after the point: ``-12.50``."""
    def number(whole: int | None, fraction: int | None) -> str:
        head = "0" if whole == 0 else "(?:0|[1-9][0-9]%s)" % (
            "*" if whole is None else f"{{0,{whole - 1}}}")
        tail = "" if fraction == 0 else "(?:\\.[0-9]%s)?" % (
            "+" if fraction is None else f"{{1,{fraction}}}")
        return head + tail

    if digits is None:
        return f"^-?{number(None, places)}$"
    if places is not None:
        return f"^-?{number(max(0, digits - places), min(digits, places))}$"
    shapes = [number(whole, digits - whole) for whole in range(digits + 1)]
    return f"^-?(?:{'|'.join(shapes)})$"


def _plain_number(value: Any) -> int | float:
    """A bound as a JSON number: integers stay exact, others become floats."""
    if isinstance(value, int) or (isinstance(value, (float, Decimal)) and math.isfinite(value)
                                  and value == int(value)):
        return int(value)
    return float(value)


def _with_offset_or_not(tz: Any, aware: str, naive: str) -> JsonSchemaValue:
    if tz == "aware" or isinstance(tz, int):
        return {"type": "string", "format": aware}
    if tz == "naive":
        return {"type": "string", "format": naive}
    return {"anyOf": [{"type": "string", "format": aware}, {"type": "string", "format": naive}]}


def _emails_as_validated(node: Any) -> Any:
    """``format: email`` (Pydantic's EmailStr) as email-validator reads it: ``email-address``."""
    if isinstance(node, dict):
        changed = {k: _emails_as_validated(v) for k, v in node.items()}
        if changed.get("format") == "email" and changed.get("type") == "string":
            changed["format"] = "email-address"
        return changed
    if isinstance(node, list):
        return [_emails_as_validated(v) for v in node]
    return node


def _duplicates_allowed(json_schema: JsonSchemaValue) -> JsonSchemaValue:
    """A set's array schema without ``uniqueItems`` where no duplicate can make it invalid."""
    if json_schema.get("minItems", 0) <= 1:
        json_schema.pop("uniqueItems", None)
    return json_schema


@memo(512)
def _adapter(output_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(output_type)


def type_adapter(output_type: Any) -> TypeAdapter[Any]:
    """A cached TypeAdapter (unhashable types get a fresh one); Pydantic's refusals as ours."""
    if isinstance(output_type, (dict, bool)):
        raise TypeError(
            f"the output type must be a type, not a {type(output_type).__name__}: for a JSON "
            "Schema's grammar use Grammar.from_json_schema; to generate, give a Pydantic model")
    with _pydantic_refusals(output_type):
        try:
            return _adapter(output_type)
        except TypeError:
            return TypeAdapter(output_type)


@contextmanager
def _pydantic_refusals(output_type: Any) -> Iterator[None]:
    """Pydantic's errors about the type itself, as structgen's: no schema for it is an
    UnsupportedSchemaError, any other (a forward reference not defined yet) a SchemaError."""
    try:
        yield
    except PydanticInvalidForJsonSchema:
        raise  # a field's: json_schema_of names the field
    except PydanticSchemaGenerationError:
        raise UnsupportedSchemaError(
            f"Pydantic has no schema for {_shown(output_type)}: the output type must be one "
            "Pydantic validates (a Pydantic model, a dataclass, a TypedDict, list[...], ...)",
            pointer="#") from None
    except PydanticUserError as error:
        raise SchemaError(f"Pydantic cannot build a schema for {_shown(output_type)}: {error.message}",
                          pointer="#") from None


def _shown(value: Any) -> str:
    text = value.__qualname__ if isinstance(value, type) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def json_schema_of(output_type: Any) -> dict[str, Any]:
    """The JSON Schema Pydantic validates ``output_type`` against (validation mode).

    Raises :class:`~structgen.UnsupportedSchemaError` naming the field for a type that has no
    JSON form (a callable, an arbitrary class) or whose constraints JSON cannot carry.
    """
    try:
        if isinstance(output_type, type) and issubclass(output_type, BaseModel):
            with _pydantic_refusals(output_type):
                return output_type.model_json_schema(mode="validation",
                                                     schema_generator=StructgenJsonSchema)
        adapter = type_adapter(output_type)
        with _pydantic_refusals(output_type):
            return adapter.json_schema(mode="validation", schema_generator=StructgenJsonSchema)
    except _InvalidField as error:
        raise UnsupportedSchemaError(
            f"{_where(error.field_path)}Pydantic has no JSON Schema for {error.what}, so no "
            "JSON answer can be generated for it (use a JSON-serializable type)") from None

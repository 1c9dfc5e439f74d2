"""Partial instances while an answer streams in, validated only as far as they are complete.

- A Pydantic model: an instance (``model_construct``) holding the fields whose JSON value is
  complete, each validated on its own (field validators run); ``model_fields_set`` says which.
- ``list[X]``: the list of complete items, each validated as ``X``.
Other types have no meaningful partial form; their stream yields only the final value.
"""

from __future__ import annotations

import typing
from typing import Any

import pydantic_core
from pydantic import BaseModel, TypeAdapter

from .._backends._choices import JsonCursor


class PartialBuilder:
    """Feeds on the streamed text; ``update`` returns a new partial value when one more
    top-level member has completed."""

    def __init__(self, output_type: Any) -> None:
        self._cursor = JsonCursor()
        self._text: list[str] = []
        self._reported = 0
        self._model: type[BaseModel] | None = None
        self._item: TypeAdapter[Any] | None = None
        if isinstance(output_type, type) and issubclass(output_type, BaseModel):
            self._model = output_type
        elif typing.get_origin(output_type) is list and typing.get_args(output_type):
            self._item = TypeAdapter(typing.get_args(output_type)[0])
        self.enabled = self._model is not None or self._item is not None
        self._items: list[Any] = []
        self._fields: set[str] = set()  # of the last partial model yielded

    def update(self, delta: str) -> Any | None:
        if not self.enabled:
            return None
        self._text.append(delta)
        self._cursor.feed(delta)
        closed = self._cursor.closed
        if len(closed) == self._reported or self._cursor.done:
            return None
        try:
            value = pydantic_core.from_json("".join(self._text), allow_partial=True)
        except ValueError:
            return None
        self._reported = len(closed)
        if self._model is not None and isinstance(value, dict):
            return self._partial_model(value, [m for m in closed if isinstance(m, str)])
        if self._item is not None and isinstance(value, list):
            return self._partial_list(value, [m for m in closed if isinstance(m, int)])
        return None

    def _partial_model(self, value: dict[str, Any], keys: list[str]) -> BaseModel | None:
        """A partial instance, or None when no field was added (the member that completed is
        not one of the model's fields: the ``refusal`` of a refusal, or a value that failed)."""
        assert self._model is not None
        instance = self._model.model_construct()
        set_fields: set[str] = set()
        for key in keys:
            if key not in value or key not in self._model.model_fields:
                continue
            try:
                self._model.__pydantic_validator__.validate_assignment(instance, key, value[key])
            except Exception:  # a validator that needs the fields still to come: not yet
                continue
            set_fields.add(key)
        if set_fields == self._fields:
            return None
        self._fields = set_fields
        object.__setattr__(instance, "__pydantic_fields_set__", set_fields)
        return instance

    def _partial_list(self, value: list[Any], indices: list[int]) -> list[Any]:
        assert self._item is not None
        for index in indices[len(self._items) :]:
            if index >= len(value):
                break
            try:
                self._items.append(self._item.validate_python(value[index]))
            except Exception:  # the final validation reports it (and any validator crash)
                break
        return list(self._items)

"""Grammars of tool calls: each tool's arguments, and the union of ``{"name", "arguments"}`` shapes.

A call's name and arguments always belong together: the turn's grammar is one alternative per
tool, ``{"name": "<that tool>", "arguments": <that tool's arguments>}``, so a model that has
written a name can only go on with that tool's arguments. Each tool's schema moves under
``$defs`` (its own references rewritten to point there), so tools whose schemas define the
same names never collide.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._tool import TOOL_GRAMMAR_OPTIONS, Tool


def call_schema(tools: Sequence[Tool], *, arguments_key: str = "arguments") -> dict[str, Any]:
    """The JSON Schema of one call to any of ``tools``: ``{"name": ..., arguments_key: ...}``."""
    definitions: dict[str, Any] = {}
    branches = []
    for index, tool in enumerate(tools):
        slot = f"tool{index}"
        definitions[slot] = _moved(tool.parameters, f"#/$defs/{slot}")
        branches.append({
            "type": "object",
            "properties": {"name": {"const": tool.name}, arguments_key: {"$ref": f"#/$defs/{slot}"}},
            "required": ["name", arguments_key],
        })
    shape: dict[str, Any] = branches[0] if len(branches) == 1 else {"anyOf": branches}
    return {**_common_draft(tools), **shape, "$defs": definitions}


def _common_draft(tools: Sequence[Tool]) -> dict[str, Any]:
    """``{"$schema": ...}`` when every tool's schema declares the same draft: the call schema is
    then read (and checked against the meta-schema) in it, as each tool's own schema is.
    Otherwise the call schema is read as 2020-12, the default."""
    drafts = {json.dumps(tool.parameters.get("$schema")) for tool in tools}
    if len(drafts) != 1:
        return {}
    draft = tools[0].parameters.get("$schema")
    return {} if draft is None else {"$schema": draft}


_VALUES = frozenset({"const", "enum", "default", "examples"})  # hold JSON values, not schemas


def _moved(schema: Any, base: str) -> Any:
    """``schema`` with its local references (``#...``) rewritten as if it lived at ``base``."""
    if isinstance(schema, dict):
        moved = {key: value if key in _VALUES else _moved(value, base) for key, value in schema.items()}
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            moved["$ref"] = base + ref[1:]
        return moved
    if isinstance(schema, list):
        return [_moved(item, base) for item in schema]
    return schema


__all__ = ["TOOL_GRAMMAR_OPTIONS", "call_schema"]

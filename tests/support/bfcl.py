"""BFCL's function specs as tools: its type dialect turned into JSON Schema (the BFCL suite, and
the tests that check its expected calls fit structgen's grammars)."""

from __future__ import annotations

from typing import Any

# -- BFCL's type dialect -> JSON Schema -------------------------------------------------------

_JSON_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string",
               "integer": "integer", "string": "string", "boolean": "boolean", "array": "array"}
_JSON_CHECKS: dict[str, type | tuple[type, ...]] = {
    "object": dict, "number": (int, float), "array": list, "string": str, "integer": int, "boolean": bool}


def bfcl_tool(function: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool for one BFCL function spec (its name kept as is, dots included)."""
    parameters = bfcl_schema(function.get("parameters") or {"type": "dict"})
    parameters.setdefault("properties", {})
    return {"type": "function", "function": {
        "name": function["name"], "description": function.get("description", ""), "parameters": parameters}}


def bfcl_schema(node: dict[str, Any]) -> dict[str, Any]:
    """One BFCL parameter spec as JSON Schema. ``default`` stays as an annotation; the BFCL-only
    ``optional`` flag goes (``required`` says it). An ``enum`` whose values do not fit the declared
    type (``boolean`` with ``["True", "False", "dontcare"]``) wins over the type, and an array's
    ``enum`` of scalars moves to its items, so that no converted schema is unsatisfiable."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            if value not in _JSON_TYPES:
                raise ValueError(f"unknown BFCL type {value!r}")
            out["type"] = _JSON_TYPES[value]
        elif key == "properties":
            out[key] = {name: bfcl_schema(spec) for name, spec in value.items()}
        elif key == "items":
            out[key] = bfcl_schema(value)
        elif key != "optional":
            out[key] = value
    enum, kind = out.get("enum"), out.get("type")
    if isinstance(enum, list) and isinstance(kind, str):
        if kind == "array" and not any(isinstance(v, list) for v in enum):
            out["items"] = {**out.get("items", {}), "enum": out.pop("enum")}
        elif not all(_fits(v, kind) for v in enum):
            del out["type"]
    return out


def _fits(value: Any, kind: str) -> bool:
    return isinstance(value, _JSON_CHECKS.get(kind, object)) and not (isinstance(value, bool) and kind != "boolean")

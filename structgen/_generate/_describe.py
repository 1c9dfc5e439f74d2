"""A compact, human-readable description of a JSON Schema for the system message.

The grammar constrains the answer but is invisible to the model; a one-glance description of
the expected fields (names, types, descriptions) tells it what to put where. Example::

    {"name": string, "age": integer (>= 0), "role": "admin" | "user"}
    - name: the person's full name
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_MAX_DEPTH = 6


class _Describer:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.notes: list[str] = []
        self._seen_refs: set[str] = set()

    def resolve(self, node: Any) -> tuple[Mapping[str, Any], str | None]:
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) if isinstance(target, Mapping) else {}
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return {**(target if isinstance(target, Mapping) else {}), **extra}, ref
        if isinstance(node, Mapping) and isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
            inner, ref = self.resolve(node["allOf"][0])
            return {**inner, **{k: v for k, v in node.items() if k != "allOf"}}, ref
        return (node if isinstance(node, Mapping) else {}), None

    def describe(self, node: Any, path: str, depth: int) -> str:
        schema, ref = self.resolve(node)
        if depth > _MAX_DEPTH or (ref is not None and ref in self._seen_refs):
            return str(schema.get("title") or "object")
        if ref is not None:
            self._seen_refs.add(ref)
        try:
            return self._describe(schema, path, depth)
        finally:
            if ref is not None:
                self._seen_refs.discard(ref)

    def _describe(self, schema: Mapping[str, Any], path: str, depth: int) -> str:
        if "const" in schema:
            return json.dumps(schema["const"])
        if isinstance(schema.get("enum"), list):
            return " | ".join(json.dumps(v) for v in schema["enum"])
        branches = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(branches, list):
            return " | ".join(self.describe(b, path, depth + 1) for b in branches)
        kind = schema.get("type")
        if isinstance(kind, list):
            return " | ".join(self._describe({**schema, "type": k}, path, depth) for k in kind)
        if kind == "object" or "properties" in schema:
            return self._object(schema, path, depth)
        if kind == "array":
            prefix = schema.get("prefixItems")
            if isinstance(prefix, list):
                return "[" + ", ".join(self.describe(p, path + "[]", depth + 1) for p in prefix) + "]"
            item = self.describe(schema.get("items", {}), path + "[]", depth + 1)
            # Objects as "[{...}, ...]", which small models follow; other items as "array of
            # string": from "[string, ...]" they write schema words or empty strings as items.
            return f"[{item}, ...]" if item.startswith("{") else f"array of {item}"
        if kind in ("string", "integer", "number", "boolean", "null"):
            return str(kind) + _bounds(schema)
        return "any"

    def _object(self, schema: Mapping[str, Any], path: str, depth: int) -> str:
        props = schema.get("properties")
        if not isinstance(props, Mapping) or not props:
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping):
                keys = self._keys(schema.get("propertyNames"), path, depth)
                return f"object (keys: {keys}, values: {self.describe(extra, path + '.*', depth + 1)})"
            return "object"
        required = set(schema.get("required") or ())
        parts = []
        for name, sub in props.items():
            where = f"{path}.{name}" if path else name
            sub_schema, _ = self.resolve(sub)
            text = self.describe(sub, where, depth + 1)
            optional = "" if name in required else " (optional)"
            parts.append(f"{json.dumps(name)}: {text}{optional}")
            description = sub_schema.get("description") if isinstance(sub_schema, Mapping) else None
            if isinstance(description, str) and description.strip():
                self.notes.append(f"- {where}: {' '.join(description.split())}")
        return "{" + ", ".join(parts) + "}"


    def _keys(self, names: Any, path: str, depth: int) -> str:
        """How a dictionary's keys are described: their spellings when there are a few, else
        "names". (In the shape ``{string: integer}`` small models read ``string`` as the first
        key's text and write schemas, or keys such as ``", "``.)"""
        if isinstance(names, Mapping):
            described = self.describe(names, path + ".*", depth + 1)
            if described.startswith('"'):  # an enum or const: the keys it allows
                return described
        return "names"


def _bounds(schema: Mapping[str, Any]) -> str:
    words = []
    for key, sign in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="), ("exclusiveMaximum", "<")):
        if isinstance(schema.get(key), (int, float)) and not isinstance(schema.get(key), bool):
            words.append(f"{sign} {schema[key]}")
    if isinstance(schema.get("format"), str):
        words.append(schema["format"])
    if isinstance(schema.get("pattern"), str):
        words.append(f"matching /{schema['pattern']}/")
    if isinstance(schema.get("maxLength"), int):
        words.append(f"at most {schema['maxLength']} chars")
    return f" ({', '.join(words)})" if words else ""


def describe_schema(schema: Mapping[str, Any], *, refusal: bool) -> str:
    """The system-message text describing the answer expected for ``schema``."""
    describer = _Describer(schema)
    shape = describer.describe(schema, "", 0)
    lines = ["Answer with JSON only, in exactly this shape:", shape]
    top = describer.resolve(schema)[0].get("description")
    if isinstance(top, str) and top.strip():
        lines.append(" ".join(top.split()))
    if describer.notes:
        lines.append("Fields:")
        lines.extend(describer.notes)
    if refusal:
        lines.append(
            'If the request cannot be answered truthfully from what you are given, answer '
            '{"refusal": "<the reason>"} instead.'
        )
    return "\n".join(lines)

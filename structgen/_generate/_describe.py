"""A compact, human-readable description of a JSON Schema for the prompt.

The grammar constrains the answer but is invisible to the model; a one-glance description of
the expected fields (names, types, descriptions) tells it what to put where. Styles:

- ``"full"``: the JSON shape, then one note per field that has a description::

      {"name": string, "age": integer (>= 0), "role": "admin" | "user"}
      Fields:
      - name: the person's full name

- ``"shape"``: the shape line alone (descriptions left out).
- ``"listing"``: one line per field, its type and description side by side::

      - name: string. the person's full name
      - age: integer (>= 0)

``example_answer`` renders the fields' ``examples`` (Pydantic's ``Field(examples=[...])``) as
one example answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

DescribeStyle = Literal["full", "shape", "listing"]
"""How the output type is described to the model (see :func:`structured`)."""
STYLES: tuple[DescribeStyle, ...] = ("full", "shape", "listing")
DictionaryShape = Literal["words", "braces"]
"""How a dictionary (an object of free keys) is shown: ``"words"`` — ``object (keys: names,
values: integer)`` — or ``"braces"`` — ``{"<name>": integer, ...}``. Small models copy the
braced placeholder as a key and tool-trained ones copy the words ("names", "values"), so each
model class gets the one it reads (the ``dictionaries`` suite measures both)."""
_MAX_DEPTH = 6


class _Describer:
    def __init__(self, root: Mapping[str, Any], dictionaries: DictionaryShape = "words") -> None:
        self.root = root
        self.dictionaries = dictionaries
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
                values = self.describe(extra, path + ".*", depth + 1)
                if self.dictionaries == "braces":
                    return "{" + (keys or '"<name>"') + f": {values}, ..." + "}"
                return f"object (keys: {keys or 'names'}, values: {values})"
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

    def listing(self, node: Any, path: str, depth: int, lines: list[str]) -> None:
        """One line per field: objects (and lists of objects) open into their own fields."""
        schema, ref = self.resolve(node)
        props = schema.get("properties")
        if isinstance(props, Mapping) and props and depth <= _MAX_DEPTH and ref not in self._seen_refs:
            if ref is not None:
                self._seen_refs.add(ref)
            required = set(schema.get("required") or ())
            for name, sub in props.items():
                where = f"{path}.{name}" if path else name
                self._field_line(sub, where, name in required, depth + 1, lines)
            self._seen_refs.discard(ref or "")
            return
        lines.append(f"- {path or '(answer)'}: {self.describe(schema, path, depth)}")

    def _field_line(self, node: Any, where: str, required: bool, depth: int, lines: list[str]) -> None:
        schema, _ = self.resolve(node)
        optional = "" if required else " (optional)"
        item, _ = self.resolve(schema.get("items", {})) if schema.get("type") == "array" else ({}, None)
        nested = schema if "properties" in schema else item if "properties" in item else None
        description = _one_line(schema.get("description"))
        if nested is None:
            text = self.describe(node, where, depth)
            lines.append(f"- {where}: {text}{optional}" + (f". {description}" if description else ""))
            return
        kind = "list of objects" if nested is item else "object"
        lines.append(f"- {where}: {kind}{optional}" + (f". {description}" if description else ""))
        self.listing(nested, where + ("[]" if nested is item else ""), depth, lines)

    def example(self, node: Any, depth: int) -> Any:
        """An example value from ``examples`` annotations (None where there are none)."""
        schema, ref = self.resolve(node)
        examples = schema.get("examples")
        if isinstance(examples, list) and examples:
            return examples[0]
        if isinstance(examples, Mapping) and examples:  # OpenAPI's named examples
            return next(iter(examples.values()))
        props = schema.get("properties")
        if not isinstance(props, Mapping) or depth > _MAX_DEPTH or (ref is not None and ref in self._seen_refs):
            item = schema.get("items")
            if schema.get("type") == "array" and isinstance(item, Mapping) and depth <= _MAX_DEPTH:
                value = self.example(item, depth + 1)
                return None if value is None else [value]
            return None
        if ref is not None:
            self._seen_refs.add(ref)
        found = {name: self.example(sub, depth + 1) for name, sub in props.items()}
        self._seen_refs.discard(ref or "")
        return {name: value for name, value in found.items() if value is not None} or None

    def _keys(self, names: Any, path: str, depth: int) -> str | None:
        """A dictionary's allowed keys spelled out when there are a few, else None: free keys,
        which each shape names in its own way ("names", ``"<name>"``). (In the shape
        ``{string: integer}`` small models read ``string`` as the first key's text and write
        schemas, or keys such as ``", "``.)"""
        if isinstance(names, Mapping):
            described = self.describe(names, path + ".*", depth + 1)
            if described.startswith('"'):  # an enum or const: the keys it allows
                return described
        return None


def _one_line(text: Any) -> str:
    return " ".join(text.split()) if isinstance(text, str) else ""


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


#: The first line of a description whose answer ends a reply that works the request out first
#: (``reasoning=`` on a model whose template knows no reasoning markers: docs/generation.md).
WORKED_LEAD = (
    "Work it out step by step first: write out every calculation and end with the result. Your reply ends with")


def describe_schema(
    schema: Mapping[str, Any], *, refusal: bool, style: DescribeStyle = "full", dictionaries: DictionaryShape = "words",
    worked: bool = False,
) -> str:
    """The prompt text describing the answer expected for ``schema``, in ``style`` (see above),
    with dictionaries shown as ``dictionaries`` says; ``worked``: the answer ends a reply that
    works the request out first."""
    if style not in STYLES:
        raise ValueError(f"describe style must be one of {', '.join(STYLES)}, not {style!r}")
    describer = _Describer(schema, dictionaries)
    top = _one_line(describer.resolve(schema)[0].get("description"))
    if style == "listing":
        lines = [f"{WORKED_LEAD} a JSON object with these fields:" if worked
                 else "Answer with a JSON object with these fields:"]
        if top:
            lines.append(top)
        describer.listing(schema, "", 0, lines)
    else:
        lead = (f"{WORKED_LEAD} the answer as JSON, in exactly this shape:" if worked
                else "Answer with JSON only, in exactly this shape:")
        lines = [lead, describer.describe(schema, "", 0)]
        if top:
            lines.append(top)
        if describer.notes and style == "full":
            lines.append("Fields:")
            lines.extend(describer.notes)
    if refusal:
        lines.append(
            'If the request cannot be answered truthfully from what you are given, answer '
            '{"refusal": "<the reason>"} instead.'
        )
    return "\n".join(lines)


def example_answer(schema: Mapping[str, Any]) -> str | None:
    """The fields' first ``examples`` as one JSON example answer (None when no field has one)."""
    value = _Describer(schema).example(schema, 0)
    if value is None:
        return None
    return "For example (an answer to a different request): " + json.dumps(value, ensure_ascii=False)

"""Finding, in a JSON Schema, the positions whose value is one of a few whole alternatives
(:func:`choice_table`) and what may not repeat in an answer (:func:`member_rules`).

The values these build (:class:`~structgen._backends._choices.Alternative`, the choice table,
:class:`~structgen._backends._choices.MemberRules`) cross the backend seam; see
``_backends/_choices.py`` for why the sampler wants them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._backends._seam import Alternative, JsonPath, MemberRules

#: How models usually begin a refusal (scored for the refusal branch; the likeliest opens the reason).
REFUSAL_CUES = ("I'm sorry", "Sorry", "I cannot", "I can't", "I am unable", "Unfortunately")
_FREE = object()  # marks a path where some branch allows unboundedly many values


def choice_table(
    schema: Mapping[str, Any], *, separators: tuple[str, str], refusal: bool
) -> dict[JsonPath, tuple[Alternative, ...]]:
    """Every path of ``schema`` whose value opens with one of at least two known spellings.

    ``separators`` are the (item, key) separators of the grammar's whitespace mode; objects are
    assumed closed (no undeclared keys), as ``Grammar.from_type`` makes them.
    """
    walker = _Walker(schema, separators)
    found: dict[JsonPath, Any] = {}
    walker.collect(schema, (), found, depth=0)
    if refusal:
        root = walker.openers(schema, depth=0)
        opener = Alternative("{" + json.dumps("refusal") + separators[1], False, REFUSAL_CUES)
        found[()] = _FREE if root is None else (*root, opener)
    table: dict[JsonPath, tuple[Alternative, ...]] = {}
    for path, alts in found.items():
        if alts is _FREE:
            continue
        unique = tuple({a.text: a for a in alts}.values())
        if len(unique) >= 2:
            table[path] = unique
    return table


def member_rules(schema: Mapping[str, Any]) -> MemberRules:
    """The :class:`MemberRules` of ``schema``: its unique arrays and finite key and item sets."""
    walker = _Walker(schema, (", ", ": "))
    unique: set[JsonPath] = set()
    finite: dict[JsonPath, int] = {}
    walker.members(schema, (), unique, finite, depth=0)
    return MemberRules(frozenset(unique), finite)


class _Walker:
    def __init__(self, root: Mapping[str, Any], separators: tuple[str, str]) -> None:
        self.root = root
        self.item_sep, self.key_sep = separators

    def resolve(self, schema: Any) -> Mapping[str, Any]:
        seen = 0
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and seen < 32:
            ref = schema["$ref"]
            if not ref.startswith("#"):
                return {}
            target: Any = self.root
            for part in ref[1:].split("/")[1:]:
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, Mapping) else None
            schema, seen = target, seen + 1
        if isinstance(schema, Mapping) and isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            return {**self.resolve(schema["allOf"][0]), **merged}
        return schema if isinstance(schema, Mapping) else {}

    def spell(self, value: Any) -> str:
        return json.dumps(value, separators=(self.item_sep, self.key_sep))

    def openers(self, schema: Any, depth: int) -> list[Alternative] | None:
        """The finite set of ways a value of ``schema`` starts, or None if not finite."""
        node = self.resolve(schema)
        if depth > 16:
            return None
        if "const" in node:
            return [Alternative(self.spell(node["const"]), True)]
        if isinstance(node.get("enum"), list):
            return [Alternative(self.spell(v), True) for v in node["enum"]]
        branches = node.get("anyOf") or node.get("oneOf")
        if isinstance(branches, list):
            result: list[Alternative] = []
            for branch in branches:
                more = self.openers(branch, depth + 1)
                if more is None:
                    return None
                result.extend(more)
            return result
        kind = node.get("type")
        if kind == "null":
            return [Alternative("null", True)]
        if kind == "boolean":
            return [Alternative("true", True), Alternative("false", True)]
        if kind == "object" and isinstance(node.get("properties"), Mapping):
            return self._object_openers(node)
        return None

    def _object_openers(self, node: Mapping[str, Any]) -> list[Alternative]:
        required = set(node.get("required") or ())
        result: list[Alternative] = []
        for name in node["properties"]:
            result.append(Alternative("{" + json.dumps(name) + self.key_sep, False))
            if name in required:
                return result
        result.append(Alternative("{}", True))
        return result

    def collect(self, schema: Any, path: JsonPath, found: dict[JsonPath, Any], depth: int) -> None:
        if depth > 16:
            return
        node = self.resolve(schema)
        alts = self.openers(node, depth)
        previous = found.get(path)
        if alts is None:
            found[path] = _FREE
        elif previous is not _FREE:
            found[path] = (*(previous or ()), *alts)
        for branch in node.get("anyOf") or node.get("oneOf") or ():
            self.collect(branch, path, found, depth + 1)
        props = node.get("properties")
        if isinstance(props, Mapping):
            for name, sub in props.items():
                self.collect(sub, (*path, name), found, depth + 1)
        if "items" in node and isinstance(node["items"], Mapping):
            self.collect(node["items"], (*path, None), found, depth + 1)


    def members(
        self, schema: Any, path: JsonPath, unique: set[JsonPath], finite: dict[JsonPath, int], depth: int
    ) -> None:
        if depth > 16:
            return
        node = self.resolve(schema)
        if node.get("uniqueItems") is True:
            unique.add(path)
            items = self.openers(node.get("items", {}), depth + 1)
            if items is not None and all(a.complete for a in items):
                finite[path] = len({a.text for a in items})
        names = node.get("propertyNames")
        if isinstance(names, Mapping) and not node.get("properties"):
            keys = self.openers(names, depth + 1)
            if keys is not None and all(a.complete and a.text.startswith('"') for a in keys):
                finite[path] = len({a.text for a in keys})
        for branch in node.get("anyOf") or node.get("oneOf") or ():
            self.members(branch, path, unique, finite, depth + 1)
        props = node.get("properties")
        if isinstance(props, Mapping):
            for name, sub in props.items():
                self.members(sub, (*path, name), unique, finite, depth + 1)
        if isinstance(node.get("items"), Mapping):
            self.members(node["items"], (*path, None), unique, finite, depth + 1)

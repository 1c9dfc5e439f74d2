"""A flattened meta-schema compiled once into Python closures: the fast "is it valid" answer.

jsonschema's validator walks a schema keyword by keyword, creating a validator and a resolver
scope at every subschema; over a corpus schema that cost more than converting it. A flattened
meta-schema (``meta.flattened_meta_schema``) uses a few keywords, so it compiles into one
closure per subschema that decides exactly as the draft's jsonschema validator does, for the
values ``json.loads`` makes. Anything else — a keyword the compiler does not know (draft 3's
meta-schema), a value of another type (a ``Decimal``, a tuple, a dict subclass), a
``uniqueItems`` over values whose equality jsonschema defines its own way — makes the check
raise :class:`Unknown`, and the caller asks jsonschema. Errors are always jsonschema's: this
only says "valid" sooner.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["Unknown", "compile_meta_schema"]

Check = Callable[[Any], bool]


class Unknown(Exception):
    """The compiled check cannot decide this value exactly; jsonschema must."""


class NotCompiled(Exception):
    """The meta-schema uses a keyword the compiler does not know."""


_KINDS: dict[type, str] = {dict: "object", list: "array", str: "string", int: "integer",
                           float: "float", bool: "boolean", type(None): "null"}
#: Keywords that assert nothing here: formats are not asserted by the validators we mirror.
_IGNORED = frozenset({"format"})
_LEGACY_BOUNDS_DRAFTS = frozenset({"Draft3Validator", "Draft4Validator"})


#: The Python type of each kind but "float" (whose NaN ``_kind`` refuses): an instance of one
#: of them needs no call to ``_kind`` (most checks meet the type they check).
_TYPES = {kind: python_type for python_type, kind in _KINDS.items() if kind != "float"}


def _kind(value: Any) -> str:
    kind = _KINDS.get(type(value))
    if kind is None:
        raise Unknown(type(value).__name__)
    if kind == "float" and value != value:  # NaN: jsonschema's comparisons and equality differ
        raise Unknown("NaN")
    return kind


def compile_meta_schema(flat: dict[str, Any], draft: str, keywords: Iterable[str]) -> Check:
    """A function deciding ``flat`` as jsonschema's ``draft`` validator class (by name; its
    ``keywords``) does, or raising Unknown.

    Raises NotCompiled for a meta-schema with keywords the compiler does not cover."""
    return _Compiler(flat, draft, keywords).root


class _Compiler:
    def __init__(self, flat: dict[str, Any], draft: str, keywords: Iterable[str]) -> None:
        self.known = frozenset(keywords)
        self.float_integers = draft not in _LEGACY_BOUNDS_DRAFTS
        self.legacy_bounds = draft in _LEGACY_BOUNDS_DRAFTS
        self._root: list[Check] = []
        compiled = self.schema(flat)
        self._root.append(compiled)
        self.root = compiled

    def schema(self, node: Any) -> Check:
        if node is True or node == {}:
            return _always
        if node is False:
            return _never
        if not isinstance(node, dict):
            raise NotCompiled(f"a subschema {node!r}")
        checks: list[Check] = []
        for keyword, value in node.items():
            if keyword not in self.known or keyword in _IGNORED:
                continue  # jsonschema ignores what its draft does not define
            method = getattr(self, "k_" + keyword.lstrip("$"), None)
            if method is None:
                raise NotCompiled(keyword)
            check = method(value, node)
            if check is not None:
                checks.append(check)
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]
        return _every(tuple(checks))

    # --- keywords --------------------------------------------------------------------------

    def k_ref(self, value: Any, node: dict[str, Any]) -> Check:
        if value != "#":
            raise NotCompiled(f"$ref {value!r}")
        root = self._root
        return lambda instance: root[0](instance)  # the root is compiled last

    def k_type(self, value: Any, node: dict[str, Any]) -> Check:
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise NotCompiled(f"type {value!r}")
        kinds: set[str] = set()
        for name in names:
            if name == "number":
                kinds |= {"integer", "float"}
            elif name in ("object", "array", "string", "integer", "boolean", "null"):
                kinds.add(name)
            else:
                raise NotCompiled(f"type {name!r}")
        float_integers = self.float_integers and "integer" in kinds and "float" not in kinds
        frozen = frozenset(kinds)
        fast = frozenset(_TYPES[kind] for kind in kinds if kind in _TYPES)

        def check(instance: Any) -> bool:
            if type(instance) in fast:
                return True
            kind = _kind(instance)
            if kind in frozen:
                return True
            return float_integers and kind == "float" and float(instance).is_integer()
        return check

    def k_enum(self, value: Any, node: dict[str, Any]) -> Check:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise NotCompiled("enum of other values than strings")
        names = frozenset(value)
        return lambda instance: (instance in names if type(instance) is str
                                 else _kind(instance) == "string")

    def k_properties(self, value: Any, node: dict[str, Any]) -> Check:
        if not isinstance(value, dict):
            raise NotCompiled("properties")
        children = {name: self.schema(sub) for name, sub in value.items()}
        children = {name: child for name, child in children.items() if child is not _always}
        get = children.get

        def check(instance: Any) -> bool:
            if type(instance) is not dict:
                return _other_kind(instance)
            # The instance's keys, not the meta-schema's: a schema has a few of its dozens.
            for key, item in instance.items():
                child = get(key)
                if child is not None and not child(item):
                    return False
            return True
        return check

    def k_patternProperties(self, value: Any, node: dict[str, Any]) -> Check:
        if not isinstance(value, dict):
            raise NotCompiled("patternProperties")
        children = [(re.compile(p).search, self.schema(sub)) for p, sub in value.items()]

        def check(instance: Any) -> bool:
            if type(instance) is not dict:
                return _other_kind(instance)
            for search, child in children:
                for key, item in instance.items():
                    if search(key) and not child(item):
                        return False
            return True
        return check

    def k_additionalProperties(self, value: Any, node: dict[str, Any]) -> Check:
        declared = node.get("properties", {})
        patterns = node.get("patternProperties", {})
        if not isinstance(declared, dict) or not isinstance(patterns, dict):
            raise NotCompiled("additionalProperties")
        searches = [re.compile(p).search for p in patterns]
        child = self.schema(value)
        if child is _always:
            return _always

        def check(instance: Any) -> bool:
            if type(instance) is not dict:
                return _other_kind(instance)
            for key, item in instance.items():
                if key in declared or any(s(key) for s in searches):
                    continue
                if not child(item):
                    return False
            return True
        return check

    def k_propertyNames(self, value: Any, node: dict[str, Any]) -> Check:
        child = self.schema(value)
        return lambda instance: _kind(instance) != "object" or all(child(k) for k in instance)

    def k_required(self, value: Any, node: dict[str, Any]) -> Check:
        if not isinstance(value, list):
            raise NotCompiled("required")
        names = tuple(value)
        return lambda instance: _kind(instance) != "object" or all(n in instance for n in names)

    def k_dependencies(self, value: Any, node: dict[str, Any]) -> Check:
        if not isinstance(value, dict) or not all(
                isinstance(v, list) and all(isinstance(n, str) for n in v)
                for v in value.values()):
            raise NotCompiled("dependencies other than property lists")
        pairs = tuple((k, tuple(v)) for k, v in value.items())
        return lambda instance: _kind(instance) != "object" or all(
            all(n in instance for n in needed) for key, needed in pairs if key in instance)

    def k_items(self, value: Any, node: dict[str, Any]) -> Check:
        if isinstance(value, list):
            raise NotCompiled("items as a list")
        child = self.schema(value)
        if child is _always:
            return _always
        return lambda instance: _kind(instance) != "array" or all(child(i) for i in instance)

    def k_minItems(self, value: Any, node: dict[str, Any]) -> Check:
        return lambda instance: _kind(instance) != "array" or len(instance) >= value

    def k_uniqueItems(self, value: Any, node: dict[str, Any]) -> Check | None:
        if value is not True:
            return None

        def check(instance: Any) -> bool:
            if _kind(instance) != "array":
                return True
            # Python's equality is jsonschema's for strings, numbers and null (1 == 1.0);
            # booleans (True == 1 in Python), arrays and objects are left to jsonschema.
            for item in instance:
                if _kind(item) not in ("string", "integer", "float", "null"):
                    raise Unknown("uniqueItems")
            return len(set(instance)) == len(instance)
        return check

    def k_minimum(self, value: Any, node: dict[str, Any]) -> Check:
        if _kind(value) not in ("integer", "float"):
            raise NotCompiled("minimum")
        exclusive = self.legacy_bounds and node.get("exclusiveMinimum") is True

        def check(instance: Any) -> bool:
            if _kind(instance) not in ("integer", "float"):
                return True
            return bool(instance > value) if exclusive else bool(instance >= value)
        return check

    def k_exclusiveMinimum(self, value: Any, node: dict[str, Any]) -> Check | None:
        if self.legacy_bounds:
            return None  # a flag read by minimum
        if _kind(value) not in ("integer", "float"):
            raise NotCompiled("exclusiveMinimum")
        return lambda instance: _kind(instance) not in ("integer", "float") or instance > value

    def k_pattern(self, value: Any, node: dict[str, Any]) -> Check:
        search = re.compile(value).search
        return lambda instance: _kind(instance) != "string" or search(instance) is not None

    def k_anyOf(self, value: Any, node: dict[str, Any]) -> Check:
        options = tuple(self.schema(sub) for sub in _subschemas(value, "anyOf"))
        return lambda instance: any(o(instance) for o in options)

    def k_allOf(self, value: Any, node: dict[str, Any]) -> Check:
        return _every(tuple(self.schema(sub) for sub in _subschemas(value, "allOf")))


def _other_kind(instance: Any) -> bool:
    """What a check of objects, arrays or strings says of a value of another type: valid, or
    Unknown for a value ``json.loads`` does not make (``_kind``)."""
    _kind(instance)
    return True


def _every(checks: tuple[Check, ...]) -> Check:
    def check(instance: Any) -> bool:
        for one in checks:  # a loop, not all(): no generator for each subschema checked
            if not one(instance):
                return False
        return True
    return check


def _subschemas(value: Any, keyword: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise NotCompiled(keyword)
    return value


def _always(instance: Any) -> bool:
    return True


def _never(instance: Any) -> bool:
    return False

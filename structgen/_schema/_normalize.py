"""Schema → IR: the keyword table, applicators, references and the unsupported-keyword policy."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .._errors import SchemaError, UnsupportedSchemaError
from ._algebra import Algebra, Irreducible, is_finite
from ._ir import ANY, IR, NOTHING, ArrAtom, ConstAtom, KeyCond, ObjAtom, RefAtom
from ._keywords import dependent_required, typed_atoms, with_key, without_key
from ._options import GrammarOptions
from ._refs import Resolver, Target, escape_pointer_token
from ._strings import StringSpec, string_matches
from ._validate import accepts

Handler = Callable[["Normalizer", dict[str, Any], str, str], IR]


class Normalizer:
    def __init__(self, options: GrammarOptions, resolver: Resolver) -> None:
        self.options = options
        self.resolver = resolver
        self.algebra = Algebra(self)
        self.dropped: list[str] = []
        self._ref_irs: dict[str, IR] = {}
        self._expanding: list[str] = []
        self._synthetic: dict[str, tuple[str, tuple[IR, ...], str, str]] = {}
        self._synthetic_keys: dict[tuple[str, tuple[IR, ...]], str] = {}
        self._where = ("#", "allOf")  # keyword being evaluated, for lazily raised errors
        self._pattern_cache: dict[tuple[str, str], bool] = {}
        self._ref_pointer: dict[str, str] = {}
        self._pending_targets: dict[str, Target] = {}

    # ------------------------------------------------------------------ policy
    def unsupported(self, pointer: str, keyword: str, message: str) -> None:
        """Strict: raise. Otherwise remember the dropped keyword; the caller ignores it."""
        if self.options.strict:
            raise UnsupportedSchemaError(message, pointer=pointer, keyword=keyword)
        where = f"{pointer}/{keyword}" if pointer != "#" else f"#/{keyword}"
        if where not in self.dropped:
            self.dropped.append(where)

    def warn_dropped(self) -> None:
        if self.dropped:
            warnings.warn("structgen dropped keywords it cannot enforce: "
                          + ", ".join(self.dropped), stacklevel=3)

    # ------------------------------------------------------------------ helpers for the algebra
    def string_matches(self, spec: StringSpec, value: str) -> bool:
        return string_matches(spec, value, dotall=self.options.dotall)

    def pattern_matches(self, pattern: str, value: str) -> bool:
        key = (pattern, value)
        hit = self._pattern_cache.get(key)
        if hit is None:
            hit = self.string_matches(StringSpec(patterns=(pattern,)), value)
            self._pattern_cache[key] = hit
        return hit

    def check_pattern(self, pattern: str, pointer: str, keyword: str) -> None:
        if not isinstance(pattern, str):
            raise SchemaError("a pattern must be a string", pointer=pointer, keyword=keyword)
        try:
            self.pattern_matches(pattern, "")
        except UnsupportedSchemaError as exc:
            raise UnsupportedSchemaError(exc.message, pointer=pointer, keyword=keyword) from None
        except SchemaError as exc:
            raise SchemaError(exc.message, pointer=pointer, keyword=keyword) from None

    def accepts(self, ir: IR, value: Any) -> bool:
        return accepts(self, ir, value)

    # ------------------------------------------------------------------ references
    def ref(self, ref: Any, base: str, pointer: str, keyword: str = "$ref") -> IR:
        target = self.resolver.resolve(base, ref, f"{pointer}")
        if target.key not in self._ref_irs and target.key not in self._ref_pointer:
            self._ref_pointer[target.key] = target.pointer
            self._pending_targets[target.key] = target
        return (RefAtom(target.key),)

    def expand(self, key: str) -> IR:
        """The IR a RefAtom stands for (normalized once; cycles of pure expansion are errors)."""
        done = self._ref_irs.get(key)
        if done is not None:
            return done
        if key in self._expanding:
            pointer = self._ref_pointer.get(key, "#")
            raise SchemaError("a reference cycle that never reaches a value "
                              "(recursive allOf or $ref chain)", pointer=pointer,
                              keyword="$ref")
        self._expanding.append(key)
        try:
            if key in self._synthetic:
                ir = self._expand_synthetic(key)
            else:
                target = self._pending_targets[key]
                ir = self.schema(target.schema, target.base, target.pointer)
        finally:
            self._expanding.pop()
        self._ref_irs[key] = ir
        return ir

    def expand_all(self, ir: IR) -> IR:
        """``ir`` with every top-level reference replaced by what it stands for."""
        out: list[Any] = []
        seen: set[str] = set()
        todo = list(ir)
        while todo:
            atom = todo.pop(0)
            if isinstance(atom, RefAtom):
                if atom.key not in seen:
                    seen.add(atom.key)
                    todo[:0] = self.expand(atom.key)
            else:
                out.append(atom)
        return self.algebra.simplify(tuple(out))

    def synthetic(self, kind: str, args: tuple[IR, ...]) -> RefAtom:
        """A lazily computed intersection/complement, so recursive schemas stay finite."""
        memo = (kind, args)
        key = self._synthetic_keys.get(memo)
        if key is None:
            key = f"{kind}-{len(self._synthetic) + 1}"
            self._synthetic_keys[memo] = key
            pointer, keyword = self._where
            self._synthetic[key] = (kind, args, pointer, keyword)
            self._ref_pointer[key] = pointer
        return RefAtom(key)

    def _expand_synthetic(self, key: str) -> IR:
        kind, args, pointer, keyword = self._synthetic[key]
        try:
            if kind == "and":
                return self.algebra.intersect(args[0], args[1])
            return self.algebra.complement(args[0])
        except Irreducible as exc:
            self.unsupported(pointer, keyword, str(exc))
            return args[0] if kind == "and" else ANY

    # ------------------------------------------------------------------ schemas
    def schema(self, schema: Any, base: str, pointer: str) -> IR:
        if schema is True:
            return ANY
        if schema is False:
            return NOTHING
        if not isinstance(schema, dict):
            raise SchemaError("a schema must be an object or a boolean", pointer=pointer)
        base = self.resolver.base_of(schema, base)
        parts: list[IR] = [typed_atoms(self, schema, base, pointer)]
        finite = self._finite(schema, pointer)
        if finite is not None:
            parts.insert(0, finite)
        negations: list[tuple[IR, str]] = []
        for keyword, handler in APPLICATORS:
            if keyword in schema:
                self._where = (pointer, keyword)
                try:
                    if keyword == "not":
                        negations.append((self.schema(schema["not"], base, f"{pointer}/not"),
                                          pointer))
                    else:
                        parts.append(handler(self, schema, base, pointer))
                except Irreducible as exc:
                    self.unsupported(pointer, keyword, str(exc))
        self._where = (pointer, "allOf")
        try:
            result = self.algebra.intersect_all(parts)
        except Irreducible as exc:
            self.unsupported(pointer, "allOf", str(exc))
            result = parts[0]
        for negated, _ in negations:
            if not result:
                break
            if is_finite(result):
                result = tuple(c for c in result if not self.accepts(negated, c.value))  # type: ignore[union-attr]
                continue
            self._where = (pointer, "not")
            try:
                result = self.algebra.intersect(result, self.algebra.complement(negated))
            except Irreducible as exc:
                self.unsupported(pointer, "not", f"cannot negate this schema: {exc}")
        return self._unevaluated(schema, result, base, pointer)

    def _finite(self, schema: dict[str, Any], pointer: str) -> IR | None:
        values: list[Any] | None = None
        if "enum" in schema:
            if not isinstance(schema["enum"], list):
                raise SchemaError("enum must be an array", pointer=pointer, keyword="enum")
            values = list(schema["enum"])
        if "const" in schema:
            const = schema["const"]
            values = [const] if values is None else [
                v for v in values if ConstAtom(v) == ConstAtom(const)]
        if values is None:
            return None
        unique: list[ConstAtom] = []
        for v in values:
            atom = ConstAtom(v)
            if atom not in unique:
                unique.append(atom)
        return tuple(unique)

    def _unevaluated(self, schema: dict[str, Any], result: IR, base: str, pointer: str) -> IR:
        for keyword in ("unevaluatedProperties", "unevaluatedItems"):
            if keyword not in schema:
                continue
            sub = self.schema(schema[keyword], base, f"{pointer}/{keyword}")
            if sub == ANY:
                continue
            if any(k in schema for k in ("anyOf", "oneOf", "not", "if", "dependentSchemas",
                                          "$dynamicRef", "$ref", "allOf", "dependencies")):
                self.unsupported(pointer, keyword,
                                 f"{keyword} beside applicators is not supported")
                continue
            if keyword == "unevaluatedProperties" and "additionalProperties" not in schema:
                patterns = tuple(schema.get("patternProperties") or {})
                result = self.algebra.intersect(result, _objects_closed(patterns, sub))
            elif keyword == "unevaluatedItems" and not _has_rest(schema):
                result = self.algebra.intersect(result, _arrays_rest(schema, sub))
        return result


def _has_rest(schema: dict[str, Any]) -> bool:
    items = schema.get("items")
    return (items is not None and not isinstance(items, list)) or "additionalItems" in schema


def _objects_closed(patterns: tuple[str, ...], sub: IR) -> IR:
    others = tuple(a for a in ANY if not isinstance(a, ObjAtom))
    return others + (ObjAtom(extras=((KeyCond(nomatch=patterns), sub),)),)


def _arrays_rest(schema: dict[str, Any], sub: IR) -> IR:
    prefix = schema.get("prefixItems") or (schema.get("items") if isinstance(
        schema.get("items"), list) else [])
    others = tuple(a for a in ANY if not isinstance(a, ArrAtom))
    return others + (ArrAtom(prefix=(ANY,) * len(prefix), items=sub),)


# ---------------------------------------------------------------------- applicator keywords
def _sub_list(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str,
              keyword: str) -> list[IR]:
    subs = schema[keyword]
    if not isinstance(subs, list) or not subs:
        raise SchemaError(f"{keyword} must be a non-empty array", pointer=pointer,
                          keyword=keyword)
    return [ctx.schema(s, base, f"{pointer}/{keyword}/{i}") for i, s in enumerate(subs)]


def _ref(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    return ctx.ref(schema["$ref"], base, pointer)


def _dynamic_ref(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    ref = schema["$dynamicRef"]
    if isinstance(ref, str) and "#" in ref and not ref.split("#", 1)[1].startswith("/"):
        name = ref.split("#", 1)[1]
        if ctx.resolver.dynamic_anchor_count(name) > 1:
            raise Irreducible("$dynamicRef whose target depends on the dynamic scope")
    return ctx.ref(ref, base, pointer, "$dynamicRef")


def _all_of(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    return ctx.algebra.intersect_all(_sub_list(ctx, schema, base, pointer, "allOf"))


def _any_of(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    branches = _sub_list(ctx, schema, base, pointer, "anyOf")
    return ctx.algebra.simplify(tuple(a for b in branches for a in b))


def _one_of(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    branches = [b for b in _sub_list(ctx, schema, base, pointer, "oneOf")]
    algebra = ctx.algebra
    overlapping: set[int] = set()
    for i in range(len(branches)):
        for j in range(i + 1, len(branches)):
            if branches[i] and branches[j] and algebra.intersect(branches[i], branches[j]):
                overlapping |= {i, j}
    out: list[Any] = []
    for i, branch in enumerate(branches):
        if i in overlapping:
            others = tuple(a for j, b in enumerate(branches) if j != i and j in overlapping
                           for a in b)
            branch = algebra.intersect(branch, algebra.complement(others))
        out.extend(branch)
    return algebra.simplify(tuple(out))


def _if_then_else(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    if "then" not in schema and "else" not in schema:
        return ANY
    condition = ctx.schema(schema["if"], base, f"{pointer}/if")
    then = ctx.schema(schema.get("then", True), base, f"{pointer}/then")
    otherwise = ctx.schema(schema.get("else", True), base, f"{pointer}/else")
    algebra = ctx.algebra
    yes = algebra.intersect(condition, then)
    no = algebra.intersect(algebra.complement(condition), otherwise)
    return algebra.simplify(yes + no)


def _dependent_required(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    deps = schema["dependentRequired"]
    if not isinstance(deps, dict):
        raise SchemaError("dependentRequired must be an object", pointer=pointer,
                          keyword="dependentRequired")
    return ctx.algebra.intersect_all(dependent_required(deps, pointer, "dependentRequired"))


def _dependent_schemas(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str,
                       keyword: str = "dependentSchemas") -> IR:
    deps = schema[keyword]
    if not isinstance(deps, dict):
        raise SchemaError(f"{keyword} must be an object", pointer=pointer, keyword=keyword)
    parts: list[IR] = []
    algebra = ctx.algebra
    for key, sub in deps.items():
        if isinstance(sub, list):
            parts.extend(dependent_required({key: sub}, pointer, keyword))
            continue
        ir = ctx.schema(sub, base, f"{pointer}/{keyword}/{escape_pointer_token(key)}")
        if ir == ANY:
            continue
        parts.append(algebra.simplify(without_key(key) + algebra.intersect(with_key(key), ir)))
    return algebra.intersect_all(parts)


def _dependencies(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    return _dependent_schemas(ctx, schema, base, pointer, "dependencies")


def _not_placeholder(ctx: Normalizer, schema: dict[str, Any], base: str, pointer: str) -> IR:
    return ANY  # `not` is collected separately and applied last


APPLICATORS: list[tuple[str, Handler]] = [
    ("$ref", _ref),
    ("$dynamicRef", _dynamic_ref),
    ("allOf", _all_of),
    ("anyOf", _any_of),
    ("oneOf", _one_of),
    ("if", _if_then_else),
    ("dependentRequired", _dependent_required),
    ("dependentSchemas", _dependent_schemas),
    ("dependencies", _dependencies),
    ("not", _not_placeholder),
]

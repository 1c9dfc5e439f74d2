"""Schema → IR: the normalizer (references, lazy set operations, unevaluated*, the
unsupported-keyword policy). Type keywords are in ``keywords``, applicators in
``applicators``."""

from __future__ import annotations

import warnings
import weakref
from typing import Any

from ..._errors import SchemaError, UnsupportedSchemaError
from ..algebra.sets import Algebra, Irreducible, array_nonempty, is_finite, object_nonempty
from ..algebra.validate import accepts
from ..ir.atoms import (
    ANY, IR, NOTHING, ArrAtom, Atom, ConstAtom, KeyCond, ObjAtom, RefAtom, StringSpec,
    canonical_key,
)
from ..ir.leaves import cached_leaf, leaf_key, remember_leaf
from ..options import GrammarOptions
from ..strings.language import string_matches
from .applicators import APPLICATORS
from .keywords import typed_atoms
from .refs import Resolver, Target


class Normalizer:
    def __init__(self, options: GrammarOptions, resolver: Resolver) -> None:
        self.options = options
        self.resolver = resolver
        # A proxy, not a reference: no cycles, so reference counting frees a conversion's
        # state on return (the garbage collector never has to find it).
        self.algebra = Algebra(weakref.proxy(self))
        self.dropped: list[str] = []
        self._ref_irs: dict[str, IR] = {}
        self._expanding: list[str] = []
        self._synthetic: dict[str, tuple[str, tuple[IR, ...], str, str]] = {}
        self._synthetic_keys: dict[tuple[str, tuple[IR, ...]], str] = {}
        self._where = ("#", "allOf")  # keyword being evaluated, for lazily raised errors
        self._pattern_cache: dict[tuple[str, str], bool] = {}
        self._ref_pointer: dict[str, str] = {}
        self._pending_targets: dict[str, tuple[Target, tuple[str, ...]]] = {}
        self.scope: tuple[str, ...] = ()  # schema resources entered so far, outermost first
        self.hints: dict[str, str] = {}  # synthetic key -> the reference key it is named after
        # What a leaf schema's IR depends on besides its own keywords (see ``ir.leaves``).
        self._leaf_context = (resolver.legacy, options.dotall, options.strict)

    # ------------------------------------------------------------------ policy
    def unsupported(self, pointer: str, keyword: str, message: str) -> None:
        """Strict: raise. Otherwise remember the dropped keyword; the caller ignores it."""
        if self.options.strict:
            raise UnsupportedSchemaError(message, pointer=pointer, keyword=keyword)
        where = f"{pointer}/{keyword}" if pointer != "#" else f"#/{keyword}"
        if where not in self.dropped:
            self.dropped.append(where)

    def current_keyword(self) -> tuple[str, str]:
        """(pointer, keyword) of the applicator evaluated last, for errors raised late."""
        return self._where

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
    def ref(self, ref: Any, base: str, pointer: str) -> IR:
        return self.ref_to(self.resolver.resolve(base, ref, pointer))

    def ref_to(self, target: Target) -> IR:
        key = target.key
        if self.resolver.dynamic:
            # With $dynamicRef around, what a target means depends on the resources entered on
            # the way to it (its dynamic scope), so the scope is part of its identity.
            key = f"{key}@{' '.join(self.scope)}"
        if key not in self._ref_irs and key not in self._ref_pointer:
            self._ref_pointer[key] = target.pointer
            self._pending_targets[key] = (target, self.scope)
        return (RefAtom(key),)

    def dynamic_target(self, name: str) -> str | None:
        """The outermost resource in the dynamic scope with ``$dynamicAnchor: name``."""
        return next((r for r in self.scope if self.resolver.has_dynamic_anchor(r, name)), None)

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
                target, scope = self._pending_targets[key]
                outer, self.scope = self.scope, scope
                try:
                    ir = self.schema(target.schema, target.base, target.pointer)
                finally:
                    self.scope = outer
        finally:
            self._expanding.pop()
        self._ref_irs[key] = ir
        return ir

    def negation_of(self, key: str) -> IR | None:
        """The schema a lazily kept ``not`` negates, if ``key`` is one."""
        synthetic = self._synthetic.get(key)
        return synthetic[1][0] if synthetic is not None and synthetic[0] == "not" else None

    def busy(self, ir: IR) -> bool:
        """True if expanding ``ir`` now would need a reference that is being expanded."""
        for atom in ir:
            if not isinstance(atom, RefAtom) or atom.key in self._ref_irs:
                continue
            if atom.key in self._expanding:
                return True
            synthetic = self._synthetic.get(atom.key)
            if synthetic is not None and any(self.busy(arg) for arg in synthetic[1]):
                return True
        return False

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
            first = args[0]
            if kind == "closed" and len(first) == 1 and isinstance(first[0], RefAtom):
                self.hints[key] = first[0].key
        return RefAtom(key)

    def _expand_synthetic(self, key: str) -> IR:
        kind, args, pointer, keyword = self._synthetic[key]
        try:
            if kind == "and":
                return self.algebra.intersect(args[0], args[1])
            if kind == "diff":
                return self.algebra.difference(args[0], args[1])
            if kind == "closed":
                return self.close_objects(self.expand_all(args[0]))
            return self.algebra.complement(args[0])
        except Irreducible as exc:
            self.unsupported(pointer, keyword, f"cannot negate this schema: {exc}"
                             if kind == "not" else str(exc))
            return ANY if kind == "not" else args[0]

    # ------------------------------------------------------------------ schemas
    def value_schema(self, schema: Any, base: str, pointer: str) -> IR:
        """A schema in a value position (root, property, item): where the
        ``additional_properties=False`` option closes the objects of schemas with
        ``properties`` (models; ``{}`` stays any JSON), after all in-place applicators (allOf,
        $ref, ...) have contributed their properties."""
        ir = self.schema(schema, base, pointer)
        if self.options.additional_properties is False:
            ir = self.close_objects(ir)
        return ir

    def close_objects(self, ir: IR) -> IR:
        out: list[Atom | None] = []
        for atom in ir:
            if isinstance(atom, RefAtom):
                out.append(self.synthetic("closed", ((atom,),)))
            elif isinstance(atom, ObjAtom) and atom.modeled and not atom.seen_all:
                out.append(self._close_object(atom, NOTHING))
            else:
                out.append(atom)
        return tuple(a for a in out if a is not None)

    def schema(self, schema: Any, base: str, pointer: str) -> IR:
        if schema is True:
            return ANY
        if schema is False:
            return NOTHING
        if not isinstance(schema, dict):
            raise SchemaError("a schema must be an object or a boolean", pointer=pointer)
        base = self.resolver.base_of(schema, base)
        if self.resolver.dynamic and base not in self.scope:
            outer, self.scope = self.scope, self.scope + (base,)
            try:
                return self._schema(schema, base, pointer)
            finally:
                self.scope = outer
        return self._schema(schema, base, pointer)

    def _schema(self, schema: dict[str, Any], base: str, pointer: str) -> IR:
        key = leaf_key(schema, self._leaf_context)
        if key is None:
            return self._normalized(schema, base, pointer)
        known = cached_leaf(key)
        if known is not None:
            self._where = (pointer, "allOf")  # where normalizing it would have left off
            return known
        dropped = len(self.dropped)
        ir = self._normalized(schema, base, pointer)
        if len(self.dropped) == dropped:  # dropped keywords are reported per pointer
            remember_leaf(key, ir)
        return ir

    def _normalized(self, schema: dict[str, Any], base: str, pointer: str) -> IR:
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
                result = self.algebra.difference(result, negated)
            except Irreducible as exc:
                if result != ANY:
                    self.unsupported(pointer, "not", f"cannot negate this schema: {exc}")
                    continue
                # Kept lazy: a finite sibling (allOf with an enum) can still be filtered by it,
                # and a double negation cancels; emitting it raises at this pointer.
                result = (self.synthetic("not", (negated,)),)
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
        unique: dict[str, ConstAtom] = {}
        for v in values:
            unique.setdefault(canonical_key(v), ConstAtom(v))
        return tuple(unique.values())

    def _unevaluated(self, schema: dict[str, Any], result: IR, base: str, pointer: str) -> IR:
        """unevaluatedProperties/Items: applied per atom, to what that atom's path evaluated."""
        props = schema.get("unevaluatedProperties")
        items = schema.get("unevaluatedItems")
        if props is None and items is None:
            return result
        props_ir = None if props is None else self.schema(
            props, base, f"{pointer}/unevaluatedProperties")
        items_ir = None if items is None else self.schema(
            items, base, f"{pointer}/unevaluatedItems")
        out: list[Atom | None] = []
        for atom in self.expand_all(result):
            if isinstance(atom, ObjAtom) and props_ir is not None and not atom.seen_all:
                out.append(self._close_object(atom, props_ir))
            elif isinstance(atom, ArrAtom) and items_ir is not None and not atom.seen_all:
                out.append(self._close_array(atom, items_ir))
            else:
                out.append(atom)
        return self.algebra.simplify(tuple(a for a in out if a is not None))

    def _close_object(self, atom: ObjAtom, sub: IR) -> ObjAtom | None:
        algebra = self.algebra
        props = []
        for key, ir in atom.props:
            if key not in atom.seen and not any(self.pattern_matches(p, key)
                                                for p in atom.seen_patterns):
                ir = algebra.intersect(ir, sub, nested=True)
            props.append((key, ir))
        extras = atom.extras + ((KeyCond(nomatch=atom.seen_patterns), sub),)
        closed = ObjAtom(tuple(props), atom.required, extras, atom.names, atom.min_props,
                         atom.max_props, atom.seen, atom.seen_patterns, True, atom.modeled)
        return object_nonempty(closed)

    def _close_array(self, atom: ArrAtom, sub: IR) -> ArrAtom | None:
        algebra = self.algebra
        allowed = algebra.simplify(sub + tuple(a for c in atom.seen_contains for a in c))
        prefix = tuple(ir if i < atom.seen_prefix else algebra.intersect(ir, allowed, nested=True)
                       for i, ir in enumerate(atom.prefix))
        items = algebra.intersect(ANY if atom.items is None else atom.items, allowed, nested=True)
        closed = ArrAtom(prefix, None if items == ANY else items, atom.min_items, atom.max_items,
                         atom.contains, atom.unique, atom.seen_prefix, True, atom.seen_contains)
        return array_nonempty(closed)

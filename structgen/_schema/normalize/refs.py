"""``$ref`` resolution: JSON pointers into documents, ``$id`` base URIs, ``$anchor``, other documents.

Documents are indexed once: every subschema reachable through schema keywords gets its base URI
and a stable location key (``resource-uri#pointer``), so the same target reached through an anchor
or a pointer becomes the same grammar rule. Other documents come only from ``refs={uri: schema}``
or, with ``allow_fetch=True``, from HTTPS.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from ..._errors import SchemaError
from ..._pointers import follow_pointer, pointer_step, subschema_steps
from .meta import check_meta_schema

#: Base URI of a root schema without an absolute ``$id``; relative refs resolve against it.
DEFAULT_BASE = "https://structgen.invalid/root.json"



@dataclass(frozen=True)
class Target:
    schema: Any
    base: str  # base URI in effect inside the target
    key: str  # stable identity of the target location
    pointer: str  # where to report errors


class Resolver:
    def __init__(self, root: Any, refs: Mapping[str, Any], allow_fetch: bool,
                 refs_dynamic: bool | None = None) -> None:
        self._refs = dict(refs)
        self._allow_fetch = allow_fetch
        self._resources: dict[str, Any] = {}
        self._anchors: dict[tuple[str, str], Any] = {}
        # id(schema) -> (base, resource, id of the parent in the resource, step from it); the
        # key is resource#pointer, spelled out only for the few schemas a reference asks for.
        self._where: dict[int, tuple[str, str, int | None, str, str | int | None]] = {}
        self._keep: list[Any] = []  # keeps indexed documents alive so ids stay unique
        self._legacy_id = False
        self._dynamic_anchors: dict[str, set[str]] = {}
        self._saw_dynamic_ref = False
        if isinstance(root, dict):
            draft = str(root.get("$schema", ""))
            self._legacy_id = "draft-04" in draft or "draft-03" in draft
        #: Draft 4 or older: ``id`` sets base URIs and 1.0 is not an integer.
        self.legacy = self._legacy_id
        self.root_base = DEFAULT_BASE
        own = self._own_id(root)
        if own is not None:
            self.root_base = urldefrag(urljoin(DEFAULT_BASE, own))[0]
        self._resources[DEFAULT_BASE] = root
        self._index(root, self.root_base, self.root_base, None)
        self.root_key = self.key_of(root, self.root_base + "#")
        #: Whether the documents use $dynamicRef (then references carry their dynamic scope):
        #: known up front for the root (seen while indexing it) and ``refs``; a document read
        #: later cannot turn it on, and a $dynamicRef found only then is resolved statically
        #: where that is exact (one resource declares its anchor) and refused otherwise.
        self.dynamic = self._saw_dynamic_ref or (
            any("$dynamicRef" in json.dumps(doc) for doc in self._refs.values())
            if refs_dynamic is None else refs_dynamic)

    def _own_id(self, schema: Any) -> str | None:
        if not isinstance(schema, dict):
            return None
        ident = schema.get("$id")
        if ident is None and self._legacy_id:
            ident = schema.get("id")
        if isinstance(ident, str) and not ident.startswith("#"):
            return ident
        return None

    def _index(self, schema: Any, base: str, resource: str, parent: int | None,
               keyword: str = "", name: str | int | None = None) -> None:
        """Record where ``schema`` is: its base URI, its resource, and the step from its parent
        (``keyword``, then a property name or list index if any); pointers are spelled out only
        for the few schemas a reference asks for (``_pointer``)."""
        self._keep.append(schema)
        if not isinstance(schema, dict):
            self._where[id(schema)] = (base, resource, parent, keyword, name)
            return
        own = self._own_id(schema)
        if own is not None:
            base = urldefrag(urljoin(base, own))[0]
            resource, parent = base, None
            self._resources.setdefault(base, schema)
        here = id(schema)
        self._where[here] = (base, resource, parent, keyword, name)
        if "$dynamicRef" in schema:
            self._saw_dynamic_ref = True
        for kw in ("$anchor", "$dynamicAnchor"):
            anchor = schema.get(kw)
            if isinstance(anchor, str):
                self._anchors.setdefault((base, anchor), schema)
                if kw == "$dynamicAnchor":
                    self._dynamic_anchors.setdefault(anchor, set()).add(base)
        if self._legacy_id and isinstance(schema.get("id"), str) and schema["id"].startswith("#"):
            self._anchors.setdefault((base, schema["id"][1:]), schema)
        for kw, step, sub in subschema_steps(schema):
            self._index(sub, base, resource, here, kw, step)

    def _pointer(self, where: tuple[str, str, int | None, str, str | int | None]) -> str:
        """The JSON pointer of an indexed schema inside its resource."""
        steps: list[str] = []
        _, _, parent, keyword, name = where
        while parent is not None:
            steps.append(pointer_step(keyword, name))
            _, _, parent, keyword, name = self._where[parent]
        return "".join(reversed(steps))

    def dynamic_anchor_count(self, name: str) -> int:
        """How many resources declare ``$dynamicAnchor: name`` (more than one: scope matters)."""
        return len(self._dynamic_anchors.get(name, ()))

    def has_dynamic_anchor(self, resource: str, name: str) -> bool:
        return resource in self._dynamic_anchors.get(name, ())

    def key_of(self, schema: Any, fallback: str) -> str:
        where = self._where.get(id(schema))
        return f"{where[1]}#{self._pointer(where)}" if where else fallback

    def base_of(self, schema: Any, fallback: str) -> str:
        where = self._where.get(id(schema))
        return where[0] if where else fallback

    def resolve(self, base: str, ref: str, pointer: str) -> Target:
        """The schema ``ref`` points to, seen from a schema whose base URI is ``base``."""
        if not isinstance(ref, str):
            raise SchemaError("$ref must be a string", pointer=pointer, keyword="$ref")
        if ref.startswith("#"):  # also works for bases urljoin does not understand (urn:)
            uri, fragment = urldefrag(base)[0], ref[1:]
        else:
            uri, fragment = urldefrag(urljoin(base, ref))
        document = self._document(uri, ref, pointer)
        schema = self._in_document(document, uri, unquote(fragment), ref, pointer)
        if schema is None and ref.startswith("#") and uri != self.root_base:
            # Sloppy real-world schemas: a local pointer meant for the root document.
            schema = self._in_document(self._resources[DEFAULT_BASE], self.root_base,
                                       unquote(fragment), ref, pointer)
        if schema is None or not isinstance(schema, (dict, bool)):
            raise SchemaError(f"cannot resolve $ref {ref!r}", pointer=pointer, keyword="$ref")
        fallback_key = f"{uri}#{fragment}"
        return Target(schema, self.base_of(schema, uri), self.key_of(schema, fallback_key),
                      fallback_key if not fallback_key.startswith(DEFAULT_BASE) else
                      "#" + fragment)

    def _in_document(self, document: Any, uri: str, fragment: str, ref: str,
                     pointer: str) -> Any:
        if fragment == "":
            return document
        if fragment.startswith("/"):
            try:
                return follow_pointer(document, fragment[1:].split("/"))
            except LookupError:
                return None
        return self._anchors.get((uri, fragment))

    def _document(self, uri: str, ref: str, pointer: str) -> Any:
        if uri in self._resources:
            return self._resources[uri]
        if uri == self.root_base or uri == "":
            return self._resources[DEFAULT_BASE]
        for candidate in (uri, uri + "#", urldefrag(ref)[0]):
            if candidate in self._refs:
                document = self._refs[candidate]
                break
        else:
            if not (self._allow_fetch and uri.startswith("https://")):
                raise SchemaError(
                    f"cannot resolve $ref {ref!r}: document {uri!r} is not available "
                    "(pass it in refs={uri: schema}, or allow_fetch=True for https)",
                    pointer=pointer, keyword="$ref")
            document = self._fetch(uri, pointer)
        check_meta_schema(document, uri=uri, referrer=self._resources[DEFAULT_BASE])
        self._resources[uri] = document
        self._index(document, uri, uri, None)
        return self._resources[uri]

    def _fetch(self, uri: str, pointer: str) -> Any:
        try:
            with urllib.request.urlopen(uri, timeout=10) as response:  # noqa: S310 (https only)
                return json.loads(response.read().decode("utf-8"))
        except (OSError, ValueError) as exc:
            raise SchemaError(f"cannot fetch {uri!r}: {exc}", pointer=pointer,
                              keyword="$ref") from exc

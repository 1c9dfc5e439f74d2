"""The bench's data: request sets and tool stubs as JSON beside this module (``NAME.json``),
loaded here as Python values: typed tool stubs, request sets and wanted calls; and held-out
extraction tasks as Python (``quality_heldout*.py``, their Pydantic types being the input).

The sets are data so that a set can be read, diffed and extended without reading code; this
loader gives back exactly the values the benches and tests used when the sets were Python
literals (tuples where they had tuples, functions where they had functions). The tests import
it too (``tests/support/tool_requests.py``): they use the same sets.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Optional

#: This folder: the JSON files.
DATA = Path(__file__).resolve().parent

#: A request and the tool that should be called for it (None: answer in words).
Request = tuple[str, Optional[str]]
#: A call wanted: ``(tool, a value its arguments hold)``, compared case-insensitively.
Wanted = tuple[str, str]

_TYPES: dict[str, Any] = {"str": str, "int": int, "float": float, "bool": bool}


@lru_cache(maxsize=None)
def read(name: str) -> Any:
    """``NAME.json`` of this folder (``bench/data``), parsed once."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def _type(spec: Any) -> Any:
    if isinstance(spec, dict):
        return Literal[tuple(spec["literal"])]
    if spec.startswith("list[") and spec.endswith("]"):
        return list[_type(spec[5:-1])]  # type: ignore[misc]
    return _TYPES[spec]


def stub(name: str, spec: dict[str, Any]) -> Callable[..., str]:
    """A typed function as a tool author writes one: its signature, annotations and docstring
    from ``spec``; called, it answers ``spec["returns"]`` with the arguments filled in."""
    parameters = [
        inspect.Parameter(param, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=_type(entry["type"]),
                          **({"default": entry["default"]} if "default" in entry else {}))
        for param, entry in spec["parameters"].items()
    ]
    signature = inspect.Signature(parameters, return_annotation=str)

    def tool(*args: Any, **kwargs: Any) -> str:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return str(spec["returns"]).format(**bound.arguments)

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = spec["doc"]
    tool.__signature__ = signature  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": str}
    return tool


def tools(set_name: str) -> list[Callable[..., str]]:
    """The stubs of one set of ``bench/data/tools.json``, in the set's order."""
    data = read("tools")
    return [stub(name, data["tools"][name]) for name in data["sets"][set_name]]


def by_kind(raw: dict[str, list[list[Any]]]) -> dict[str, list[Request]]:
    """``{kind: [[text, tool], ...]}`` as ``{kind: [(text, tool), ...]}``."""
    return {kind: [(text, tool) for text, tool in requests] for kind, requests in raw.items()}


def requests(raw: list[list[Any]]) -> list[Request]:
    return [(text, tool) for text, tool in raw]


def calls(raw: list[list[Any]]) -> list[tuple[str, list[Wanted]]]:
    """``[[text, [[tool, value], ...]], ...]`` as ``[(text, [(tool, value), ...]), ...]``."""
    return [(text, [(name, value) for name, value in wanted]) for text, wanted in raw]


def intent_sentences() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(ACTIONS, ANSWERS) of bench/data/intent_sentences.json, each a tuple of every group's sentences."""
    data = read("intent_sentences")
    return tuple(tuple(s for group in data[kind] for s in group["sentences"]) for kind in ("actions", "answers"))  # type: ignore[return-value]

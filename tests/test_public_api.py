"""The public surface is small and deliberate: this test pins it."""

from __future__ import annotations

import builtins
import collections.abc
import dataclasses
import inspect
import re
import sys
import typing
from typing import Any

import typing_extensions
from typing_extensions import get_overloads

import structgen

PUBLIC = [
    "ARITHMETIC_GBNF",
    "Alternative",
    "ArgumentsDelta",
    "ArgumentsName",
    "AsyncBackend",
    "Backend",
    "BackendError",
    "CHESS_GBNF",
    "C_GBNF",
    "CallInReply",
    "ChoiceTable",
    "Completion",
    "CompletionRequest",
    "ConverterCacheInfo",
    "DecisionName",
    "DescribeStyle",
    "ENGLISH_GBNF",
    "Engine",
    "Escapes",
    "Event",
    "FinishReason",
    "GenerateOptions",
    "GenerationError",
    "Grammar",
    "GrammarError",
    "GrammarOptions",
    "HintPlacement",
    "IncompleteOutputError",
    "JAPANESE_GBNF",
    "JSON_ARR_GBNF",
    "JSON_GBNF",
    "JsonPath",
    "KeyOrder",
    "LIST_GBNF",
    "LLM",
    "LlamaCppBackend",
    "LlamaServerBackend",
    "MaxRoundsError",
    "MemberRules",
    "Message",
    "ModelNotFoundError",
    "OfferedCall",
    "OfferedTools",
    "OpenAICompatibleBackend",
    "OutputValidationError",
    "Policy",
    "PolicyName",
    "PresetName",
    "PromptOptions",
    "PromptOrMessages",
    "Reasoning",
    "ReasoningDelta",
    "ReasoningOption",
    "Refusal",
    "RefusalError",
    "Result",
    "Role",
    "SamplingOptions",
    "SamplingSettings",
    "SchemaConverter",
    "SchemaError",
    "Score",
    "ScoreRequest",
    "ScoringBackend",
    "SlowGrammarError",
    "StopGeneration",
    "StructgenError",
    "TemplatedBackend",
    "TextDelta",
    "Timeout",
    "Tool",
    "ToolCall",
    "ToolChoice",
    "ToolDefinitionError",
    "ToolExecutionError",
    "ToolFormatName",
    "ToolRun",
    "ToolSource",
    "ToolStreamEvent",
    "ToolTurn",
    "Trigger",
    "UnsupportedSchemaError",
    "Usage",
    "ValidatorError",
    "Whitespace",
    "default_model_path",
    "json_schema_to_gbnf",
    "structured",
    "tool",
]


def test_all_is_pinned_and_sorted() -> None:
    assert structgen.__all__ == PUBLIC
    assert structgen.__all__ == sorted(structgen.__all__)


def test_every_public_name_exists() -> None:
    for name in structgen.__all__:
        assert getattr(structgen, name) is not None


def test_one_error_hierarchy() -> None:
    errors = [getattr(structgen, n) for n in PUBLIC if n.endswith("Error")]
    assert all(issubclass(e, structgen.StructgenError) for e in errors)
    assert issubclass(structgen.UnsupportedSchemaError, structgen.SchemaError)
    for e in ("IncompleteOutputError", "RefusalError", "OutputValidationError", "ValidatorError",
              "SlowGrammarError"):
        assert issubclass(getattr(structgen, e), structgen.GenerationError)


def test_py_typed_marker_ships() -> None:
    from pathlib import Path

    assert (Path(structgen.__file__).parent / "py.typed").is_file()


# -- no private type in a public signature ------------------------------------------------------

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _public_functions() -> list[tuple[str, Any]]:
    """Every public function and method reachable from ``__all__`` (overloads included)."""
    found: list[tuple[str, Any]] = []
    for name in structgen.__all__:
        obj = getattr(structgen, name)
        if inspect.isclass(obj):
            for klass in obj.__mro__:
                if klass is object or not klass.__module__.startswith("structgen"):
                    continue
                for member, value in vars(klass).items():
                    if member.startswith("_") and member != "__init__":
                        continue
                    function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                    if inspect.isfunction(function):
                        found += [(f"{name}.{member}", f) for f in [function, *get_overloads(function)]]
            if dataclasses.is_dataclass(obj) or typing.is_typeddict(obj) or hasattr(obj, "_fields"):
                found.append((name, obj))  # its fields' annotations
        elif inspect.isfunction(obj):
            found += [(name, f) for f in [obj, *get_overloads(obj)]]
    return found


def _annotations(obj: Any) -> list[str]:
    if inspect.isclass(obj):
        return [a for klass in obj.__mro__ for a in vars(klass).get("__annotations__", {}).values() if isinstance(a, str)]
    return [a for a in obj.__annotations__.values() if isinstance(a, str)]


def _foreign(word: str, value: Any) -> bool:
    """Whether ``value`` is a name of Python's, Pydantic's or another library's."""
    if any(getattr(home, word, None) is value for home in (builtins, typing, typing_extensions, collections.abc)):
        return True
    defined = inspect.isclass(value) or inspect.isfunction(value)
    return defined and not value.__module__.startswith("structgen")


def test_no_private_type_appears_in_a_public_signature() -> None:
    """Each name in a public annotation (as docs and IDEs show it) that structgen defines is
    importable from ``structgen`` itself: a user can name every type they are handed."""
    public = {id(getattr(structgen, name)) for name in structgen.__all__}
    leaks: dict[str, set[str]] = {}
    for where, obj in _public_functions():
        module = sys.modules[obj.__module__]
        for annotation in _annotations(obj):
            for word in _IDENTIFIER.findall(annotation):
                if word not in vars(module):
                    continue
                value = vars(module)[word]
                if inspect.ismodule(value) or isinstance(value, typing.TypeVar) or _foreign(word, value):
                    continue
                if id(value) not in public:
                    leaks.setdefault(f"{word} ({obj.__module__})", set()).add(where)
    assert not leaks, {k: sorted(v)[:3] for k, v in leaks.items()}


def test_llm_inherits_nothing_private() -> None:
    assert structgen.LLM.__mro__ == (structgen.LLM, object)

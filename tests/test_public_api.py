"""The public surface is small and deliberate: this test pins it."""

from __future__ import annotations

import builtins
import collections.abc
import dataclasses
import inspect
import re
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest
import typing_extensions
from typing_extensions import get_overloads

import structgen
import structgen.backends
import structgen.gbnf

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = [
    "ArgumentsDelta",
    "BackendError",
    "ConverterCacheInfo",
    "ExtractFailure",
    "ExtractProgress",
    "ExtractRecord",
    "GenerateOptions",
    "GenerationError",
    "Grammar",
    "GrammarChanges",
    "GrammarError",
    "GrammarOptions",
    "IncompleteOutputError",
    "JobError",
    "LLM",
    "LlamaCppBackend",
    "LlamaOptions",
    "LlamaServerBackend",
    "MCPServer",
    "MCPServerError",
    "MCPServerHTTP",
    "MCPServerStdio",
    "MCPToolError",
    "MaxRoundsError",
    "Message",
    "ModelDescription",
    "ModelNotFoundError",
    "ModelRetry",
    "OpenAICompatibleBackend",
    "OutputValidationError",
    "Policy",
    "PromptOptions",
    "PromptOrMessages",
    "ReasoningDelta",
    "Refusal",
    "RefusalError",
    "Result",
    "SamplingOptions",
    "SchemaConverter",
    "SchemaError",
    "SlowGrammarError",
    "StructgenError",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolDefinitionError",
    "ToolExecutionError",
    "ToolOptions",
    "ToolRun",
    "ToolSource",
    "ToolStreamEvent",
    "ToolTurn",
    "UnsupportedSchemaError",
    "Usage",
    "ValidatorError",
    "aextract",
    "default_model_path",
    "extract",
    "json_schema_to_gbnf",
    "policy",
    "structured",
    "tool",
]

BACKENDS = [
    "Alternative",
    "AsyncBackend",
    "Backend",
    "ChoiceTable",
    "Completion",
    "CompletionRequest",
    "DescribedBackend",
    "Engine",
    "Event",
    "FinishReason",
    "JsonPath",
    "LlamaCppBackend",
    "LlamaServerBackend",
    "MemberRules",
    "Message",
    "OpenAICompatibleBackend",
    "Reasoning",
    "ReasoningDelta",
    "Role",
    "SamplingSettings",
    "Score",
    "ScoreRequest",
    "ScoringBackend",
    "StopGeneration",
    "TemplateSource",
    "TemplatedBackend",
    "TextDelta",
    "Timeout",
    "Trigger",
    "Usage",
]

GBNF = [
    "ARITHMETIC_GBNF",
    "CHESS_GBNF",
    "C_GBNF",
    "ENGLISH_GBNF",
    "GbnfGrammar",
    "JAPANESE_GBNF",
    "JSON_ARR_GBNF",
    "JSON_GBNF",
    "LIST_GBNF",
    "LintFinding",
    "Recognizer",
    "check_safe",
    "format_gbnf",
    "lint",
    "lint_portable",
    "parse_gbnf",
]


@pytest.mark.parametrize(("module", "pinned"), [(structgen, PUBLIC), (structgen.backends, BACKENDS),
                                                (structgen.gbnf, GBNF)])
def test_all_is_pinned_and_sorted(module: types.ModuleType, pinned: list[str]) -> None:
    assert module.__all__ == pinned
    assert module.__all__ == sorted(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_the_concrete_backends_are_one_object_in_both_homes() -> None:
    for name in ("LlamaCppBackend", "LlamaServerBackend", "OpenAICompatibleBackend", "Message", "Usage"):
        assert getattr(structgen, name) is getattr(structgen.backends, name)


def test_importing_structgen_warns_of_nothing() -> None:
    code = "import structgen, structgen.backends, structgen.gbnf, structgen.testing"
    subprocess.run([sys.executable, "-W", "error:structgen:DeprecationWarning", "-c", code], check=True)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Backends'"):
        structgen.Backends  # type: ignore[attr-defined]


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
    """Every public function and method reachable from the ``__all__`` of ``structgen`` and
    ``structgen.backends`` (overloads included)."""
    found: list[tuple[str, Any]] = []
    for name, obj in [(n, getattr(m, n)) for m in (structgen, structgen.backends) for n in m.__all__]:
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


def _values_only(value: Any) -> bool:
    """Whether ``value`` is an alias of literal values and builtins (``Literal["a", "b"]``,
    ``bool | int | None``): its strings are what a caller writes, and the docs list them."""
    if typing.get_origin(value) is typing.Literal:
        return True
    if typing.get_origin(value) is typing.Union:
        return all(_values_only(arg) for arg in typing.get_args(value))
    return value in (bool, int, float, str, type(None))


def test_no_private_type_appears_in_a_public_signature() -> None:
    """Each name in a public annotation (as docs and IDEs show it) that structgen defines is
    importable from a public module: a user can name every type they are handed."""
    public = {id(getattr(m, name)) for m in (structgen, structgen.backends, structgen.gbnf) for name in m.__all__}
    leaks: dict[str, set[str]] = {}
    for where, obj in _public_functions():
        module = sys.modules[obj.__module__]
        for annotation in _annotations(obj):
            for word in _IDENTIFIER.findall(annotation):
                if word not in vars(module):
                    continue
                value = vars(module)[word]
                if (inspect.ismodule(value) or isinstance(value, typing.TypeVar) or _foreign(word, value)
                        or _values_only(value)):
                    continue
                if id(value) not in public:
                    leaks.setdefault(f"{word} ({obj.__module__})", set()).add(where)
    assert not leaks, {k: sorted(v)[:3] for k, v in leaks.items()}


def test_every_public_keyword_option_is_typed() -> None:
    """Options come one way: named keywords, or ``**options: Unpack[SomeOptions]`` (a TypedDict a
    caller's wrapper can pass on typed); no public function takes ``**kwargs: Any``."""
    import structgen.testing

    functions = _public_functions() + [
        (f"{m.__name__}.{name}", f) for m in (structgen.testing, structgen.gbnf) for name in m.__all__
        for f in [getattr(m, name)] if inspect.isfunction(f)
    ]
    untyped = [
        f"{where}: **{p.name}: {p.annotation}" for where, function in functions
        if not inspect.isclass(function) and function.__module__.startswith("structgen")  # not a Protocol's own
        for p in inspect.signature(function).parameters.values()
        if p.kind is inspect.Parameter.VAR_KEYWORD and not str(p.annotation).startswith("Unpack[")
    ]
    assert not untyped


def test_llm_inherits_nothing_private() -> None:
    assert structgen.LLM.__mro__ == (structgen.LLM, object)

"""The public surface is small and deliberate: this test pins it."""

from __future__ import annotations

import structgen

PUBLIC = [
    "ARITHMETIC_GBNF",
    "ArgumentsDelta",
    "ArgumentsName",
    "Backend",
    "BackendError",
    "CHESS_GBNF",
    "C_GBNF",
    "Completion",
    "CompletionRequest",
    "ConverterCacheInfo",
    "DecisionName",
    "ENGLISH_GBNF",
    "GenerationError",
    "Grammar",
    "GrammarError",
    "GrammarOptions",
    "IncompleteOutputError",
    "JAPANESE_GBNF",
    "JSON_ARR_GBNF",
    "JSON_GBNF",
    "LIST_GBNF",
    "LLM",
    "LlamaCppBackend",
    "LlamaServerBackend",
    "MaxRoundsError",
    "Message",
    "ModelNotFoundError",
    "OpenAICompatibleBackend",
    "OutputValidationError",
    "Refusal",
    "RefusalError",
    "Result",
    "SamplingSettings",
    "SchemaConverter",
    "SchemaError",
    "Score",
    "ScoreRequest",
    "ScoringBackend",
    "StructgenError",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolDefinitionError",
    "ToolExecutionError",
    "ToolRun",
    "ToolTurn",
    "UnsupportedSchemaError",
    "Usage",
    "ValidatorError",
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
    for e in ("IncompleteOutputError", "RefusalError", "OutputValidationError", "ValidatorError"):
        assert issubclass(getattr(structgen, e), structgen.GenerationError)


def test_py_typed_marker_ships() -> None:
    from pathlib import Path

    assert (Path(structgen.__file__).parent / "py.typed").is_file()

"""structgen: Pydantic-first structured output for local LLMs on llama.cpp's grammar sampler.

    llm = structgen.LLM()                       # the embedded default model, or any GGUF path
    ticket = llm.generate(Ticket, "Summarise this trace: ...")   # a validated Ticket

The public surface is what ``__all__`` lists; every other module is private.
"""

from ._builtins import (
    ARITHMETIC_GBNF,
    C_GBNF,
    CHESS_GBNF,
    ENGLISH_GBNF,
    JAPANESE_GBNF,
    JSON_ARR_GBNF,
    JSON_GBNF,
    LIST_GBNF,
)
from ._errors import (
    BackendError,
    GenerationError,
    GrammarError,
    IncompleteOutputError,
    MaxRoundsError,
    ModelNotFoundError,
    OutputValidationError,
    RefusalError,
    SchemaError,
    StructgenError,
    ToolDefinitionError,
    ToolExecutionError,
    UnsupportedSchemaError,
    ValidatorError,
)
from ._backends._seam import (
    Backend,
    Completion,
    CompletionRequest,
    Message,
    SamplingSettings,
    Score,
    ScoreRequest,
    ScoringBackend,
    TextDelta,
    Usage,
)
from ._backends.llamacpp import LlamaCppBackend
from ._backends.server import LlamaServerBackend, OpenAICompatibleBackend
from ._generate import LLM, Refusal, Result, structured
from ._generate._copied import ArgumentsName
from ._generate._tool_policy import DecisionName
from ._grammar import ConverterCacheInfo, Grammar, SchemaConverter, json_schema_to_gbnf
from ._model_path import default_model_path
from ._schema.options import GrammarOptions
from ._tools import ArgumentsDelta, Tool, ToolCall, ToolRun, ToolTurn, tool

__version__ = "0.1.0"

__all__ = [
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

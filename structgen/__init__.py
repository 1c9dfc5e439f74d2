"""structgen: Pydantic-first structured output for local LLMs on llama.cpp's grammar sampler.

    llm = structgen.LLM()                       # the embedded default model, or any GGUF path
    ticket = llm.generate(Ticket, "Summarise this trace: ...")   # a validated Ticket

The public surface is what ``__all__`` lists here and in ``structgen.backends`` (what a backend
author implements), ``structgen.gbnf`` (the GBNF toolkit) and ``structgen.testing``; every
other module is private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._errors import (
    BackendError,
    GenerationError,
    GrammarError,
    IncompleteOutputError,
    MCPServerError,
    MCPToolError,
    MaxRoundsError,
    ModelNotFoundError,
    ModelRetry,
    OutputValidationError,
    RefusalError,
    SlowGrammarError,
    SchemaError,
    StructgenError,
    ToolDefinitionError,
    ToolExecutionError,
    UnsupportedSchemaError,
    ValidatorError,
)
from ._backends._seam import Message, ReasoningDelta, TextDelta, Usage
from ._backends.llamacpp import LlamaCppBackend
from ._backends.server import LlamaServerBackend, OpenAICompatibleBackend
from ._generate import Refusal, Result, structured
from ._generate._attempts import SamplingOptions
from ._generate._generation import GenerateOptions, PromptOptions
from ._grammar import ConverterCacheInfo, Grammar, SchemaConverter, json_schema_to_gbnf
from ._llm import LLM
from ._model_path import default_model_path
from ._schema.options import GrammarOptions
from ._tools import ArgumentsDelta, Tool, ToolCall, ToolRun, ToolTurn, tool
from ._tools._api import PromptOrMessages, ToolOptions, ToolStreamEvent
from ._tools._mcp import MCPServer, MCPServerHTTP, MCPServerStdio
from ._tools._tool import ToolSource
from ._tools.policy._policies import Policy

__version__ = "0.1.0"

__all__ = [
    "ArgumentsDelta",
    "BackendError",
    "ConverterCacheInfo",
    "GenerateOptions",
    "GenerationError",
    "Grammar",
    "GrammarError",
    "GrammarOptions",
    "IncompleteOutputError",
    "LLM",
    "LlamaCppBackend",
    "LlamaServerBackend",
    "MCPServer",
    "MCPServerError",
    "MCPServerHTTP",
    "MCPServerStdio",
    "MCPToolError",
    "MaxRoundsError",
    "Message",
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
    "default_model_path",
    "json_schema_to_gbnf",
    "structured",
    "tool",
]

# Names that left the top level, kept importable for one release: a backend author's names
# now live in structgen.backends and the built-in grammars in structgen.gbnf.
_MOVED = {
    **dict.fromkeys(
        ["Alternative", "AsyncBackend", "Backend", "ChoiceTable", "Completion", "CompletionRequest",
         "Engine", "Event", "FinishReason", "JsonPath", "MemberRules", "Reasoning", "Role",
         "SamplingSettings", "Score", "ScoreRequest", "ScoringBackend", "StopGeneration",
         "TemplatedBackend", "Timeout", "Trigger"],
        "structgen.backends",
    ),
    **dict.fromkeys(
        ["ARITHMETIC_GBNF", "CHESS_GBNF", "C_GBNF", "ENGLISH_GBNF", "JAPANESE_GBNF", "JSON_ARR_GBNF",
         "JSON_GBNF", "LIST_GBNF"],
        "structgen.gbnf",
    ),
}

# Aliases of the values an option takes, no longer public: a caller writes the values, and a
# function passing the options on annotates them with ToolOptions or GenerateOptions.
_RETIRED = {
    "ArgumentsName": ("._tools.policy._policies", "the `arguments` field of structgen.ToolOptions"),
    "CallInReply": ("._tools.policy._policies", "the `call_in_reply` field of structgen.Policy"),
    "DecisionName": ("._tools.policy._policies", "the `decision` field of structgen.ToolOptions"),
    "DescribeStyle": ("._generate._describe", "the `describe` argument of structgen.structured"),
    "Escapes": ("._schema.options", "the `escapes` field of structgen.GrammarOptions"),
    "HintPlacement": ("._generate._output", "the `hint_placement` argument of structgen.structured"),
    "KeyOrder": ("._schema.options", "the `key_order` field of structgen.GrammarOptions"),
    "OfferedCall": ("._tools.policy._policies", "the `offered_call` field of structgen.Policy"),
    "OfferedTools": ("._tools.policy._policies", "the `offered_tools` field of structgen.Policy"),
    "PolicyName": ("._tools.policy._policies", "the `policy` field of structgen.ToolOptions"),
    "PresetName": ("._schema.options", "structgen.GrammarOptions.preset"),
    "ReasoningOption": ("._generate._reasoning", "the `reasoning` field of structgen.GenerateOptions"),
    "ToolChoice": ("._tools._turn", "the `tool_choice` field of structgen.ToolOptions"),
    "ToolFormatName": ("._tools._api", "the `tool_format` field of structgen.ToolOptions"),
    "Whitespace": ("._schema.options", "the `whitespace` field of structgen.GrammarOptions"),
}

if not TYPE_CHECKING:  # type checkers see only the current surface: checked code learns the new paths

    def __getattr__(name: str) -> Any:
        import importlib
        import warnings

        if name in _MOVED:
            message = f"structgen.{name} moved to {_MOVED[name]}.{name}"
            module = importlib.import_module(_MOVED[name])
        elif name in _RETIRED:
            private, values = _RETIRED[name]
            message = f"structgen.{name} is deprecated: {values} lists the values it took"
            module = importlib.import_module(private, __name__)
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return getattr(module, name)

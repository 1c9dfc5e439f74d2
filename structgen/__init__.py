"""structgen: Pydantic-first structured output for local LLMs on llama.cpp's grammar sampler.

    llm = structgen.LLM()                       # the embedded default model, or any GGUF path
    ticket = llm.generate(Ticket, "Summarise this trace: ...")   # a validated Ticket

The public surface is what ``__all__`` lists here and in ``structgen.backends`` (what a backend
author implements), ``structgen.gbnf`` (the GBNF toolkit) and ``structgen.testing``; every
other module is private.
"""

from __future__ import annotations

from ._errors import (
    BackendError,
    GenerationError,
    GrammarError,
    IncompleteOutputError,
    JobError,
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
from ._backends.llamacpp import LlamaCppBackend, LlamaOptions
from ._backends.server import LlamaServerBackend, OpenAICompatibleBackend
from ._extract import ExtractFailure, ExtractProgress, ExtractRecord, aextract, extract
from ._generate import Refusal, Result, structured
from ._generate._attempts import SamplingOptions
from ._generate._generation import GenerateOptions, PromptOptions
from ._grammar import ConverterCacheInfo, Grammar, SchemaConverter, json_schema_to_gbnf
from ._description import ModelDescription
from ._llm import LLM
from ._model_path import default_model_path
from ._schema.options import GrammarChanges, GrammarOptions
from ._tools import ArgumentsDelta, Tool, ToolCall, ToolRun, ToolTurn, tool
from ._tools._api import PromptOrMessages, ToolOptions, ToolStreamEvent, policy
from ._tools._mcp import MCPServer, MCPServerHTTP, MCPServerStdio
from ._tools._tool import ToolSource
from ._tools.policy._policies import Policy

__version__ = "0.1.0"

__all__ = [
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

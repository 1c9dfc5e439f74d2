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
    SlowGrammarError,
    SchemaError,
    StructgenError,
    ToolDefinitionError,
    ToolExecutionError,
    UnsupportedSchemaError,
    ValidatorError,
)
from ._backends._seam import (
    Alternative,
    AsyncBackend,
    Backend,
    ChoiceTable,
    Completion,
    CompletionRequest,
    Event,
    FinishReason,
    JsonPath,
    MemberRules,
    Message,
    Reasoning,
    ReasoningDelta,
    Role,
    SamplingSettings,
    Score,
    ScoreRequest,
    ScoringBackend,
    StopGeneration,
    TemplatedBackend,
    TextDelta,
    Usage,
)
from ._backends.llamacpp import LlamaCppBackend
from ._backends.server import LlamaServerBackend, OpenAICompatibleBackend
from ._backends.server._http import Timeout
from ._backends.server._openai import Engine
from ._generate import LLM, Refusal, Result, structured
from ._generate._attempts import SamplingOptions
from ._generate._copied import ArgumentsName
from ._generate._describe import DescribeStyle
from ._generate._generation import GenerateOptions, PromptOptions
from ._generate._reasoning import ReasoningOption
from ._generate._output import HintPlacement
from ._generate._tool_api import PromptOrMessages, ToolFormatName, ToolStreamEvent
from ._generate._tool_calls import ToolChoice
from ._generate._tool_policy import CallInReply, DecisionName, OfferedCall, OfferedTools, Policy, PolicyName
from ._grammar import ConverterCacheInfo, Grammar, SchemaConverter, Trigger, json_schema_to_gbnf
from ._model_path import default_model_path
from ._schema.options import Escapes, GrammarOptions, KeyOrder, PresetName, Whitespace
from ._tools import ArgumentsDelta, Tool, ToolCall, ToolRun, ToolTurn, tool
from ._tools._tool import ToolSource

__version__ = "0.1.0"

__all__ = [
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

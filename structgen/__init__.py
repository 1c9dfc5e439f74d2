"""structgen: Pydantic-first structured output for local LLMs on llama.cpp's grammar sampler."""

from ._errors import (
    BackendError,
    GenerationError,
    GrammarError,
    IncompleteOutputError,
    ModelNotFoundError,
    OutputValidationError,
    RefusalError,
    SchemaError,
    StructgenError,
    UnsupportedSchemaError,
)
from ._model_path import default_model_path

__version__ = "0.1.0"

__all__ = [
    "BackendError",
    "GenerationError",
    "GrammarError",
    "IncompleteOutputError",
    "ModelNotFoundError",
    "OutputValidationError",
    "RefusalError",
    "SchemaError",
    "StructgenError",
    "UnsupportedSchemaError",
    "default_model_path",
]

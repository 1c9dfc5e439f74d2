"""An in-sample estimate, on TUNE only, of what an "action or answer?" signal would do in front of
``arguments="copied"`` (docs/benchmarks.md, "Copied arguments"). Nothing here is in the library.

The signal: the request's all-MiniLM-L6-v2 similarity to the three closest of 25 action requests
less that to the three closest of 25 questions (written for this, sharing no tool's words). It is
added, times a weight, to the ``"meaning"`` score of every tool (bench/results/
decision-features-smollm2.json holds the other signals); where the best tool then scores at or
below 0 the request is answered in words, elsewhere the outcome is the one ``"copied"`` had in
bench/results/tool_arguments-smollm2.json. Usage::

    python bench/intent_estimate.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tool_requests import TUNE  # noqa: E402
from structgen._embedding import SentenceEncoder  # noqa: E402

ACTIONS = [
    "Turn off the lights in the kitchen.", "Order me a large pepperoni pizza.", "Call a taxi to the station.",
    "Look up flights from Boston to Denver next Friday.", "Cancel my 3pm meeting.", "Text Maria that I'm running late.",
    "Start a timer for ten minutes.", "Add milk and eggs to my shopping list.", "Check the status of order 4471.",
    "Pay my electricity bill.", "Open the garage door.", "Find me a hotel in Lisbon for two nights.",
    "What's the balance on my checking account?", "How long will my commute take right now?",
    "Schedule a call with the design team on Tuesday.", "Save this article for later.", "Share my location with Tom.",
    "Look up the score of tonight's game.", "Is my package out for delivery?", "Rent a bike near me.",
    "Get me the latest figures for our sales dashboard.", "Search my files for the tax form.",
    "Mute notifications until tomorrow.", "Buy two tickets for the 8pm show.", "Reset my password.",
]
QUESTIONS = [
    "Why is the sky blue?", "Explain photosynthesis simply.", "Write a short poem about autumn.",
    "What is the capital of Australia?", "Tell me a joke about cats.", "How does a vaccine work?",
    "What's the difference between weather and climate?", "Summarize the plot of Hamlet.",
    "Give me tips for a job interview.", "What does 'serendipity' mean?", "Who painted the Mona Lisa?",
    "How many legs does a spider have?", "What is 15 percent of 80?", "Can you help me name my dog?",
    "Is coffee bad for you?", "Describe a sunset over the ocean.", "What causes inflation?",
    "How do I say no politely?", "Why do people dream?", "Write a thank-you note for a gift.",
    "What's a good way to start a speech?", "How old is the universe?", "Compare cats and dogs as pets.",
    "What rhymes with orange?", "Hi, how are you today?",
]
WEIGHTS = {"similarity": 4.0, "channel": 1.0, "words": 0.3}  # FITTED[(True, True)]
RESULTS = Path(__file__).with_name("results")


def main() -> None:
    encoder = SentenceEncoder()
    actions, questions = encoder.encode(ACTIONS), encoder.encode(QUESTIONS)
    features = json.loads((RESULTS / "decision-features-smollm2.json").read_text())[: sum(map(len, TUNE.values()))]
    copied = {r["text"]: r for r in json.loads((RESULTS / "tool_arguments-smollm2.json").read_text())["tune"]["copied"]}
    vectors = encoder.encode([row["request"] for row in features])
    intents = [float(np.sort(actions @ v)[-3:].mean() - np.sort(questions @ v)[-3:].mean()) for v in vectors]
    print("command: python bench/intent_estimate.py")
    for weight, bias in [(0.0, -1.0), (10.0, -1.5), (10.0, -2.0), (15.0, -1.5)]:
        right: dict[str, list[bool]] = {}
        for row, intent in zip(features, intents):
            outcome = copied[row["request"]]
            best = max(bias + weight * intent + sum(w * t[k] for k, w in WEIGHTS.items()) for t in row["tools"])
            right.setdefault(outcome["kind"], []).append(outcome["wanted"] is None if best <= 0 else outcome["right"])
        print(f"intent weight {weight:4}, bias {bias}: " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in right.items()))


if __name__ == "__main__":
    main()

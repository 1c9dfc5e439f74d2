"""Fits the weights of tools that carry example requests (``EXAMPLES_WITH_ACTION`` and
``EXAMPLES_FITTED`` in ``structgen/_tools/policy/_gate.py``) on TUNE alone, and reports the
pre-call gate on every other split already read (docs/benchmarks.md, "Example requests").

1. ``--signals OUT.json``: every request of the read splits (never HOLDOUT7) against its tools:
   similarity to the tool's text and to its closest example (``EXAMPLES``, all-MiniLM-L6-v2),
   the model's channel score, shared words, the action signal. Cached: read if it exists.
2. The grid fit: for each setting (``action``; ``meaning``: no action signal; ``no-channel``: a
   backend that cannot score), the weights that decide the most TUNE requests right at the
   pre-call gate, summed over the models given; ties to the fewest plain requests lost, then to
   the weights nearest the shipped ones, then to the least strict bias.
3. The chosen weights against the shipped score on every other read split (also with examples on
   half the tools only), and the best any gate reaches on all read splits when fitted on them
   (in-sample): the ceiling of the four signals, with the tools' text or their examples.

Usage::

    python -m bench.experiments.fit_examples --signals S-smollm2.json [--model gemma --signals S-gemma.json]
    python -m bench.experiments.fit_examples --fit S-smollm2.json S-gemma.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from bench.experiments import tools_that_answer as answering
from bench.harness import model_path
from tests.support import tool_requests as requests

READ = ("TUNE", "TEST", "HOLDOUT", "HOLDOUT2", "HOLDOUT3", "HOLDOUT4", "HOLDOUT5", "HOLDOUT6", "LIVE", "FRESH",
        "NEIGHBOURS")
Row = dict[str, Any]
Gate = tuple[float, float, float, float, float]  # bias, similarity, channel, words, action
SHIPPED: Gate = (-1.5, 4.0, 1.0, 0.3, 15.0)  # WITH_ACTION


def signals(model: str | None) -> list[Row]:
    from structgen import LlamaCppBackend
    # The gate's own signals, computed for the fit (the tools from typed functions: as_tools).
    from structgen._tools._tool import as_tools
    from structgen._tools.policy._words import shared_words
    from structgen._tools.policy._encoder import SentenceEncoder
    from structgen._tools.policy._gate import channel_scores
    from structgen._tools.policy._meanings import Meanings

    sets = {name: (requests.TOOLS, getattr(requests, name)) for name in READ}
    for name, (functions, asked) in answering.SETS.items():  # each set offers its own four tools
        sets[f"ANSWERING-{name}"] = (functions, {"tool": [r for r in asked if r[1]], "no_tool": [r for r in asked if not r[1]]})
    examples = {**requests.EXAMPLES, **answering.EXAMPLES}
    backend = LlamaCppBackend.load(model_path(model), n_ctx=4096, n_threads=1, n_threads_batch=1)
    plain, shown = Meanings(SentenceEncoder()), Meanings(SentenceEncoder())
    rows = []
    for name, (functions, split) in sets.items():
        tools = as_tools(functions)
        with_examples = [t.with_examples(examples[t.name]) for t in tools]
        for kind, wanted_of in split.items():
            for text, wanted in wanted_of:
                rows.append({"set": name, "kind": kind, "request": text, "wanted": wanted,
                             "action": plain.action_score(text), "tools": [
                                 {"name": t.name, "similarity": s, "examples": e, "channel": c,
                                  "words": min(shared_words(text, t), 3)}
                                 for t, s, e, c in zip(tools, plain.similarities(text, tools),
                                                       shown.similarities(text, with_examples),
                                                       channel_scores(backend, text, tools) or [])]})
        print(name, len(rows), file=sys.stderr, flush=True)
    backend.close()
    return rows


def decided(row: Row, gate: Gate, similarity: str, shown: frozenset[str] | None = None) -> str | None:
    """The tool the pre-call gate offers first, or None (answer in words). With ``shown``, only
    those tools have examples (scored by ``gate``); the others are scored as shipped."""

    def score(tool: dict[str, Any]) -> float:
        with_examples = shown is None or tool["name"] in shown
        bias, s, c, w, a = gate if with_examples else SHIPPED
        seen = tool[similarity] if with_examples else tool["similarity"]
        return bias + s * seen + c * tool["channel"] + w * tool["words"] + a * row["action"]

    best = max(row["tools"], key=score)
    return best["name"] if score(best) > 0 else None


def right(rows: list[Row], gate: Gate, similarity: str, shown: frozenset[str] | None = None) -> Counter[str]:
    return Counter(r["kind"] for r in rows if decided(r, gate, similarity, shown) == r["wanted"])


def fit(models: list[list[Row]], setting: str) -> Gate:
    grid = itertools.product(np.arange(-1.0, -4.01, -0.25), (2, 4, 6, 8),
                             (0,) if setting == "no-channel" else (0.5, 1, 1.5), (0, 0.3),
                             (0, 5, 10, 15) if setting == "action" else (0,))

    def key(gate: Gate) -> tuple[float, float, float]:
        counts = [right([r for r in rows if r["set"] == "TUNE"], gate, "examples") for rows in models]
        distance = abs(gate[1] - 4) + abs(gate[2] - 1) + abs(gate[3] - 0.3) + abs(gate[4] - 15) / 5
        return (-sum(c.total() for c in counts), -sum(c["plain"] for c in counts), distance)

    return min((tuple(map(float, g)) for g in grid), key=key)  # type: ignore[arg-type]


def report(label: str, rows: list[Row], gate: Gate, similarity: str) -> str:
    totals = Counter(r["kind"] for r in rows)
    got = right(rows, gate, similarity)
    return f"{label}: " + ", ".join(f"{k} {got[k]}/{n}" for k, n in sorted(totals.items()))


def ceiling(rows: list[Row], similarity: str) -> tuple[float, Gate]:
    """The best share of both paraphrases and no-tool requests (the lower of the two) that any
    gate reaches on ``rows`` themselves with plain requests at 95 % or more."""
    signal = np.array([[[t[similarity], t["channel"], t["words"], r["action"]] for t in r["tools"]] for r in rows])
    names = [[t["name"] for t in r["tools"]] for r in rows]
    count = Counter(r["kind"] for r in rows)
    best: tuple[float, Gate] = (0.0, SHIPPED)
    for gate in itertools.product(np.arange(-5, 0.01, 0.25), (2, 4, 6, 8, 10), (0.5, 1, 1.5, 2), (0, 0.3, 0.6, 1.0),
                                  (5, 10, 15, 20, 30)):
        scores = gate[0] + signal @ np.array(gate[1:])
        top = scores.argmax(axis=1)
        got = Counter(r["kind"] for r, n, i, row in zip(rows, names, top, scores)
                      if (n[i] if row[i] > 0 else None) == r["wanted"])
        if got["plain"] >= 0.95 * count["plain"]:
            share = min(got["paraphrase"] / count["paraphrase"], got["no_tool"] / count["no_tool"])
            if share > best[0]:
                best = (share, (float(gate[0]), *map(float, gate[1:])))  # type: ignore[assignment]
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: SmolLM2)")
    parser.add_argument("--signals", type=Path, help="compute (or read) one model's signals here")
    parser.add_argument("--fit", nargs="+", type=Path, help="fit on these models' signal files")
    args = parser.parse_args()
    if args.signals and not args.signals.exists():
        args.signals.write_text(json.dumps(signals(args.model)))
    if not args.fit:
        return
    print("command:", " ".join(["python", "-m", "bench.experiments.fit_examples", *sys.argv[1:]]))
    models = [json.loads(path.read_text()) for path in args.fit]
    for setting in ("action", "meaning", "no-channel"):
        gate = fit(models, setting)
        print(f"\n{setting}: bias {gate[0]}, similarity {gate[1]}, channel {gate[2]}, words {gate[3]}, action {gate[4]}")
        for path, rows in zip(args.fit, models):
            if setting == "action":
                for part in ("TUNE", "other", "ANSWERING"):
                    chosen = [r for r in rows if r["set"].startswith(part) or part == "other" and r["set"] in READ[1:]]
                    print(f"  {path.name} {part:9} " + report("shipped", chosen, SHIPPED, "similarity") + " | "
                         + report("examples", chosen, gate, "examples"))
                other = [r for r in rows if r["set"] in READ[1:]]
                names = [t["name"] for t in other[0]["tools"]]
                for half in (frozenset(names[:6]), frozenset(names[6:])):
                    print(f"  {path.name} other, examples on {', '.join(n for n in names if n in half)} only: "
                          f"{right(other, gate, 'examples', half).total()} right (none {right(other, SHIPPED, 'similarity').total()}, "
                          f"all {right(other, gate, 'examples').total()})")
    for path, rows in zip(args.fit, models):
        own = [r for r in rows if r["set"] in READ]
        for similarity in ("similarity", "examples"):
            share, gate = ceiling(own, similarity)
            print(f"\nceiling by {similarity}, {path.name}, all {len(own)} read requests, in-sample: paraphrases "
                  f"and no-tool both at {share:.1%} or less (best gate {gate})")

if __name__ == "__main__":
    main()

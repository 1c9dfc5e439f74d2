"""The channel score's usual range (``CHANNEL_RANGE`` and ``CHANNEL_USUAL`` in
``structgen/_tools/policy/_gate.py``), chosen on BFCL's tuning half only, and what
``channel="undecided"`` saves and changes with it (docs/benchmarks.md, "Function calling").

1. ``--signals OUT.jsonl``: every tool of the first ``--per-category`` tuning-half cases of each
   category against its request, as the scored gate weighs them under ``decision="action"``
   (similarity, channel score, shared words, action signal, score), and the tools the case's
   gold answer calls. Cached: read if it exists.
2. ``--report TUNE.jsonl [--check OTHER.jsonl ...]``: for bands of the channel score's
   percentiles on the tuning file (1st to 99th, 5th to 95th, ...), on each file: the scoring
   passes ``"undecided"`` with that band leaves of those ``"every"`` makes, the requests whose
   plan (which tools, in which order) is the same, and the requests the plan gets right against
   the gold answer (no tool on an irrelevance case; else a tool the gold calls among those
   offered). The chosen band is the narrowest that gets as many tuning requests right as
   ``"every"``.

Usage::

    python -m bench.experiments.channel_range --model qwen0.5b --signals S-0.5b.jsonl
    python -m bench.experiments.channel_range --report S-0.5b.jsonl --check S-1.5b.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import structgen
from bench.harness import model_path
from bench.suites import bfcl
# The gate's own signals, collected and weighed (what the range is fitted on).
from structgen._tools.policy._fitted import MAX_OFFERED

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
              "live_multiple", "live_irrelevance")
Row = dict[str, Any]


def signals(model: str | None, per_category: int) -> list[Row]:
    from structgen._generate._messages import as_messages
    from structgen._generate._steps import finish, run_blocking
    from structgen._tools.policy import _table
    from structgen._tools.policy._meanings import MeaningsLoader
    from structgen._tools.policy._phases import Plan, TurnContext
    from structgen._tools.policy._policies import Policy

    every = Policy(decision="action", channel="every", offered_tools="fitting")

    backend = structgen.LlamaCppBackend.load(model_path(model), n_ctx=4096, n_threads=1, n_threads_batch=2)
    meanings = MeaningsLoader()()
    rows = []
    for case in bfcl.cases(per_category=per_category, split="tune", categories=CATEGORIES):
        tools = [structgen.Tool(**bfcl.bfcl_tool(f)["function"]) for f in case["function"]]
        conversation = as_messages(None, system=None, messages=case["question"][0])
        start = time.perf_counter()
        turn = TurnContext(conversation, tools, "auto", 1, meanings, Plan(tools, said_values="none"))
        evidence = finish(run_blocking(_table.decide(turn, every), backend)).ranking or ()
        gold = sorted({name for call in case.get("ground_truth") or [] for name in call})
        if case["category"].endswith("irrelevance"):
            gold = []
        rows.append({"id": case["id"], "category": case["category"], "seconds": time.perf_counter() - start, "gold": gold,
                     "tools": [{"name": e.tool.name, "similarity": e.similarity, "channel": e.channel,
                                "words": e.words, "action": e.action, "score": e.score} for e in evidence]})
        print(f"{case['id']:32} {rows[-1]['seconds']:5.2f}s", file=sys.stderr)
    return rows


def read(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


BANDS = ((1, 99), (5, 95), (10, 90), (25, 75), (50, 50))


def percentiles(rows: list[Row], *wanted: float) -> list[float]:
    values = np.array([t["channel"] for r in rows for t in r["tools"]])
    return [round(float(v), 2) for v in np.percentile(values, wanted)]


def undecided_plan(row: Row, low: float, high: float, usual: float) -> tuple[list[str], int]:
    """The tools ``"tool-trained"`` offers (every fitting one, best first, at most MAX_OFFERED) when the
    channel is weighed only where it could change a tool's fit; and the scoring passes made.
    (The tools here carry no examples: the channel weight is ``WITH_ACTION``'s, 1.)"""
    known = [t["score"] - t["channel"] for t in row["tools"]]
    scored = {i for i, k in enumerate(known) if k + low <= 0 < k + high}
    scores = [t["score"] if i in scored else known[i] + usual for i, t in enumerate(row["tools"])]
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
    return [row["tools"][i]["name"] for i in ranked if scores[i] > 0][:MAX_OFFERED], (1 + len(scored)) if scored else 0


def every_plan(row: Row) -> list[str]:
    return [t["name"] for t in row["tools"] if t["score"] > 0][:MAX_OFFERED]  # rows are stored best first


def right(row: Row, plan: list[str]) -> bool:
    return bool(set(plan) & set(row["gold"])) if row["gold"] else not plan


def effect(rows: list[Row], low: float, high: float, usual: float) -> tuple[int, int, int, int]:
    """Scoring passes made, passes ``"every"`` makes, plans the same, plans right."""
    passes = every = same = good = 0
    for row in rows:
        plan, made = undecided_plan(row, low, high, usual)
        passes, every = passes + made, every + 1 + len(row["tools"])
        same += plan == every_plan(row)
        good += right(row, plan)
    return passes, every, same, good


def report(tuning: Path, others: list[Path]) -> None:
    rows = {path: read(path) for path in (tuning, *others)}
    (usual,) = percentiles(rows[tuning], 50)
    print(f"channel score on {tuning.name} ({len(rows[tuning])} requests): median {usual}")
    weighing_every = {path: sum(right(r, every_plan(r)) for r in found) for path, found in rows.items()}
    chosen = None
    for low_pct, high_pct in BANDS:
        low, high = percentiles(rows[tuning], low_pct, high_pct)
        print(f"band {low_pct}th-{high_pct}th percentile [{low}, {high}]:")
        for path, found in rows.items():
            passes, every, same, good = effect(found, low, high, usual)
            print(f"  {path.name}: scoring passes {passes} of {every} ({passes / every:.0%}); the same plan on "
                  f"{same} of {len(found)}; right {good} (every tool weighed: {weighing_every[path]})")
            if path == tuning and good == weighing_every[tuning]:
                chosen = (low_pct, high_pct, low, high)
    if chosen:
        print(f"chosen: {chosen[0]}th-{chosen[1]}th percentile, CHANNEL_RANGE = ({chosen[2]}, {chosen[3]}), "
              f"CHANNEL_USUAL = {usual}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="qwen0.5b, qwen1.5b, gemma, or a GGUF path")
    parser.add_argument("--per-category", type=int, default=20)
    parser.add_argument("--signals", type=Path, help="collect the signals into this JSON-lines file")
    parser.add_argument("--report", type=Path, help="the range read on this file, and its effect on it")
    parser.add_argument("--check", type=Path, nargs="*", default=[], help="the range's effect on these files too")
    args = parser.parse_args()
    if args.signals:
        if not args.signals.exists():
            rows = signals(args.model, args.per_category)
            args.signals.write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(f"{args.signals}: {len(read(args.signals))} requests")
    if args.report:
        report(args.report, args.check)


if __name__ == "__main__":
    main()

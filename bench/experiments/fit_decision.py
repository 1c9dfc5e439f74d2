"""Fits the ``"meaning"`` decision's scores (``structgen/_tools/policy/_gate.py``, FITTED) on
the tuning split only: the TUNE requests of bench/data/tool_requests.json and the tuning half of BFCL's
dev cases (the BFCL suite's split).

For every (request, tool) pair it computes the signals the decision uses — similarity of
meanings (all-MiniLM-L6-v2), the model's channel score, shared words — labelled 1 when the
tool is the one to call. One logistic score is fitted per set of available signals, and its
bias then moved to the value that decides the most tuning requests right (a request is right
when the best-scored tool is the one to call and scores above 0, or when nothing should be
called and no tool scores above 0). Prints the weights and the tuning split's
results. With ``--end-to-end BIAS,SIMILARITY,CHANNEL,WORDS`` it instead runs ``call_tools``
(the default decision) on the TUNE requests with those weights in ``FITTED[(True, True)]``, the
score without the action signal; with a fifth weight, ACTION, in ``WITH_ACTION``, the default
decision's score (grounding included, which the pair fit cannot see) and prints how many of
each kind were right. Usage::

    python -m bench.experiments.fit_decision [--model gemma|PATH] [--bfcl 120] [--features OUT.json]
    python -m bench.experiments.fit_decision --end-to-end=-1.0,4.0,1.0,0.0 [--model gemma|PATH]
    python -m bench.experiments.fit_decision --end-to-end=-1.5,4.0,1.0,0.3,15.0 [--model gemma|PATH] [--split holdout3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import model_path
from bench.suites.bfcl import cases
from structgen import LlamaCppBackend, Message, Tool
# The gate's own signals, computed for the fit (the tools from typed functions: as_tools).
from structgen._tools._tool import as_tools
from structgen._tools.policy._words import said, shared_words
from structgen._tools.policy._encoder import SentenceEncoder
from structgen._tools.policy._gate import channel_scores
from structgen._tools.policy._meanings import Meanings
from tests.support.bfcl import bfcl_tool
from tests.support.tool_requests import HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7, LIVE, NEIGHBOURS, TOOLS, TUNE

#: Where ``--end-to-end`` runs: TUNE (where weights are chosen) or a split that reports them.
SPLITS = {"tune": TUNE, "holdout3": HOLDOUT3, "holdout4": HOLDOUT4, "holdout5": HOLDOUT5, "holdout6": HOLDOUT6, "holdout7": HOLDOUT7, "live": LIVE, "neighbours": NEIGHBOURS}

SIGNALS = ("similarity", "channel", "words")


def groups(bfcl: int) -> list[tuple[str, list[Tool], set[str]]]:
    """(request, tools, names to call) for every tuning request."""
    own = as_tools(TOOLS)
    found = [(text, own, {tool} if tool else set()) for reqs in TUNE.values() for text, tool in reqs]
    if bfcl:
        chosen = [c for c in cases(split="tune") if not c["category"].startswith(("parallel", "live_parallel"))]
        for case in chosen[:: max(1, len(chosen) // bfcl)][:bfcl]:
            text = said([Message(m["role"], m["content"]) for m in case["question"][0] if m["role"] in ("user", "system")])
            try:
                tools = as_tools([bfcl_tool(f) for f in case["function"]])
            except Exception:  # a few BFCL functions do not convert (the BFCL suite says which)
                continue
            irrelevant = "irrelevance" in case["category"]
            wanted = set() if irrelevant else {next(iter(call)) for call in case.get("ground_truth") or []}
            found.append((text, tools, wanted))
    return found


def features(path: str, bfcl: int) -> list[dict[str, Any]]:
    backend = LlamaCppBackend.load(path, n_ctx=4096, n_threads=1, n_threads_batch=1)  # the machine is shared: spinning threads stall
    meanings = Meanings(SentenceEncoder())
    rows = []
    started = time.perf_counter()
    for n, (text, tools, wanted) in enumerate(groups(bfcl)):
        conversation = [Message("user", text)]
        similarity = meanings.similarities(text, tools)
        channel = channel_scores(backend, text, tools) or [0.0] * len(tools)
        rows.append({"request": text, "wanted": sorted(wanted), "tools": [
            {"name": t.name, "similarity": s, "channel": c, "words": min(shared_words(text, t), 3)}
            for t, s, c in zip(tools, similarity, channel)]})
        if n % 10 == 0:
            print(f"{n} requests, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    backend.close()
    return rows


def fit(rows: list[dict[str, Any]], signals: tuple[str, ...]) -> tuple[float, dict[str, float]]:
    """Logistic regression on the pairs (light L2), then the bias that decides most requests right."""
    x = np.array([[t[s] for s in signals] for r in rows for t in r["tools"]], dtype=np.float64)
    y = np.array([t["name"] in r["wanted"] for r in rows for t in r["tools"]], dtype=np.float64)
    w, b = np.zeros(len(signals)), 0.0
    for _ in range(4000):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        w -= 0.5 * (x.T @ (p - y) / len(y) + 1e-3 * w)
        b -= 0.5 * float((p - y).mean())
    weights = dict(zip(signals, map(float, w)))
    candidates = sorted({-score(t, weights, 0.0) for r in rows for t in r["tools"]})
    best = max(candidates, key=lambda bias: (right(rows, weights, bias), -abs(bias - b)))
    return best, weights


def score(tool: dict[str, Any], weights: dict[str, float], bias: float) -> float:
    return bias + sum(weights[s] * tool[s] for s in weights)


def right(rows: list[dict[str, Any]], weights: dict[str, float], bias: float) -> float:
    """Share of requests decided right: calls by kind balanced with answers in words."""
    called, answered = [], []
    for r in rows:
        best = max(r["tools"], key=lambda t: score(t, weights, bias))
        fits = score(best, weights, bias) > 1e-9
        if r["wanted"]:
            called.append(fits and best["name"] in r["wanted"])
        else:
            answered.append(not fits)
    return (np.mean(called) + np.mean(answered)) / 2 if called and answered else 0.0


def end_to_end(path: str, weights: list[float], split: str = "tune") -> None:
    import structgen
    from structgen._tools.policy import _fitted, _gate  # the weights under test, set in place

    if len(weights) == 5:  # the default decision, "action": its score with the action signal
        _gate.WITH_ACTION = _fitted.Weights(*weights)
    else:
        bias, similarity, channel, words = weights
        _fitted.FITTED[(True, True)] = _fitted.Weights(bias, similarity, channel, words)
    llm = structgen.LLM(path, max_tokens=128, n_threads=1, n_threads_batch=1)
    right: dict[str, list[bool]] = {}
    started = time.perf_counter()
    for kind, requests in SPLITS[split].items():
        for text, wanted in requests:
            turn = llm.call_tools(text, TOOLS)
            made = turn.calls[0].name if turn.calls else None
            right.setdefault(kind, []).append(made == wanted)
            if made != wanted:
                print(f"  {kind:10} {text!r} -> {made} {[c.text for c in turn.calls][:1]}", flush=True)
    print("command:", " ".join(sys.argv))
    print({k: f"{sum(v)}/{len(v)}" for k, v in right.items()}, f"{time.perf_counter() - started:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: SmolLM2)")
    parser.add_argument("--bfcl", type=int, default=120, help="BFCL tuning cases to add")
    parser.add_argument("--features", type=Path, help="cache of the computed signals (read if it exists)")
    parser.add_argument("--end-to-end", help="BIAS,SIMILARITY,CHANNEL,WORDS[,ACTION]: run these weights on TUNE "
                        "(with ACTION: the default decision's score, WITH_ACTION)")
    parser.add_argument("--split", choices=sorted(SPLITS), default="tune",
                        help="the requests --end-to-end runs on (default: tune, where weights are chosen)")
    args = parser.parse_args()
    if args.end_to_end:
        end_to_end(model_path(args.model), [float(x) for x in args.end_to_end.split(",")], args.split)
        return
    if args.features and args.features.exists():
        rows = json.loads(args.features.read_text())
    else:
        rows = features(model_path(args.model), args.bfcl)
        if args.features:
            args.features.write_text(json.dumps(rows))
    print("command:", " ".join(sys.argv))
    for signals in itertools.chain.from_iterable(itertools.combinations(SIGNALS, k) for k in (1, 2, 3)):
        if "words" not in signals and signals != ("similarity",) and signals != ("channel",):
            continue
        bias, weights = fit(rows, signals)
        own = [r for r in rows[: sum(map(len, TUNE.values()))]]
        print(f"{'+'.join(signals):28} bias {bias:7.3f} " + " ".join(f"{k} {v:7.3f}" for k, v in weights.items())
              + f" | right: all {right(rows, weights, bias):.3f}, own {right(own, weights, bias):.3f}")


if __name__ == "__main__":
    main()

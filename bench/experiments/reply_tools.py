"""What a tool turn's reply in words is under each ``reply_tools`` setting (docs/benchmarks.md,
"Function calling"; the choice is ``"tool-trained"``'s).

Every BFCL case of the chosen split (the first ``--per-category`` of each category) goes through
``call_tools`` under ``"tool-trained"``'s rules with ``reply_tools="all"`` and again with
``"none"``; a case the gate sends to a call turn runs once, since the setting does not reach it.
For each reply in words: its seconds, prompt and sampled tokens, and whether it is a call written
as text (a ``<tool_call>`` tag, a fenced ``json`` block, or a ``"name"``/``"arguments"`` key).

Usage::

    python -m bench.experiments.reply_tools --model qwen0.5b --split tune --json OUT.json
    python -m bench.experiments.reply_tools --model qwen1.5b --per-category 4 --split test --json OUT.json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.harness import model_path
from bench.policies import NamedPolicy
from bench.suites import bfcl
from tests.support.bfcl import bfcl_tool

#: The values of the tool-trained policy's ``reply_tools`` rule, each measured.
SETTINGS = ("all", "none")
#: What a call written as a reply's text looks like, in the forms the Qwen models write.
CALL_AS_TEXT = re.compile(r'<tool_call>|```json|"name"\s*:\s*"|"arguments"\s*:')


def replies(model: str | None, split: str, per_category: int) -> list[dict[str, Any]]:
    import structgen

    llm = structgen.LLM(model_path(model), n_ctx=4096, max_tokens=512)
    llm.call_tools("Weather in Paris?", [bfcl_tool(bfcl.WARM_UP_TOOL)], tool_choice="auto")  # warm-up
    rows = []
    for case in bfcl.cases(per_category=per_category, categories=bfcl.CATEGORIES, split=split):
        tools = [bfcl_tool(f) for f in case["function"]]
        for setting in SETTINGS:
            policy = NamedPolicy.of("tool-trained", reply_tools=setting).policy()
            start = time.perf_counter()
            turn = llm.call_tools(case["question"][0], tools, tool_choice="auto", policy=policy)
            seconds = time.perf_counter() - start
            if turn.calls:
                break  # a call turn: the setting does not reach it
            text = turn.text or ""
            rows.append({"id": case["id"], "category": case["category"], "reply_tools": setting,
                         "seconds": round(seconds, 2), "prompt_tokens": turn.usage.prompt_tokens,
                         "sampled_tokens": turn.usage.sampled_tokens, "call_as_text": bool(CALL_AS_TEXT.search(text)),
                         "text": text})
            print(f"{case['id']:28} {setting:4} {seconds:6.2f}s {text[:100]!r}", file=sys.stderr)
    llm.close()
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per setting: replies, those written as a call, seconds in all and the median."""
    found: dict[str, dict[str, Any]] = {}
    for setting in SETTINGS:
        mine = [r for r in rows if r["reply_tools"] == setting]
        found[setting] = {"replies": len(mine), "call_as_text": sum(r["call_as_text"] for r in mine),
                          "seconds": round(sum(r["seconds"] for r in mine), 1),
                          "median_seconds": round(statistics.median(r["seconds"] for r in mine), 2) if mine else None,
                          "prompt_tokens": sum(r["prompt_tokens"] for r in mine),
                          "sampled_tokens": sum(r["sampled_tokens"] for r in mine)}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen0.5b", help="qwen0.5b, qwen1.5b, or a GGUF path")
    parser.add_argument("--split", default="tune", choices=("tune", "test"))
    parser.add_argument("--per-category", type=int, default=6)
    parser.add_argument("--json", type=Path, help="write the replies and the summary here")
    args = parser.parse_args()
    rows = replies(args.model, args.split, args.per_category)
    found = summary(rows)
    print(json.dumps(found, indent=1))
    if args.json:
        command = "python -m bench.experiments.reply_tools " + " ".join(sys.argv[1:])
        args.json.write_text(json.dumps({"command": command, "model": args.model, "split": args.split,
                                         "summary": found, "replies": rows}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()

"""Calling or answering, as users word requests: every decision side by side with the peers.

The twelve tools and the TEST requests of bench/data/tool_requests.json (plainly worded, paraphrases
that share no word stem with any tool's text, and requests that need no tool), all tools offered
every time, greedy, ``tool_choice="auto"``. A request is right when the first call is to the
tool it needs (or, for no-tool requests, when no call is made). Runners, each under the same
time bound, token budget and context (the BFCL suite's workers):

- ``structgen:<decision>`` — ``LLM(model).call_tools(request, tools, decision=...)`` for each
  decision (meaning, action, words, model); ``structgen:<decision>/<arguments>`` also passes
  ``arguments=`` (copied, free_then_copied);
- ``structgen-server:<decision>`` — the same through llama.cpp's server (``LlamaServerBackend``),
  a backend that scores no given text (``structgen-server-plain``: also without the
  ``structgen[embeddings]`` extra);
- ``--examples`` gives the in-process structgen runners each tool's example requests
  (``EXAMPLES``; ``Tool.examples``), and their rows are named ``structgen:<decision>+examples``;
- ``peer`` — llama-cpp-python's ``chatml-function-calling``;
- ``server`` — llama.cpp's own ``llama-server --jinja`` with OpenAI ``tools``.

Prints a Markdown table (right per kind, seconds per request) headed by the exact command;
every outcome goes to ``--json`` (default ``bench/results/latest/tool_decision.json``). Usage::

    python -m bench.suites.tool_decision [--model gemma|PATH] [--runners structgen:meaning,peer,server]
                                  [--timeout 60] [--max-tokens 256] [--n-ctx 4096] [--json OUT]
    python -m bench.suites.tool_decision --tables RUN.json [LATER_RUN.json ...]
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
from pathlib import Path
from typing import Any

from bench.harness import model_path, results_file
from bench.suites.bfcl import Bounds, start_runner
from structgen._tools._tool import as_tools  # the stubs as OpenAI tool dicts, for every runner alike
from tests.support.tool_requests import (
    EXAMPLES, FRESH, HOLDOUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7, HOLDOUT8, LIVE, NEIGHBOURS,
    TEST, TOOLS, TUNE, Kind,
)

SPLITS = {"test": TEST, "holdout": HOLDOUT, "holdout2": HOLDOUT2, "holdout3": HOLDOUT3, "holdout4": HOLDOUT4,
          "fresh": FRESH, "holdout5": HOLDOUT5, "holdout6": HOLDOUT6, "holdout7": HOLDOUT7, "holdout8": HOLDOUT8, "live": LIVE, "neighbours": NEIGHBOURS, "tune": TUNE}

RUNNERS = ("structgen:auto", "structgen:small-model", "structgen:tool-trained", "structgen:meaning", "structgen:words", "structgen:model", "structgen:meaning/copied",
           "structgen:meaning/free_then_copied", "structgen:action", "structgen:action/copied", "structgen:action/free_then_copied",
           "structgen-server:action", "structgen-server-plain:action", "peer", "server")


def run(runner: str, path: str, bounds: Bounds, show: bool, split: str = "test", examples: bool = False
        ) -> list[dict[str, Any]]:
    engine_name, _, decision = runner.partition(":")
    engine = start_runner(engine_name, path, bounds, decision or None)
    tools = [t.to_openai() for t in as_tools(TOOLS)]
    label = runner
    if examples and engine_name == "structgen":  # a tool dict may carry them (never sent to a server)
        label = runner + "+examples"
        tools = [{**t, "function": {**t["function"], "examples": EXAMPLES[t["function"]["name"]]}} for t in tools]
    rows = []
    try:
        for kind, requests in SPLITS[split].items():
            for text, wanted in requests:
                outcome = engine.run([{"role": "user", "content": text}], tools)
                called = outcome.calls[0][0] if outcome.calls else None
                # A reply whose calls cannot be read made no call; a timeout or crash is wrong.
                right = called == wanted and (not outcome.failure or outcome.undecodable)
                rows.append({"runner": label, "kind": kind, "request": text, "wanted": wanted,
                             "called": called, "right": right, "seconds": outcome.seconds,
                             "failure": outcome.failure})
                if show:
                    print(f"  {label:18} {kind:10} {'ok' if right else 'FAIL':4} {outcome.seconds:6.2f}s "
                          f"{text[:50]!r} -> {called} {outcome.failure[:60]}", file=sys.stderr, flush=True)
    finally:
        engine.close()
    return rows


def table(rows: list[dict[str, Any]], runners: list[str]) -> str:
    kinds: list[Kind] = ["plain", "paraphrase", "no_tool"]
    lines = ["| runner | " + " | ".join(k for k in kinds) + " | overall | median s | mean s |",
             "|---|" + "---:|" * (len(kinds) + 3)]
    for runner in runners:
        mine = [r for r in rows if r["runner"] == runner]
        if not mine:
            continue
        cells = []
        for kind in kinds:
            of = [r for r in mine if r["kind"] == kind]
            right = sum(r["right"] for r in of)
            cells.append(f"{right} ({100 * right / len(of):.0f} %)" if of else "—")
        total = sum(r["right"] for r in mine)
        seconds = [r["seconds"] for r in mine]
        lines.append(f"| {runner} | " + " | ".join(cells) + f" | {total}/{len(mine)} | "
                     f"{statistics.median(seconds):.2f} | {statistics.mean(seconds):.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, qwen0.5b, qwen1.5b, or a GGUF path (default: SmolLM2)")
    parser.add_argument("--runners", default=",".join(RUNNERS))
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request, every runner")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads, every runner (a busy machine: 1)")
    parser.add_argument("--threads-batch", type=int, default=1)
    parser.add_argument("--split", choices=sorted(SPLITS), default="holdout",
                        help="holdout: written after every choice up to 2026-12-03 (default); holdout2: "
                             "written after decision='action' was chosen; holdout3, holdout4: written for "
                             "the refits of the decision weights (2026-12-04); holdout5: written for the next "
                             "refit, read once after it; holdout6: written for the sentence-fitted signal, read "
                             "after the signal was chosen (2026-12-05); holdout7: written and read with the "
                             "example requests (2026-12-05); holdout8: the developer's own wording, written after "
                             "the copy gate; test: read once before a choice; tune: the split choices are made on")
    parser.add_argument("--examples", action="store_true",
                        help="give structgen (in-process) runners each tool's example requests (EXAMPLES)")
    parser.add_argument("--json", type=Path,
                        help="write every request's outcome here (default: bench/results/latest/tool_decision.json)")
    parser.add_argument("--show", action="store_true", help="print each request as it finishes")
    parser.add_argument("--tables", nargs="+", type=Path, metavar="JSON",
                        help="print the table of earlier runs (a later file's runner replaces an earlier's)")
    args = parser.parse_args()
    if args.tables:
        runs = [json.loads(path.read_text()) for path in args.tables]
        kept = {row["runner"]: earlier for earlier in runs for row in earlier["rows"]}
        for earlier in runs:
            print(f"- `{earlier['command']}` ({earlier['model']})")
        print()
        print(table([r for name, earlier in kept.items() for r in earlier["rows"] if r["runner"] == name], list(kept)))
        return
    path = model_path(args.model)
    bounds = Bounds(args.timeout, args.max_tokens, args.n_ctx, args.threads, args.threads_batch)
    runners = args.runners.split(",")
    # any structgen runner may also name its arguments: "structgen:action/copied"
    unknown = [r for r in runners if r not in RUNNERS and r.split("/")[0] not in RUNNERS]
    if unknown:
        raise SystemExit(f"unknown runners {unknown}; choose from {RUNNERS}")
    command = shlex.join(["python", "-m", "bench.suites.tool_decision", *sys.argv[1:]])
    rows = [row for runner in runners for row in run(runner, path, bounds, args.show, args.split, args.examples)]
    runners = [r + ("+examples" if args.examples and r.startswith("structgen:") else "") for r in runners]
    print(f"`{command}` — model {Path(path).name}, timeout {bounds.timeout:g} s, max_tokens "
          f"{bounds.max_tokens}, n_ctx {bounds.n_ctx}, threads {bounds.threads} (batches "
          f"{bounds.threads_batch}), greedy, every runner\n")
    print(table(rows, runners))
    out = results_file(args.json, "tool_decision")
    out.write_text(json.dumps({"command": command, "model": Path(path).name,
                               "bounds": vars(args) | {"json": str(out)}, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

"""Calling or answering, as users word requests: every decision side by side with the peers.

The twelve tools and the TEST requests of bench/data/tool_requests.json (plainly worded, paraphrases
that share no word stem with any tool's text, and requests that need no tool), all tools offered
every time, greedy, ``tool_choice="auto"``. A request is right when the first call is to the
tool it needs (or, for no-tool requests, when no call is made). Runners, each under the same
time bound, token budget and context (the BFCL suite's workers):

- ``structgen:<policy>`` — ``LLM(model).call_tools(request, tools, policy=...)``, the policy
  written as :mod:`bench.policies` labels it: one of structgen's named policies (auto, model,
  tool-trained, small-model), then any of its rules set by keyword, each ``+FIELD=VALUE`` a field
  of ``structgen.Policy`` (``structgen:small-model+decision=meaning+arguments=copied``);
- ``structgen-server:<policy>`` — the same through llama.cpp's server (``LlamaServerBackend``),
  a backend that scores no given text (``structgen-server-plain``: also without the
  ``structgen[embeddings]`` extra);
- ``--examples`` gives the in-process structgen runners each tool's example requests
  (``EXAMPLES``; ``Tool.examples``), and their rows are named ``structgen:<decision>+examples``;
- ``peer`` — llama-cpp-python's ``chatml-function-calling``;
- ``server`` — llama.cpp's own ``llama-server --jinja`` with OpenAI ``tools``.

Prints a Markdown table (right per kind, seconds per request) headed by the exact command;
every outcome goes to ``--json`` (default ``bench/results/latest/tool_decision.json``). Usage::

    python -m bench.suites.tool_decision [--model gemma|PATH] [--runners structgen:auto,peer,server]
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
from bench.policies import NamedPolicy, parse_runner
from bench.suites.bfcl import STRUCTGEN, Bounds, Calling, start_runner
from structgen._tools._tool import as_tools  # the stubs as OpenAI tool dicts, for every runner alike
from tests.support.tool_requests import (
    EXAMPLES, FRESH, HOLDOUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7, HOLDOUT8, LIVE, NEIGHBOURS,
    TEST, TOOLS, TUNE, Kind,
)

SPLITS = {"test": TEST, "holdout": HOLDOUT, "holdout2": HOLDOUT2, "holdout3": HOLDOUT3, "holdout4": HOLDOUT4,
          "fresh": FRESH, "holdout5": HOLDOUT5, "holdout6": HOLDOUT6, "holdout7": HOLDOUT7, "holdout8": HOLDOUT8, "live": LIVE, "neighbours": NEIGHBOURS, "tune": TUNE}

#: The peers, which take no policy.
PEERS = ("peer", "server")
#: The default runners: structgen's named policies, the small-model rules deciding otherwise
#: (the decisions and arguments measured before the policies were named), the server runners and
#: the peers. ("small-model" is the decision "action" with arguments "auto".)
RUNNERS = ("structgen:auto", "structgen:small-model", "structgen:tool-trained", "structgen:model",
           "structgen:small-model+decision=meaning", "structgen:small-model+decision=words",
           "structgen:small-model+decision=meaning+arguments=copied",
           "structgen:small-model+decision=meaning+arguments=free_then_copied",
           "structgen:small-model+arguments=copied", "structgen:small-model+arguments=free_then_copied",
           "structgen-server:small-model", "structgen-server-plain:small-model", *PEERS)


def runner_label(runner: str) -> tuple[str, NamedPolicy | None, str]:
    """``ENGINE[:POLICY[+FIELD=VALUE...]]`` as (engine, policy, label): a structgen engine's
    label names its policy in full (``structgen`` alone: ``structgen:auto``); a peer's is its
    name. ValueError: an unknown runner, policy or rule."""
    engine, policy = parse_runner(runner, STRUCTGEN, PEERS)
    if engine in PEERS:
        return engine, None, engine
    policy = policy or NamedPolicy()
    return engine, policy, f"{engine}:{policy.label}"


def run(runner: str, path: str, bounds: Bounds, show: bool, split: str = "test", examples: bool = False
        ) -> list[dict[str, Any]]:
    engine_name, policy, label = runner_label(runner)
    engine = start_runner(engine_name, path, bounds, Calling(policy or NamedPolicy()))
    tools = [t.to_openai() for t in as_tools(TOOLS)]
    if examples and engine_name == "structgen":  # a tool dict may carry them (never sent to a server)
        label += "+examples"
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
    parser.add_argument("--runners", default=",".join(RUNNERS),
                        help="comma-separated: peer, server, or structgen, structgen-server, structgen-server-plain "
                             "each with a policy, ENGINE:NAME[+FIELD=VALUE...] (NAME one of structgen's named "
                             "policies, FIELD a field of structgen.Policy; see bench.policies)")
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
    runners = [r for r in args.runners.split(",") if r]
    try:
        labels = [runner_label(r)[2] for r in runners]
    except ValueError as error:
        parser.error(f"--runners: {error}")
    path = model_path(args.model)
    bounds = Bounds(args.timeout, args.max_tokens, args.n_ctx, args.threads, args.threads_batch)
    command = shlex.join(["python", "-m", "bench.suites.tool_decision", *sys.argv[1:]])
    rows = [row for runner in runners for row in run(runner, path, bounds, args.show, args.split, args.examples)]
    runners = [label + ("+examples" if args.examples and label.startswith("structgen:") else "") for label in labels]
    print(f"`{command}` — model {Path(path).name}, timeout {bounds.timeout:g} s, max_tokens "
          f"{bounds.max_tokens}, n_ctx {bounds.n_ctx}, threads {bounds.threads} (batches "
          f"{bounds.threads_batch}), greedy, every runner\n")
    print(table(rows, runners))
    out = results_file(args.json, "tool_decision")
    out.write_text(json.dumps({"command": command, "model": Path(path).name,
                               "bounds": vars(args) | {"json": str(out)}, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

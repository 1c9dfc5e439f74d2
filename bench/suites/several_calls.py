"""How many calls a turn makes: the SEVERAL requests of ``bench/data/tool_requests.json`` (one call wanted
though more tempt, or two wanted) on the twelve tools, with the default policy, greedy.

A request is right when its calls are exactly the wanted ones: as many, each wanted call matched
(greedily, in order) by a call of that tool whose arguments hold the wanted value
(case-insensitive, in its values, not its keys). Imports structgen from the checkout it runs
from; every row goes to ``--json`` (default ``bench/results/latest/several_calls.json``). Usage::

    python -m bench.suites.several_calls [--model gemma|qwen0.5b|qwen1.5b] [--json OUT]
        [--set shared|typed|calls-holdout|fresh-calls] [--policy NAME] [--rule FIELD=VALUE ...]

``--set shared``: SHARED_VALUES, two calls of different tools on the same values; ``--set typed``:
TYPED_CALLS, ``--set calls-holdout``: CALLS_HOLDOUT and ``--set fresh-calls``: FRESH_CALLS (also
three calls wanted), worded the way people type. ``--policy`` and ``--rule`` as for
``bench.suites.bfcl`` (:mod:`bench.policies`); the rows record the policy's label.
Also printed: the seconds each kind of request took (wall time of the turns), the cost a
longer turn pays.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from bench import policies
from bench.harness import model_path, results_file
from tests.support.tool_requests import CALLS_HOLDOUT, FRESH_CALLS, SEVERAL, SHARED_VALUES, TOOLS, TYPED_CALLS, Wanted

SETS = {"several": SEVERAL, "shared": SHARED_VALUES, "typed": TYPED_CALLS, "calls-holdout": CALLS_HOLDOUT, "fresh-calls": FRESH_CALLS}


def values_text(arguments: str) -> str:
    """The values of a call's arguments (not its keys: "y" is in "from_currency"), lower case."""
    def leaves(value: Any) -> list[str]:
        if isinstance(value, dict):
            return [leaf for item in value.values() for leaf in leaves(item)]
        if isinstance(value, list):
            return [leaf for item in value for leaf in leaves(item)]
        return [str(value)]

    return " | ".join(leaves(json.loads(arguments))).lower()


def matches(calls: list[tuple[str, str]], wanted: list[Wanted]) -> bool:
    """Whether ``calls`` (name, arguments text) are exactly the wanted ones."""
    if len(calls) != len(wanted):
        return False
    left = list(calls)
    for name, value in wanted:
        found = next((c for c in left if c[0] == name and value.lower() in values_text(c[1])), None)
        if found is None:
            return False
        left.remove(found)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, qwen0.5b, qwen1.5b or a GGUF path (default: SmolLM2)")
    parser.add_argument("--json", type=Path,
                        help="write every row here (default: bench/results/latest/several_calls.json)")
    parser.add_argument("--set", choices=sorted(SETS), default="several")
    policies.add_arguments(parser, "call_tools(policy=...)")
    args = parser.parse_args()
    chosen = policies.from_arguments(parser, args)
    import structgen

    llm = structgen.LLM(model_path(args.model), max_tokens=256, n_ctx=4096, n_threads=1, n_threads_batch=1)
    policy = chosen.policy(llm)
    runner = f"structgen:{chosen.label}"
    rows = []
    for text, wanted in SETS[args.set]:
        start = time.perf_counter()
        turn = llm.call_tools(text, tools=TOOLS, tool_choice="auto", policy=policy)
        seconds = time.perf_counter() - start
        calls = [(c.name, c.text) for c in turn.calls]
        right = matches(calls, wanted)
        rows.append({"request": text, "wanted": wanted, "calls": calls, "right": right, "seconds": seconds})
        print(f"{'ok  ' if right else 'FAIL'} {text!r} -> {calls}", flush=True)
    command = shlex.join(["python", "-m", "bench.suites.several_calls", *sys.argv[1:]])
    kinds = {n: [r for r in rows if len(r["wanted"]) == n] for n in sorted({len(r["wanted"]) for r in rows})}
    words = {1: "one call", 2: "two", 3: "three"}
    right = ", ".join(f"{words.get(n, n)} wanted {sum(r['right'] for r in kind)}/{len(kind)}" for n, kind in kinds.items())
    seconds = ", ".join(f"{words.get(n, n)} wanted {sum(r['seconds'] for r in kind):.1f}" for n, kind in kinds.items())
    print(f"`{command}` ({runner}, structgen from {structgen.__file__}): {right}; seconds: {seconds}")
    results_file(args.json, "several_calls").write_text(json.dumps(
        {"command": command, "runner": runner, "policy": chosen.name, "rules": dict(chosen.rules), "rows": rows},
        indent=1))


if __name__ == "__main__":
    main()

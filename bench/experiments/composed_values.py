"""Requests whose arguments the model has to compose (an e-mail body the user describes, not
dictates), worded as users word them, under each value of the policy's ``arguments`` rule
(the model's own policy with that rule: ``policy=`` built by :mod:`bench.policies`): what each writes.

Written on 2026-12-04 to test the reason given for ``arguments="auto"`` (free_then_copied) over
``"copied"``: that copying confines composed values to the request's words. The default
decision ("action"), greedy, SmolLM2 unless --model. Usage::

    python -m bench.experiments.composed_values [--model gemma] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

import structgen
from bench.harness import model_path
from bench.policies import NamedPolicy
from tests.support.tool_requests import TOOLS

REQUESTS = [
    "Email sam@corp.com and apologise that I'll miss the standup, keep it friendly.",
    "Send ana@mail.org a short thank-you for the birthday present.",
    "Write to hr@firm.io asking for two days off next week.",
    "Email the landlord at rent@home.net that the boiler is broken again and ask when someone can come.",
    "Drop a line to max@team.dev congratulating him on the launch.",
    "Email jo@site.com to move our Friday call to Monday.",
]
SETTINGS = ("free", "copied", "free_then_copied", "auto")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=None)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    llm = structgen.LLM(model_path(args.model), n_ctx=4096, max_tokens=256, n_threads=1, n_threads_batch=1)
    rows = []
    print(f"`{shlex.join(['python', '-m', 'bench.experiments.composed_values', *sys.argv[1:]])}`\n")
    print("| request | arguments | call | body |\n|---|---|---|---|")
    for request in REQUESTS:
        for setting in SETTINGS:
            # the model's own policy with this arguments rule (what arguments= did)
            turn = llm.call_tools(request, TOOLS, policy=NamedPolicy.of("auto", arguments=setting).policy(llm))
            call = turn.calls[0] if turn.calls else None
            body = getattr(call.arguments, "body", None) if call else None
            rows.append({"request": request, "arguments": setting, "called": call.name if call else None,
                         "call": call.text if call else None, "reply": turn.text})
            shown = (body if body is not None else (call.text if call else f"(words) {turn.text}"))[:90]
            print(f"| {request[:40]} | {setting} | {call.name if call else '—'} | {shown!r} |", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

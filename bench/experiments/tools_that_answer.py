"""Questions that an offered tool answers, worded as users word them: does the default decision
call the tool, or answer in words?

Written on 2026-12-04, before any run, to test on more than one request the reason the
refitted action signal was not adopted: with an ``add`` tool offered, both refits answered "What
is 12 plus 30?" in words (tests/test_tool_calls.py). Tools that compute or look up an answer;
requests that need them (asked as questions, as people ask), and requests beside the same tools
that need none. The default decision and arguments, greedy, SmolLM2 unless ``--model``;
``--source`` imports structgen from another checkout (the refits' commits). Usage::

    python -m bench.experiments.tools_that_answer [--model gemma] [--source PATH] [--json OUT] [--set second]

``--set second``: four other tools and twelve other requests of the same kinds, written on
2026-12-05 before any run, after the first set had been read for two choices.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from bench.data import read, requests, tools
from bench.harness import model_path, use_structgen

_DATA = read("tools_that_answer")
TOOLS = tools("answering-first")
REQUESTS = requests(_DATA["sets"]["first"])
SECOND_TOOLS = tools("answering-second")
SECOND = requests(_DATA["sets"]["second"])
SETS = {"first": (TOOLS, REQUESTS), "second": (SECOND_TOOLS, SECOND)}
#: Example requests for each tool (``Tool.examples``); ``--examples`` gives them to structgen.
EXAMPLES: dict[str, list[str]] = _DATA["examples"]["by_tool"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: SmolLM2)")
    parser.add_argument("--source", type=Path, default=None,
                        help="the checkout to import structgen from (default: this one)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--set", choices=sorted(SETS), default="first")
    parser.add_argument("--examples", action="store_true", help="give each tool its example requests (EXAMPLES)")
    args = parser.parse_args()
    tools, requests = SETS[args.set]
    structgen = use_structgen(args.source)

    if args.examples:
        tools = [structgen.tool(t, examples=EXAMPLES[t.__name__]) for t in tools]
    llm = structgen.LLM(model_path(args.model), max_tokens=256, n_ctx=4096, n_threads=1, n_threads_batch=1)
    rows = []
    for text, wanted in requests:
        turn = llm.call_tools(text, tools=tools, tool_choice="auto")
        called = turn.calls[0].name if turn.calls else None
        rows.append({"request": text, "wanted": wanted, "called": called, "right": called == wanted,
                     "arguments": turn.calls[0].text if turn.calls else None, "text": (turn.text or "")[:120]})
        print(f"{'ok  ' if called == wanted else 'FAIL'} {text!r} -> {called} {rows[-1]['arguments'] or rows[-1]['text']!r}",
              flush=True)
    command = shlex.join(["python", "-m", "bench.experiments.tools_that_answer", *sys.argv[1:]])
    needing = [r for r in rows if r["wanted"]]
    print(f"`{command}` (structgen from {structgen.__file__}): tool needed {sum(r['right'] for r in needing)}"
          f"/{len(needing)}, none needed {sum(r['right'] for r in rows if not r['wanted'])}/{len(rows) - len(needing)}")
    if args.json:
        args.json.write_text(json.dumps({"command": command, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

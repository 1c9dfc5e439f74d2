"""Ordinary tools other than the ones the decisions were chosen on, requests worded the way people
type, and example requests for the first set's tools: to report the example weights
(``Tool.examples``) and the default decision away from the tools and splits they were chosen on
(docs/benchmarks.md, "Example requests per tool" and "The default on other tools").

The first set was written on 2026-12-05, after the example weights were chosen and adopted,
before any run of this file: the tools by hand; the 24 requests by one writer and the examples by
another, each seeing only the tools (two examples equal to a request but for case were given other
values before any run: "Eiffel Tower" -> "Louvre", "ephemeral" -> "laconic"). The later sets came
the same day, without examples; all five are in bench/data/own_tools.json (their tools in
bench/data/tools.json). Every setting on one model load, greedy, 256 tokens, n_ctx 4096, one
thread: a setting is a decision (``action``, ``meaning``) of the small-model policy, optionally
other rules of it set by keyword, each ``+FIELD=VALUE`` a field of ``structgen.Policy``
(``action+arguments=free``; :mod:`bench.policies`), optionally ``+examples`` (every tool gets its
examples; first set only); ``no-channel`` is ``meaning`` with the model's likelihood withheld, as
from a backend that cannot score text. Right: the first call is to the tool needed, or no call.
Usage::

    python -m bench.experiments.own_tools [--model gemma] [--set first|second|third|fourth|fifth]
        [--configs action,action+arguments=free] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from bench.data import Request, by_kind, read, tools
from bench.harness import model_path
from bench.policies import NamedPolicy, parse_rule

_DATA = read("own_tools")
TOOLS = tools("own-first")
REQUESTS = by_kind(_DATA["sets"]["first"]["requests"])
EXAMPLES: dict[str, list[str]] = _DATA["sets"]["first"]["examples"]


CONFIGS = ("action", "action+examples", "meaning", "meaning+examples", "no-channel", "no-channel+examples")
LATER_CONFIGS = ("action", "action+arguments=free", "meaning")


def sets() -> dict[str, tuple[list[Any], dict[str, list[Request]], dict[str, list[str]]]]:
    """Each set's tools, requests and examples (none for the later sets)."""
    return {name: (tools(f"own-{name}"), by_kind(data["requests"]), data.get("examples", {}))
            for name, data in _DATA["sets"].items()}


class _NeverScores:
    """Stands for ScoringBackend in the ``no-channel`` rows: the model's likelihood is withheld,
    as from a backend that cannot score text (an OpenAI-compatible server)."""


def setting(config: str) -> tuple[NamedPolicy, bool]:
    """A config as (its policy, whether the tools get their examples):
    ``DECISION[+FIELD=VALUE...][+examples]``, the decision ``action``, ``meaning`` or
    ``no-channel`` (``meaning``, the scoring withheld), of the small-model policy."""
    decision, *parts = config.split("+")
    if decision not in ("action", "meaning", "no-channel"):
        raise ValueError(f"a config starts with action, meaning or no-channel, not {decision!r}")
    rules = [parse_rule(part) for part in parts if part != "examples"]
    decided = "meaning" if decision == "no-channel" else decision
    return NamedPolicy("small-model", (("decision", decided), *rules)), "examples" in parts


def run(model: str | None, configs: list[str], which: str = "first") -> list[dict[str, Any]]:
    import structgen
    # A backend that cannot score text, stood in for: its scoring type withheld (no public switch).
    from structgen._generate import _steps

    llm = structgen.LLM(model_path(model), max_tokens=256, n_ctx=4096, n_threads=1, n_threads_batch=1)
    plain, requests, examples_of = sets()[which]
    # the same stubs made anew (sets() builds them each time), each marked with its examples
    shown = [structgen.tool(t, examples=examples_of[t.__name__]) for t in sets()[which][0]] if examples_of else plain
    scoring = _steps.ScoringBackend
    rows = []
    for config in configs:
        policy, examples = setting(config)
        if examples and not examples_of:
            raise SystemExit(f"the {which} set has no examples: {config}")
        _steps.ScoringBackend = _NeverScores if config.startswith("no-channel") else scoring  # type: ignore[misc,assignment]
        for kind, asked in requests.items():
            for text, wanted in asked:
                turn = llm.call_tools(text, tools=shown if examples else plain, tool_choice="auto",
                                      policy=policy.policy(llm))
                called = turn.calls[0].name if turn.calls else None
                rows.append({"set": which, "config": config, "kind": kind, "request": text, "wanted": wanted, "called": called,
                             "right": called == wanted})
                print(f"{config:20} {kind:10} {'ok  ' if called == wanted else 'FAIL'} {text!r} -> {called}", flush=True)
    _steps.ScoringBackend = scoring  # type: ignore[misc]
    llm.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: SmolLM2)")
    parser.add_argument("--set", default="first", choices=("first", "second", "third", "fourth", "fifth"))
    parser.add_argument("--configs", default=None, help=f"default: {','.join(CONFIGS)} (first set), "
                        f"{','.join(LATER_CONFIGS)} (later sets)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    configs = (args.configs or ",".join(CONFIGS if args.set == "first" else LATER_CONFIGS)).split(",")
    for config in configs:
        try:
            setting(config)
        except ValueError as error:
            parser.error(f"--configs: {error}")
    rows = run(args.model, configs, args.set)
    command = shlex.join(["python", "-m", "bench.experiments.own_tools", *sys.argv[1:]])
    print(f"\n`{command}`\n\n| setting | plain (8) | paraphrase (8) | no_tool (8) | overall |\n|---|---:|---:|---:|---:|")
    for config in configs:
        mine = [r for r in rows if r["config"] == config]
        cells = [str(sum(r["right"] for r in mine if r["kind"] == k)) for k in REQUESTS]
        print(f"| {config} | " + " | ".join(cells) + f" | {sum(r['right'] for r in mine)}/{len(mine)} |")
    if args.json:
        args.json.write_text(json.dumps({"command": command, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

"""Two ways to bound a reasoning section in process, timed side by side on the same requests.

- ``loop``: what ``reasoning=N`` does — the section sampled without a grammar, stopped at its
  closing marker or after N tokens (the marker then forced), the answer's grammar after it.
- ``grammar``: one grammar for both (``_section_grammar``, what OpenAI-compatible engines get):
  the opening marker, at most four characters a token of free text, the closing marker, the
  answer; the whole completion sampled under it.

Both greedy, on the same model and prompts, one after the other per request (so a busy
machine slows both alike); each row is the sum over the requests, written to ``--json``
(default ``bench/results/latest/reasoning_modes.json``). Usage::

    python -m bench.suites.reasoning_modes [--model gemma|qwen0.5b|PATH] [--budget 64] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from pydantic import BaseModel

from bench.harness import model_path, results_file


class Person(BaseModel):
    name: str
    age: int


class Order(BaseModel):
    item: str
    quantity: int
    express: bool


REQUESTS: list[tuple[type[BaseModel], str]] = [
    (Person, "Alice turned 31 last week."),
    (Person, "The new hire, Tomás, is twenty-four."),
    (Order, "Send me three boxes of green tea, as fast as you can."),
    (Order, "I'd like a single umbrella; no rush."),
]


def main() -> None:
    import structgen as sg
    from structgen.backends import CompletionRequest
    # The alternative measured against structgen's loop: one grammar for the reasoning section
    # and the answer, built from the same output spec (bench/README.md, "Internals the bench measures").
    from structgen._backends._section_grammar import section_grammar
    from structgen._generate._output import spec_for

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--budget", type=int, default=64)
    parser.add_argument("--json", type=Path, default=None,
                        help="write the totals here (default: bench/results/latest/reasoning_modes.json)")
    args = parser.parse_args()
    llm = sg.LLM(model_path(args.model), n_threads=1, max_tokens=200)
    section = llm._reasoning(args.budget)  # the section `reasoning=` means on this model
    assert section is not None
    totals = {mode: {"seconds": 0.0, "grammar_seconds": 0.0, "tokens": 0, "valid": 0} for mode in ("loop", "grammar")}
    for output_type, prompt in REQUESTS:
        result = llm.run(output_type, prompt, reasoning=args.budget)
        loop = totals["loop"]
        loop["seconds"] += result.usage.total_seconds
        loop["grammar_seconds"] += result.usage.grammar_seconds
        loop["tokens"] += result.usage.completion_tokens
        loop["valid"] += 1
        spec = spec_for(output_type)
        request = CompletionRequest(
            messages=tuple(spec.conversation(prompt, system=None, messages=None)),
            gbnf=section_grammar(spec.grammar.gbnf, spec.grammar.root, section), max_tokens=200 + args.budget,
        )
        started = time.perf_counter()
        *_, completion = llm.backend.complete(request)
        one = totals["grammar"]
        one["seconds"] += time.perf_counter() - started
        one["grammar_seconds"] += completion.usage.grammar_seconds
        one["tokens"] += completion.usage.completion_tokens
        answer = completion.text.partition(section.close + section.separator)[2]
        try:
            output_type.model_validate_json(answer)
            one["valid"] += 1
        except ValueError:
            pass
    print(f"command: `{shlex.join(sys.argv)}`; model {Path(model_path(args.model)).name}; budget {args.budget}; "
          f"{len(REQUESTS)} requests")
    print("| mode | seconds | grammar seconds | tokens | valid |\n|---|---:|---:|---:|---:|")
    for mode, t in totals.items():
        print(f"| {mode} | {t['seconds']:.2f} | {t['grammar_seconds']:.2f} | {t['tokens']} | {t['valid']}/{len(REQUESTS)} |")
    results_file(args.json, "reasoning_modes").write_text(json.dumps(
        {"command": shlex.join(sys.argv), "budget": args.budget, "model": Path(model_path(args.model)).name,
         "totals": totals}, indent=1))


if __name__ == "__main__":
    main()

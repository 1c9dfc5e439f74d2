"""Other ways to write the reasoning section, on the GSM8K problems of ``bench.suites.gsm8k``.

``reasoning=N`` today (structgen 0.1.0) keeps the system message of a call without it ("Answer
with JSON only, in exactly this shape: ...") and opens the section with ``<think>``, a tag that
the chat templates of Qwen2.5-Coder, SmolLM2 and Gemma-3 never name. This experiment asks the
same problems with the section written in other ways, through the public backend API
(:class:`structgen.backends.CompletionRequest` with a :class:`structgen.backends.Reasoning` of
its own), the answer's grammar the same as ``generate``'s (``structgen.Grammar.from_type``):

- ``tag``: what ``reasoning=N`` does: the system message is the answer's description, the
  section ``<think>`` ... ``</think>``. (A check that this path gives what the suite measured.)
- ``tag+told``: the same markers; the system message says what the section is for: think
  between the markers, write every calculation, then answer with JSON after the closing one.
- ``reply``: no opening tag: the model's own reply is the section. The system message asks for
  the working and says the reply ends with the JSON answer; the section ends where the model
  ends its turn (or the budget), then ``\\n\\nAnswer as JSON: `` is written and the grammar starts.

Greedy, one thread by default, answers capped at ``--max-tokens``; scored and explained as the
suite does (``cause_of``). Usage::

    python -m bench.experiments.gsm8k_sections --model qwen0.5b --limit 20 --variants tag,tag+told,reply \\
        --budgets 256,512 --json OUT
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from bench.harness import command, model_path, results_file, write_json
from bench.suites.gsm8k import Answer, Mode, marker_tokens, problems, report, right, summary

#: The answer's description, as structgen writes it for ``Answer`` in the system message.
SHAPE = 'in exactly this shape:\n{"answer": number}'

VARIANTS: dict[str, tuple[str, str, str, str]] = {
    # name: (system message, opening, closing, separator)
    "tag": (f"Answer with JSON only, {SHAPE}", "<think>", "</think>", "\n\n"),
    "tag+told": (
        "First think step by step between <think> and </think>: write out every calculation and end "
        f"with the result. Then, after </think>, answer with JSON only, {SHAPE}",
        "<think>", "</think>", "\n\n"),
    "reply": (
        "Solve the problem step by step: write out every calculation and end with the result. "
        f"Your reply ends with the answer as JSON, {SHAPE}",
        "", "\n\nAnswer as JSON: ", ""),
}


def ask(llm: Any, variant: str, budget: int, question: str, max_tokens: int) -> dict[str, Any]:
    from structgen import Grammar, Message
    from structgen.backends import Completion, CompletionRequest, Reasoning

    system, opening, closing, separator = VARIANTS[variant]
    grammar = Grammar.from_type(Answer)
    request = CompletionRequest(
        messages=(Message("system", system), Message("user", question)),
        gbnf=grammar.gbnf, root=grammar.root, max_tokens=max_tokens,
        reasoning=Reasoning(opening, closing, budget, separator),
    )
    started = time.perf_counter()
    completion = next(e for e in llm.backend.complete(request) if isinstance(e, Completion))
    seconds = time.perf_counter() - started
    try:
        value: float | None = Answer.model_validate_json(completion.text).answer
    except ValueError:
        value = None
    return {"value": value, "error": None if value is not None else completion.finish_reason,
            "text": completion.text, "reasoning": completion.reasoning,
            "tokens": completion.usage.completion_tokens, "reasoning_tokens": completion.usage.reasoning_tokens,
            "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--split", choices=("tune", "test"), default="tune")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--budgets", default="256,512")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    import structgen as sg

    path = model_path(None if args.model == "default" else args.model)
    chosen = list(problems(args.split))[: args.limit]
    llm = sg.LLM(path, n_threads=args.threads)
    budgets = [int(b) for b in args.budgets.split(",")]
    results: dict[str, Any] = {}
    for variant in args.variants.split(","):
        if variant not in VARIANTS:
            raise SystemExit(f"unknown variant {variant!r}: one of {', '.join(VARIANTS)}")
        # the markers the budget check subtracts: the tag's, or only the closing text
        markers = marker_tokens(llm) if VARIANTS[variant][1] else len(
            llm.backend.llama.tokenize(VARIANTS[variant][2].encode(), add_bos=False, special=True))
        for budget in budgets:
            name, mode, cases = f"{variant}@{budget}", Mode(f"reasoning={budget}", "reasoning", budget), []
            for problem in chosen:
                case = ask(llm, variant, budget, problem["question"], args.max_tokens)
                case = {"id": problem["id"], "gold": problem["answer"],
                        "right": right(case["value"], problem["answer"]), **case}
                cases.append(case)
                print(f"{name} {problem['id']}: {'right' if case['right'] else 'wrong'} ({case['value']} vs "
                      f"{problem['answer']}, {case['tokens']} tokens, {case['seconds']:.1f} s)", file=sys.stderr,
                      flush=True)
            results[name] = {"summary": summary(mode, cases, markers), "cases": cases, "marker_tokens": markers}
    print(f"command: `{command('gsm8k_sections').replace('suites', 'experiments')}`; model {Path(path).name}; "
          f"split {args.split}; {len(chosen)} problems; {args.threads} thread(s)")
    report(results)
    write_json(results_file(args.json, "gsm8k_sections"), {
        "command": command("gsm8k_sections").replace("suites", "experiments"), "model": Path(path).name,
        "split": args.split, "problems": len(chosen), "threads": args.threads, "max_tokens": args.max_tokens,
        "date": time.strftime("%Y-%m-%d"), "variants": {k: list(v) for k, v in VARIANTS.items()},
        "modes": results,
    })


if __name__ == "__main__":
    main()

"""GSM8K word problems: does thinking before the typed answer pay, and in which form?

Each problem is asked in one or more modes, greedy (temperature 0), one after the other:

- ``typed``: ``llm.run(Answer, question)`` with ``class Answer(BaseModel): answer: float``,
  the grammar from the first token.
- ``reasoning=N``: the same, with ``reasoning=N``: a free section of at most N tokens before
  the typed answer (structgen's own markers and prompt).
- ``worked``: a reasoning field inside the type, first: ``class Worked(BaseModel): steps: str;
  answer: float``, the grammar from the first token.
- ``free``: no grammar at all. llama-cpp-python's ``create_chat_completion`` (the model's own
  chat template, its default system message) on the question followed by :data:`FREE_ASK`;
  the number is read from the text by :func:`parse_number`.

A mode name may end in ``+asked``: the structgen modes then get :data:`ASKED` as the system
message (structgen appends its own description of the answer to it), e.g. ``reasoning=256+asked``.

Budgets: ``--max-tokens`` (default 512) bounds every mode's generated text after the prompt:
the whole completion of ``free``, the JSON answer of ``typed`` and ``worked`` (``steps`` is
capped at 500 characters by structgen's grammar), and the answer after the section of
``reasoning=N`` (whose section adds at most N tokens plus its markers). Token counts are what
was generated: ``usage.completion_tokens`` (section, sampled and forced tokens) for structgen,
``usage.completion_tokens`` of llama-cpp-python for ``free``.

The corpus is the dev half of GSM8K's test set (``../shared/corpora/gsm8k``, 659 problems).
It is split once more, so that choices are made on one half and reported on the other: a
problem is in ``tune`` when the SHA-256 of its question text (UTF-8) read as an integer is even,
in ``test`` when odd (:func:`split_of`). ``--limit N`` takes the first N of the split in file order.

A prediction is right when it is within 1e-6 of the reference number. ``invalid`` counts the
calls that gave no number: a structgen error (the answer ran out of tokens, ...) or, in
``free``, a text without any number. Each mode reports right/n, invalid, the mean generated
tokens and the wall seconds (total and median a problem); every problem's output is kept in the
results JSON, with the command line that made it. CPU threads: ``--threads`` (default 1) for
token and batch evaluation alike. Usage::

    python -m bench.suites.gsm8k --model qwen0.5b --split tune --limit 20 \\
        --modes typed,reasoning=256,reasoning=512,worked,free --json OUT
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bench.harness import command, model_path, results_file, write_json
from tests.support.corpora import SHARED

CORPUS = SHARED / "gsm8k" / "gsm8k-test-dev.jsonl.gz"

#: What ``free`` appends to the question (a blank line between).
FREE_ASK = 'Think step by step, then end with a final line of the form "Answer: <number>".'

#: The system message of a ``+asked`` mode.
ASKED = "Solve the problem step by step: write out each calculation before you give the answer."

DEFAULT_MODES = "typed,reasoning=256,reasoning=512,worked,free"


class Answer(BaseModel):
    answer: float


class Worked(BaseModel):
    steps: str
    answer: float


# -- the corpus and its split ------------------------------------------------------------------


def split_of(question: str) -> str:
    """``tune`` when the SHA-256 of the question text is even, else ``test``."""
    return "tune" if int(hashlib.sha256(question.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "test"


def problems(split: str, path: Path = CORPUS) -> Iterator[dict[str, Any]]:
    """The problems of ``split`` (``tune``, ``test`` or ``all``), in file order."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            problem = json.loads(line)
            if split == "all" or split_of(problem["question"]) == split:
                yield problem


# -- reading a number out of free text ---------------------------------------------------------

# A number as written in answers: an optional minus (not one between two numbers: "16-3" is a
# subtraction) and dollar sign, digits with thousands separators ("1,234") or without, an
# optional decimal part ("18." ends a sentence: no decimal part).
_NUMBER = re.compile(r"((?<![\w.])-)?(?:\$\s?)?(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(\.\d+)?")
# Where a final answer is announced: "Answer:" opening a line (in bold or not, "Final answer:"
# too), "answer is", GSM8K's "####", LaTeX's "\boxed{". Not "answer:" within a sentence ("the
# second friend's answer: 100" is a step, not the result).
_MARKER = re.compile(r"^[ \t*#]*(?:final )?answer[ \t*]*:|answer is|####|\\boxed\{", re.IGNORECASE | re.MULTILINE)


def _numbers(text: str) -> list[float]:
    return [float((m[1] or "") + m[2].replace(",", "") + (m[3] or "")) for m in _NUMBER.finditer(text)]


def parse_number(text: str) -> float | None:
    """The final answer in ``text``: the first number after its last "Answer:" opening a line
    (or "answer is", "####", LaTeX's "\\boxed{"), else the last number anywhere; None when it
    has no number."""
    markers = list(_MARKER.finditer(text))
    if markers:
        after = _numbers(text[markers[-1].end():])
        if after:
            return after[0]
    numbers = _numbers(text)
    return numbers[-1] if numbers else None


def right(value: float | None, gold: float) -> bool:
    return value is not None and abs(value - gold) < 1e-6


# -- why an answer is wrong ------------------------------------------------------------------

# Written-out arithmetic: an operator before a number ("* $4.00", "\\times 3", "3/4"), a
# difference or sum of numbers, "= <number>", a LaTeX fraction, or a program.
_CALCULATION = re.compile(
    r"(?:[*×÷/x]|\\times|\\cdot|\\div)[ \t]*[\\($]*\d|\d[ \t]*[-+][ \t]*[\\($]*\d|=[ \t]*[\\($]*-?\d"
    r"|\\frac\{|```python")

#: The causes :func:`cause_of` tells apart, in the order it checks them.
CAUSES = ("right", "no answer", "no section", "answer differs from a right section", "section cut at its budget",
          "no working", "wrong working, made-up program output", "wrong working")


def section_of(kind: str, case: dict[str, Any]) -> str | None:
    """What a case wrote before its answer: the reasoning section, the ``steps`` field, or the
    whole free text; None in ``typed`` (or when the text is not the JSON asked for)."""
    if kind == "reasoning":
        return case["reasoning"]
    if kind == "free":
        return case["text"]
    if kind == "worked":
        try:
            steps = json.loads(case["text"])["steps"]
        except (TypeError, ValueError, KeyError):
            return None
        return steps if isinstance(steps, str) else None
    return None


def cause_of(mode: Mode, case: dict[str, Any], marker_tokens: int = 0) -> str:
    """Why a case is right or wrong, the first of :data:`CAUSES` that fits:

    - ``answer differs from a right section``: the section's final number (:func:`parse_number`)
      is the reference, the answer is not;
    - ``section cut at its budget``: ``reasoning=N`` wrote N tokens besides its ``marker_tokens``
      (those of the forced markers: :func:`marker_tokens`), the ``steps`` string
      reached the grammar's 500 characters, or the free text ran out of ``--max-tokens``;
    - ``no working``: no calculation in the section (an operator or "=" between numbers, a
      fraction, a program): a preamble the model closed, the bare answer, the question again;
    - ``wrong working, made-up program output``: the section wrote a program and then its
      output (a fenced ``output`` block): nothing ran it, the model guessed;
    - ``wrong working``: the rest: the model worked it out, wrongly."""
    if case["right"]:
        return "right"
    if case["value"] is None:
        return "no answer"
    section = section_of(mode.kind, case)
    if section is None:
        return "no section"
    final = parse_number(section)
    if mode.kind != "free" and final is not None and right(final, case["gold"]):
        return "answer differs from a right section"
    if ((mode.kind == "reasoning" and mode.budget is not None
         and (case["reasoning_tokens"] or 0) - marker_tokens >= mode.budget)
            or (mode.kind == "worked" and len(section) >= 500) or case.get("finish") == "length"):
        return "section cut at its budget"
    if not _CALCULATION.search(section):
        return "no working"
    if "```output" in section:
        return "wrong working, made-up program output"
    return "wrong working"


#: The markers structgen writes around the section on a chat template that names none (the
#: three models measured here): the opening, and the closing with its separator.
SECTION_MARKERS = ("<think>", "</think>\n\n")


def marker_tokens(llm: Any) -> int:
    """How many of a section's ``usage.reasoning_tokens`` are its forced markers on ``llm``'s
    model (the in-process backend's ``llama``), so that the rest is what the model wrote."""
    llama = llm.backend.llama
    return sum(len(llama.tokenize(m.encode(), add_bos=False, special=True)) for m in SECTION_MARKERS)


def restates(mode: Mode, case: dict[str, Any]) -> bool | None:
    """Whether the answer is the section's final number (None: no section or no number in it)."""
    section = section_of(mode.kind, case)
    final = parse_number(section) if section else None
    if final is None or case["value"] is None:
        return None
    return right(case["value"], final)


# -- modes -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    """One way of asking: ``kind`` (typed, reasoning, worked, free), the section's ``budget``
    and whether the structgen modes get :data:`ASKED` as system message."""

    name: str
    kind: str
    budget: int | None = None
    asked: bool = False


def parse_mode(name: str) -> Mode:
    base, plus, suffix = name.partition("+")
    if plus and suffix != "asked":
        raise SystemExit(f"unknown mode suffix in {name!r} (only +asked)")
    asked = bool(plus)
    if base in ("typed", "worked", "free"):
        if base == "free" and asked:
            raise SystemExit("free has its own prompt: no +asked")
        return Mode(name, base, asked=asked)
    kind, eq, budget = base.partition("=")
    if kind == "reasoning" and eq and budget.isdigit() and int(budget) > 0:
        return Mode(name, "reasoning", int(budget), asked)
    raise SystemExit(f"unknown mode {name!r}: typed, reasoning=N, worked, free (+asked for structgen modes)")


def ask_structgen(llm: Any, mode: Mode, question: str, max_tokens: int) -> dict[str, Any]:
    """One structgen call: the number, the section, the text, the tokens and the seconds."""
    import structgen as sg

    options: dict[str, Any] = {"temperature": 0.0, "max_tokens": max_tokens, "max_retries": 0}
    if mode.asked:
        options["system"] = ASKED
    if mode.budget is not None:
        options["reasoning"] = mode.budget
    output_type = Worked if mode.kind == "worked" else Answer
    started = time.perf_counter()
    try:
        result = llm.run(output_type, question, **options)
    except sg.GenerationError as e:
        seconds = time.perf_counter() - started
        usage = e.usage
        return {"value": None, "error": type(e).__name__, "text": e.text, "reasoning": None,
                "tokens": usage.completion_tokens if usage else None,
                "reasoning_tokens": usage.reasoning_tokens if usage else None, "seconds": seconds}
    seconds = time.perf_counter() - started
    return {"value": result.value.answer, "error": None, "text": result.text, "reasoning": result.reasoning,
            "tokens": result.usage.completion_tokens, "reasoning_tokens": result.usage.reasoning_tokens,
            "seconds": seconds}


def ask_free(llama: Any, question: str, max_tokens: int) -> dict[str, Any]:
    """One unconstrained chat completion; the number read from its text."""
    started = time.perf_counter()
    out = llama.create_chat_completion(
        messages=[{"role": "user", "content": f"{question}\n\n{FREE_ASK}"}],
        temperature=0.0, max_tokens=max_tokens, repeat_penalty=1.0, seed=0,
    )
    seconds = time.perf_counter() - started
    text = out["choices"][0]["message"]["content"] or ""
    value = parse_number(text)
    return {"value": value, "error": None if value is not None else "no number", "text": text, "reasoning": None,
            "tokens": out["usage"]["completion_tokens"], "reasoning_tokens": 0, "seconds": seconds,
            "finish": out["choices"][0]["finish_reason"]}


def summary(mode: Mode, cases: list[dict[str, Any]], markers: int = 0) -> dict[str, Any]:
    tokens = [c["tokens"] for c in cases if c["tokens"] is not None]
    seconds = [c["seconds"] for c in cases]
    causes = [cause_of(mode, c, markers) for c in cases]
    restated = [restates(mode, c) for c in cases]
    return {
        "n": len(cases),
        "right": sum(c["right"] for c in cases),
        "invalid": sum(c["value"] is None for c in cases),
        "mean_tokens": round(statistics.fmean(tokens), 1) if tokens else None,
        "seconds_total": round(sum(seconds), 1),
        "seconds_median": round(statistics.median(seconds), 2) if seconds else None,
        "causes": {name: causes.count(name) for name in CAUSES if name in causes},
        "answer_is_section_final_number": f"{restated.count(True)}/{restated.count(True) + restated.count(False)}",
    }


def report(results: dict[str, Any]) -> None:
    """The two tables: per mode, the score and the cost; then why each case is right or wrong."""
    print("| mode | right/n | invalid | mean tokens | seconds total | median |\n|---|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        s = r["summary"]
        print(f"| {name} | {s['right']}/{s['n']} | {s['invalid']} | {s['mean_tokens']} | {s['seconds_total']} "
              f"| {s['seconds_median']} |")
    print("\n| mode | " + " | ".join(CAUSES) + " | answer = section's final number |\n"
          + "|---" * (len(CAUSES) + 2) + "|")
    for name, r in results.items():
        s = r["summary"]
        print(f"| {name} | " + " | ".join(str(s["causes"].get(c, 0)) for c in CAUSES)
              + f" | {s['answer_is_section_final_number']} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default",
                        help="default (structgen's), qwen0.5b, qwen1.5b, gemma, or a GGUF path")
    parser.add_argument("--split", choices=("tune", "test"), default="tune")
    parser.add_argument("--limit", type=int, default=None, help="the first N problems of the split")
    parser.add_argument("--modes", default=DEFAULT_MODES,
                        help=f"comma-separated: typed, reasoning=N, worked, free, +asked (default {DEFAULT_MODES})")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads, tokens and batches (default 1)")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--json", type=Path, default=None, help="default: bench/results/latest/gsm8k.json")
    parser.add_argument("--recount", type=Path, default=None, metavar="RESULTS",
                        help="no model: read a results file of this suite, count again and print its tables")
    args = parser.parse_args(argv)
    if args.recount is not None:
        recorded = json.loads(args.recount.read_text())
        print(f"command: `{recorded['command']}`; model {recorded['model']}; split {recorded['split']}; "
              f"{recorded['problems']} problems; {recorded['threads']} thread(s)")
        markers = recorded.get("section_marker_tokens", 0)
        report({name: {"summary": summary(parse_mode(name), r["cases"], markers), "cases": r["cases"]}
                for name, r in recorded["modes"].items()})
        return
    modes = [parse_mode(m.strip()) for m in args.modes.split(",") if m.strip()]
    path = model_path(None if args.model == "default" else args.model)
    chosen = list(problems(args.split))[: args.limit]

    import structgen as sg

    llm = sg.LLM(path, n_threads=args.threads, n_ctx=args.n_ctx) if any(m.kind != "free" for m in modes) else None
    markers = marker_tokens(llm) if llm is not None else 0
    llama = None
    if any(m.kind == "free" for m in modes):
        import llama_cpp

        llama = llama_cpp.Llama(path, n_ctx=args.n_ctx, n_threads=args.threads, n_threads_batch=args.threads,
                                seed=0, verbose=False)
    results: dict[str, Any] = {}
    for mode in modes:
        cases = []
        for problem in chosen:
            if mode.kind == "free":
                case = ask_free(llama, problem["question"], args.max_tokens)
            else:
                case = ask_structgen(llm, mode, problem["question"], args.max_tokens)
            case = {"id": problem["id"], "gold": problem["answer"], "right": right(case["value"], problem["answer"]),
                    **case}
            cases.append(case)
            print(f"{mode.name} {problem['id']}: {'right' if case['right'] else 'wrong'} "
                  f"({case['value']} vs {problem['answer']}, {case['tokens']} tokens, {case['seconds']:.1f} s)",
                  file=sys.stderr, flush=True)
        results[mode.name] = {"summary": summary(mode, cases, markers), "cases": cases}
    print(f"command: `{command('gsm8k')}`; model {Path(path).name}; split {args.split}; {len(chosen)} problems; "
          f"{args.threads} thread(s)")
    report(results)
    write_json(results_file(args.json, "gsm8k"), {
        "command": command("gsm8k"), "model": Path(path).name, "split": args.split, "problems": len(chosen),
        "threads": args.threads, "max_tokens": args.max_tokens, "n_ctx": args.n_ctx,
        "date": time.strftime("%Y-%m-%d"), "free_prompt": FREE_ASK, "asked_system": ASKED,
        "section_marker_tokens": markers,
        "modes": results,
    })


if __name__ == "__main__":
    main()

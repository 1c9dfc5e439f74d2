"""Conformance of structgen's converter and llama-cpp-python's, judged by llama.cpp itself.

    python bench/conformance.py [--corpus jsts|jsts-optional|maskbench|all] [--every N]

For each corpus and subset: schemas that pass / fail to compile / reject a valid instance /
accept an invalid one / crash or hang llama.cpp, for both converters in the same run, plus
the share of instances decided right and the total conversion time of each converter (CPU
time of the converting thread).
Grammars are judged in worker processes, so a grammar that aborts or hangs llama.cpp is
counted as a crash or a hang instead of ending the run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpora import (  # noqa: E402
    Case,
    Outcome,
    jsts_cases,
    jsts_remotes,
    maskbench_cases,
    score,
)

HANG_SECONDS = 30.0


def _worker_main(conn: Connection) -> None:
    from structgen import GrammarError
    from structgen.testing import accepts

    while True:
        job = conn.recv()
        if job is None:
            return
        gbnf, texts = job
        try:
            conn.send([accepts(gbnf, t) for t in texts])
        except GrammarError as e:
            conn.send(f"llama.cpp rejected the grammar: {e}")


class Judge:
    """One worker process running llama.cpp's grammar sampler; restarted after a crash."""

    def __init__(self) -> None:
        self._start()

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()

    def run(self, gbnf: str, texts: list[str]) -> list[bool] | str:
        """Verdicts, or "crash" / "hang" / why llama.cpp refused the grammar."""
        try:
            self.conn.send((gbnf, texts))
            if self.conn.poll(HANG_SECONDS):
                result: list[bool] = self.conn.recv()
                return result
            self.proc.kill()
            self.proc.join()
            self._start()
            return "hang"
        except (EOFError, BrokenPipeError, ConnectionResetError):
            self.proc.join()
            self._start()
            return "crash"

    def close(self) -> None:
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.proc.join(timeout=5)


def structgen_converter(remotes: dict[str, Any], key_order: str) -> Callable[[Any], str]:
    from structgen._schema import json_schema_to_gbnf

    return lambda schema: json_schema_to_gbnf(schema, refs=remotes, key_order=key_order)


def llama_cpp_converter() -> Callable[[Any], str]:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return lambda schema: json_schema_to_gbnf(json.dumps(schema))


def evaluate(case: Case, convert: Callable[[Any], str], judge: Judge) -> Outcome:
    # The converting thread's CPU time: two threads convert at once, and wall time would charge
    # each conversion for the other thread's turns on the interpreter.
    t0 = time.thread_time()
    try:
        gbnf = convert(case.schema)
    except Exception as e:  # a converter's failure to convert is what we are measuring
        return Outcome("compile-error", error=f"{type(e).__name__}: {e}"[:300],
                       seconds=time.thread_time() - t0)
    seconds = time.thread_time() - t0
    verdicts = judge.run(gbnf, [json.dumps(data) for data, _ in case.tests])
    if verdicts in ("crash", "hang"):
        return Outcome(str(verdicts), seconds=seconds)
    if isinstance(verdicts, str):
        return Outcome("compile-error", error=verdicts, seconds=seconds)
    out = score(case, verdicts)
    out.seconds = seconds
    return out


def run_corpus(
    name: str, cases: list[Case], converters: dict[str, Callable[[Any], str]]
) -> dict[str, dict[str, Outcome]]:
    results: dict[str, dict[str, Outcome]] = {c: {} for c in converters}
    judges = [Judge(), Judge()]

    done = [0]

    def work(index: int) -> None:
        judge = judges[index % 2]
        for case in cases[index::2]:
            for conv_name, conv in converters.items():
                results[conv_name][case.id] = evaluate(case, conv, judge)
            done[0] += 1
            if done[0] % 500 == 0:
                print(f"  {name}: {done[0]}/{len(cases)}", file=sys.stderr, flush=True)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(work, range(2)))
    for j in judges:
        j.close()
    report(name, cases, results)
    return results


def report(name: str, cases: list[Case], results: dict[str, dict[str, Outcome]]) -> None:
    instances = sum(len(c.tests) for c in cases)
    print(f"\n## {name}: {len(cases)} schemas, {instances} instances")
    for conv_name, outcomes in results.items():
        by_subset: dict[str, Counter[str]] = defaultdict(Counter)
        for case in cases:
            o = outcomes[case.id]
            row = by_subset[case.subset]
            row["schemas"] += 1
            row[o.status] += 1
            row["valid-rejected"] += bool(o.valid_rejected)
            row["invalid-accepted"] += bool(o.invalid_accepted)
            row["right"] += o.right
            row["instances"] += len(case.tests)
        total: Counter[str] = Counter()
        for row in by_subset.values():
            total.update(row)
        seconds = sum(o.seconds for o in outcomes.values())
        print(f"\n### {conv_name}: conversion {seconds:.2f} s in total")
        cols = ["pass", "compile-error", "valid-rejected", "invalid-accepted", "crash", "hang"]
        print(f"| subset | schemas | {' | '.join(cols)} | instances right |")
        print("|---" * (len(cols) + 3) + "|")
        for subset in sorted(by_subset) + ["TOTAL"]:
            row = total if subset == "TOTAL" else by_subset[subset]
            share = 100 * row["right"] / max(row["instances"], 1)
            cells = " | ".join(str(row[c]) for c in cols)
            print(f"| {subset} | {row['schemas']} | {cells} | {share:.1f} % |")
        print(f"\n{conv_name} {name}: {100 * total['pass'] / max(total['schemas'], 1):.1f} % schemas"
              f" pass, {100 * total['right'] / max(total['instances'], 1):.1f} % instances right")


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="all",
                        choices=["jsts", "jsts-optional", "maskbench", "all"])
    parser.add_argument("--every", type=int, default=1, help="MaskBench: keep every N-th schema")
    parser.add_argument("--key-order", default="declared",
                        choices=["declared", "required-first", "any"],
                        help="structgen's key order (default: declared, what Pydantic writes)")
    parser.add_argument("--only", choices=["structgen", "llama-cpp-python"], default=None)
    parser.add_argument("--failures", type=Path, default=None,
                        help="write structgen's non-passing cases as JSON lines here")
    args = parser.parse_args(list(argv) if argv is not None else None)
    remotes = jsts_remotes()
    factories = {
        "structgen": lambda: structgen_converter(remotes, args.key_order),
        "llama-cpp-python": llama_cpp_converter,
    }
    converters = {n: f() for n, f in factories.items() if args.only in (None, n)}
    corpora: dict[str, list[Case]] = {}
    if args.corpus in ("jsts", "all"):
        corpora["JSON-Schema-Test-Suite draft2020-12"] = list(jsts_cases())
    if args.corpus in ("jsts-optional", "all"):
        corpora["JSON-Schema-Test-Suite optional"] = list(jsts_cases(optional=True))
    if args.corpus in ("maskbench", "all"):
        corpora["MaskBench"] = list(maskbench_cases(args.every))
    failures = []
    for name, cases in corpora.items():
        results = run_corpus(name, cases, converters)
        for case in cases:
            o = results.get("structgen", {}).get(case.id)
            if o is not None and o.status != "pass":
                failures.append({"corpus": name, "id": case.id, "status": o.status,
                                 "error": o.error, "valid_rejected": o.valid_rejected,
                                 "invalid_accepted": o.invalid_accepted})
    if args.failures:
        args.failures.write_text("".join(json.dumps(f) + "\n" for f in failures))


if __name__ == "__main__":
    main()

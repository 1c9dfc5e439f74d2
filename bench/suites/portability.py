"""Do our grammars mean the same in xgrammar and llguidance as in llama.cpp?

    make bench-portability            # its own venv (.venv-portability), then this script
    .venv-portability/bin/python -m bench.suites.portability [--every N] [--case-seconds S]
        [--results FILE.jsonl] [--failures FILE.jsonl]

For every MaskBench-dev schema (``--every N`` keeps every N-th), structgen's grammar is loaded
by llama.cpp (the native sampler, the reference), by xgrammar (``Grammar.from_ebnf``, compiled
with an empty vocabulary: it then matches strings) and by llguidance (its GBNF reader,
``grammar_from("gbnf", ...)``, matched over a byte vocabulary), and each engine judges every
labelled instance. Reported per engine: the share of grammars it parses, and the share of
instances on which it agrees with llama.cpp (over grammars both parsed), with the schemas
where they disagree. Each engine runs in a worker process, bounded by ``--case-seconds`` of
that worker's CPU time per grammar (a hang is counted, not waited for).
xgrammar's wheel needs torch, so these engines live in their own environment, outside the
test dependencies. Without ``--results`` the verdicts go to
``bench/results/latest/portability.jsonl``, written anew.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench import harness
from tests.support.corpora import Case, maskbench_cases

ENGINES = ("llama.cpp", "xgrammar", "llguidance")
CASE_SECONDS = 30.0
WALL_FACTOR = 20
POLL_SECONDS = 0.1


# ----------------------------------------------------------------------------- the engines
class LlamaCpp:
    """llama.cpp's grammar sampler over the default model's vocabulary (the reference)."""

    def __init__(self) -> None:
        from structgen.testing import accepts

        accepts('root ::= "a"', "a")  # the vocabulary loads now: a missing model stops the run here

    def judge(self, gbnf: str, texts: list[str]) -> list[bool]:
        from structgen.testing import accepts, check

        check(gbnf, "")  # loads the grammar: GrammarError when llama.cpp refuses it
        return [accepts(gbnf, t) for t in texts]


class XGrammar:
    """xgrammar's EBNF reader; an empty vocabulary, so the matcher takes strings."""

    def __init__(self) -> None:
        import xgrammar as xgr

        self.xgr = xgr
        self.compiler = xgr.GrammarCompiler(xgr.TokenizerInfo([]), cache_enabled=False)

    def judge(self, gbnf: str, texts: list[str]) -> list[bool]:
        compiled = self.compiler.compile_grammar(self.xgr.Grammar.from_ebnf(gbnf))
        verdicts = []
        for text in texts:
            matcher = self.xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)
            verdicts.append(bool(matcher.accept_string(text)) and matcher.is_terminated())
        return verdicts


class _ByteTokens:
    """A vocabulary of the 256 bytes and an end-of-sequence token, for llguidance."""

    eos_token_id = 256
    bos_token_id = None
    special_token_ids = [256]
    tokens = [bytes([b]) for b in range(256)] + [b"<eos>"]

    def __call__(self, text: bytes | str) -> list[int]:
        return list(text.encode() if isinstance(text, str) else text)


class LLGuidance:
    """llguidance's GBNF reader (it converts GBNF to its Lark dialect), matched byte by byte."""

    def __init__(self) -> None:
        import llguidance

        self.llg = llguidance
        self.tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokens()))

    def judge(self, gbnf: str, texts: list[str]) -> list[bool]:
        grammar = self.llg.grammar_from("gbnf", gbnf)  # ValueError when it cannot read it
        pristine = self.llg.LLMatcher(self.tokenizer, grammar, log_level=0)
        if pristine.is_error():
            raise ValueError(pristine.get_error())
        verdicts = []
        for text in texts:
            matcher = pristine.deep_copy()
            ok = matcher.consume_tokens(list(text.encode()))
            verdicts.append(bool(ok) and matcher.is_accepting() and not matcher.is_error())
        return verdicts


def _worker_main(engine_name: str, conn: Connection) -> None:
    try:
        engine = {"llama.cpp": LlamaCpp, "xgrammar": XGrammar,
                  "llguidance": LLGuidance}[engine_name]()
    except Exception as e:  # not installed, no model: the run cannot go on
        conn.send(f"{type(e).__name__}: {e}")
        return
    conn.send("ready")
    while True:
        job = conn.recv()
        if job is None:
            return
        gbnf, texts = job
        try:
            conn.send(engine.judge(gbnf, texts))
        except Exception as e:  # the engine refusing the grammar is what we measure
            conn.send(f"{type(e).__name__}: {e}"[:400])


class Worker(harness.Worker):
    """One engine in a process of its own, restarted after a crash or a hang."""

    def __init__(self, engine: str, case_seconds: float) -> None:
        self.engine, self.case_seconds = engine, case_seconds
        super().__init__(_worker_main, engine)

    def start(self) -> None:
        super().start()
        ready = self.conn.recv()
        if ready != "ready":
            raise RuntimeError(f"{self.engine} did not start: {ready}")

    def run(self, gbnf: str, texts: list[str]) -> list[bool] | str:
        """Verdicts, or why the engine did not give them ("hang", "crash", its error)."""
        result: list[bool] | str = self.ask((gbnf, texts), self.case_seconds, WALL_FACTOR * self.case_seconds,
                                            POLL_SECONDS)
        return result


# ----------------------------------------------------------------------------- one case
@dataclass
class Row:
    """One schema: each engine's verdicts, or its error."""

    id: str
    error: str = ""  # structgen refused the schema (a typed SchemaError): no grammar to compare
    grammar_bytes: int = 0
    verdicts: dict[str, list[bool] | str] = field(default_factory=dict)


def convert(case: Case) -> tuple[str | None, str]:
    from structgen import SchemaError
    from structgen import json_schema_to_gbnf

    try:
        return json_schema_to_gbnf(case.schema), ""
    except SchemaError as e:
        return None, f"{type(e).__name__}: {e}"[:200]


def judge_case(case: Case, workers: dict[str, Worker]) -> Row:
    gbnf, error = convert(case)
    row = Row(case.id, error)
    if gbnf is None:
        return row
    row.grammar_bytes = len(gbnf.encode())
    texts = [json.dumps(data) for data, _ in case.tests]
    for name, worker in workers.items():
        row.verdicts[name] = worker.run(gbnf, texts)
    return row


# ----------------------------------------------------------------------------- the report
def summarize(rows: list[Row]) -> dict[str, Counter[str]]:
    """Per engine: grammars, parsed, hangs, instances compared and agreeing, schemas agreeing."""
    out: dict[str, Counter[str]] = {}
    for engine in ENGINES[1:]:
        c: Counter[str] = Counter()
        for row in rows:
            native, mine = row.verdicts.get("llama.cpp"), row.verdicts.get(engine)
            if not isinstance(native, list) or mine is None:
                continue  # no grammar, or llama.cpp itself did not load it: nothing to compare
            c["grammars"] += 1
            if not isinstance(mine, list):
                c["hang" if mine in ("hang", "crash") else "refused"] += 1
                continue
            c["parsed"] += 1
            same = sum(a == b for a, b in zip(native, mine))
            c["instances"] += len(native)
            c["agree"] += same
            c["schemas-agree"] += same == len(native)
            c["accepts-more"] += sum(b and not a for a, b in zip(native, mine))
            c["accepts-less"] += sum(a and not b for a, b in zip(native, mine))
        out[engine] = c
    return out


def report(rows: list[Row]) -> str:
    lines = ["| engine | grammars | parsed | instances agreeing with llama.cpp | schemas agreeing"
             " | accepts more / less | hang or crash |", "|---|---|---|---|---|---|---|"]
    for engine, c in summarize(rows).items():
        parsed = 100 * c["parsed"] / max(c["grammars"], 1)
        agree = 100 * c["agree"] / max(c["instances"], 1)
        lines.append(f"| {engine} | {c['grammars']} | {c['parsed']} ({parsed:.1f} %) | "
                     f"{c['agree']}/{c['instances']} ({agree:.2f} %) | "
                     f"{c['schemas-agree']}/{c['parsed']} | {c['accepts-more']} / "
                     f"{c['accepts-less']} | {c['hang']} |")
    skipped = sum(1 for r in rows if r.error)
    refused = sum(1 for r in rows if not r.error and not isinstance(r.verdicts.get("llama.cpp"),
                                                                     list))
    lines.append(f"\n{len(rows)} schemas: {skipped} refused by structgen (typed SchemaError), "
                 f"{refused} not loaded by llama.cpp; the others are compared.")
    return "\n".join(lines)


def failures(rows: list[Row]) -> Iterable[dict[str, Any]]:
    """Each schema where an engine refused the grammar or disagreed with llama.cpp."""
    for row in rows:
        native = row.verdicts.get("llama.cpp")
        if not isinstance(native, list):
            continue
        for engine in ENGINES[1:]:
            mine = row.verdicts.get(engine)
            if isinstance(mine, str):
                yield {"id": row.id, "engine": engine, "error": mine}
            elif mine is not None and mine != native:
                yield {"id": row.id, "engine": engine,
                       "disagree": [i for i, (a, b) in enumerate(zip(native, mine)) if a != b]}


# ----------------------------------------------------------------------------- main
def load_rows(path: Path | None) -> dict[str, Row]:
    if path is None or not path.exists():
        return {}
    rows = (Row(**json.loads(line)) for line in path.read_text().splitlines() if line.strip())
    return {r.id: r for r in rows}


def run(cases: list[Case], case_seconds: float, saved: Path | None, jobs: int) -> list[Row]:
    done = load_rows(saved)
    todo = [c for c in cases if c.id not in done]
    counter = [0]

    def work(index: int) -> list[Row]:
        workers = {e: Worker(e, case_seconds) for e in ENGINES}
        out = []
        try:
            for case in todo[index::jobs]:
                row = judge_case(case, workers)
                out.append(row)
                if saved is not None:
                    with saved.open("a") as f:
                        f.write(json.dumps(asdict(row)) + "\n")
                counter[0] += 1
                if counter[0] % 100 == 0:
                    print(f"  {counter[0]}/{len(todo)}", file=sys.stderr, flush=True)
        finally:
            for w in workers.values():
                w.close()
        return out

    with ThreadPoolExecutor(jobs) as pool:
        new = [r for part in pool.map(work, range(jobs)) for r in part]
    by_id = {**done, **{r.id: r for r in new}}
    return [by_id[c.id] for c in cases if c.id in by_id]


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1, help="keep every N-th MaskBench schema")
    parser.add_argument("--case-seconds", type=float, default=CASE_SECONDS,
                        help="CPU seconds an engine may spend on one grammar before it hangs")
    parser.add_argument("--jobs", type=int, default=1, help="cases judged at once (each has "
                        "one worker per engine); the machine is shared: default 1")
    parser.add_argument("--results", type=Path, default=None,
                        help="append each schema's verdicts here as JSON lines; a run given the"
                        " same file skips the schemas already in it")
    parser.add_argument("--failures", type=Path, default=None,
                        help="write each refusal and disagreement here as JSON lines")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.results is None:
        args.results = harness.results_file(None, "portability", ".jsonl")
        args.results.unlink(missing_ok=True)  # only a file given on purpose is resumed
    cases = list(maskbench_cases(every=args.every))
    t0 = time.monotonic()
    rows = run(cases, args.case_seconds, args.results, args.jobs)
    sample = "every schema" if args.every == 1 else f"every {args.every}th schema"
    print(f"## Portability: MaskBench dev, {sample} ({time.monotonic() - t0:.0f} s)\n")
    print(report(rows))
    if args.failures is not None:
        with args.failures.open("w") as f:
            for item in failures(rows):
                f.write(json.dumps(item) + "\n")


if __name__ == "__main__":
    main()

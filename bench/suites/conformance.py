"""Conformance of structgen's converter and llama-cpp-python's, judged by llama.cpp itself.

    python -m bench.suites.conformance [--corpus jsts|jsts-optional|maskbench|all] [--every N]
        [--first N] [--only structgen] [--convert-only] [--source PATH] [--hang-seconds S]
        [--results FILE.jsonl]

For each corpus and subset: schemas that pass / fail to compile / reject a valid instance /
accept an invalid one / crash or hang llama.cpp / (structgen's only) fail the ``check_safe``
lint its converted grammars skip ("unsafe"), for both converters in the same run, plus
the share of instances decided right and the total conversion time of each converter (CPU
time of the converting thread), and the cold-conversion ratio: structgen's time over
llama-cpp-python's on the schemas both convert, each converted once in this run
(``--convert-only``: that line alone, nothing judged, one thread, then the warm ratio of a
second pass by fresh converters, which shows how much of the cold time is work done once per
process, such as structgen's memo tables filling; ``--source PATH`` imports
structgen from another checkout, to compare two versions with the same command: its converter,
judged by this checkout's judge, :func:`bench.harness.use_structgen`).
Grammars are judged in worker processes, so a grammar that aborts or hangs llama.cpp is
counted as a crash or a hang instead of ending the run. A hang is a judgement that used more
than ``--hang-seconds`` of the worker's CPU time (other processes on the machine do not make a
grammar hang); a grammar llama.cpp refuses to load is counted apart ("refused"). With
``--results`` every case's outcome, with the worker's CPU time to load the grammar and to judge
its instances, is appended to a JSON-lines file as it is decided, and a run given the same file
skips the cases already in it (so a long run resumes); without ``--results`` a run writes
``bench/results/latest/conformance.jsonl`` anew.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.harness import Worker, results_file, use_structgen
from tests.support.corpora import (
    Case,
    Outcome,
    jsts_cases,
    jsts_remotes,
    maskbench_cases,
    score,
)

HANG_SECONDS = 30.0
#: A judgement also ends after this many times its CPU bound in wall time (a starved machine).
WALL_FACTOR = 20
POLL_SECONDS = 0.2


def _worker_main(conn: Connection) -> None:
    from structgen import GrammarError
    # llama.cpp's grammar sampler itself: its load and judge times and the cost of one sampling
    # step are measured (structgen.testing.check gives the verdicts, not those).
    from structgen._backends.llamacpp._native import native_vocab

    vocab = native_vocab()
    steps = VocabSteps(vocab)
    while True:
        job = conn.recv()
        if job is None:
            return
        gbnf, texts, valid = job
        t0 = time.process_time()
        try:
            vocab.compile(gbnf, "root")
        except GrammarError as e:
            conn.send(str(e))  # "llama.cpp rejected the grammar: ..."
            continue
        t1 = time.process_time()
        verdicts = [vocab.check(gbnf, "root", t).accepted for t in texts]
        t2 = time.process_time()
        accepted = [t for t, v, ok in zip(texts, verdicts, valid) if v and ok]
        step = steps.measure(gbnf, accepted[0] if accepted else "")
        conn.send((verdicts, t1 - t0, t2 - t1, step))
        vocab.forget(gbnf, "root")  # one grammar at a time: a cache of large ones would grow


class VocabSteps:
    """The CPU time of one sampling step over the whole vocabulary, as generation pays it.

    The grammar masks every token of the vocabulary at STEP_POINTS evenly spaced places of
    ``text`` (a valid instance the grammar accepts; only its start when there is none), and
    the mean time of one mask is the result.
    """

    STEP_POINTS = 6

    def __init__(self, vocab: Any) -> None:
        import ctypes

        self.vocab = vocab
        lib = vocab.tables.lib
        self.lib = lib
        self.n = vocab.tables.n_vocab
        self.cells = (lib.llama_token_data * self.n)()
        self.array = lib.llama_token_data_array(
            data=ctypes.cast(self.cells, ctypes.POINTER(lib.llama_token_data)), size=self.n,
            selected=-1, sorted=False)
        self.byref = ctypes.byref
        self.memmove, self.size = ctypes.memmove, ctypes.sizeof(self.cells)
        self.fresh = (lib.llama_token_data * self.n)()  # every token with logit 0, to copy from
        for i in range(self.n):
            self.fresh[i].id = i

    def measure(self, gbnf: str, text: str) -> float:
        lib = self.lib
        tokens = self.vocab.tokenize(text) if text else []
        cuts = sorted({len(tokens) * i // self.STEP_POINTS for i in range(self.STEP_POINTS)})
        state = self.vocab.grammars.get(gbnf, "root").new_state()
        spent, fed = 0.0, 0
        try:
            for cut in cuts:
                state.accept_prefix(tokens[fed:cut])  # an accepted instance: all of them
                fed = cut
                self.memmove(self.cells, self.fresh, self.size)
                self.array.size, self.array.selected, self.array.sorted = self.n, -1, False
                t0 = time.process_time()
                # The bare native call, as before: GrammarState.mask adds numpy copies.
                lib.llama_sampler_apply(state._sampler, self.byref(self.array))
                spent += time.process_time() - t0
        finally:
            state.close()
        return spent / len(cuts)


@dataclasses.dataclass
class Native:
    """What the worker measured: its CPU time to load the grammar and to judge the instances."""

    verdicts: list[bool]
    load_seconds: float
    accept_seconds: float
    step_seconds: float


class Judge(Worker):
    """One worker process running llama.cpp's grammar sampler; restarted after a crash."""

    def __init__(self, hang_seconds: float = HANG_SECONDS) -> None:
        self.hang_seconds = hang_seconds
        super().__init__(_worker_main)

    def run(self, gbnf: str, texts: list[str], valid: list[bool]) -> Native | str:
        """Verdicts and times, or "crash" / "hang" / why llama.cpp refused the grammar."""
        result = self.ask((gbnf, texts, valid), self.hang_seconds, WALL_FACTOR * self.hang_seconds, POLL_SECONDS)
        if isinstance(result, str):
            return result
        verdicts, load, accept, step = result
        return Native(verdicts, load, accept, step)


def structgen_converter(remotes: dict[str, Any], key_order: str) -> Callable[[Any], str]:
    from structgen import GrammarOptions, SchemaConverter

    # One options object for the run, as a server converting per request would keep: options
    # built per call would write out the remote documents for every cache key. A converter of
    # its own, so that a second one starts with no grammar cached.
    converter = SchemaConverter(GrammarOptions.preset("schema", refs=remotes, key_order=key_order))
    return lambda schema: converter.convert_schema(schema).gbnf


def llama_cpp_converter() -> Callable[[Any], str]:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return lambda schema: json_schema_to_gbnf(json.dumps(schema))


def evaluate(case: Case, convert: Callable[[Any], str], judge: Judge | None,
             lint: Callable[[str], object] | None = None) -> Outcome:
    """One case: convert (timed), ``lint`` the grammar if given (untimed: structgen's own
    check, which its constructor no longer runs on converted grammars), judge it."""
    # The converting thread's CPU time: two threads convert at once, and wall time would charge
    # each conversion for the other thread's turns on the interpreter.
    t0 = time.thread_time()
    try:
        gbnf = convert(case.schema)
    except Exception as e:  # a converter's failure to convert is what we are measuring
        return Outcome("compile-error", error=f"{type(e).__name__}: {e}"[:300],
                       seconds=time.thread_time() - t0)
    seconds = time.thread_time() - t0
    size = len(gbnf.encode())
    if lint is not None:
        try:
            lint(gbnf)
        except Exception as e:  # GrammarError: the converter wrote a grammar it calls unsafe
            return Outcome("unsafe", error=str(e)[:300], seconds=seconds, grammar_bytes=size)
    if judge is None:
        return Outcome("converted", seconds=seconds, grammar_bytes=size)
    native = judge.run(gbnf, [json.dumps(data) for data, _ in case.tests],
                       [valid for _, valid in case.tests])
    if native in ("crash", "hang"):
        return Outcome(str(native), seconds=seconds, grammar_bytes=size)
    if isinstance(native, str):
        return Outcome("refused", error=native[:300], seconds=seconds, grammar_bytes=size)
    out = score(case, native.verdicts)
    out.seconds = seconds
    out.grammar_bytes = size
    out.load_seconds = native.load_seconds
    out.accept_seconds = native.accept_seconds
    out.step_seconds = native.step_seconds
    return out


class ResultsFile:
    """Outcomes appended as JSON lines, one per converter and case, read back to resume."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.done: dict[tuple[str, str, str], Outcome] = {}
        if path is not None and path.exists():
            for line in path.read_text().splitlines():
                row = json.loads(line)
                key = (row.pop("corpus"), row.pop("converter"), row.pop("id"))
                row.pop("subset", None)
                self.done[key] = Outcome(**row)

    def add(self, corpus: str, converter: str, case: Case, outcome: Outcome) -> None:
        if self.path is None:
            return
        row = {"corpus": corpus, "converter": converter, "id": case.id, "subset": case.subset,
               **dataclasses.asdict(outcome)}
        with self.lock, self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")


def run_corpus(
    name: str, cases: list[Case], converters: dict[str, Callable[[Any], str]],
    hang_seconds: float = HANG_SECONDS, saved: ResultsFile | None = None,
) -> dict[str, dict[str, Outcome]]:
    from structgen.gbnf import check_safe

    saved = saved or ResultsFile(None)
    results: dict[str, dict[str, Outcome]] = {c: {} for c in converters}
    lints = {"structgen": check_safe}
    judges = [Judge(hang_seconds), Judge(hang_seconds)]

    done = [0]

    def work(index: int) -> None:
        judge = judges[index % 2]
        for case in cases[index::2]:
            for conv_name, conv in converters.items():
                known = saved.done.get((name, conv_name, case.id))
                if known is None:
                    known = evaluate(case, conv, judge, lints.get(conv_name))
                    saved.add(name, conv_name, case, known)
                results[conv_name][case.id] = known
            done[0] += 1
            if done[0] % 500 == 0:
                print(f"  {name}: {done[0]}/{len(cases)}", file=sys.stderr, flush=True)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(work, range(2)))
    for j in judges:
        j.close()
    report(name, cases, results)
    return results


def convert_only(name: str, cases: list[Case], converters: dict[str, Callable[[Any], str]],
                 warm: dict[str, Callable[[], Callable[[Any], str]]] | None = None,
                 ) -> dict[str, dict[str, Outcome]]:
    """Every case converted once by each converter in turn, in this thread; nothing judged.
    Then, with ``warm``, every case again by a fresh converter from each factory: the same
    work without what the first pass computed once for the whole process (structgen's memo
    tables stay filled; no grammar is taken from a converter's cache)."""
    results = {conv_name: {case.id: evaluate(case, conv, None) for case in cases}
               for conv_name, conv in converters.items()}
    print(f"\n## {name}: {len(cases)} schemas, conversion only")
    print_conversion_ratio(cases, results)
    if warm:
        again = {conv_name: {case.id: evaluate(case, conv, None) for case in cases}
                 for conv_name, conv in ((n, make()) for n, make in warm.items())}
        print_conversion_ratio(cases, again, "warm conversion (a second pass, memos filled)")
    return results


def print_conversion_ratio(cases: list[Case], results: dict[str, dict[str, Outcome]],
                           what: str = "cold conversion") -> None:
    """structgen's conversion time over llama-cpp-python's on the schemas both convert."""
    ours, peer = results.get("structgen"), results.get("llama-cpp-python")
    if ours is None or peer is None:
        return
    both = [c.id for c in cases if "compile-error" not in (ours[c.id].status, peer[c.id].status)]
    mine = sum(ours[i].seconds for i in both)
    theirs = sum(peer[i].seconds for i in both)
    ratio = f"{mine / theirs:.1f}x" if theirs > 0 else "n/a"
    print(f"\n{what}, the {len(both)} schemas both convert: structgen {mine:.2f} s, "
          f"llama-cpp-python {theirs:.2f} s: {ratio} llama-cpp-python's time")


def report(name: str, cases: list[Case], results: dict[str, dict[str, Outcome]]) -> None:
    instances = sum(len(c.tests) for c in cases)
    print(f"\n## {name}: {len(cases)} schemas, {instances} instances")
    print_conversion_ratio(cases, results)
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
        native = sum(o.load_seconds + o.accept_seconds for o in outcomes.values())
        slowest = max((o.load_seconds + o.accept_seconds for o in outcomes.values()), default=0)
        print(f"\n### {conv_name}: conversion {seconds:.2f} s in total; llama.cpp's sampler"
              f" {native:.2f} s (load and judge, the slowest grammar {slowest:.2f} s)")
        cols = ["pass", "compile-error", "valid-rejected", "invalid-accepted", "refused", "crash",
                "hang", "unsafe"]
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
    parser.add_argument("--first", type=int, default=None,
                        help="MaskBench: only the first N schemas (after --every)")
    parser.add_argument("--convert-only", action="store_true",
                        help="convert every schema once with each converter, judge nothing: "
                             "the cold-conversion times and their ratio alone")
    parser.add_argument("--key-order", default="declared",
                        choices=["declared", "required-first", "any"],
                        help="structgen's key order (default: declared, what Pydantic writes)")
    parser.add_argument("--source", type=Path, default=None,
                        help="import structgen from this checkout instead")
    parser.add_argument("--only", choices=["structgen", "llama-cpp-python"], default=None)
    parser.add_argument("--failures", type=Path, default=None,
                        help="write structgen's non-passing cases as JSON lines here")
    parser.add_argument("--hang-seconds", type=float, default=HANG_SECONDS,
                        help="CPU seconds of the judging worker after which a grammar hangs")
    parser.add_argument("--results", type=Path, default=None,
                        help="append every outcome here as JSON lines; resume from it "
                             "(default: bench/results/latest/conformance.jsonl, written anew)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.results is None and not args.convert_only:
        args.results = results_file(None, "conformance", ".jsonl")
        args.results.unlink(missing_ok=True)  # only a file given on purpose is resumed
    structgen = use_structgen(args.source)  # this checkout's, unless --source names another
    remotes = jsts_remotes()
    factories = {
        "structgen": lambda: structgen_converter(remotes, args.key_order),
        "llama-cpp-python": llama_cpp_converter,
    }
    converters = {n: f() for n, f in factories.items() if args.only in (None, n)}
    if args.source is not None:
        print(f"structgen from {Path(structgen.__file__).parent}", file=sys.stderr)
    corpora: dict[str, list[Case]] = {}
    if args.corpus in ("jsts", "all"):
        corpora["JSON-Schema-Test-Suite draft2020-12"] = list(jsts_cases())
    if args.corpus in ("jsts-optional", "all"):
        corpora["JSON-Schema-Test-Suite optional"] = list(jsts_cases(optional=True))
    if args.corpus in ("maskbench", "all"):
        corpora["MaskBench"] = list(itertools.islice(maskbench_cases(args.every), args.first))
    failures = []
    saved = ResultsFile(args.results)
    for name, cases in corpora.items():
        if args.convert_only:
            convert_only(name, cases, converters, factories if args.only is None else None)
            continue
        results = run_corpus(name, cases, converters, args.hang_seconds, saved)
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

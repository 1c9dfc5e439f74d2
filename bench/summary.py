"""One screen of what the suites last wrote to bench/results/latest/ (``make bench`` ends with it).

    python -m bench.summary [DIR]

One or two lines per suite that has a results file there; a suite not run is named as missing.
The full tables are in each suite's own output and file.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

LATEST = Path(__file__).resolve().parent / "results" / "latest"


def _share(right: float, total: float) -> str:
    return f"{right:g}/{total:g} ({100 * right / total:.0f} %)" if total else "0/0"


def conformance(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    tally: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for row in rows:
        tally[row["corpus"], row["converter"]][row["status"]] += 1
    return [f"{corpus}, {converter}: {_share(c['pass'], sum(c.values()))} schemas pass"
            for (corpus, converter), c in sorted(tally.items())]


def portability(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    lines = []
    for engine in ("xgrammar", "llguidance"):
        same = total = 0
        for row in rows:
            native, mine = row["verdicts"].get("llama.cpp"), row["verdicts"].get(engine)
            if isinstance(native, list):
                total += 1
                same += isinstance(mine, list) and mine == native
        lines.append(f"{engine}: agrees with llama.cpp on {_share(same, total)} grammars")
    return lines


def generate(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    rows, seconds = data["rows"], data["seconds"]
    valid = {k: sum(r[k]["valid"] for r in rows) for k in "ab"}
    return [f"{data['model']}: valid structgen {valid['a']}/{len(rows)}, llama-cpp-python schema "
            f"{valid['b']}/{len(rows)}; time (a)/(b) {seconds['a'] / seconds['b']:.2f}, "
            f"(a)/(unconstrained) {seconds['a'] / seconds['c']:.2f}"]


def dictionaries(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    return [f"member check {v}: valid {c['valid']}/{data['tasks']}, facts {c['facts']}/{data['facts']}, "
            f"answers with a key twice {c['duplicate_keys']}" for v, c in data["variants"].items()]


def reasoning_modes(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    return [f"budget {data['budget']}: " + "; ".join(
        f"{mode} {t['seconds']:.1f} s, {t['valid']} valid" for mode, t in data["totals"].items())]


def prefix_cache(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    lines = []
    for workload, ways in data["workloads"].items():
        first = next(iter(ways.values()))["seconds"]
        lines.append(f"{workload}: " + "; ".join(
            f"{way} {t['seconds'] / first:.2f}× ({100 * t['cached'] / max(t['prompt'], 1):.0f} % reused)"
            for way, t in ways.items()))
    return lines


def extract(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    return [f"{data['type']} ({data['documents']} documents): " + "; ".join(
        f"{row['concurrency']} at a time {row['speedup']:.2f}×, {len(row['differing'])} records differ"
        for row in data["table"])]


def several_calls(path: Path) -> list[str]:
    rows = json.loads(path.read_text())["rows"]
    by: dict[int, list[bool]] = defaultdict(list)
    for row in rows:
        by[len(row["wanted"])].append(row["right"])
    return ["; ".join(f"{n} call(s) wanted: {_share(sum(r), len(r))} right" for n, r in sorted(by.items()))]


def tool_decision(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in data["rows"]:
        by[row["runner"]].append(row)
    return [f"{runner}: {_share(sum(r['right'] for r in rows), len(rows))} right, "
            f"median {statistics.median(r['seconds'] for r in rows):.2f} s ({data['model']})"
            for runner, rows in by.items()]


def bfcl(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    cases = sum(row[0] for row in data["summary"].values())
    return [f"{label} ({data['model']}, {data['split']}): {_share(sum(row[i] for row in data['summary'].values()), cases)}"
            for i, label in enumerate(data["columns"][1:], 1)]


def quality(path: Path) -> list[str]:
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for outcome in json.loads(path.read_text()):
        by[outcome["runner"]].append(outcome)
    return [f"{runner}: facts {_share(sum(o['right'] for o in os), sum(o['total'] for o in os))}"
            for runner, os in by.items()]


#: Each suite's results file and how to read it, in the order ``make bench`` runs them.
SUITES: dict[str, tuple[str, Callable[[Path], list[str]]]] = {
    "conformance": ("conformance.jsonl", conformance),
    "generate": ("generate.json", generate),
    "dictionaries": ("dictionaries.json", dictionaries),
    "reasoning_modes": ("reasoning_modes.json", reasoning_modes),
    "prefix_cache": ("prefix_cache.json", prefix_cache),
    "extract": ("extract.json", extract),
    "several_calls": ("several_calls.json", several_calls),
    "tool_decision": ("tool_decision.json", tool_decision),
    "bfcl": ("bfcl.json", bfcl),
    "quality": ("quality.json", quality),
    "portability": ("portability.jsonl", portability),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("directory", nargs="?", type=Path, default=LATEST)
    args = parser.parse_args()
    for suite, (name, read) in SUITES.items():
        path = args.directory / name
        if not path.exists():
            print(f"{suite:16} (not run)")
            continue
        try:
            lines = read(path)
        except (KeyError, ValueError, ZeroDivisionError) as error:  # a partial or older file
            lines = [f"unreadable {name}: {type(error).__name__}: {error}"]
        for i, line in enumerate(lines or ["(empty)"]):
            print(f"{suite if i == 0 else '':16} {line}")


if __name__ == "__main__":
    main()

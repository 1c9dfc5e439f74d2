"""The shared corpora and how we score a converter on them (used by tests/ and bench/).

Scoring convention: an instance is serialized with ``json.dumps(data)`` and a grammar
accepts it when llama.cpp's own grammar sampler accepts every token and then end-of-sequence.
A schema passes when it converts and every instance is decided right.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The corpora sit beside the checkout (never copied into it): ``../shared/corpora``.
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"
JSTS = SHARED / "json-schema-test-suite"
MASKBENCH = SHARED / "maskbench-dev.jsonl.gz"
GBNF_EXAMPLES = SHARED / "gbnf"
BFCL = SHARED / "bfcl-dev.jsonl.gz"
REMOTE_BASE = "http://localhost:1234/"


@dataclass(frozen=True)
class Case:
    """One schema with its labelled instances."""

    id: str
    subset: str
    schema: Any
    tests: tuple[tuple[Any, bool], ...]


def jsts_remotes() -> dict[str, Any]:
    """The suite's remote documents, keyed by the URI its ``$ref``s use."""
    root = JSTS / "remotes"
    return {
        REMOTE_BASE + p.relative_to(root).as_posix(): json.loads(p.read_text())
        for p in sorted(root.rglob("*.json"))
    }


def jsts_cases(optional: bool = False) -> Iterator[Case]:
    base = JSTS / "draft2020-12"
    files = sorted(base.rglob("*.json")) if optional else sorted(base.glob("*.json"))
    for path in files:
        rel = path.relative_to(base).with_suffix("").as_posix()
        if optional != rel.startswith("optional/"):
            continue
        for case in json.loads(path.read_text()):
            tests = tuple((t["data"], bool(t["valid"])) for t in case["tests"])
            yield Case(f"{rel}::{case['description']}", rel, case["schema"], tests)


def maskbench_cases(every: int = 1) -> Iterator[Case]:
    """MaskBench schemas; ``every=n`` keeps every n-th (a deterministic sample)."""
    with gzip.open(MASKBENCH, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i % every:
                continue
            row = json.loads(line)
            tests = tuple((t["data"], bool(t["valid"])) for t in row["tests"])
            yield Case(row["id"], row["subset"], row["schema"], tests)


@dataclass
class Outcome:
    """How one converter did on one case."""

    status: str  # pass | compile-error | wrong | refused | crash | hang
    right: int = 0
    valid_rejected: list[int] = field(default_factory=list)
    invalid_accepted: list[int] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0  # conversion (CPU time)
    grammar_bytes: int = 0
    load_seconds: float = 0.0  # llama.cpp loading the grammar (the judging worker's CPU time)
    accept_seconds: float = 0.0  # llama.cpp judging every instance (likewise)
    step_seconds: float = 0.0  # one sampling step over the whole vocabulary (likewise, a mean)


def score(case: Case, verdicts: list[bool]) -> Outcome:
    """Compare a grammar's verdicts on ``case``'s instances with their labels."""
    out = Outcome("pass")
    for i, ((_, valid), verdict) in enumerate(zip(case.tests, verdicts)):
        if verdict == valid:
            out.right += 1
        elif valid:
            out.valid_rejected.append(i)
        else:
            out.invalid_accepted.append(i)
    if out.valid_rejected or out.invalid_accepted:
        out.status = "wrong"
    return out


def decide(case: Case, gbnf: str, accepts: Callable[[str, str], bool]) -> Outcome:
    """Judge every instance of ``case`` against ``gbnf`` with the given acceptance oracle."""
    return score(case, [accepts(gbnf, json.dumps(data)) for data, _ in case.tests])

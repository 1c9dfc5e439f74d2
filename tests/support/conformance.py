"""Run a corpus through the converter once per session and pin each case's verdict.

Every grammar converted here also goes through ``check_safe``, the lint that ``Grammar(text)``
runs and the converter's own grammars skip (they are safe by construction; this is where that
is checked, on grammars the corpus tests convert anyway). A grammar it rejects is "unsafe".

A verdict is what a case's test compares with its pin: the status, for a typed refusal the
error's type and where in the schema it points, and for a wrong grammar which instances it
decides wrong. The wording of messages is not pinned, so rewording one breaks no pin.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.corpora import Case, decide
from structgen import GrammarError, SchemaError
from structgen import json_schema_to_gbnf
from structgen._gbnf import check_safe
from structgen.testing import accepts

#: Pinned statuses a case may have; "unsafe" is a converter bug, never pinned.
PINNABLE = ("pass", "compile-error", "wrong")
#: The command that rewrites the pins from a run (tests/repin.py).
REPIN = "python -m tests.repin"


@dataclass(frozen=True)
class Result:
    status: str  # pass | compile-error | wrong | unsafe
    right: int
    detail: str  # for people: the error message, or the instances decided wrong
    error: str = ""  # compile-error: the error's type and where it points, e.g. "SchemaError #/enum"
    valid_rejected: tuple[int, ...] = ()
    invalid_accepted: tuple[int, ...] = ()

    def verdict(self) -> dict[str, Any]:
        """What the pin of this case holds (without its reason)."""
        verdict: dict[str, Any] = {"status": self.status}
        if self.error:
            verdict["error"] = self.error
        if self.valid_rejected:
            verdict["valid_rejected"] = list(self.valid_rejected)
        if self.invalid_accepted:
            verdict["invalid_accepted"] = list(self.invalid_accepted)
        return verdict


def run_case(case: Case, **options: Any) -> Result:
    try:
        gbnf = json_schema_to_gbnf(case.schema, **options)
    except SchemaError as e:  # typed refusals (SchemaError and UnsupportedSchemaError) only
        return Result("compile-error", 0, f"{type(e).__name__}: {e}", error=_where(e))
    try:
        check_safe(gbnf, "root")
    except GrammarError as e:
        return Result("unsafe", 0, f"the converter wrote a grammar check_safe rejects: {e}")
    outcome = decide(case, gbnf, accepts)
    wrong = [
        f"{'valid rejected' if i in outcome.valid_rejected else 'invalid accepted'}: "
        f"{json.dumps(case.tests[i][0])[:120]}"
        for i in sorted(outcome.valid_rejected + outcome.invalid_accepted)
    ]
    return Result(outcome.status, outcome.right, "; ".join(wrong),
                  valid_rejected=tuple(outcome.valid_rejected),
                  invalid_accepted=tuple(outcome.invalid_accepted))


def _where(error: SchemaError) -> str:
    where = error.pointer or "#"
    if error.keyword is not None:
        where = f"{where.rstrip('/')}/{error.keyword}"
    return f"{type(error).__name__} {where}"


def run_all(cases: Iterable[Case], **options: Any) -> dict[str, Result]:
    return {case.id: run_case(case, **options) for case in cases}


# ------------------------------------------------------------------------- the pins


def load_expected(path: Path) -> dict[str, dict[str, Any]]:
    """Every case's pinned verdict: ``{id: {"status": ..., ..., "reason": ...}}``."""
    data: dict[str, dict[str, Any]] = json.loads(path.read_text())
    return data


def pinned_verdict(pin: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in pin.items() if key != "reason"}


def mismatch(case_id: str, pin: dict[str, Any] | None, got: Result, corpus: str) -> str:
    """The failure message when a verdict differs from its pin, with how to re-pin."""
    return (
        f"{case_id}: pinned {pin and pinned_verdict(pin)}, now {got.verdict()} "
        f"({got.detail or 'every instance decided right'}). If the change is meant, re-pin: "
        f"`{REPIN} {corpus}`, then give each new 'wrong' pin its reason and keep the floor "
        f"at the measured share"
    )


def pin_problems(expected: dict[str, dict[str, Any]], case_ids: Iterable[str]) -> list[str]:
    """What is wrong with a pins file itself: missing or unknown cases, a 'wrong' without reason."""
    ids = list(case_ids)
    problems = [f"{i}: not pinned" for i in ids if i not in expected]
    problems += [f"{i}: pinned but not a case of the sample" for i in sorted(set(expected) - set(ids))]
    for case_id, pin in expected.items():
        if pin.get("status") not in PINNABLE:
            problems.append(f"{case_id}: status {pin.get('status')!r} cannot be pinned")
        elif pin["status"] == "wrong" and not str(pin.get("reason", "")).strip():
            problems.append(f"{case_id}: a 'wrong' pin needs its reason")
    return problems


def repinned(results: dict[str, Result], previous: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Pins from a run; a reason survives while its case keeps its status, else it is left empty."""
    pins: dict[str, dict[str, Any]] = {}
    for case_id, result in results.items():
        pin = result.verdict()
        old = previous.get(case_id, {})
        if old.get("reason") and old.get("status") == result.status:
            pin["reason"] = old["reason"]
        elif result.status == "wrong":
            pin["reason"] = ""  # pin_problems asks for one
        pins[case_id] = pin
    return pins


def write_expected(path: Path, pins: dict[str, dict[str, Any]]) -> None:
    """One case per line, in id order, so a re-pin's diff shows exactly the changed verdicts."""
    lines = [f" {json.dumps(case_id)}: {json.dumps(pins[case_id], ensure_ascii=False)}"
             for case_id in sorted(pins)]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")

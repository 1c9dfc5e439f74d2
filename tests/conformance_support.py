"""Run a corpus through the converter once per session and keep each case's outcome.

Every grammar converted here also goes through ``check_safe``, the lint that ``Grammar(text)``
runs and the converter's own grammars skip (they are safe by construction; this is where that
is checked, on grammars the corpus tests convert anyway). A grammar it rejects is "unsafe".
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.corpora import Case, decide
from structgen import GrammarError, SchemaError
from structgen import json_schema_to_gbnf
from structgen._gbnf import check_safe
from structgen.testing import accepts


@dataclass(frozen=True)
class Result:
    status: str  # pass | compile-error | wrong | unsafe
    right: int
    detail: str


def run_case(case: Case, **options: Any) -> Result:
    try:
        gbnf = json_schema_to_gbnf(case.schema, **options)
    except SchemaError as e:  # typed refusals (SchemaError and UnsupportedSchemaError) only
        return Result("compile-error", 0, f"{type(e).__name__}: {e}")
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
    return Result(outcome.status, outcome.right, "; ".join(wrong))


def run_all(cases: Iterable[Case], **options: Any) -> dict[str, Result]:
    return {case.id: run_case(case, **options) for case in cases}


def load_expected(path: Path) -> dict[str, dict[str, str]]:
    """Cases known not to pass: ``{id: {"status": ..., "reason": ...}}`` (may only shrink)."""
    data: dict[str, dict[str, str]] = json.loads(path.read_text())
    return data

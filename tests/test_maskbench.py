"""A deterministic sample of MaskBench (real-world schemas), judged by llama.cpp's own sampler.

The full corpus runs in ``bench/conformance.py``. Here every 10th schema must either raise a
typed SchemaError or decide every instance right, except the cases listed with a reason in
maskbench_expected.json (a list that may only shrink), and the share of passing schemas must
not fall below the floor measured when it was set.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.corpora import maskbench_cases
from tests.conformance_support import Result, load_expected, run_all

CASES = list(maskbench_cases(every=10))
EXPECTED = load_expected(Path(__file__).with_name("maskbench_expected.json"))
#: Floor on the share of sampled schemas that pass with every instance decided right.
MIN_SCHEMAS_PASSING = 0.88


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    return run_all(CASES)


@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_case(results: dict[str, Result], case_id: str) -> None:
    got = results[case_id]
    expected = EXPECTED.get(case_id)
    if expected is None:
        assert got.status in ("pass", "compile-error"), got.detail
    else:
        assert got.status == expected["status"], (
            f"now {got.status}; update tests/maskbench_expected.json (it may only shrink)"
        )


def test_expected_list_names_real_cases() -> None:
    assert set(EXPECTED) <= {c.id for c in CASES}
    assert all(e["reason"].strip() and e["status"] == "wrong" for e in EXPECTED.values())


def test_share_of_schemas_passing(results: dict[str, Result]) -> None:
    passing = sum(r.status == "pass" for r in results.values())
    assert passing / len(CASES) >= MIN_SCHEMAS_PASSING, f"{passing}/{len(CASES)}"

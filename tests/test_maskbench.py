"""A deterministic sample of MaskBench (real-world schemas), judged by llama.cpp's own sampler.

The full corpus runs in ``python -m bench.suites.conformance``. Here every 10th schema's verdict is pinned in
maskbench_expected.json: passes, typed refusals (the error's type and JSON pointer) and wrong
grammars (which instances, and why). Any change of verdict fails its case; when the change is
meant, ``python -m tests.repin maskbench`` rewrites the pins from a run. The floor on the share
passing is the share measured when the pins were last written, so a re-pin cannot lower it
without this file saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.corpora import maskbench_cases
from tests.support.conformance import Result, load_expected, mismatch, pin_problems, pinned_verdict, run_all

CASES = list(maskbench_cases(every=10))
EXPECTED_PATH = Path(__file__).with_name("maskbench_expected.json")
EXPECTED = load_expected(EXPECTED_PATH)
OPTIONS: dict[str, object] = {}
#: Floor on the share of sampled schemas that pass with every instance decided right.
MIN_SCHEMAS_PASSING = 0.9397


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    return run_all(CASES, **OPTIONS)


@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_case(results: dict[str, Result], case_id: str) -> None:
    got, pin = results[case_id], EXPECTED.get(case_id)
    assert pin is not None and got.verdict() == pinned_verdict(pin), mismatch(case_id, pin, got, "maskbench")


def test_every_sampled_case_is_pinned() -> None:
    assert pin_problems(EXPECTED, [c.id for c in CASES]) == []


def test_the_floor_is_the_pinned_share() -> None:
    pinned = sum(pin["status"] == "pass" for pin in EXPECTED.values()) / len(CASES)
    assert pinned - 1 / len(CASES) < MIN_SCHEMAS_PASSING <= pinned, f"the pins pass {pinned:.4f}"


def test_share_of_schemas_passing(results: dict[str, Result]) -> None:
    passing = sum(r.status == "pass" for r in results.values())
    assert passing / len(CASES) >= MIN_SCHEMAS_PASSING, f"{passing}/{len(CASES)}"

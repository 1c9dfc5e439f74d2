"""The official JSON-Schema-Test-Suite (draft 2020-12), judged by llama.cpp's own sampler.

Every case's verdict is pinned in jsts_expected.json: passes, typed refusals (the error's type
and JSON pointer) and wrong grammars (which instances are decided wrong, and why). Any change of
verdict fails its case; when the change is meant, ``python -m tests.repin jsts`` rewrites the
pins from a run. The floor on the share of instances decided right is the share measured when
the pins were last written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.corpora import jsts_cases, jsts_remotes
from tests.support.conformance import Result, load_expected, mismatch, pin_problems, pinned_verdict, run_all

CASES = list(jsts_cases())
EXPECTED_PATH = Path(__file__).with_name("jsts_expected.json")
EXPECTED = load_expected(EXPECTED_PATH)
OPTIONS = {"refs": jsts_remotes()}
INSTANCES = sum(len(c.tests) for c in CASES)
#: Floor on the share of all instances decided right (a typed refusal decides none).
MIN_INSTANCES_RIGHT = 0.8914


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    return run_all(CASES, **OPTIONS)


@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_case(results: dict[str, Result], case_id: str) -> None:
    got, pin = results[case_id], EXPECTED.get(case_id)
    assert pin is not None and got.verdict() == pinned_verdict(pin), mismatch(case_id, pin, got, "jsts")


def test_every_case_is_pinned() -> None:
    assert pin_problems(EXPECTED, [c.id for c in CASES]) == []


def test_the_floor_is_the_pinned_share() -> None:
    pinned = sum(_right(case.id, len(case.tests)) for case in CASES) / INSTANCES
    assert pinned - 1 / INSTANCES < MIN_INSTANCES_RIGHT <= pinned, f"the pins decide {pinned:.4f} right"


def _right(case_id: str, instances: int) -> int:
    pin = EXPECTED.get(case_id, {})
    if pin.get("status") == "compile-error":
        return 0
    return instances - len(pin.get("valid_rejected", [])) - len(pin.get("invalid_accepted", []))


def test_share_of_instances_decided_right(results: dict[str, Result]) -> None:
    right = sum(r.right for r in results.values())
    assert right / INSTANCES >= MIN_INSTANCES_RIGHT, f"{right}/{INSTANCES}"

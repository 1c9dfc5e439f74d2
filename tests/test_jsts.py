"""The official JSON-Schema-Test-Suite (draft 2020-12), judged by llama.cpp's own sampler.

Every case either raises a typed SchemaError or decides every instance right, except the
cases in jsts_expected.json, each with its reason. That list may only shrink: a listed case
that starts passing fails here until it is removed from the list.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.corpora import jsts_cases, jsts_remotes
from tests.conformance_support import Result, load_expected, run_all

CASES = list(jsts_cases())
EXPECTED = load_expected(Path(__file__).with_name("jsts_expected.json"))
#: Floor on the share of all instances decided right (a typed refusal decides none).
MIN_INSTANCES_RIGHT = 0.60


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    return run_all(CASES, refs=jsts_remotes())


@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_case(results: dict[str, Result], case_id: str) -> None:
    got = results[case_id]
    expected = EXPECTED.get(case_id)
    if expected is None:
        assert got.status == "pass", got.detail
    else:
        assert got.status == expected["status"], (
            f"now {got.status} ({got.detail or 'all instances right'}); "
            "update tests/jsts_expected.json (the list may only shrink)"
        )


def test_expected_list_names_real_cases() -> None:
    ids = {c.id for c in CASES}
    assert set(EXPECTED) <= ids
    assert all(e["reason"].strip() for e in EXPECTED.values())
    assert all(e["status"] in ("compile-error", "wrong") for e in EXPECTED.values())


def test_share_of_instances_decided_right(results: dict[str, Result]) -> None:
    total = sum(len(c.tests) for c in CASES)
    right = sum(r.right for r in results.values())
    assert right / total >= MIN_INSTANCES_RIGHT, f"{right}/{total}"

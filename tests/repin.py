"""Rewrite a corpus test's pins from a run: ``python -m tests.repin [maskbench] [jsts]``.

Run it from the repo root when a verdict changes on purpose. Reasons are kept for cases whose
status stays; a case that newly turns 'wrong' gets an empty reason, which its test refuses until
someone writes why. It prints the measured share to put in the test's floor.
"""

from __future__ import annotations

import sys
from types import ModuleType

from tests import test_jsts, test_maskbench
from tests.support.conformance import pinned_verdict, repinned, run_all, write_expected

CORPORA: dict[str, tuple[ModuleType, str]] = {
    "maskbench": (test_maskbench, "MIN_SCHEMAS_PASSING"),
    "jsts": (test_jsts, "MIN_INSTANCES_RIGHT"),
}


def repin(name: str) -> None:
    module, floor = CORPORA[name]
    results = run_all(module.CASES, **module.OPTIONS)
    pins = repinned(results, module.EXPECTED)
    write_expected(module.EXPECTED_PATH, pins)
    changed = sorted(i for i in pins if i in module.EXPECTED
                     and pinned_verdict(module.EXPECTED[i]) != pinned_verdict(pins[i]))
    print(f"{name}: {len(pins)} pins written to {module.EXPECTED_PATH.name} "
          f"({len(set(pins) - set(module.EXPECTED))} new); verdicts changed: {changed or 'none'}")
    if name == "maskbench":
        passing = sum(r.status == "pass" for r in results.values())
        print(f"  {floor} = {passing}/{len(results)} = {passing / len(results):.6f} (round down)")
    else:
        right = sum(r.right for r in results.values())
        print(f"  {floor} = {right}/{module.INSTANCES} = {right / module.INSTANCES:.6f} (round down)")


if __name__ == "__main__":
    for corpus in sys.argv[1:] or list(CORPORA):
        repin(corpus)

"""The pages keep their budget (docs/docs_budget.py: lines per page, prose width), and the tool policy reference
(docs/policy.md) names every rule of ``structgen.Policy``, every value of each, and each named policy's values as the
code has them. No model: fast.
"""

from __future__ import annotations

import re
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from structgen import Policy
from structgen._tools.policy._policies import POLICY_RULES
from structgen._tools.policy._table import RULES

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

sys.path.insert(0, str(ROOT / "docs"))
try:
    import docs_budget
finally:
    sys.path.remove(str(ROOT / "docs"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_page_keeps_its_budget(page: Path) -> None:
    path = str(page.relative_to(ROOT))
    assert docs_budget.problems(path, page.read_text()) == []


def test_the_budgets_name_pages_that_exist_and_the_build_checks_them() -> None:
    assert docs_budget.BUDGETS["docs/benchmarks.md"] <= 400 and docs_budget.BUDGETS["docs/tools.md"] <= 150
    assert all((ROOT / path).is_file() for path in docs_budget.BUDGETS)
    assert re.search(r"^hooks:\n\s+- docs/docs_budget\.py$", (ROOT / "mkdocs.yml").read_text(), re.M)


def test_the_check_finds_long_prose_and_long_pages_but_not_tables_or_code() -> None:
    wide = "x" * (docs_budget.LINE_WIDTH + 1)
    fine = "\n".join(["text", "| " + wide + " |", "```sh", wide, "```", "- item", "  ~~~python", "  " + wide,
                      "  ~~~", "x" * docs_budget.LINE_WIDTH])
    assert docs_budget.problems("docs/page.md", fine) == []
    assert docs_budget.problems("docs/page.md", f"text\n{wide}\n") == [
        f"docs/page.md:2: {len(wide)} characters, over {docs_budget.LINE_WIDTH} outside a table or code block"]
    unclosed = f"````python\n```\n{wide}\n````\n{wide}\n"  # a fence closes only on its own length or more
    assert [p.split(": ")[0] for p in docs_budget.problems("docs/page.md", unclosed)] == ["docs/page.md:5"]
    long_page = "line\n" * (docs_budget.budget("docs/tools.md") + 1)
    assert docs_budget.problems("docs/tools.md", long_page) == [
        f"docs/tools.md: {docs_budget.budget('docs/tools.md') + 1} lines, over its budget of"
        f" {docs_budget.budget('docs/tools.md')} (docs/docs_budget.py)"]


# ------------------------------------------------------------------------- the policy reference

POLICY_PAGE = (ROOT / "docs" / "policy.md").read_text()


def _section(heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    level = heading.split(" ")[0]
    start = POLICY_PAGE.index(heading + "\n")
    end = re.compile(rf"^#{{1,{len(level)}}} ", re.M).search(POLICY_PAGE, start + len(heading))
    return POLICY_PAGE[start:end.start() if end else len(POLICY_PAGE)]


@pytest.mark.parametrize("rule", [f.name for f in fields(Policy)])
def test_the_policy_reference_has_a_subsection_for_every_rule_and_a_row_for_every_value(rule: str) -> None:
    section = _section(f"### `{rule}`")
    documented = re.findall(r'^\| `"([^"]+)"` \|', section, re.M)
    assert sorted(documented) == sorted(RULES[rule]), f"docs/policy.md, `{rule}`: one table row per value"


def test_the_named_policies_table_gives_each_policys_rules_as_the_code_has_them() -> None:
    section = _section("## The named policies")
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `(\w+)` \|(.*)\|\s*$", section, re.M)}
    assert set(rows) == {f.name for f in fields(Policy)}, "one row per rule of structgen.Policy"
    header = re.search(r"^\| rule \|(.*)\|\s*$", section, re.M)
    assert header is not None
    columns = [cell.strip() for cell in header[1].split("|")]
    for rule, row in rows.items():
        cells = [cell.strip() for cell in row.split("|")]
        for name, policy in POLICY_RULES.items():
            assert cells[columns.index(f'`"{name}"`')] == f'`"{getattr(policy, rule)}"`', (rule, name)
        default = next(f.default for f in fields(Policy) if f.name == rule)
        if isinstance(default, str):
            assert cells[columns.index("`Policy` default")] == f'`"{default}"`', rule

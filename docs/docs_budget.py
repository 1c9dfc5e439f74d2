"""The pages' budget: how long a page may be, and how wide its prose.

Checked twice: as an mkdocs hook (mkdocs.yml, ``hooks:``), which warns on every page of the site so that
``mkdocs build --strict`` fails; and by ``tests/test_docs_budget.py``, which also checks README.md.

- A page holds at most its budget of lines: ``BUDGETS`` by path from the repository root, else ``DEFAULT_BUDGET``.
- No line outside tables and fenced code is longer than ``LINE_WIDTH`` characters (a table row cannot wrap, and code
  keeps its own layout).
"""

from __future__ import annotations

import logging
import re
from typing import Any

LINE_WIDTH = 120
DEFAULT_BUDGET = 450
#: Pages with a budget of their own, by path from the repository root.
BUDGETS: dict[str, int] = {
    "docs/benchmarks.md": 400,  # one table per question a user asks; the record is bench/notes/
    "docs/tools.md": 150,  # the user's path; every rule is in docs/policy.md
}

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
log = logging.getLogger("mkdocs.hooks.docs_budget")


def budget(path: str) -> int:
    """The most lines the page at ``path`` (from the repository root) may hold."""
    return BUDGETS.get(path, DEFAULT_BUDGET)


def problems(path: str, text: str) -> list[str]:
    """What ``text``, the page at ``path``, does against its budget; empty when nothing."""
    lines = text.splitlines()
    found = []
    if len(lines) > budget(path):
        found.append(f"{path}: {len(lines)} lines, over its budget of {budget(path)} (docs/docs_budget.py)")
    fence: str | None = None
    for number, line in enumerate(lines, 1):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        if line.lstrip().startswith("|"):
            continue
        if len(line) > LINE_WIDTH:
            found.append(f"{path}:{number}: {len(line)} characters, over {LINE_WIDTH} outside a table or code block")
    return found


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs hook: warn about every problem of the page (``--strict`` turns a warning into a failure)."""
    for problem in problems(f"docs/{page.file.src_uri}", markdown):
        log.warning(problem)
    return markdown

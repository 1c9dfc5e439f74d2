"""The docs' tables of grammar options, presets and CLI flags, generated from the code.

The help text lives in ``GrammarOptions``' field metadata and the presets in ``PRESETS``; the
tables in ``docs/conversion.md`` and ``docs/gbnf.md`` sit between ``<!-- generated: NAME -->``
and ``<!-- /generated -->`` and are rewritten by ``python docs/options_tables.py --write``.
``tests/test_docs.py`` fails when one is stale.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import fields
from pathlib import Path

from structgen import GrammarOptions
from structgen._cli import cli_option_names, grammar_flag
from structgen._schema.options import PRESET_HELP, PRESETS, option_help

DOCS = Path(__file__).resolve().parent
BLOCK = re.compile(r"(<!-- generated: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- /generated -->)",
                   re.S)


def _value(value: object) -> str:
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, int) and not isinstance(value, bool) and value >= 10_000:
        return f"`{value:_}`"
    return f"`{dict(value) if isinstance(value, Mapping) else value!r}`"


def grammar_options() -> str:
    names = list(PRESETS)
    rows = ["| option | " + " | ".join(f"`{n}`" for n in names) + " | meaning |",
            "|---|" + "---|" * len(names) + "---|"]
    for f in fields(GrammarOptions):
        values = [getattr(PRESETS[n], f.name) for n in names]
        cells = [_value(v) if i == 0 or v != values[0] else "〃" for i, v in enumerate(values)]
        rows.append(f"| `{f.name}` | " + " | ".join(cells) + f" | {option_help(f.name)} |")
    return "\n".join(rows) + "\n"


def presets() -> str:
    rows = ["| preset | for |", "|---|---|"]
    rows += [f"| `{name}` | {text} |" for name, text in PRESET_HELP.items()]
    return "\n".join(rows) + "\n"


def cli_flags() -> str:
    rows = ["| flag | meaning |", "|---|---|",
            f"| `--preset {{{','.join(PRESET_HELP)}}}` | the options to start from: by default "
            "what `generate` uses for a type (its `@structured` options, else `generation`), "
            "`schema` for a schema file |"]
    for name in cli_option_names():
        flag, settings = grammar_flag(name)
        if "choices" in settings:
            shown = f"{flag} {{{','.join(settings['choices'])}}}"
        elif settings.get("metavar") == "N":
            shown = f"{flag} N"
        elif settings.get("nargs"):
            shown = f"{flag} NAME ..."
        else:
            shown = f"{flag}` / `--no-{flag[2:]}"
        rows.append(f"| `{shown}` | {option_help(name)} |")
    return "\n".join(rows) + "\n"


TABLES: dict[str, Callable[[], str]] = {
    "grammar-options": grammar_options, "presets": presets, "cli-flags": cli_flags}


def stale(write: bool = False) -> list[str]:
    """``path: name`` of each generated block that differs from the code (rewritten if asked)."""
    found = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text()

        def fill(match: re.Match[str]) -> str:
            expected = TABLES[match["name"]]()
            if match["body"] != expected:
                found.append(f"{path.name}: {match['name']}")
            return match[1] + expected + match[4]

        new = BLOCK.sub(fill, text)
        if write and new != text:
            path.write_text(new)
    return found


if __name__ == "__main__":
    changed = stale(write="--write" in sys.argv)
    print("\n".join(changed) or "up to date")

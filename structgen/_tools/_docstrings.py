"""Read a docstring's description, parameter descriptions and returns text, whatever its style.

:func:`parse_docstring` recognises, line by line and without being told which style is used,

- Google sections (``Args:``, ``Returns:``, ``Raises:``, ...) with ``name (type): text`` items;
- NumPy sections (a title underlined with dashes) with ``name : type`` items and indented text;
- reST / Sphinx fields (``:param x:``, ``:param int x:``, ``:returns:``, ``:type x:``, ...).

The summary is the text before the first section; every other section (raises, examples,
notes, ...) is skipped. Parameters documented without any text are left out. It never raises.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

Style = Literal["auto", "google", "numpy", "rest"]
_Kind = Literal["google", "numpy", "rest"]

_PARAM_SECTIONS = frozenset({"args", "arguments", "parameters", "params", "kwargs", "other parameters",
                             "other params", "other arguments", "keyword args", "keyword arguments"})
_RETURN_SECTIONS = frozenset({"returns", "return", "yields", "yield"})
_GOOGLE_SECTIONS = _PARAM_SECTIONS | _RETURN_SECTIONS | frozenset(
    "attention attributes caution danger error example examples hint important methods note notes "
    "raise raises receive receives references tip todo warning warnings warns".split()
) | {"see also"}
_REST_PARAMS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_REST_FIELDS = _REST_PARAMS | _RETURN_SECTIONS | frozenset(
    "type rtype ytype raises raise except exception var ivar cvar vartype meta".split()
)

_NAME = r"(?:\\?\*){0,2}[^\W\d]\w*"
_NAMES = rf"{_NAME}(?:\s*,\s*{_NAME})*"
_GOOGLE_ITEM = re.compile(rf"(?P<names>{_NAMES})\s*(?:\((?P<type>.*?)\))?\s*:(?:\s+(?P<text>.*))?")
_NUMPY_ITEM = re.compile(rf"(?P<names>{_NAMES})\s*(?::(?P<type>.*))?")
_REST_FIELD = re.compile(r":(?P<field>[A-Za-z]+)(?P<args>\s[^:]*)?:(?P<text>.*)")
_GOOGLE_HEADER = re.compile(r"(?P<title>[A-Za-z](?:[A-Za-z ]*[A-Za-z])?):(?P<text>.*)")
_GENERIC_TITLE = re.compile(r"[A-Z][A-Za-z]*(?: [A-Za-z]+){0,2}")
_NUMPY_TITLE = re.compile(r"[A-Za-z][A-Za-z ]*:?")
_UNDERLINE = re.compile(r"\s*-{3,}\s*")
_BLANK_LINES = re.compile(r"\n\s*\n")
# ``dict[str, int]: text`` or ``int | None: text`` at the start of a Google returns section.
_TYPE_PREFIX = re.compile(r"[^\W\d][\w.\[\]]*(?:(?:,\s*|\s*\|\s*)[\w.\[\]]+)*\s*:\s+")
_INLINE_RETURNS = frozenset({"Returns", "Return", "Yields", "Yield"})


@dataclass(frozen=True)
class Docstring:
    """What a docstring says: its description, each parameter's description, its returns text."""

    summary: str = ""
    params: dict[str, str] = field(default_factory=dict)
    returns: str | None = None


class _Section(NamedTuple):
    start: int  # index of the header line
    kind: _Kind
    name: str  # lower-cased section title, or the reST field name
    arg: str  # the reST field argument (``int x`` in ``:param int x:``), else ""
    body: list[str]  # the lines after the header up to the next section; inline text first


def parse_docstring(doc: str | None, style: Style = "auto") -> Docstring:
    """Parse ``doc`` (raw or already cleaned) into a :class:`Docstring`; ``None`` gives an empty one.

    ``style`` restricts which section syntax is recognised; ``"auto"`` accepts all three.
    """
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    sections = _sections(lines, style)
    params: dict[str, str] = {}
    returns: str | None = None
    for section in sections:
        if section.kind == "rest":
            text = [line.strip() for line in _block(section.body)]
            names = section.arg.split()
            if section.name in _REST_PARAMS and names:
                _add(params, [names[-1]], text)
            elif section.name in _RETURN_SECTIONS and returns is None:
                returns = _paragraphs(text) or None
        elif section.name in _PARAM_SECTIONS:
            if section.kind == "google":
                for item_names, text in _google_items(_block(section.body)):
                    _add(params, item_names, text)
            else:
                for head, text in _numpy_items(section.body):
                    match = _NUMPY_ITEM.fullmatch(head)
                    if match:
                        _add(params, _names(match["names"]), text)
        elif section.name in _RETURN_SECTIONS and returns is None:
            if section.kind == "google":
                text = [line.strip() for line in _block(section.body)]
                first = next((k for k, line in enumerate(text) if line), None)
                if first is not None and (prefix := _TYPE_PREFIX.match(text[first])):
                    text[first] = text[first][prefix.end():]
                returns = _paragraphs(text) or None
            else:
                entries = (_paragraphs(text or [head]) for head, text in _numpy_items(section.body))
                returns = "\n\n".join(entry for entry in entries if entry) or None
    summary_end = sections[0].start if sections else len(lines)
    return Docstring(_paragraphs(lines[:summary_end]), params, returns)


def _sections(lines: list[str], style: Style) -> list[_Section]:
    """Every section in ``lines``, each with the lines up to the next section."""
    sections: list[_Section] = []
    i = 0
    while i < len(lines):
        header = _header(lines, i, style)
        if header is None:
            if sections:
                sections[-1].body.append(lines[i])
            i += 1
            continue
        kind, name, arg, inline, body_start = header
        sections.append(_Section(i, kind, name, arg, [" " + inline] if inline else []))
        i = body_start
    return sections


def _header(lines: list[str], i: int, style: Style) -> tuple[_Kind, str, str, str, int] | None:
    """``(kind, name, arg, inline text, index of the body)`` if a section starts at line ``i``."""
    text = lines[i].rstrip()
    if not text or text[0].isspace():
        return None
    if style in ("auto", "rest"):
        match = _REST_FIELD.fullmatch(text)
        if match and match["field"].lower() in _REST_FIELDS:
            return "rest", match["field"].lower(), match["args"] or "", match["text"].strip(), i + 1
    if style in ("auto", "numpy") and i + 1 < len(lines) and _UNDERLINE.fullmatch(lines[i + 1]):
        if _NUMPY_TITLE.fullmatch(text):
            return "numpy", " ".join(text.rstrip(":").lower().split()), "", "", i + 2
    if style in ("auto", "google"):
        match = _GOOGLE_HEADER.fullmatch(text)
        if match is None:
            return None
        title, inline = match["title"], match["text"].strip()
        name = " ".join(title.lower().split())
        if inline:
            return ("google", name, "", inline, i + 1) if title in _INLINE_RETURNS else None
        if name in _GOOGLE_SECTIONS:
            return "google", name, "", "", i + 1
        after = next((line for line in lines[i + 1:] if line.strip()), "")
        if _GENERIC_TITLE.fullmatch(title) and after[:1].isspace():
            return "google", name, "", "", i + 1
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block(body: list[str]) -> list[str]:
    """The indented block a section's body starts with: up to the first line back at column 0."""
    base: int | None = None
    block: list[str] = []
    for line in body:
        if line.strip():
            if base is None:
                base = _indent(line)
            elif base > 0 and _indent(line) == 0:
                break
        block.append(line)
    return block


def _google_items(block: list[str]) -> list[tuple[list[str], list[str]]]:
    """``name (type): text`` items; deeper (or unparseable) lines continue the previous item."""
    items: list[tuple[list[str], list[str]]] = []
    indents = [_indent(line) for line in block if line.strip()]
    base = indents[0] if indents else 0
    for line in block:
        text = line.strip()
        if not text:
            continue
        match = _GOOGLE_ITEM.fullmatch(text) if _indent(line) <= base else None
        if match:
            items.append((_names(match["names"]), [match["text"] or ""]))
        elif items:
            items[-1][1].append(text)
    return items


def _numpy_items(body: list[str]) -> list[tuple[str, list[str]]]:
    """``(head line, indented lines under it)`` for each line at the body's own indentation."""
    items: list[tuple[str, list[str]]] = []
    base: int | None = None
    for line in body:
        text = line.strip()
        if text and (base is None or _indent(line) <= base):
            base = _indent(line) if base is None else base
            items.append((text, []))
        elif items:
            items[-1][1].append(text)  # blank lines kept: they separate paragraphs
    return items


def _names(names: str) -> list[str]:
    return [name.strip().lstrip("\\*") for name in names.split(",")]


def _add(params: dict[str, str], names: list[str], text: list[str]) -> None:
    description = " ".join(" ".join(text).split())
    for name in names:
        if description and name and name not in params:
            params[name] = description


def _paragraphs(lines: list[str]) -> str:
    """Blank-line separated paragraphs, each on one line with single spaces, joined by a blank line."""
    paragraphs = (" ".join(text.split()) for text in _BLANK_LINES.split("\n".join(lines)))
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)

"""Special tokens in a grammar's literals, written as llama.cpp's token syntax.

A literal such as ``"<tool_call>\\n{"`` matches text: llama.cpp's grammar sampler then lets the
model spell ``<tool_call>`` only character by character, never as the one special token it was
trained to write (a server samples the forced opener that way; in process, forced text is
tokenized, special tokens included). :func:`special_texts` finds the texts in a grammar's literals
that look like special tokens; :func:`with_tokens` writes those a vocabulary holds as ``<[id]>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

#: Texts shaped like special tokens: ``<tool_call>``, ``</tool_call>``, ``<|python_tag|>``,
#: ``<｜tool▁calls▁begin｜>``, ``[TOOL_CALLS]``. Which are tokens is the vocabulary's to say.
_SPECIAL = re.compile(r'<[^<>"\\\s]{1,48}>|\[[A-Z_]{2,32}\]')


def _literals(gbnf: str) -> Iterator[tuple[int, int]]:
    """The spans of the double-quoted literals' contents in ``gbnf`` (comments and character
    classes skipped, escapes kept as written)."""
    i, n = 0, len(gbnf)
    while i < n:
        c = gbnf[i]
        if c == "#":
            end = gbnf.find("\n", i)
            i = n if end < 0 else end
        elif c == "[":
            i += 1
            while i < n and gbnf[i] != "]":
                i += 2 if gbnf[i] == "\\" else 1
        elif c == '"':
            start = i = i + 1
            while i < n and gbnf[i] != '"':
                i += 2 if gbnf[i] == "\\" else 1
            yield start, i
        i += 1


def special_texts(gbnf: str) -> set[str]:
    """The texts in ``gbnf``'s literals shaped like special tokens."""
    return {m.group() for start, end in _literals(gbnf) for m in _SPECIAL.finditer(gbnf, start, end)}


def with_tokens(gbnf: str, tokens: Mapping[str, int]) -> str:
    """``gbnf`` with each text of ``tokens`` inside a literal written as its token ``<[id]>``
    (the literal becomes a parenthesized sequence, so a repetition after it still applies to
    the whole)."""
    if not tokens:
        return gbnf
    pattern = re.compile("|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True)))
    out: list[str] = []
    at = 0
    for start, end in _literals(gbnf):
        body = gbnf[start:end]
        if not pattern.search(body):
            continue
        parts: list[str] = []
        last = 0
        for m in pattern.finditer(body):
            if m.start() > last:
                parts.append(f'"{body[last:m.start()]}"')
            parts.append(f"<[{tokens[m.group()]}]>")
            last = m.end()
        if last < len(body):
            parts.append(f'"{body[last:]}"')
        out += [gbnf[at:start - 1], "(", " ".join(parts), ")"]
        at = end + 1
    out.append(gbnf[at:])
    return "".join(out)


__all__ = ["special_texts", "with_tokens"]

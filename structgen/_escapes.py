"""GBNF escapes of code points and string literals, shared by the GBNF formatter and the schema
converter (a module of its own so the converter does not load the whole GBNF toolkit at import).

The spellings are the ones llama.cpp, xgrammar and llguidance all read alike (see
docs/gbnf.md, "Portable grammars"): xgrammar reads every hex digit after ``\\x`` (llama.cpp two),
and llguidance's GBNF reader drops the leading zeros of ``\\u``/``\\U`` escapes (``\\u00E9``
becomes ``\\uE9``, which it refuses or, before more hex digits, reads as another character).
"""

from __future__ import annotations

import re

__all__ = ["MAX_GROUP_DEPTH", "escape_code_point", "gbnf_literal", "literal_char",
           "separate_hex_escapes"]

#: Groups nest at most this deep in one rule of a portable grammar: llguidance's reader stops
#: at 30 levels, and the Lark text it makes may double the parentheses of a repeated group.
MAX_GROUP_DEPTH = 12


def escape_code_point(code: int) -> str:
    """The portable GBNF spelling of a code point that is not written as itself: ``\\xHH`` below
    U+0100, ``\\uHHHH`` from U+1000 to U+FFFF (no leading zero), and the character itself
    (UTF-8) from U+0100 to U+0FFF and above U+FFFF, where no escape reads alike everywhere.
    Surrogates have no UTF-8 form (``\\uD800``); beyond U+10FFFF is llama.cpp's ``\\U``.
    An ``\\xHH`` must not be followed by a hex digit: see ``separate_hex_escapes``."""
    if code < 0x100:
        return f"\\x{code:02X}"
    if 0x1000 <= code < 0x10000:
        return f"\\u{code:04X}"
    if code > 0x10FFFF:
        return f"\\U{code:08X}"
    return chr(code)


# An escape pair (``\\\\``, ``\\"``...) is skipped whole, so an escaped backslash before "x41" is
# not read as an escape; an ``\\xHH`` with hex digits after it is the case to repair.
_HEX_FOLLOWED = re.compile(r"\\x[0-9A-Fa-f]{2}[0-9A-Fa-f]+|\\.", re.DOTALL)


def _escape_hex_run(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) <= 4:
        return text
    return text[:4] + "".join(f"\\x{ord(ch):02X}" for ch in text[4:])


def separate_hex_escapes(body: str) -> str:
    """``body`` (the text of a literal or a class) with every hex digit that follows an
    ``\\xHH`` escape escaped too: xgrammar would read it as part of the escape."""
    if "\\x" not in body:
        return body
    return _HEX_FOLLOWED.sub(_escape_hex_run, body)


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def literal_char(ch: str, specials: str) -> str:
    """One character of a literal or class body, ``specials`` behind a backslash. Characters
    that do not print (controls, surrogates, format characters) are escaped: the text stays
    readable and always encodes as UTF-8."""
    named = _NAMED_ESCAPES.get(ch)
    if named is not None:
        return named
    if ch in specials:
        return "\\" + ch
    return ch if ch.isprintable() else escape_code_point(ord(ch))


#: The characters a literal of printable text must escape (the common case, done by translate).
_PRINTABLE_ESCAPES = {ord('"'): '\\"', ord("\\"): "\\\\"}


def gbnf_literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    if text.isprintable():
        return '"' + text.translate(_PRINTABLE_ESCAPES) + '"'
    return '"' + separate_hex_escapes("".join(literal_char(ch, '"') for ch in text)) + '"'

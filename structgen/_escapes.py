"""GBNF escapes of code points and string literals, shared by the GBNF formatter and the schema
converter (a module of its own so the converter does not load the whole GBNF toolkit at import)."""

from __future__ import annotations

__all__ = ["escape_code_point", "gbnf_literal", "literal_char"]


def escape_code_point(code: int) -> str:
    """``\\xHH``, ``\\uHHHH`` or ``\\UHHHHHHHH`` (H a hex digit): the shortest GBNF escape of a code point."""
    if code < 0x100:
        return f"\\x{code:02X}"
    if code < 0x10000:
        return f"\\u{code:04X}"
    return f"\\U{code:08X}"


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
    return '"' + "".join(literal_char(ch, '"') for ch in text) + '"'

"""GBNF escapes of single code points, shared by the GBNF formatter and the schema converter
(a module of its own so the converter does not load the whole GBNF toolkit at import)."""

from __future__ import annotations

__all__ = ["escape_code_point"]


def escape_code_point(code: int) -> str:
    """``\\xHH``, ``\\uHHHH`` or ``\\UHHHHHHHH`` (H a hex digit): the shortest GBNF escape of a code point."""
    if code < 0x100:
        return f"\\x{code:02X}"
    if code < 0x10000:
        return f"\\u{code:04X}"
    return f"\\U{code:08X}"

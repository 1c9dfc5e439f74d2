"""The canonical GBNF text of a tree: one rule per line, minimal parentheses, fixed escapes.

For every tree the parser returns, ``parse_gbnf(format_gbnf(tree)) == tree``.
"""

from __future__ import annotations

from .._escapes import escape_code_point, gbnf_literal, literal_char, separate_hex_escapes
from ._tree import Alt, AnyChar, CharClass, Expr, GbnfGrammar, LiteralText, Repeat, RuleRef, Seq, Token

__all__ = ["format_expr", "format_gbnf"]


def _char(code: int, specials: str) -> str:
    """One character for a string or class body; ``specials`` get a backslash."""
    if code > 0x10FFFF:  # an escape in the source text may name one; it has no character
        return escape_code_point(code)
    return literal_char(chr(code), specials)


def _class_char(code: int) -> str:
    # "\\-" is llama.cpp's alone (llguidance refuses it): a dash is spelled as its code point.
    return "\\x2D" if code == 0x2D else _char(code, "[]")


def _char_class(node: CharClass) -> str:
    parts = []
    for index, (low, high) in enumerate(node.ranges):
        first = _class_char(low)
        if index == 0 and not node.negated and low == ord("^"):
            first = "\\x5E"  # a leading ^ would negate the class
        parts.append(first if low == high else f"{first}-{_class_char(high)}")
    body = separate_hex_escapes("".join(parts))
    return "[" + ("^" if node.negated else "") + body + "]"


def _emits_nothing(node: Expr) -> bool:
    """True for items after which llama.cpp refuses a repetition operator."""
    if isinstance(node, LiteralText):
        return node.text == ""
    if isinstance(node, CharClass):
        return not node.ranges
    if isinstance(node, Repeat):
        return node.min == 0 and node.max == 0
    return False


def format_expr(node: Expr, *, top: bool = False) -> str:
    """``node`` as GBNF. ``top`` is a rule body, where alternatives need no parentheses."""
    if isinstance(node, LiteralText):
        return gbnf_literal(node.text)
    if isinstance(node, CharClass):
        return _char_class(node)
    if isinstance(node, AnyChar):
        return "."
    if isinstance(node, RuleRef):
        return node.name
    if isinstance(node, Token):
        return node.spelling
    if isinstance(node, Repeat):
        return _repeat(node)
    if isinstance(node, Seq):
        text = " ".join(_in_sequence(item) for item in node.items)
        return text if top and text else "(" + text + ")"
    if isinstance(node, Alt):
        options = [_alternative(option) for option in node.options]
        if top and options[-1] == "":
            # A rule line ending in "|" would continue on the next line.
            options[-1] = "()"
        text = " | ".join(options).strip()
        return text if top else "(" + text + ")"
    raise TypeError(f"not a GBNF expression: {node!r}")


def _alternative(node: Expr) -> str:
    if isinstance(node, Seq):
        return " ".join(_in_sequence(item) for item in node.items)
    return format_expr(node)


def _in_sequence(node: Expr) -> str:
    return format_expr(node)


def _repeat(node: Repeat) -> str:
    item = node.item
    inner = format_expr(item)
    if _emits_nothing(item) and not isinstance(item, (Seq, Alt)):
        inner = "(" + inner + ")"
    if node.max is None:
        suffix = {0: "*", 1: "+"}.get(node.min, f"{{{node.min},}}")
    elif node.min == 0 and node.max == 1:
        suffix = "?"
    elif node.min == node.max:
        suffix = f"{{{node.min}}}"
    else:
        suffix = f"{{{node.min},{node.max}}}"
    return inner + suffix


def format_gbnf(tree: GbnfGrammar | Expr) -> str:
    """Canonical text of a grammar (one ``name ::= body`` line per rule, in rule order),
    or of a single expression."""
    if not isinstance(tree, GbnfGrammar):
        return format_expr(tree, top=True) or '""'
    lines = []
    for name, body in tree.rules.items():
        text = format_expr(body, top=True)
        lines.append(f"{name} ::= {text}" if text else f"{name} ::= ()")
    return "\n".join(lines) + "\n"

"""Built-in GBNF grammars, written for structgen: bounded whitespace, no unbounded loops of nothing.

Each constant is plain GBNF text with a ``root`` rule; wrap it with ``Grammar.from_string``.
"""

from __future__ import annotations

__all__ = [
    "ARITHMETIC_GBNF",
    "CHESS_GBNF",
    "C_GBNF",
    "ENGLISH_GBNF",
    "JAPANESE_GBNF",
    "JSON_ARR_GBNF",
    "JSON_GBNF",
    "LIST_GBNF",
]

# Shared JSON value rules: strings without raw control characters, numbers without leading
# zeros and with bounded digits, whitespace of at most 20 characters between tokens.
_JSON_VALUES = r"""
value   ::= object | array | string | number | ("true" | "false" | "null") ws
object  ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? "}" ws
array   ::= "[" ws ( value ("," ws value)* )? "]" ws
string  ::= "\"" char* "\"" ws
char    ::= [^"\\\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
number  ::= "-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})? ws
ws      ::= [ \t\n\r]{0,20}
"""

#: Any JSON object (nested values of any JSON type).
JSON_GBNF = "root ::= ws object\n" + _JSON_VALUES.lstrip("\n")

#: Any JSON array.
JSON_ARR_GBNF = "root ::= ws array\n" + _JSON_VALUES.lstrip("\n")

#: Lines of the form ``<expression>=<term>``, with + - * / and parentheses.
ARITHMETIC_GBNF = r"""root ::= (expr sp "=" sp term "\n")+
expr ::= term (sp [-+*/] sp term)*
term ::= name | num | "(" sp expr sp ")"
name ::= [a-z] [a-z0-9_]{0,31}
num  ::= [0-9]{1,18}
sp   ::= " "?
"""

#: A Markdown list: one or more ``- item`` lines.
LIST_GBNF = r"""root ::= item+
item ::= "- " [^\r\n\x00]{1,200} "\n"
"""

#: A small subset of C: declarations and function definitions with simple statements.
C_GBNF = r"""root ::= (decl "\n")+
decl ::= type " " ident ("(" params? ")" " " block | " = " expr ";" | ";")
params ::= type " " ident (", " type " " ident){0,7}
type ::= "int" | "long" | "char" | "float" | "double" | "void"
block ::= "{\n" (stmt "\n"){0,32} "}"
stmt ::= ( type " " ident (" = " expr)? ";"
         | ident " = " expr ";"
         | "return" (" " expr)? ";"
         | "if (" expr ") " block
         | "while (" expr ") " block )
expr ::= operand (" " op " " operand){0,8}
operand ::= ident | num | ident "(" (expr (", " expr){0,7})? ")" | "(" expr ")"
op ::= "+" | "-" | "*" | "/" | "%" | "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||"
ident ::= [a-zA-Z_] [a-zA-Z0-9_]{0,31}
num ::= [0-9]{1,18}
"""

#: English-like prose: capitalised sentences of ASCII words with simple punctuation.
ENGLISH_GBNF = r"""root ::= sentence (" " sentence){0,31} "\n"?
sentence ::= [A-Z] [a-z']{0,19} (","? " " word){0,39} [.!?]
word ::= [a-zA-Z] [a-z'-]{0,19}
"""

#: Chess moves in standard algebraic notation, numbered: ``1. e4 e5 2. Nf3 Nc6``.
CHESS_GBNF = r"""root ::= turn (" " turn){0,199} result?
turn ::= num ". " move (" " move)?
num ::= [1-9] [0-9]{0,2}
move ::= (castle | piece-move | pawn-move) [+#]?
castle ::= "O-O" ("-O")?
piece-move ::= [KQRBN] [a-h]? [1-8]? "x"? square
pawn-move ::= ([a-h] "x")? square ("=" [QRBN])?
square ::= [a-h] [1-8]
result ::= " " ("1-0" | "0-1" | "1/2-1/2")
"""

#: Japanese text: hiragana, katakana, kanji, Japanese punctuation and full-width digits.
JAPANESE_GBNF = r"""root ::= line ("\n" line){0,63} "\n"?
line ::= jchar{1,200}
jchar ::= [\u3041-\u3096\u309D-\u309F\u30A1-\u30FA\u30FC-\u30FF\u4E00-\u9FFF\u3005\u3001\u3002\u300C\u300D\uFF01\uFF1F\uFF10-\uFF19]
"""

"""Finite automata over code points: character sets, ECMA-262 regexes, DFAs, their
minimisation and products, and a DFA's language written as GBNF (``to_gbnf``).

Used for the string keywords that a grammar alone cannot combine (pattern ∩ format ∩ length, not).
"""

"""Writing GBNF: the rule registry (unique names, shared bodies, portable nesting).

The bottom layer of the converter; it knows nothing of JSON Schema.
"""

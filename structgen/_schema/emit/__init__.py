"""IR → GBNF: the emitter (``emitter``) with objects, arrays and numbers in their own modules."""

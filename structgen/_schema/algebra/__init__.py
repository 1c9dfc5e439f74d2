"""Exact set operations on the IR: intersection and union clean-up (``sets``), complements
(``complement``), and membership of a JSON value (``validate``).

They see the normalizer only through :class:`~structgen._schema.algebra.context.SchemaContext`.
"""

"""Schema → IR: references and documents (``refs``, ``meta``), one function per keyword
(``keywords``, ``applicators``), and the :class:`~structgen._schema.normalize.normalizer.Normalizer`
that dispatches to them."""

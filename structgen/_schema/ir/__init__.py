"""The intermediate representation: a schema as a union of typed atoms (``atoms``), and the
cache of the atoms of leaf schemas (``leaves``)."""

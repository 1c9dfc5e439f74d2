"""JSON string languages: a :class:`~structgen._schema.ir.atoms.StringSpec`'s membership test
and GBNF (``language``), the formats we enforce (``formats``), and any-key-but-these (``key_trie``)."""

"""What the tests and the benches share: corpora, request sets, tool stubs, models."""

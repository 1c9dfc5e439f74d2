"""Tests of the benches themselves: scoring rules and the request sets (no model)."""

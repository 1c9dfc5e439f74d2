"""Reusable benchmark suites: each runs alone as ``python -m bench.suites.NAME`` and writes one results file."""

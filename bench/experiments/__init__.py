"""Experiments kept for their record: the fits and one-off measurements docs/benchmarks.md and its
history cite. Each still runs, but none is part of ``make bench``; their results are in bench/results/."""

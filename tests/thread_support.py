"""Run one function in many threads at once (the tests of shared LLMs and converters)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

A = TypeVar("A")
R = TypeVar("R")


def in_threads(work: Callable[[A], R], args: Sequence[A]) -> list[R]:
    """``work(arg)`` for every arg, each in its own thread, all released together; the results
    in the order of ``args`` (the first exception is raised here)."""
    start = threading.Barrier(len(args))

    def released(arg: A) -> R:
        start.wait()
        return work(arg)

    with ThreadPoolExecutor(max_workers=len(args)) as pool:
        return list(pool.map(released, args))

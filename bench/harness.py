"""What the suites share: where the checkout and the results are, the models by name, a worker
process bounded in time, a cold KV cache, and the results file each suite writes.

Every suite runs as ``python -m bench.suites.NAME`` from the checkout (or as a script: importing
this module puts the checkout on ``sys.path`` first, so ``structgen`` is this checkout's).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.models import CHUNKED, model_path  # noqa: E402

__all__ = ["CHUNKED", "LATEST", "RESULTS", "ROOT", "Worker", "cold_cache", "command", "cpu_seconds",
           "model_path", "results_file", "write_json"]

RESULTS = ROOT / "bench" / "results"
#: Where a suite writes when no path is given: what ``make bench``'s summary reads. The dated
#: files beside it are past runs, kept because the docs and the figures cite them.
LATEST = RESULTS / "latest"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Worker:
    """``target(*args, conn)`` in a spawned child process, fed jobs over ``conn``.

    A fresh interpreter per child, so a grammar that aborts llama.cpp, or a model that loops,
    ends the child and not the run: the suite restarts it and counts the job as failed.
    Subclasses add their own start-up handshake and job protocol.
    """

    def __init__(self, target: Callable[..., None], *args: Any) -> None:
        self.target, self.args = target, args
        self.start()

    def start(self) -> None:
        context = mp.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=self.target, args=(*self.args, child), daemon=True)
        self.process.start()
        child.close()  # only the child holds its end: a dead child reads as end of file

    def restart(self) -> None:
        self.process.kill()
        self.process.join()
        self.start()

    def cpu(self) -> float:
        """The child's CPU seconds so far."""
        return cpu_seconds(self.process.pid or 0)

    def replied(self, cpu_start: float, cpu_bound: float, wall_bound: float, poll: float) -> bool:
        """Wait for the child's reply; False once it has used more than ``cpu_bound`` CPU
        seconds since ``cpu_start``, or ``wall_bound`` seconds went by (a starved machine)."""
        wall_start = time.monotonic()
        while not self.conn.poll(poll):
            if self.cpu() - cpu_start > cpu_bound or time.monotonic() - wall_start > wall_bound:
                return False
        return True

    def ask(self, job: Any, cpu_bound: float, wall_bound: float, poll: float) -> Any:
        """Send ``job`` and return the child's reply, or "hang" when it ran past the bounds or
        "crash" when it died (either way the child is restarted for the next job)."""
        try:
            cpu_start = self.cpu() if self.process.pid else 0.0
            self.conn.send(job)
            if not self.replied(cpu_start, cpu_bound, wall_bound, poll):
                self.restart()
                return "hang"
            return self.conn.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError, FileNotFoundError):
            self.restart()
            return "crash"

    def close(self, wait: float = 10.0) -> None:
        if self.process.is_alive():
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.process.join(wait)
        self.process.kill()
        self.process.join()


def cold_cache(llama: Any) -> None:
    """Empty llama-cpp-python's KV cache, so that the next call evaluates its whole prompt."""
    import llama_cpp

    llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(llama.ctx), True)
    llama.reset()  # llama-cpp-python's own record of the cache


def command(suite: str) -> str:
    """The command line that ran this suite, as the docs write it."""
    return shlex.join(["python", "-m", f"bench.suites.{suite}", *sys.argv[1:]])


def results_file(given: Path | str | None, suite: str, suffix: str = ".json") -> Path:
    """The path given on the command line, else ``bench/results/latest/SUITE.json``."""
    path = Path(given) if given is not None else LATEST / f"{suite}{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_json(path: Path, data: Any, **dumps: Any) -> None:
    path.write_text(json.dumps(data, **{"indent": 1, **dumps}) + "\n")

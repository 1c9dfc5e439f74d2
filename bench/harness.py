"""What the suites share: where the checkout and the results are, the models by name, a worker
process bounded in time, a cold KV cache, the results file each suite writes, and structgen
imported from another checkout (:func:`use_structgen`).

Every suite runs as ``python -m bench.suites.NAME`` from the root of the checkout: Python puts
that directory first on ``sys.path``, so ``bench``, ``tests.support`` and ``structgen`` are this
checkout's. The bench is a client of structgen's public API (bench/README.md lists the
internals it measures on purpose).
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
from types import ModuleType
from typing import Any

from tests.support.models import CHUNKED, model_path

__all__ = ["CHUNKED", "LATEST", "RESULTS", "ROOT", "Worker", "cold_cache", "command", "cpu_seconds",
           "model_path", "results_file", "use_structgen", "write_json"]

ROOT = Path(__file__).resolve().parents[1]

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


def use_structgen(checkout: Path | str | None) -> ModuleType:
    """structgen, imported from ``checkout`` (another checkout, to compare two versions with one
    command; None: the usual import, this checkout's).

    The package is loaded from ``CHECKOUT/structgen`` under the name ``structgen`` and every later
    ``import structgen...`` of this process resolves there; ``sys.path`` is left alone, so
    ``bench`` and ``tests.support`` stay this checkout's. Call it before anything imports
    structgen (a SystemExit says so otherwise). Worker processes a suite spawns import this
    checkout's structgen."""
    import importlib
    import importlib.util

    if checkout is None:
        return importlib.import_module("structgen")
    package = Path(checkout).resolve() / "structgen"
    loaded = sys.modules.get("structgen")
    if loaded is not None:
        where = Path(loaded.__file__ or "").resolve().parent
        if where == package:
            return loaded
        raise SystemExit(f"structgen is already imported from {where}: ask for {package} before anything imports it")
    spec = importlib.util.spec_from_file_location("structgen", package / "__init__.py",
                                                  submodule_search_locations=[str(package)])
    if spec is None or spec.loader is None or not (package / "__init__.py").is_file():
        raise SystemExit(f"no structgen package in {Path(checkout).resolve()}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["structgen"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules["structgen"]
        raise
    return module

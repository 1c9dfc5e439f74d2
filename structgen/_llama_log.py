"""Route llama.cpp's own log output to :mod:`logging` instead of stderr."""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

logger = logging.getLogger("structgen.llama_cpp")
# A library stays quiet unless the application configures logging.
logging.getLogger("structgen").addHandler(logging.NullHandler())

# The error lines llama.cpp logs in this thread while a caller listens (see errors_logged).
_listening = threading.local()

# ggml_log_level: NONE=0, DEBUG=1, INFO=2, WARN=3, ERROR=4, CONT=5 (continues the previous line).
_LEVELS = {0: logging.CRITICAL, 1: logging.DEBUG, 2: logging.INFO, 3: logging.WARNING, 4: logging.ERROR}
_callback: object = None


def silence_llama_logs() -> None:
    """Install (once) a llama.cpp log callback that forwards to the ``structgen.llama_cpp`` logger.

    llama.cpp prints model-loading chatter to stderr by default; users see it only if they
    enable that logger (``logging.getLogger("structgen.llama_cpp").setLevel(logging.DEBUG)``).
    """
    global _callback
    if _callback is not None:
        return
    import llama_cpp

    last_level = [logging.DEBUG]

    def forward(level: int, text: bytes, _user: ctypes.c_void_p) -> None:
        py_level = _LEVELS.get(level, last_level[0])  # level 5 continues the previous line
        last_level[0] = py_level
        line = text.decode("utf-8", errors="replace").rstrip("\n")
        heard: list[str] | None = getattr(_listening, "lines", None)
        if py_level >= logging.ERROR and heard is not None:
            heard.append(line)
        if logger.isEnabledFor(py_level):
            logger.log(py_level, "%s", line)

    _callback = llama_cpp.llama_log_callback(forward)
    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))


@contextmanager
def errors_logged() -> Iterator[list[str]]:
    """The error lines llama.cpp logs in this thread inside the block, so an error can say what
    llama.cpp said about this call alone (llama.cpp logs from the thread that called it)."""
    outer = getattr(_listening, "lines", None)
    heard: list[str] = []
    _listening.lines = heard
    try:
        yield heard
    finally:
        _listening.lines = outer

"""Warnings about answers that are valid but may be cut short, shown at the caller's line."""

from __future__ import annotations

import os
import sys
import warnings
from types import FrameType


def warn_looped(pointers: tuple[str, ...]) -> None:
    """Warn about values the sampling loop closed because the model was repeating itself."""
    if pointers:
        warnings.warn(
            f"{', '.join(pointers)}: the model was repeating itself here, so the value was closed "
            "early (valid, but cut short)", UserWarning, stacklevel=outside_structgen(),
        )


def outside_structgen() -> int:
    """The ``stacklevel`` of the first frame outside structgen (generate, run and stream reach
    a check through different numbers of frames)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame: FrameType | None = sys._getframe(2)  # the caller of the function that warns
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level

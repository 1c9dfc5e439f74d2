"""Where structgen was called from: warnings are shown at the caller's line, not structgen's."""

from __future__ import annotations

import os
import sys
from types import FrameType


def outside_structgen() -> int:
    """The ``stacklevel`` of the first frame outside structgen, for the function that warns
    (generate, run and stream reach a check through different numbers of frames)."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame: FrameType | None = sys._getframe(2)  # the caller of the function that warns
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


__all__ = ["outside_structgen"]

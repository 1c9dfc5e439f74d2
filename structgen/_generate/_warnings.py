"""Warnings about answers that are valid but may be cut short, shown at the caller's line."""

from __future__ import annotations

import warnings

from .._callers import outside_structgen


def warn_looped(pointers: tuple[str, ...]) -> None:
    """Warn about values the sampling loop closed because the model was repeating itself."""
    if pointers:
        warnings.warn(
            f"{', '.join(pointers)}: the model was repeating itself here, so the value was closed "
            "early (valid, but cut short)", UserWarning, stacklevel=outside_structgen(),
        )


__all__ = ["outside_structgen", "warn_looped"]

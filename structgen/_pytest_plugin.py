"""pytest plugin (auto-loaded through the ``pytest11`` entry point): round-trip fixtures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def structgen_round_trip() -> Callable[..., None]:
    """``structgen_round_trip(Model, **grammar_options)`` asserts the model/grammar round trip."""
    from .testing import assert_round_trip

    def check(model: Any, **options: Any) -> None:
        assert_round_trip(model, **options)

    return check

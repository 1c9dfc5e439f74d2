"""pytest plugin (auto-loaded through the ``pytest11`` entry point): round-trip fixtures.

- fixture ``structgen_round_trip(Model, **options)``: :func:`structgen.testing.assert_round_trip`;
- fixture ``structgen_samples_validate(Model, **options)``: the soundness property;
- option ``--structgen-max-examples N``: examples per property for these fixtures and for
  :func:`structgen.testing.round_trip_tests` (when the call does not fix its own count).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("structgen", "structgen model/grammar properties")
    group.addoption(
        "--structgen-max-examples",
        dest="structgen_max_examples",
        type=int,
        default=None,
        metavar="N",
        help="hypothesis examples per structgen round-trip or soundness property "
        "(default: 50, or what the test passes)",
    )


def _with_examples(
    prop: Callable[..., None], config: pytest.Config
) -> Callable[..., None]:
    chosen = config.getoption("structgen_max_examples", None)

    def run(output_type: Any, **options: Any) -> None:
        if chosen is not None:
            options.setdefault("max_examples", chosen)
        prop(output_type, **options)

    return run


@pytest.fixture
def structgen_round_trip(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``structgen_round_trip(Model, **grammar_options)`` asserts the model/grammar round trip."""
    from .testing import assert_round_trip

    return _with_examples(assert_round_trip, request.config)


@pytest.fixture
def structgen_samples_validate(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``structgen_samples_validate(Model, **grammar_options)``: the grammar's strings validate."""
    from .testing import assert_samples_validate

    return _with_examples(assert_samples_validate, request.config)

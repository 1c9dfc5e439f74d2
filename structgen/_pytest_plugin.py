"""pytest plugin (auto-loaded through the ``pytest11`` entry point): round-trip fixtures.

- fixture ``structgen_round_trip(Model, **options)``: :func:`structgen.testing.assert_round_trip`;
- fixture ``structgen_samples_validate(Model, **options)``: the soundness property;
- option ``--structgen-max-examples N``: examples per property for these fixtures and for
  :func:`structgen.testing.round_trip_tests` (when the call does not fix its own count).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from typing_extensions import ParamSpec

P = ParamSpec("P")


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


def _with_examples(prop: Callable[P, None], config: pytest.Config) -> Callable[P, None]:
    """``prop`` with ``--structgen-max-examples`` as its ``max_examples`` where a call gives none."""
    chosen = config.getoption("structgen_max_examples", None)

    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        if chosen is not None:
            kwargs.setdefault("max_examples", chosen)
        prop(*args, **kwargs)

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

"""pytest plugin (auto-loaded through the ``pytest11`` entry point): round-trip fixtures.

- fixture ``structgen_round_trip(Model, **options)``: :func:`structgen.testing.assert_round_trip`
  (by default on the grammar ``llm.generate`` sends for the type);
- fixture ``structgen_samples_validate(Model, **options)``: the soundness property;
- option ``--structgen-max-examples N``: examples per property for these fixtures and for
  :func:`structgen.testing.round_trip_tests` (when the call does not fix its own count);
- option ``--structgen-model PATH``: the GGUF file whose vocabulary their native checks run on
  (when the call gives no ``model=``; default: the default model).
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
    group.addoption(
        "--structgen-model",
        dest="structgen_model",
        default=None,
        metavar="PATH",
        help="GGUF file whose vocabulary the structgen round-trip and soundness checks run on "
        "(default: the default model, or what the test passes)",
    )


def _with_examples(prop: Callable[P, None], config: pytest.Config) -> Callable[P, None]:
    """``prop`` with ``--structgen-max-examples`` as its ``max_examples`` and ``--structgen-model``
    as its ``model`` where a call gives none."""
    chosen = config.getoption("structgen_max_examples", None)
    model = config.getoption("structgen_model", None)

    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        if chosen is not None:
            kwargs.setdefault("max_examples", chosen)
        if model is not None and kwargs.get("model") is None:
            kwargs["model"] = model
        prop(*args, **kwargs)

    return run


@pytest.fixture
def structgen_round_trip(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``structgen_round_trip(Model, **options)``: :func:`~structgen.testing.assert_round_trip`
    (on the grammar ``llm.generate`` sends for the type, unless ``grammar=`` says otherwise)."""
    from .testing import assert_round_trip

    return _with_examples(assert_round_trip, request.config)


@pytest.fixture
def structgen_samples_validate(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``structgen_samples_validate(Model, **options)``: the grammar's strings validate
    (:func:`~structgen.testing.assert_samples_validate`)."""
    from .testing import assert_samples_validate

    return _with_examples(assert_samples_validate, request.config)

"""Test helpers: native acceptance (the ground truth), hypothesis strategies, round trips, and
:class:`ScriptedBackend` (an ``LLM`` that replays given answers: your code's paths without a model).

Everything takes a Pydantic model or any type Pydantic's ``TypeAdapter`` handles
(``list[int]``, ``Literal["a", "b"]``, a dataclass, a ``TypedDict``, ...). Hypothesis and
hypothesis-jsonschema are imported only when a strategy or property helper is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast

from typing_extensions import Unpack

from ._backends._scripted import ScriptedBackend
from ._backends.llamacpp._native import Verdict, native_vocab
from ._schema.options import GrammarChanges

if TYPE_CHECKING:
    import os

    from hypothesis.strategies import SearchStrategy

    from ._grammar import Grammar
    from ._llm import LLM

__all__ = [
    "DEFAULT_MAX_EXAMPLES",
    "ScriptedBackend",
    "Verdict",
    "accepts",
    "assert_examples_round_trip",
    "assert_round_trip",
    "assert_samples_validate",
    "check",
    "instances",
    "round_trip_tests",
    "samples",
]

#: Examples per property when the caller does not say (``--structgen-max-examples`` overrides
#: it for the pytest helpers).
DEFAULT_MAX_EXAMPLES = 50


def _source(grammar: Grammar | str, root: str | None) -> tuple[str, str]:
    if isinstance(grammar, str):
        return grammar, root or "root"
    return grammar.gbnf, root or grammar.root


def check(
    grammar: Grammar | str, text: str, *, root: str | None = None,
    model: str | os.PathLike[str] | LLM | None = None,
) -> Verdict:
    """Feed ``text`` to llama.cpp's native grammar sampler; say where it was first rejected.
    ``model`` picks the vocabulary (see :func:`accepts`)."""
    from ._roundtrip import judge

    gbnf, start = _source(grammar, root)
    vocab = native_vocab() if model is None else judge(model).vocab
    return vocab.check(gbnf, start, text)


def accepts(
    grammar: Grammar | str, text: str, *, root: str | None = None,
    model: str | os.PathLike[str] | LLM | None = None,
) -> bool:
    """True if llama.cpp's native grammar sampler accepts ``text`` and then end-of-sequence.

    ``grammar`` is a :class:`~structgen.Grammar` or GBNF text. The vocabulary of ``model`` (a
    GGUF path or an ``LLM``; default: the default model) is loaded once (vocab only); the text
    is fed token by token, each token checked first.
    """
    return check(grammar, text, root=root, model=model).accepted


def instances(output_type: Any, *, max_string_length: int | None = None) -> SearchStrategy[Any]:
    """A hypothesis strategy of valid instances of ``output_type``, as far as grammars can
    spell them.

    Values come from the type's JSON Schema (hypothesis-jsonschema), are validated as JSON by
    Pydantic (documents Pydantic refuses are skipped), and recursion is unrolled a few levels.
    Integers stay within the converter's digit cap (20 digits on a side without a bound), and
    strings within ``max_string_length`` when given (the grammar option of that name).
    Raises :class:`~structgen.SchemaError` naming the JSON pointer of the part no value can
    satisfy.
    """
    from ._instances import instance_strategy

    return instance_strategy(  # type: ignore[no-any-return]
        output_type, max_string_length=max_string_length
    )


def samples(
    grammar: Grammar | str, *, root: str | None = None, max_depth: int = 12, max_size: int = 2000
) -> SearchStrategy[str]:
    """A hypothesis strategy of strings derived from a GBNF grammar (random derivations).

    Beyond ``max_depth`` nested rule references, or ``max_size`` characters, a derivation takes
    the shortest way out. Raises :class:`~structgen.GrammarError` for a grammar that is broken or
    derives no finite string.
    """
    from ._gbnf._samples import gbnf_samples

    gbnf, start = _source(grammar, root)
    return gbnf_samples(gbnf, start, max_depth=max_depth, max_size=max_size)


def assert_round_trip(
    output_type: Any,
    *,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    grammar: Literal["generation", "type"] | Grammar | str = "generation",
    model: str | os.PathLike[str] | LLM | None = None,
    **grammar_options: Unpack[GrammarChanges],
) -> None:
    """Every valid instance can be produced: its JSON is accepted natively and parses back equal.

    The grammar is by default the one ``llm.generate(output_type, ...)`` sends: the type's
    ``@structured`` options, else the ``"generation"`` preset (string cap, only the escapes JSON
    needs); given ``grammar_options`` change it as ``@structured`` would. ``grammar="type"``
    checks ``Grammar.from_type(output_type, **grammar_options)`` instead; a Grammar or GBNF text
    checks that grammar (then only ``whitespace`` may be given). ``model`` picks the vocabulary
    llama.cpp's sampler runs on (a GGUF path or an ``LLM``; default: the default model).

    For ``max_examples`` instances from :func:`instances`, drawn within the bounds the grammar
    adds (its ``max_string_length``; the digit cap), the instance's JSON written as the grammar
    writes it (``model_dump(mode="json")`` with the grammar's whitespace, key order and
    escapes) must be accepted by the sampler, and reading it back (as ``llm.generate`` reads its
    answer, for the generation grammar) must give an equal instance. Raises AssertionError
    showing the instance, the text, the first rejected character, the grammar checked, the
    vocabulary and the bounds. Call it from a plain test function, not inside a ``@given`` test.
    """
    from ._roundtrip import prepare, run_property

    prepared = prepare(output_type, grammar, grammar_options, model)
    run_property(instances(output_type, max_string_length=prepared.max_string_length),
                 prepared.check.round_trip_problem, max_examples=max_examples,
                 note=prepared.check.note)


def assert_examples_round_trip(
    output_type: Any,
    *examples: Any,
    grammar: Literal["generation", "type"] | Grammar | str = "generation",
    model: str | os.PathLike[str] | LLM | None = None,
    **grammar_options: Unpack[GrammarChanges],
) -> None:
    """The round trip of :func:`assert_round_trip` for the given values (instances of
    ``output_type``, or data it validates): pin edge cases and past failures as regressions.
    All failing examples are reported together. The values are taken as given, even beyond the
    grammar's bounds."""
    from ._roundtrip import prepare

    checker = prepare(output_type, grammar, grammar_options, model).check
    adapter = checker.adapter
    problems = []
    for example in examples:
        report = checker.round_trip_problem(adapter.validate_python(example))
        if report is not None:
            problems.append(report)
    if problems:
        raise AssertionError(f"{len(problems)} of {len(examples)} examples failed\n"
                             + "\n".join(problems))


def assert_samples_validate(
    output_type: Any,
    *,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    grammar: Literal["generation", "type"] | Grammar | str = "generation",
    model: str | os.PathLike[str] | LLM | None = None,
    max_depth: int = 12,
    **grammar_options: Unpack[GrammarChanges],
) -> None:
    """Soundness: every string the grammar derives validates against the type (as
    ``llm.generate`` validates its answer, for the generation grammar), and llama.cpp's sampler
    accepts it. Arguments as in :func:`assert_round_trip`; ``max_depth`` bounds the derivations
    (see :func:`samples`)."""
    from ._roundtrip import prepare, run_property

    prepared = prepare(output_type, grammar, grammar_options, model)
    run_property(samples(prepared.grammar, max_depth=max_depth), prepared.check.sample_problem,
                 max_examples=max_examples)


def round_trip_tests(
    *types: Any,
    max_examples: int | None = None,
    soundness: bool = True,
    grammar: Literal["generation", "type"] | Grammar | str = "generation",
    model: str | os.PathLike[str] | LLM | None = None,
    **grammar_options: Unpack[GrammarChanges],
) -> Callable[..., None]:
    """A pytest test function with one case per type and property; assign it at module level::

        test_models = round_trip_tests(User, Order, list[Address])

    Each type gets ``round_trip`` (:func:`assert_round_trip`) and, unless ``soundness=False``,
    ``samples_validate`` (:func:`assert_samples_validate`), on the grammar ``llm.generate``
    sends for it unless ``grammar`` says otherwise. ``max_examples`` defaults to
    ``--structgen-max-examples`` on the pytest command line, else ``DEFAULT_MAX_EXAMPLES``;
    ``model`` to ``--structgen-model``, else the default model.
    """
    import pytest

    from ._type_names import type_name

    if not types:
        raise TypeError("round_trip_tests() needs at least one type")
    properties = ["round_trip", "samples_validate"] if soundness else ["round_trip"]
    cases = [
        pytest.param(tp, prop, id=f"{type_name(tp)}-{prop}") for tp in types for prop in properties
    ]

    @pytest.mark.parametrize(("structgen_type", "structgen_property"), cases)
    def test_structgen_model(structgen_type: Any, structgen_property: str,
                             request: pytest.FixtureRequest) -> None:
        chosen = max_examples
        if chosen is None:
            chosen = request.config.getoption("structgen_max_examples", None)
        examples = chosen if chosen is not None else DEFAULT_MAX_EXAMPLES
        vocabulary = model if model is not None else request.config.getoption(
            "structgen_model", None)
        prop = assert_round_trip if structgen_property == "round_trip" else assert_samples_validate
        prop(structgen_type, max_examples=examples, grammar=grammar, model=vocabulary,
             **grammar_options)

    return cast("Callable[..., None]", test_structgen_model)

"""Test helpers: native acceptance (the ground truth), hypothesis strategies, round trips, and
:class:`ScriptedBackend` (an ``LLM`` that replays given answers: your code's paths without a model).

Everything takes a Pydantic model or any type Pydantic's ``TypeAdapter`` handles
(``list[int]``, ``Literal["a", "b"]``, a dataclass, a ``TypedDict``, ...). Hypothesis and
hypothesis-jsonschema are imported only when a strategy or property helper is used.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from typing_extensions import Unpack

from ._backends._scripted import ScriptedBackend
from ._backends.llamacpp._native import Verdict, native_vocab
from ._schema.options import GrammarChanges

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from ._grammar import Grammar

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


def check(grammar: Grammar | str, text: str, *, root: str | None = None) -> Verdict:
    """Feed ``text`` to llama.cpp's native grammar sampler; say where it was first rejected."""
    gbnf, start = _source(grammar, root)
    return native_vocab().check(gbnf, start, text)


def accepts(grammar: Grammar | str, text: str, *, root: str | None = None) -> bool:
    """True if llama.cpp's native grammar sampler accepts ``text`` and then end-of-sequence.

    ``grammar`` is a :class:`~structgen.Grammar` or GBNF text. The default model's vocabulary
    is loaded once (vocab only); the text is fed token by token, each token checked first.
    """
    return check(grammar, text, root=root).accepted


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


def _grammar_and_check(
    output_type: Any, grammar: Grammar | str | None, options: GrammarChanges
) -> tuple[Grammar, Any]:
    from ._grammar import Grammar
    from ._roundtrip import RoundTripCheck, numbers_where_schema_says, order_keys, write_json
    from ._schema.options import GrammarOptions
    from ._types import json_schema_of, type_adapter

    if grammar is None:
        built = Grammar.from_type(output_type, **options)
    elif set(options) - {"whitespace"}:
        raise TypeError("with grammar= only the whitespace option may be given (it says how "
                        f"to write the JSON), not {sorted(set(options) - {'whitespace'})}")
    else:
        built = grammar if isinstance(grammar, Grammar) else Grammar.from_string(grammar)
    chosen = GrammarOptions().with_changes(**options)
    reorder = bool(chosen.prop_order) or chosen.key_order == "required-first"
    schema = json_schema_of(output_type)

    # raw_pattern: a root string is written bare (no quotes, no escapes), so it is read back
    # as that string rather than as JSON.
    raw = chosen.raw_pattern and _is_plain_string_schema(schema)

    def serialize(data: Any) -> str:
        if raw and isinstance(data, str):
            return data
        # A bounded Decimal is dumped as a string but written by the grammar as a number.
        data = numbers_where_schema_says(data, schema)
        if reorder:
            data = order_keys(data, schema, prop_order=chosen.prop_order,
                              required_first=chosen.key_order == "required-first")
        return write_json(data, whitespace=chosen.whitespace, escapes=chosen.escapes)

    adapter = type_adapter(output_type)
    parse = (lambda text: adapter.validate_json(json.dumps(text))) if raw else None
    return built, RoundTripCheck(output_type, serialize, lambda text: check(built, text),
                                 _spellable, parse, refusal=chosen.refusal)


def _is_plain_string_schema(schema: Any) -> bool:
    """Whether the converter's ``raw_pattern`` applies: the root is one plain string schema."""
    combinators = {"enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "if"}
    return (isinstance(schema, dict) and schema.get("type") in ("string", ["string"])
            and not combinators & set(schema))


def _spellable(ch: str) -> bool:
    """Whether the default vocabulary has a byte token for every byte of ``ch`` (SmolLM2's has
    none for the UTF-8 lead bytes of U+40000..U+BFFFF, unassigned planes 4-11)."""
    byte_tokens = native_vocab().byte_tokens
    return all(b in byte_tokens for b in ch.encode("utf-8"))


def assert_round_trip(
    output_type: Any,
    *,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    grammar: Grammar | str | None = None,
    **grammar_options: Unpack[GrammarChanges],
) -> None:
    """Every valid instance can be produced: its JSON is accepted natively and parses back equal.

    For ``max_examples`` instances from :func:`instances`, the instance's JSON in the grammar's
    canonical form (``model_dump(mode="json")`` written by ``canonical_json`` with the grammar's
    whitespace) must be accepted by llama.cpp's grammar sampler, and validating that JSON must
    give back an equal instance. The grammar is ``Grammar.from_type(output_type,
    **grammar_options)``, or a hand-written ``grammar`` (then only ``whitespace`` may be given).
    Raises AssertionError showing the instance, the text and the first rejected character.
    Call it from a plain test function, not from inside another ``@given`` test.
    """
    from ._roundtrip import run_property

    _, checker = _grammar_and_check(output_type, grammar, grammar_options)
    limit = grammar_options.get("max_string_length")
    run_property(instances(output_type, max_string_length=limit), checker.round_trip_problem,
                 max_examples=max_examples)


def assert_examples_round_trip(
    output_type: Any, *examples: Any, grammar: Grammar | str | None = None,
    **grammar_options: Unpack[GrammarChanges],
) -> None:
    """The round trip of :func:`assert_round_trip` for the given values (instances of
    ``output_type``, or data it validates): pin edge cases and past failures as regressions.
    All failing examples are reported together."""
    _, checker = _grammar_and_check(output_type, grammar, grammar_options)
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
    grammar: Grammar | str | None = None,
    max_depth: int = 12,
    **grammar_options: Unpack[GrammarChanges],
) -> None:
    """Soundness: every string the type's grammar derives validates against the type, and
    llama.cpp's sampler accepts it. Arguments as in :func:`assert_round_trip`; ``max_depth``
    bounds the derivations (see :func:`samples`)."""
    from ._roundtrip import run_property

    built, checker = _grammar_and_check(output_type, grammar, grammar_options)
    run_property(samples(built, max_depth=max_depth), checker.sample_problem,
                 max_examples=max_examples)


def round_trip_tests(
    *types: Any,
    max_examples: int | None = None,
    soundness: bool = True,
    **grammar_options: Unpack[GrammarChanges],
) -> Callable[..., None]:
    """A pytest test function with one case per type and property; assign it at module level::

        test_models = round_trip_tests(User, Order, list[Address])

    Each type gets ``round_trip`` (:func:`assert_round_trip`) and, unless ``soundness=False``,
    ``samples_validate`` (:func:`assert_samples_validate`). ``max_examples`` defaults to
    ``--structgen-max-examples`` on the pytest command line, else ``DEFAULT_MAX_EXAMPLES``.
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
        prop = assert_round_trip if structgen_property == "round_trip" else assert_samples_validate
        prop(structgen_type, max_examples=examples, **grammar_options)

    return cast("Callable[..., None]", test_structgen_model)

"""Number and integer grammars, judged by llama.cpp's native sampler (structgen.testing.accepts)."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from structgen._errors import SchemaError, UnsupportedSchemaError
from structgen._schema.emit.digits import MAX_BOUND_DIGITS, MAX_FRACTION_DIGITS, MAX_INTEGER_DIGITS
from structgen._schema.emit.integers import integer_bounds, integer_rule
from structgen._schema.emit.numbers import number_rule
from structgen._gbnf._rules import RuleSet
from structgen.testing import accepts

D = Decimal
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _grammar(build: Callable[[RuleSet], str | None]) -> str | None:
    rules = RuleSet()
    name = build(rules)
    if name is None:
        return None
    rules.add_named("root", name)
    return rules.to_gbnf()


def int_grammar(minimum: int | None = None, maximum: int | None = None, multiple_of: int | None = None, **kw: Any) -> str | None:
    return _grammar(
        lambda r: integer_rule(r, minimum=minimum, maximum=maximum, multiple_of=multiple_of, hint="int", pointer="#/x", **kw)
    )


def num_grammar(**kw: Any) -> str | None:
    args: dict[str, Any] = dict(
        minimum=None, exclusive_minimum=None, maximum=None, exclusive_maximum=None, multiple_of=None, integer=False
    )
    args.update(kw)
    return _grammar(lambda r: number_rule(r, hint="num", pointer="#/x", **args))


def assert_table(grammar: str | None, accepted: list[str], rejected: list[str]) -> None:
    assert grammar is not None
    wrong_rejects = [t for t in accepted if not accepts(grammar, t)]
    wrong_accepts = [t for t in rejected if accepts(grammar, t)]
    assert (wrong_rejects, wrong_accepts) == ([], [])


# --- integer_bounds (pure) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((None, None, None, None), (None, None)),
        ((1, None, 5, None), (1, 5)),
        ((None, D("1.5"), None, None), (2, None)),
        ((None, 1, None, 3), (2, 2)),
        ((D("0.5"), None, D("4.5"), None), (1, 4)),
        ((-2.5, None, -0.5, None), (-2, -1)),
        ((None, -3, None, D("-0.5")), (-2, -1)),
        ((1, 1, None, None), (2, None)),
        ((None, None, 10, D("9.5")), (None, 9)),
        ((float("-inf"), None, float("inf"), None), (None, None)),
        ((float("inf"), None, None, None), (1, 0)),
        ((None, None, 1e300, None), (None, 10**300)),
    ],
)
def test_integer_bounds_round_inward(args: tuple[Any, ...], expected: tuple[int | None, int | None]) -> None:
    assert integer_bounds(*args) == expected


def test_integer_bounds_rejects_nan_and_bool() -> None:
    with pytest.raises(SchemaError):
        integer_bounds(float("nan"), None, None, None)
    with pytest.raises(TypeError):
        integer_bounds(True, None, None, None)


# --- integer ranges -----------------------------------------------------------------------------

INTEGER_TABLE: list[tuple[dict[str, Any], list[str], list[str]]] = [
    ({}, ["0", "7", "-7", "10", "123456789", "-" + "9" * 19, "1" + "0" * 19],
     ["-0", "01", "-01", "+1", "1.5", "1e3", "", "-", "1" + "0" * MAX_INTEGER_DIGITS]),
    ({"minimum": 0, "maximum": 9}, ["0", "5", "9"], ["10", "-1", "-0", "00"]),
    ({"minimum": -15, "maximum": 237}, ["-15", "-9", "-1", "0", "9", "10", "99", "100", "199", "229", "237"],
     ["-16", "-0", "238", "240", "300", "1000", "023"]),
    ({"minimum": -1000, "maximum": -17}, ["-17", "-18", "-99", "-100", "-999", "-1000"],
     ["-16", "0", "17", "-1001", "-9999"]),
    ({"minimum": 1}, ["1", "9", "10", "99999", "9" * MAX_INTEGER_DIGITS], ["0", "-1", "-0", "1" + "0" * MAX_INTEGER_DIGITS]),
    ({"maximum": -1}, ["-1", "-10", "-" + "9" * MAX_INTEGER_DIGITS], ["0", "1", "-0"]),
    ({"minimum": 10**30}, ["1" + "0" * 30, "9" * 31], ["9" * 30, "1" + "0" * 31 + "0"]),
    ({"minimum": 5, "maximum": 5}, ["5"], ["4", "6", "50", "05"]),
    ({"minimum": 1990, "maximum": 2024}, ["1990", "1999", "2000", "2009", "2019", "2024"],
     ["1989", "2025", "2030", "199", "20240"]),
]


@pytest.mark.parametrize(("kwargs", "accepted", "rejected"), INTEGER_TABLE)
def test_integer_ranges(kwargs: dict[str, Any], accepted: list[str], rejected: list[str]) -> None:
    assert_table(int_grammar(**kwargs), accepted, rejected)


def test_empty_integer_range_is_none() -> None:
    assert int_grammar(minimum=5, maximum=4) is None
    assert int_grammar(minimum=1, maximum=3, multiple_of=5) is None
    assert num_grammar(minimum=D("1.5"), maximum=D("1.7"), integer=True) is None
    assert num_grammar(exclusive_minimum=D(2), maximum=D(2)) is None
    assert num_grammar(minimum=D(3), exclusive_maximum=D(3)) is None
    assert num_grammar(minimum=D(3), maximum=D(2)) is None
    assert num_grammar(minimum=D("Infinity")) is None


def test_exclusive_integer_bounds_via_number_rule() -> None:
    grammar = num_grammar(exclusive_minimum=D("1.5"), exclusive_maximum=D(5), integer=True)
    assert_table(grammar, ["2", "3", "4", "2.0", "4.00"], ["1", "5", "1.5", "2.5", "5.0"])


def test_zero_fraction_spellings() -> None:
    grammar = int_grammar(minimum=-3, maximum=3, allow_zero_fraction=True)
    assert_table(grammar, ["0", "0.0", "-0.0", "3.0", "-3.00", "2"], ["-0", "3.5", "4.0", "1.", "1.01"])
    capped = "1." + "0" * (MAX_FRACTION_DIGITS + 1)
    assert not accepts(grammar or "", capped)


INTEGER_MULTIPLES: list[tuple[dict[str, Any], list[str], list[str]]] = [
    ({"multiple_of": 7}, ["0", "7", "-7", "49", "700000000000000007", "-1400"], ["1", "-8", "50", "700000000000000008"]),
    ({"multiple_of": 10}, ["0", "10", "-20", "1230"], ["5", "-15", "00", "100001"]),
    ({"multiple_of": 1000, "minimum": 0}, ["0", "1000", "25000"], ["-1000", "500", "1001"]),
    ({"multiple_of": 12, "minimum": -100, "maximum": 10**6}, ["-96", "0", "12", "999996"], ["-108", "6", "1000008", "999997"]),
    ({"multiple_of": 3, "minimum": 0, "maximum": 20}, ["0", "3", "18"], ["1", "21", "-3"]),
    ({"multiple_of": 25, "minimum": 30, "maximum": 10**9}, ["50", "75", "100", "999999975"], ["25", "30", "60", "1000000025"]),
]


@pytest.mark.parametrize(("kwargs", "accepted", "rejected"), INTEGER_MULTIPLES)
def test_integer_multiples(kwargs: dict[str, Any], accepted: list[str], rejected: list[str]) -> None:
    assert_table(int_grammar(**kwargs), accepted, rejected)


def test_multiple_of_too_large_for_a_grammar_raises() -> None:
    with pytest.raises(UnsupportedSchemaError) as info:
        int_grammar(multiple_of=1024)
    assert (info.value.keyword, info.value.pointer) == ("multipleOf", "#/x")
    with pytest.raises(UnsupportedSchemaError) as info:
        num_grammar(multiple_of=D("0.123456789"), integer=True)
    assert info.value.keyword == "multipleOf"
    # The same modulus over a small range is spelled out instead.
    assert_table(int_grammar(minimum=0, maximum=5000, multiple_of=1024), ["0", "1024", "4096"], ["1", "5120"])


def test_bounds_needing_too_many_digits() -> None:
    huge = 10**MAX_BOUND_DIGITS
    for kwargs, keyword in (
        ({"minimum": huge}, "minimum"),
        ({"maximum": -huge}, "maximum"),
    ):
        with pytest.raises(UnsupportedSchemaError) as info:
            int_grammar(**kwargs)
        assert info.value.keyword == keyword
    with pytest.raises(UnsupportedSchemaError) as info:
        num_grammar(exclusive_minimum=D(huge), integer=True)
    assert info.value.keyword == "exclusiveMinimum"
    # A huge maximum is harmless (the digit cap applies), and numbers keep their exponent spellings.
    assert_table(int_grammar(maximum=huge), ["0", "-5", "9" * MAX_INTEGER_DIGITS], ["1" + "0" * MAX_INTEGER_DIGITS])
    # Numbers are finite doubles: nothing at or above 2.5e400 is one.
    assert num_grammar(minimum=D("2.5e400")) is None
    grammar = num_grammar(minimum=D("2.5e300"))
    assert_table(grammar, ["2.5e300", "2.51e+300", "1e301", "1.7976931348623157e+308"],
                 ["2.4e300", "9e299", "1e+309", "1.8e308", "1" + "0" * 400])


def test_non_positive_multiple_of_is_a_schema_error() -> None:
    for bad in (D(0), D(-2)):
        with pytest.raises(SchemaError):
            num_grammar(multiple_of=bad)


# --- decimal numbers ----------------------------------------------------------------------------

NUMBER_TABLE: list[tuple[dict[str, Any], list[str], list[str]]] = [
    # Numbers are finite doubles; scientific notation has one digit before the point (json.dumps').
    ({}, ["0", "-0", "1.0", "0.5", "1e-05", "1.5e+300", "123", "-2.5", "1E5", "-0.0", "5e-324",
          "1.7976931348623157e+308"],
     ["01", "1.", ".5", "+1", "1e", "1e+", "--1", "NaN", "Infinity", "1e1000", "0x10", "1.8e308",
      "-1e999", "0.5e3", "12e012"]),
    ({"minimum": D("1.25")}, ["1.25", "1.250", "1.3", "2", "1.26e0", "1.25e+0", "1e1", "5e-0"],
     ["1.2", "1.249", "1", "1.24999999", "1.2e0", "-5", "0"]),
    ({"exclusive_minimum": D("1.25")}, ["1.2500001", "1.26", "2"], ["1.25", "1.2500", "1.25e0", "1"]),
    ({"maximum": D("-0.5")}, ["-0.5", "-0.50", "-1", "-5e-1", "-1e+300"], ["-0.49", "0", "-0", "-4.9e-1", "1"]),
    ({"exclusive_maximum": D(0)}, ["-1e-300", "-0.0001", "-5"], ["0", "-0", "-0.0", "1e-300", "0.0"]),
    ({"minimum": D(0), "maximum": D(1)}, ["0", "0.0", "-0.0", "0.999", "1", "1.0", "1e0", "5e-1", "1e-05"],
     ["1.0001", "-0.001", "-1e-05", "2", "1.5e0", "1e1"]),
    ({"minimum": D("-2.5"), "exclusive_maximum": D("2.5")}, ["-2.5", "-2", "0", "2.4999", "2", "-2.5e0", "2.49e0"],
     ["-2.51", "2.5", "2.50", "2.5e0", "3", "-3"]),
    ({"minimum": D("1e-5"), "maximum": D("1e5")}, ["1e-05", "0.00001", "100000", "1e+05", "1E5", "0.5", "99999.99"],
     ["0.000009", "9.99e-06", "100000.01", "1.00001e5", "0"]),
    ({"exclusive_minimum": D("-1.5"), "maximum": D(7)}, ["-1.4", "-1", "0", "6.99", "7", "7.000"], ["-1.5", "-1.50", "7.01", "8"]),
    ({"minimum": D("1.7976931348623157e308")}, ["1.7976931348623157e+308"],
     ["1e+308", "1.7976931348623156e+308", "1.8e308"]),
]


@pytest.mark.parametrize(("kwargs", "accepted", "rejected"), NUMBER_TABLE)
def test_number_bounds(kwargs: dict[str, Any], accepted: list[str], rejected: list[str]) -> None:
    assert_table(num_grammar(**kwargs), accepted, rejected)


def test_bounded_exponent_spellings_need_a_normalized_mantissa() -> None:
    # A documented narrowing: with bounds, "12.5e0" and "0.5e1" (value 12.5 and 5) are not accepted.
    grammar = num_grammar(minimum=D(0), maximum=D(100))
    assert_table(grammar, ["12.5", "1.25e1", "5", "5e0"], ["12.5e0", "0.5e1", "125e-1"])


NUMBER_MULTIPLES: list[tuple[dict[str, Any], list[str], list[str]]] = [
    ({"multiple_of": D("0.01")}, ["0", "1", "1.5", "1.25", "-3.10", "1.2500", "0.01"], ["1.255", "0.001", "1.2501"]),
    ({"multiple_of": D("0.3"), "minimum": D(0), "maximum": D(100)}, ["0", "0.3", "0.6", "0.9", "3", "99.9", "1.50"],
     ["0.1", "1", "100", "100.2", "-0.3"]),
    ({"multiple_of": D("1.5")}, ["0", "1.5", "3", "4.5", "-4.5", "3.0", "4.50"], ["1", "35", "2.5"]),
    ({"multiple_of": D("0.0001")}, ["0.0075", "1", "0.00750"], ["0.00751"]),
    ({"multiple_of": D(2)}, ["10", "10.0", "-4", "0"], ["7", "7.0", "10.5"]),
    ({"multiple_of": D("1e-8"), "integer": True}, ["12391239123", "0", "5.0"], ["1.5", "0.5"]),
    ({"multiple_of": D("0.5"), "integer": True, "minimum": D(0)}, ["0", "3", "4.0"], ["0.5", "-1"]),
    ({"multiple_of": D("0.25"), "exclusive_minimum": D("0.5"), "exclusive_maximum": D(2)},
     ["0.75", "1", "1.0", "1.25", "1.5", "1.75"], ["0.5", "2", "1.3", "0.25"]),
]


@pytest.mark.parametrize(("kwargs", "accepted", "rejected"), NUMBER_MULTIPLES)
def test_number_multiples(kwargs: dict[str, Any], accepted: list[str], rejected: list[str]) -> None:
    assert_table(num_grammar(**kwargs), accepted, rejected)


# --- properties: the grammar accepts json.dumps(v) exactly when v satisfies the schema -------------

bound_values = st.one_of(
    st.none(),
    st.integers(-10**6, 10**6).map(D),
    st.decimals(-1000, 1000, places=3, allow_nan=False, allow_infinity=False),
    st.sampled_from([D(0), D("1e-5"), D("-1e-5"), D("1e300"), D("-2.5e-300")]),
)


def holds(value: Decimal, lo: Decimal | None, lo_excl: bool, hi: Decimal | None, hi_excl: bool) -> bool:
    if lo is not None and (value < lo or (lo_excl and value == lo)):
        return False
    return not (hi is not None and (value > hi or (hi_excl and value == hi)))


def bound_kwargs(lo: Decimal | None, lo_excl: bool, hi: Decimal | None, hi_excl: bool) -> dict[str, Any]:
    return {
        "exclusive_minimum" if lo_excl else "minimum": lo,
        "exclusive_maximum" if hi_excl else "maximum": hi,
    }


@PROPERTY
@given(
    lo=st.one_of(st.none(), st.integers(-10**12, 10**12)),
    hi=st.one_of(st.none(), st.integers(-10**12, 10**12)),
    values=st.lists(st.integers(-10**19 + 1, 10**19 - 1) | st.integers(-300, 300), min_size=1, max_size=6),
)
def test_integer_range_property(lo: int | None, hi: int | None, values: list[int]) -> None:
    grammar = int_grammar(minimum=lo, maximum=hi)
    for v in values + [x for x in (lo, hi) if x is not None]:
        expected = (lo is None or v >= lo) and (hi is None or v <= hi)
        assert (grammar is not None and accepts(grammar, json.dumps(v))) == expected, v


@PROPERTY
@given(
    lo=st.one_of(st.none(), st.integers(-10**6, 10**6)),
    hi=st.one_of(st.none(), st.integers(-10**6, 10**6)),
    k=st.sampled_from([2, 3, 7, 10, 12, 25, 40, 99, 500, 1000]),
    values=st.lists(st.integers(-10**7, 10**7), min_size=1, max_size=6),
)
def test_integer_multiple_property(lo: int | None, hi: int | None, k: int, values: list[int]) -> None:
    grammar = int_grammar(minimum=lo, maximum=hi, multiple_of=k)
    for v in values + [v * k for v in values[:2]]:
        expected = (lo is None or v >= lo) and (hi is None or v <= hi) and v % k == 0
        assert (grammar is not None and accepts(grammar, json.dumps(v))) == expected, v


finite_floats = st.floats(allow_nan=False, allow_infinity=False)
values_near = st.one_of(
    finite_floats,
    st.floats(-1100, 1100),
    st.integers(-1100, 1100),
    st.decimals(-1100, 1100, places=4, allow_nan=False, allow_infinity=False).map(float),
)


@PROPERTY
@given(lo=bound_values, lo_excl=st.booleans(), hi=bound_values, hi_excl=st.booleans(),
       values=st.lists(values_near, min_size=1, max_size=8))
def test_number_bounds_property(
    lo: Decimal | None, lo_excl: bool, hi: Decimal | None, hi_excl: bool, values: list[float | int]
) -> None:
    grammar = num_grammar(**bound_kwargs(lo, lo_excl, hi, hi_excl))
    extra = [float(b) for b in (lo, hi) if b is not None]
    for v in values + extra:
        text = json.dumps(v)
        expected = holds(Decimal(text), lo, lo_excl, hi, hi_excl)
        assert (grammar is not None and accepts(grammar, text)) == expected, text


@PROPERTY
@given(lo=bound_values, lo_excl=st.booleans(), hi=bound_values, hi_excl=st.booleans(),
       values=st.lists(st.one_of(st.integers(-10**15, 10**15), st.floats(-1e15, 1e15).map(round).map(float)), max_size=6))
def test_integer_typed_number_property(
    lo: Decimal | None, lo_excl: bool, hi: Decimal | None, hi_excl: bool, values: list[int | float]
) -> None:
    grammar = num_grammar(integer=True, **bound_kwargs(lo, lo_excl, hi, hi_excl))
    for v in values + [0.5, -1.25]:
        text = json.dumps(v)
        value = Decimal(text)
        expected = value == value.to_integral_value() and holds(value, lo, lo_excl, hi, hi_excl)
        assert (grammar is not None and accepts(grammar, text)) == expected, text


@PROPERTY
@given(
    step=st.sampled_from([D("0.01"), D("0.5"), D("0.25"), D("1.5"), D("0.3"), D("2"), D("0.0001"), D("0.07")]),
    lo=st.one_of(st.none(), st.decimals(-50, 50, places=2, allow_nan=False, allow_infinity=False)),
    hi=st.one_of(st.none(), st.decimals(-50, 50, places=2, allow_nan=False, allow_infinity=False)),
    units=st.lists(st.integers(-5000, 5000), min_size=1, max_size=6),
    quantum=st.sampled_from([D("0.01"), D("0.05"), D("0.1"), D("0.25"), D(1), D("0.001")]),
)
def test_number_multiple_property(
    step: Decimal, lo: Decimal | None, hi: Decimal | None, units: list[int], quantum: Decimal
) -> None:
    grammar = num_grammar(multiple_of=step, minimum=lo, maximum=hi)
    for u in units:
        text = json.dumps(float(u * quantum))
        value = Decimal(text)
        expected = value % step == 0 and holds(value, lo, False, hi, False)
        assert (grammar is not None and accepts(grammar, text)) == expected, text


# Any spelling the grammar takes must be a JSON number whose value satisfies the bounds (soundness),
# including spellings json.dumps never writes.
digits = st.text("0123456789", min_size=1, max_size=4)
spellings = st.builds(
    lambda sign, whole, frac, exp: sign + whole + frac + exp,
    st.sampled_from(["", "-", "+"]),
    st.one_of(digits, st.just("0")),
    st.one_of(st.just(""), digits.map(lambda d: "." + d), st.just(".")),
    st.one_of(st.just(""), st.builds(lambda e, s, d: e + s + d, st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), digits)),
)


def json_number(text: str) -> Decimal | None:
    try:
        value = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except ValueError:
        return None
    return value if isinstance(value, Decimal) else None


@PROPERTY
@given(lo=bound_values, lo_excl=st.booleans(), hi=bound_values, hi_excl=st.booleans(),
       texts=st.lists(spellings, min_size=4, max_size=12))
def test_number_grammar_is_sound_for_any_spelling(
    lo: Decimal | None, lo_excl: bool, hi: Decimal | None, hi_excl: bool, texts: list[str]
) -> None:
    grammar = num_grammar(**bound_kwargs(lo, lo_excl, hi, hi_excl))
    for text in texts:
        if grammar is not None and accepts(grammar, text):
            value = json_number(text)
            assert value is not None and holds(value, lo, lo_excl, hi, hi_excl), text


def test_scientific_spellings_that_underflow_to_zero_are_refused() -> None:
    """-1e-400 < 0 holds in JSON Schema, but every double reader sees -0.0: keep bounds sound."""
    grammar = _grammar(lambda r: number_rule(
        r, minimum=None, exclusive_minimum=None, maximum=None, exclusive_maximum=D(0),
        multiple_of=None, integer=False, hint="n", pointer="#"))
    assert grammar is not None
    for text in ("-2.6e-300", "-1e-323", "-5e-324", "-3e-324"):
        assert accepts(grammar, text), text
    for text in ("-2.6E-583", "-1e-999", "-2e-324", "-1e-325"):
        assert not accepts(grammar, text), text

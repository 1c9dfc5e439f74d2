"""The converter's caches never change its output: repeated and interleaved conversions give the
same text, equal-but-differently-spelled values are not conflated, the collector pause
leaves the garbage collector as it found it, and neither a cache nor an error the caller keeps
holds a conversion alive."""

from __future__ import annotations

import gc
import pickle
import re
from typing import Any

import pytest

from structgen._errors import StructgenError
from structgen import GrammarOptions
from structgen._schema import convert
from structgen._schema.ir.atoms import ConstAtom, NumAtom, ObjAtom, StrAtom, StringSpec
from structgen._schema.normalize.normalizer import Normalizer


def json_schema_to_gbnf(schema: Any, **fields: Any) -> str:
    """A conversion past the SchemaConverter's grammar cache: what is tested here is the memo
    tables below it."""
    return convert(schema, GrammarOptions(**fields))


_PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer"},
                   "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}},
    "required": ["name"],
}
_KEYS = {
    "type": "object",
    "properties": {"alpha": {"type": "boolean"}, "beta": {"type": "null"}},
    "patternProperties": {"^x-": {"type": "string", "format": "date"}},
}
_REPEATED = {
    "$defs": {"item": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}}},
    "type": "array",
    "prefixItems": [{"$ref": "#/$defs/item"}, _PERSON, _PERSON, {"$ref": "#/$defs/item"}],
}
# Undeclared keys must avoid the declared names: short name sets are written from a cached
# template, long names (deep tries) and very large sets directly.
_LONG_NAMES = {"type": "object", "properties": {
    "a_rather_long_property_name_of_forty_chars": {"type": "integer"}, "ab": {"type": "null"}}}
_MANY_NAMES = {"type": "object",
               "properties": {f"property_number_{i}": {"type": "boolean"} for i in range(150)}}
_SCHEMAS: list[Any] = [_PERSON, _KEYS, _REPEATED, {"type": "string", "minLength": 3},
                       _LONG_NAMES, _MANY_NAMES]


def _fresh_texts() -> list[str]:
    return [json_schema_to_gbnf(s) for s in _SCHEMAS]


def test_repeated_conversions_give_the_same_text() -> None:
    first = _fresh_texts()
    assert _fresh_texts() == first
    assert [json_schema_to_gbnf(s) for s in reversed(_SCHEMAS)] == list(reversed(first))


def test_interleaved_conversions_give_the_same_text() -> None:
    alone = {i: json_schema_to_gbnf(s) for i, s in enumerate(_SCHEMAS)}
    for i in (2, 0, 5, 2, 1, 4, 3, 0, 1, 5, 2, 4):
        assert json_schema_to_gbnf(_SCHEMAS[i]) == alone[i]


def test_options_are_part_of_every_cache_key() -> None:
    compact = json_schema_to_gbnf(_PERSON)
    minified = json_schema_to_gbnf(_PERSON, whitespace="minified")
    assert minified != compact
    assert json_schema_to_gbnf(_PERSON) == compact
    assert json_schema_to_gbnf(_PERSON, whitespace="minified") == minified


def test_equal_objects_keep_their_own_spellings() -> None:
    # {"const": 1} and {"const": 1.0} are JSON-equal, so their object atoms are equal, but each
    # lists its own spelling first: a shared emission would copy the first one's order.
    schema = {"type": "array", "items": False, "prefixItems": [
        {"type": "object", "properties": {"a": {"const": 1}}, "required": ["a"]},
        {"type": "object", "properties": {"a": {"const": 1.0}}, "required": ["a"]},
    ]}
    text = json_schema_to_gbnf(schema)
    assert '( "1" | "1.0" )' in text
    assert '( "1.0" | "1" )' in text


def test_repeated_objects_share_one_rule() -> None:
    root = json_schema_to_gbnf(_REPEATED).splitlines()[0]
    first, *later = re.findall(r'(?:"\[" \(|", ") ([a-z0-9-]+)', root)
    assert first == later[2] == "item"
    assert later[0] == later[1] != "item"  # both positions of _PERSON use the same rule


def test_cached_hashes_match_the_dataclass_hashes() -> None:
    spec = StringSpec(patterns=("^a",), max_length=3)
    atom = ObjAtom(props=(("k", (StrAtom(spec), NumAtom(integer=True))),), required=frozenset("k"))
    twin = ObjAtom(props=(("k", (StrAtom(StringSpec(patterns=("^a",), max_length=3)),
                                 NumAtom(integer=True))),), required=frozenset("k"))
    assert hash(atom) == hash(twin) and atom == twin
    assert hash(atom) == hash(atom)  # the cached value
    assert hash(spec) == hash((spec.patterns, spec.not_patterns, spec.min_length,
                               spec.max_length, spec.formats, spec.exclude, spec.only))


def test_many_declared_keys_are_found() -> None:
    props = tuple((f"k{i}", (NumAtom(),)) for i in range(30))
    atom = ObjAtom(props=props)
    assert atom.prop("k0") == (NumAtom(),) and atom.prop("k29") == (NumAtom(),)
    assert atom.prop("missing") is None


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_found(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        json_schema_to_gbnf(_PERSON)
        assert gc.isenabled() is enabled
        with pytest.raises(Exception):
            json_schema_to_gbnf({"type": "string", "pattern": "(?=a)"})
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


_LEAVES: list[Any] = [
    {"const": 1}, {"const": 1.0}, {"const": True}, {"enum": [1, "1", None]},
    {"enum": [1.0, "1", None]}, {"type": "number", "minimum": 0.0},
    {"type": "number", "minimum": -0.0}, {"type": "integer"},
    {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"},
    {"type": "string", "pattern": "^a.b$"},
]


def test_leaf_schemas_that_python_equates_stay_apart() -> None:
    forward = [json_schema_to_gbnf(s) for s in _LEAVES]
    backward = [json_schema_to_gbnf(s) for s in reversed(_LEAVES)]
    assert backward == list(reversed(forward))
    assert len({forward[0], forward[1], forward[2]}) == 3
    assert forward[7] != forward[8]  # draft 4: 1.0 is not an integer


def test_leaf_options_are_part_of_the_key() -> None:
    schema = {"type": "string", "pattern": "^a.b$"}
    plain = json_schema_to_gbnf(schema)
    dotall = json_schema_to_gbnf(schema, dotall=True)
    assert plain != dotall
    assert json_schema_to_gbnf(schema) == plain
    with pytest.warns(UserWarning):
        loose = json_schema_to_gbnf({"type": "string", "format": "regex"}, strict=False)
    with pytest.warns(UserWarning):  # a dropped keyword is reported again, not cached away
        assert json_schema_to_gbnf({"type": "string", "format": "regex"}, strict=False) == loose


def test_pickled_values_carry_no_cached_hash() -> None:
    atom = ObjAtom(props=tuple((f"k{i}", (NumAtom(),)) for i in range(12)))
    assert atom.prop("k11") == (NumAtom(),) and hash(atom) == hash(atom)
    copy = pickle.loads(pickle.dumps(atom))
    assert copy == atom and "_hash" not in vars(copy) and "_prop_table" not in vars(copy)
    assert copy.prop("k11") == (NumAtom(),)
    const = ConstAtom({"name": "x"})  # a str hash: different in every process
    assert hash(const) == hash(const)
    assert "_hash" not in vars(pickle.loads(pickle.dumps(const)))


def test_declared_rule_references_match_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules added with their references (state machines, key tries, character rules) are not
    scanned for reachability: the references given must name every rule the text uses (one
    missed would be dropped while still in use) and only defined rules. A deep key trie also
    names the rules its deep nodes use, which are reachable through those nodes anyway."""
    from tests.support.corpora import maskbench_cases
    from structgen._gbnf._rules import RuleSet, expr_refs

    checked: list[int] = []
    to_gbnf = RuleSet.to_gbnf

    def checking_to_gbnf(self: RuleSet, root: str = "root") -> str:
        bodies = self._bodies
        for name, refs in self._refs.items():
            used = {w for w in expr_refs(bodies[name] or "") if w in bodies}
            assert used <= set(refs) <= set(bodies), (name, bodies[name])
            if not re.search(r"-key(-[0-9]+)?$", name):  # not an undeclared-key trie
                assert set(refs) == used, (name, bodies[name])
        checked.append(len(self._refs))
        return to_gbnf(self, root)

    monkeypatch.setattr(RuleSet, "to_gbnf", checking_to_gbnf)
    long_keys = {"type": "object", "properties": {
        "a-property-name-longer-than-the-inline-depth": {}, "a-property-name-longer-still": {}}}
    schemas: list[Any] = [*_SCHEMAS, long_keys, *(c.schema for c in maskbench_cases(every=25))]
    for schema in schemas:
        for options in ({}, {"raw_pattern": True}, {"whitespace": "flexible"}):
            try:
                json_schema_to_gbnf(schema, **options)
            except StructgenError:  # a typed refusal: nothing emitted to check
                continue
    assert sum(checked) > 10_000


def test_no_rule_is_named_like_a_repetition_count() -> None:
    # The reachability scan reads the counts of x{0,16} as words: a rule called "16" would be
    # kept alive by them.
    grammar = json_schema_to_gbnf({"$defs": {"16": {"type": "integer"}}, "type": "object",
                                   "properties": {"a": {"$ref": "#/$defs/16"},
                                                  "b": {"type": "string", "maxLength": 16}}})
    names = {line.split(" ::= ")[0] for line in grammar.splitlines()}
    assert "def-16" in names and not any(name.isdigit() for name in names)


def _live_conversions() -> list[Normalizer]:
    """The conversions still alive once the collector has run (each holds one Normalizer)."""
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, Normalizer)]


def test_a_cached_refusal_keeps_no_conversion_alive() -> None:
    # The parse cache keeps a rejected pattern's error for the life of the process; with its
    # traceback it would keep every frame of the first conversion that met it, and all that
    # conversion held.
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "(a)\\1"}}}
    with pytest.raises(StructgenError):
        json_schema_to_gbnf(schema)
    assert not _live_conversions()


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59)


@pytest.mark.parametrize("schema", [
    # refused by a keyword's own check, deep inside the emitter
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "(?=a)b"}}},
    # refused by the normalizer: 17 x 17 integer alternatives
    {"allOf": [{"anyOf": [{"type": "integer", "multipleOf": p} for p in _PRIMES]},
               {"anyOf": [{"type": "integer", "minimum": n, "maximum": n + 1000}
                          for n in range(17)]}]},
    # an invalid schema
    {"type": "array", "items": {"$ref": "#/$defs/missing"}},
    # a keyword its meta-schema refuses
    {"type": "array", "items": {"type": "string", "maxLength": "8"}},
])
def test_an_error_held_by_the_caller_keeps_no_conversion_alive(schema: dict[str, Any]) -> None:
    # Callers keep errors (a report lists them); an error whose traceback ran through the
    # conversion's frames would keep everything the conversion built alive with it.
    with pytest.raises(StructgenError) as info:
        json_schema_to_gbnf(schema)
    assert not _live_conversions()
    assert info.value.pointer and str(info.value)  # the error itself is whole

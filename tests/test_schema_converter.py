"""``SchemaConverter``: one options object in, Grammars out, owning a bounded cache; presets are
the only place defaults live, and given options are used as they are."""

from __future__ import annotations

import gc
import inspect
import typing
from dataclasses import fields
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

import structgen
from structgen import Grammar, GrammarChanges, GrammarOptions, SchemaConverter, SchemaError, json_schema_to_gbnf
from structgen._generate._output import OutputOptions, spec_for, structured
from structgen._memo import memo_entries
from structgen._schema import convert
from structgen._schema.options import OPTION_NAMES, PRESETS
from structgen.testing import accepts
from thread_support import in_threads

PERSON = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8},
                                           "age": {"type": "integer", "minimum": 0}},
          "required": ["name"]}
SCHEMAS: list[Any] = [
    PERSON,
    {"type": "array", "items": {"type": "string", "pattern": "^[a-z]{2,5}$"}, "maxItems": 3},
    {"anyOf": [{"type": "integer", "multipleOf": 7}, {"type": "string", "format": "date"}]},
    {"type": "object", "additionalProperties": {"type": "number", "maximum": 1.5}},
    {"enum": ["red", "green", 3, None]},
    {"type": "string", "format": "email"},
]


class Point(BaseModel):
    x: int
    label: str


def test_convert_takes_schemas_json_text_booleans_and_types() -> None:
    converter = SchemaConverter()
    assert converter.convert(PERSON).gbnf == convert(PERSON, GrammarOptions())
    assert converter.convert('{"type": "integer"}').gbnf == convert({"type": "integer"},
                                                                     GrammarOptions())
    assert converter.convert(True).gbnf == convert(True, GrammarOptions())
    assert converter.convert(Point) == Grammar.from_type(Point)
    assert converter.convert(Point).gbnf == convert(Point.model_json_schema(), PRESETS["type"])


def test_the_factories_are_calls_into_the_shared_converter() -> None:
    shared = SchemaConverter.shared()
    assert SchemaConverter.shared() is shared
    before = shared.cache_info()
    schema = {"type": "object", "properties": {"only_here_7f3a": {"type": "boolean"}}}
    text = json_schema_to_gbnf(schema)
    assert Grammar.from_json_schema(schema).gbnf == text
    after = shared.cache_info()
    assert (after.misses, after.hits) == (before.misses + 1, before.hits + 1)
    with_changes = json_schema_to_gbnf(schema, whitespace="minified")
    assert with_changes == SchemaConverter.shared().convert(schema, options=GrammarOptions(whitespace="minified")).gbnf
    assert with_changes != text


def test_a_converter_built_with_options_uses_them_for_schemas_and_types() -> None:
    minified = GrammarOptions(whitespace="minified", integer_zero_fraction=False)
    converter = SchemaConverter(minified)
    assert converter.options is minified
    grammar = converter.convert(Point)
    assert accepts(grammar, '{"x":1,"label":"a"}')
    assert not accepts(grammar, '{"x": 1, "label": "a"}')
    # these options do not close objects: the schema's own default (any other key) stands
    assert accepts(grammar, '{"x":1,"label":"a","extra":true}')
    assert converter.convert(Point, options=PRESETS["type"]) == Grammar.from_type(Point)


def test_the_cache_returns_the_same_grammar_and_counts() -> None:
    converter = SchemaConverter()
    first = converter.convert(PERSON)
    assert converter.convert(dict(PERSON)) is first
    info = converter.cache_info()
    assert (info.hits, info.misses, info.grammars) == (1, 1, 1)
    assert info.bytes >= len(first.gbnf) and info.max_bytes == structgen._grammar.DEFAULT_CACHE_BYTES
    # other options, or the same keys in another order (a different declared order), are others
    converter.convert(PERSON, options=GrammarOptions(whitespace="flexible"))
    reordered = {"properties": dict(reversed(list(PERSON["properties"].items()))),
                 "type": "object", "required": ["name"]}
    assert converter.convert(reordered) != first
    assert converter.cache_info().grammars == 3


def test_the_cache_keeps_within_its_byte_budget() -> None:
    sizes = [len(convert(s, GrammarOptions())) for s in SCHEMAS]
    budget = max(sizes) + 4096
    assert budget < sum(sizes)
    converter = SchemaConverter(max_cache_bytes=budget)
    for schema in SCHEMAS * 2:
        converter.convert(schema)
        assert converter.cache_info().bytes <= budget
    assert 0 < converter.cache_info().grammars < len(SCHEMAS)
    # the least recently used went first: the last schema converted is still there
    hits = converter.cache_info().hits
    converter.convert(SCHEMAS[-1])
    assert converter.cache_info().hits == hits + 1
    tiny = SchemaConverter(max_cache_bytes=10)
    assert tiny.convert(PERSON) == tiny.convert(PERSON)
    assert tiny.cache_info().grammars == 0  # a grammar over the whole budget is not kept


def test_clear_cache_empties_the_grammars_and_the_memo_tables() -> None:
    converter = SchemaConverter()
    for schema in SCHEMAS:
        converter.convert(schema)
    assert converter.cache_info().grammars == len(SCHEMAS) and memo_entries() > 0
    converter.clear_cache()
    info = converter.cache_info()
    assert (info.grammars, info.bytes, info.memo_entries) == (0, 0, 0)
    again = [converter.convert(s).gbnf for s in SCHEMAS]  # filled again, same output
    assert again == [convert(s, GrammarOptions()) for s in SCHEMAS]


def test_errors_are_raised_every_time_and_not_kept() -> None:
    converter = SchemaConverter()
    for _ in range(2):
        with pytest.raises(SchemaError) as caught:
            converter.convert({"type": "integer", "minimum": True})
        assert (caught.value.pointer, caught.value.keyword) == ("#", "minimum")
    assert converter.cache_info().grammars == 0
    with pytest.raises(TypeError, match="a JSON Schema must be"):
        json_schema_to_gbnf(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="options must be a GrammarOptions"):
        SchemaConverter({"whitespace": "minified"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_cache_bytes"):
        SchemaConverter(max_cache_bytes=-1)


def test_threads_converting_at_once_get_the_serial_grammars() -> None:
    expected = [convert(s, GrammarOptions()) for s in SCHEMAS]
    converter = SchemaConverter()
    converter.clear_cache()  # every thread starts from cold memo tables too

    def work(worker: int) -> list[tuple[int, str]]:
        order = [(i + worker) % len(SCHEMAS) for i in range(len(SCHEMAS))] * 3
        return [(j, converter.convert(SCHEMAS[j]).gbnf) for j in order]

    results = [pair for done in in_threads(work, range(8)) for pair in done]
    assert len(results) == 8 * 3 * len(SCHEMAS)
    assert all(text == expected[j] for j, text in results)



def test_conversion_leaves_the_garbage_collector_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> None:
        raise AssertionError("a conversion switched the process-wide collector off")

    monkeypatch.setattr(gc, "disable", refuse)
    SchemaConverter().clear_cache()
    assert convert(SCHEMAS[0], GrammarOptions()) and gc.isenabled()


def test_presets_state_every_default() -> None:
    assert PRESETS["schema"] == GrammarOptions()
    assert GrammarOptions.preset("type") == GrammarOptions(additional_properties=False,
                                                           integer_zero_fraction=False)
    generation = GrammarOptions.preset("generation", whitespace="minified")
    assert (generation.max_string_length, generation.whitespace) == (500, "minified")
    assert PRESETS["tool-arguments"].max_string_length == 200
    with pytest.raises(ValueError, match="unknown preset"):
        GrammarOptions.preset("fast")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unknown grammar option"):
        GrammarOptions().with_changes(white_space="minified")  # type: ignore[call-arg]


def test_given_options_are_used_as_they_are() -> None:
    # from_type's preset closes objects and writes plain integers, but options given win.
    assert not accepts(Grammar.from_type(Point), '{"x": 1, "label": "a", "extra": 1}')
    opened = Grammar.from_type(Point, additional_properties=None, integer_zero_fraction=True)
    assert opened == SchemaConverter.shared().convert_type(Point, options=GrammarOptions())
    assert accepts(opened, '{"x": 1, "label": "a", "extra": 1}')
    assert accepts(opened, '{"x": 1.0, "label": "a"}')
    assert accepts(Grammar.from_type(Point, integer_zero_fraction=True), '{"x": 1.0, "label": "a"}')

    @structured(integer_zero_fraction=True, additional_properties=None)
    class Loose(BaseModel):
        x: int

    loose = spec_for(Loose).grammar
    assert accepts(loose, '{"x": 2.0}') and accepts(loose, '{"x": 2, "y": null}')

    @structured
    class Closed(BaseModel):
        model_config = ConfigDict(extra="allow")
        x: int

    # extra="allow" says additionalProperties: true, which the closing default leaves alone
    assert accepts(spec_for(Closed).grammar, '{"x": 2, "y": null}')
    assert not accepts(spec_for(Point).grammar, '{"x": 2.0, "label": "a"}')


def test_structured_takes_every_option_by_name_and_no_other() -> None:
    """Its own keywords are OutputOptions' prompting fields, with their defaults; the rest are
    GrammarChanges, which are GrammarOptions' fields (and so are every grammar function's)."""
    assert typing.get_type_hints(GrammarChanges).keys() == OPTION_NAMES
    prompting = {f.name: f.default for f in fields(OutputOptions) if f.name != "grammar"}
    for function in [structured, typing.get_overloads(structured)[-1]]:  # the decorator with keywords
        params = inspect.signature(function).parameters
        named = {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
        assert named == prompting.keys() and params["grammar"].annotation == "Unpack[GrammarChanges]"
    assert {n: p.default for n, p in inspect.signature(structured).parameters.items() if n in prompting} == prompting
    with pytest.raises(TypeError, match="unknown option"):
        structured(white_space="minified")  # type: ignore[call-overload]


def test_every_cache_of_the_front_end_is_the_converters_to_list_bound_and_clear() -> None:
    """Output specs live in the shared converter's cache and budget; the grammar checks' and
    tool grammars' memo tables are listed and cleared with the conversion's."""
    from pydantic import BaseModel

    from structgen._generate._output import spec_for
    from structgen._tools._formats import JSON_FORMAT
    from structgen._tools._tool import as_tools

    class Pet(BaseModel):
        name: str

    def feed(pet: str) -> str:
        """Feed a pet."""
        return pet

    shared = SchemaConverter.shared()
    shared.clear_cache()
    assert shared.cache_info().memo_entries == 0
    spec = spec_for(Pet)
    assert spec_for(Pet) is spec and shared.cache_info().derived == 1
    assert shared.cache_info().bytes >= 2 * len(spec.grammar.gbnf)  # the grammar and the spec
    structgen.Grammar('root ::= "a"')  # checked: the lint's table
    JSON_FORMAT.grammar(as_tools([feed]), max_calls=1)  # the tool grammars' table
    assert shared.cache_info().memo_entries > 0
    shared.clear_cache()
    info = shared.cache_info()
    assert (info.grammars, info.derived, info.bytes, info.memo_entries) == (0, 0, 0, 0)
    assert spec_for(Pet) is not spec  # built again


def test_derived_values_share_the_byte_budget() -> None:
    converter = SchemaConverter(max_cache_bytes=100)
    for i in range(10):
        assert converter.derive(("k", i), lambda: "x" * 30, len) == "x" * 30
        assert converter.cache_info().bytes <= 100
    assert converter.cache_info().derived == 3
    assert converter.derive("big", lambda: "y" * 101, len) == "y" * 101  # over the budget: not kept
    assert converter.cache_info().derived == 3

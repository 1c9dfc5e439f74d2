"""Random derivations of GBNF grammars: always in the language (pure recognizer and llama.cpp
agree), and the recognizer agrees with llama.cpp on mutated samples too."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings

from tests.support.corpora import GBNF_EXAMPLES
from structgen._errors import GrammarError
from structgen._gbnf import (
    Alt,
    AnyChar,
    CharClass,
    Expr,
    GbnfGrammar,
    LiteralText,
    Recognizer,
    Repeat,
    RuleRef,
    Seq,
    format_gbnf,
    lint,
    parse_gbnf,
)
from structgen._gbnf._samples import Sampler, gbnf_samples, random_derivation
from structgen._backends.llamacpp._native import native_vocab
from structgen.testing import accepts, check

CORPUS = GBNF_EXAMPLES
CORPUS_FILES = sorted(CORPUS.glob("*.gbnf"))
JSON_GBNF = (CORPUS / "json.gbnf").read_text(encoding="utf-8")

HAND_WRITTEN = [
    'root ::= a b c\na ::= "x"?\nb ::= | "y"\nc ::= ("z" c)?',
    'root ::= "(" root ")" | ""',
    'root ::= [ab]{2,4} "c"{3} [^a-c]{0,3}',
    'root ::= "a"{0,3000} "b" [] [z-a]? .',
    'root ::= ("a" | "ab") ("b" | "") ("c" "d"?){1,2}',
    'root ::= "[" (v ("," v)*)? "]"\nv ::= [0-9]+ | root',
]


def _split_utf8_sensitive(grammar: str) -> bool:
    """llama.cpp's verdict on non-ASCII text depends on the tokenizer for these grammars."""
    return any(f.code == "negated-class-split-utf8" for f in lint(grammar))


def _natively_checkable(grammar: str, text: str) -> bool:
    """Texts whose native verdict does not depend on tokenization, and whose rejection the
    native helper can locate (it feeds single-byte tokens; a few bytes have none)."""
    if _split_utf8_sensitive(grammar) and not text.isascii():
        return False
    byte_tokens = native_vocab().byte_tokens
    return all(b in byte_tokens for b in text.encode("utf-8"))


def _mutations(text: str, rng: random.Random) -> list[str]:
    if not text:
        return ["a", " "]
    at = rng.randrange(len(text))
    inserted = rng.choice(text + 'a0 "{}[]()-\n\\')
    return [text[:at] + text[at + 1 :], text[:at] + inserted + text[at:], text + inserted, text[:at]]


@pytest.mark.parametrize("grammar", [p.read_text(encoding="utf-8") for p in CORPUS_FILES] + HAND_WRITTEN,
                         ids=[p.name for p in CORPUS_FILES] + [f"hand-{i}" for i in range(len(HAND_WRITTEN))])
def test_samples_are_accepted_and_mutations_agree(grammar: str) -> None:
    rng = random.Random(2024)
    sampler = Sampler(grammar)
    recognizer = Recognizer(grammar)
    compared = 0
    for _ in range(25):
        sample = sampler.derive(rng, max_depth=rng.randint(0, 8), max_size=400)
        assert recognizer.accepts(sample), sample
        if _natively_checkable(grammar, sample):
            assert accepts(grammar, sample), sample
        for text in _mutations(sample, rng):
            if not _natively_checkable(grammar, text):
                continue
            verdict = check(grammar, text)
            assert recognizer.first_rejected(text) == (None if verdict.accepted else verdict.rejected_at), text
            compared += 1
    assert compared >= 40


def test_deterministic_for_a_seed_and_shortest_at_depth_zero() -> None:
    first = random_derivation(JSON_GBNF, "root", random.Random(3), max_depth=6)
    assert first == random_derivation(parse_gbnf(JSON_GBNF), "root", random.Random(3), max_depth=6)
    assert random_derivation(JSON_GBNF, "root", random.Random(9), max_depth=0) == "{}"
    assert random_derivation('root ::= "(" root ")" | "x"', "root", random.Random(1), max_depth=0) == "x"


def test_size_budget_bounds_the_output() -> None:
    sampler = Sampler('root ::= item+\nitem ::= "[" root* "]"')
    rng = random.Random(0)
    for _ in range(20):
        text = sampler.derive(rng, max_depth=30, max_size=200)
        assert len(text) < 2000
        assert Recognizer('root ::= item+\nitem ::= "[" root* "]"').accepts(text)


def test_other_root_and_unbounded_counts() -> None:
    grammar = 'root ::= "r"\nnum ::= [0-9]{1,5000}'
    sampler = Sampler(grammar, root="num")
    texts = {sampler.derive(random.Random(seed)) for seed in range(30)}
    assert all(t.isdigit() and 1 <= len(t) <= 4 for t in texts)


@pytest.mark.parametrize(
    ("grammar", "message"),
    [
        ('root ::= <think> "a"', "token <think>"),
        ('root ::= "a" root', "derives no finite string"),
        ('root ::= root "a" | "b"', "left recursion"),
        ("root ::= [^\\x01-\\U0010FFFF]", "derives no finite string"),
        ('root ::= "a" [z-a]', "derives no finite string"),
    ],
)
def test_refused(grammar: str, message: str) -> None:
    with pytest.raises(GrammarError, match=message):
        random_derivation(grammar, "root", random.Random(0))


@settings(max_examples=60, deadline=None)
@given(gbnf_samples(JSON_GBNF, max_depth=6))
def test_hypothesis_strategy_json(text: str) -> None:
    assert Recognizer(JSON_GBNF).accepts(text)
    json.loads(text)  # json.gbnf only derives real JSON


@settings(max_examples=30, deadline=None)
@given(gbnf_samples(parse_gbnf((CORPUS / "chess.gbnf").read_text(encoding="utf-8"))))
def test_hypothesis_strategy_from_tree(text: str) -> None:
    assert text.startswith("1. ") and text.endswith("\n")
    assert accepts((CORPUS / "chess.gbnf").read_text(encoding="utf-8"), text)


# -- random grammars ------------------------------------------------------------------------

RULE_NAMES = ["root", "a", "b", "c"]


def _random_expr(rng: random.Random, depth: int) -> Expr:
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        leaf = rng.random()
        if leaf < 0.3:
            return LiteralText("".join(rng.choice("abc") for _ in range(rng.randint(0, 2))))
        if leaf < 0.5:  # includes reversed and empty classes, llama.cpp's odd corners
            ranges = []
            for _ in range(rng.randint(0, 2)):
                low = rng.randint(97, 100)
                ranges.append((low, low + rng.randint(-1, 2)))
            return CharClass(tuple(ranges), rng.random() < 0.3)
        if leaf < 0.55:
            return AnyChar()
        return RuleRef(rng.choice(RULE_NAMES))
    if roll < 0.6:
        return Seq(tuple(_random_expr(rng, depth + 1) for _ in range(rng.randint(2, 3))))
    if roll < 0.8:
        return Alt(tuple(_random_expr(rng, depth + 1) for _ in range(rng.randint(2, 3))))
    low = rng.randint(0, 2)
    return Repeat(_random_expr(rng, depth + 1), low, rng.choice([None, low, low + 1, low + 2]))


def test_random_grammars_agree_with_native() -> None:
    """Random small grammars (nullable rules, recursion, repetitions, empty and reversed
    classes): the recognizer and llama.cpp agree on samples, mutations and random strings."""
    rng = random.Random(77)
    grammars = compared = 0
    while grammars < 60:
        text = format_gbnf(GbnfGrammar({name: _random_expr(rng, 0) for name in RULE_NAMES}))
        try:
            # Unsafe grammars are refused; very ambiguous ones (which stall llama.cpp too) stop early.
            recognizer, sampler = Recognizer(text, max_stacks=3000), Sampler(text)
            texts = set()
            for _ in range(5):
                sample = sampler.derive(rng, max_depth=rng.randint(0, 5), max_size=40)
                assert recognizer.accepts(sample), (text, sample)
                texts.update([sample, *_mutations(sample, rng)[:2]])
            texts.add("".join(rng.choice("abcd") for _ in range(rng.randint(0, 5))))
            verdicts = {t: recognizer.first_rejected(t) for t in texts if _natively_checkable(text, t)}
        except GrammarError:
            continue
        grammars += 1
        for sample, mine in verdicts.items():
            native = check(text, sample)
            assert mine == (None if native.accepted else native.rejected_at), (text, sample)
            compared += 1
    assert compared >= 300

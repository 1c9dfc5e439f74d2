"""Copied arguments: free strings limited to runs of the words that were said (no model; the
grammar is judged by llama.cpp's sampler on the default model's vocabulary)."""

from __future__ import annotations

import re
from typing import Literal

from hypothesis import given, strategies as st

from structgen import Grammar
from structgen.testing import accepts
from structgen._generate._copied import MAX_WORDS, copied_tools, spans_pattern
from structgen._tools._tool import as_tools


def runs(text: str) -> set[str]:
    """Every run of 1..MAX_WORDS words, edges trimmed as the pattern promises."""
    edge = "\"'“”‘’()[]{}<>.,;:!?"
    words = [w for w in text.split() if w.strip(edge)]
    found = set()
    for i in range(len(words)):
        for j in range(i, min(len(words), i + MAX_WORDS)):
            if i == j:
                found.add(words[i].strip(edge))
            else:
                found.add(" ".join([words[i].lstrip(edge), *words[i + 1 : j], words[j].rstrip(edge)]))
    return found


def test_runs_of_whole_words_with_their_edges_trimmed() -> None:
    pattern = re.compile(spans_pattern("Translate 'happy birthday' into Greek, please.") or "")
    for said in ("happy birthday", "happy", "Greek", "into Greek", "Greek, please", "please",
                 "birthday' into Greek"):
        assert pattern.fullmatch(said), said
    for unsaid in ("'happy birthday'", "Greek,", "birthday into", "happy  birthday", "Gree", "French", ""):
        assert not pattern.fullmatch(unsaid), unsaid


def test_nothing_said_limits_nothing() -> None:
    assert spans_pattern("  ... ?! ") is None


words = st.lists(st.sampled_from(["a", "b", "c.", "(d)", "e's", "f?", "'g'", "x+y", "a|b", "$5", "\\"]),
                 min_size=1, max_size=20)


@given(words)
def test_the_pattern_matches_exactly_the_runs(chosen: list[str]) -> None:
    text = " ".join(chosen)
    pattern = re.compile(spans_pattern(text) or "")
    wanted = runs(text)
    assert all(pattern.fullmatch(run) for run in wanted)
    for i in range(len(chosen)):  # anything else made of the same words is refused
        for j in range(i + 1, len(chosen) + 1):
            for candidate in (" ".join(chosen[i:j]), " ".join(reversed(chosen[i:j])), "".join(chosen[i:j])):
                assert bool(pattern.fullmatch(candidate)) == (candidate in wanted), candidate


def send(to: str, mode: Literal["fast", "slow"], count: int, tags: list[str], note: str = "x") -> None:
    """Send something."""


def test_only_free_strings_are_limited() -> None:
    [tool] = copied_tools(as_tools([send]), "mail bob@x.org now")
    properties = tool.parameters["properties"]
    assert "pattern" in properties["to"] and "pattern" in properties["note"]
    assert "pattern" in properties["tags"]["items"]
    assert "pattern" not in properties["mode"] and "pattern" not in properties["count"]
    assert tool.parameters["properties"]["note"]["default"] == "x"
    [unchanged] = as_tools([send])
    assert "pattern" not in unchanged.parameters["properties"]["to"]


def test_the_grammar_accepts_the_runs_and_nothing_else() -> None:
    [tool] = copied_tools(as_tools([send]), "Mail bob@x.org: the meeting moved.")
    grammar = Grammar.from_json_schema(tool.parameters)
    ok = '{"to": "bob@x.org", "mode": "fast", "count": 1, "tags": ["meeting moved"], "note": "Mail"}'
    assert accepts(grammar, ok)  # llama.cpp's own sampler decides
    assert not accepts(grammar, ok.replace("bob@x.org", "alice@x.org"))
    assert not accepts(grammar, ok.replace('"Mail"', '"Mail bob@x.org:"'))


def test_each_setting_tries_its_grammars_in_order() -> None:
    from structgen._backends._seam import Message
    from structgen._generate._copied import argument_tries

    tools = as_tools([send])
    said = [Message("user", "old words"), Message("user", "mail bob@x.org")]
    [free] = argument_tries("free", tools, said)
    [copied] = argument_tries("copied", tools, said)
    first, second = argument_tries("free_then_copied", tools, said)
    assert free == first == tools
    assert copied[0].parameters == second[0].parameters != tools[0].parameters
    assert re.fullmatch(copied[0].parameters["properties"]["to"]["pattern"], "bob@x.org")
    assert not re.fullmatch(copied[0].parameters["properties"]["to"]["pattern"], "old")  # older turns are not said
    nothing_free = as_tools([add])
    assert argument_tries("free_then_copied", nothing_free, said) == [nothing_free]


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b

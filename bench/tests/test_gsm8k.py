"""The GSM8K suite (bench/suites/gsm8k.py): its split, its modes and how a number is read (no model)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bench.suites.gsm8k import CORPUS, parse_mode, parse_number, problems, right, split_of


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Answer: 1,234.50", 1234.5),
        ("$18", 18),
        ("#### 7", 7),
        ("She makes 9 * 2 = $18 a day.\nAnswer: 18 dollars. (9 eggs at $2 each)", 18),  # trailing text
        ("Answer: 42.", 42),  # a full stop is not a decimal part
        ("**Answer:** $1,000", 1000),
        ("The answer is: 5 (since 3 + 2 = 5, not 7)", 5),
        ("16-3-4=9 eggs", 9),  # no marker: the last number; a minus between numbers is no sign
        ("The temperature fell to -3 degrees.", -3),
        ("Answer: 3\nAnswer: 4 cups", 4),  # the last marker counts
        ("Answer: none, but we had 12 of them", 12),  # a marker without a number: the last number
        ("1,2345", 2345),  # not a thousands separator
        ("So the answer is 20 apples, 3 each.", 20),
        ("The average is \\(\\boxed{63.33}\\) for 3 friends.", 63.33),
        ("The third friend's answer: 100 * 1.25 = 125.\nThe average guess is 95.", 95),  # "answer:" mid-line
        ("**Answer**: 18", 18),
        ("no number here", None),
    ],
)
def test_parse_number(text: str, number: float | None) -> None:
    assert parse_number(text) == number


def test_right_is_numeric() -> None:
    assert right(18.0, 18) and right(0.1 + 0.2, 0.3)
    assert not right(None, 18) and not right(18.5, 18)


def test_split_is_deterministic_and_balanced() -> None:
    assert split_of("How many eggs?") == split_of("How many eggs?")
    sides = {split_of(f"Question {i}") for i in range(20)}
    assert sides == {"tune", "test"}


def test_split_is_disjoint_and_covers_the_file(tmp_path: Path) -> None:
    lines = [{"id": f"p{i}", "question": f"What is {i} + {i}?", "answer": 2 * i} for i in range(40)]
    corpus = tmp_path / "c.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(line) + "\n" for line in lines)
    tune = [p["id"] for p in problems("tune", corpus)]
    test = [p["id"] for p in problems("test", corpus)]
    assert tune and test and not set(tune) & set(test)
    assert sorted(tune + test) == sorted(p["id"] for p in lines)
    assert tune == [p["id"] for p in problems("tune", corpus)]  # the same again, in file order


@pytest.mark.skipif(not CORPUS.exists(), reason="the GSM8K dev half is not beside the checkout")
def test_split_of_the_corpus() -> None:
    tune = {p["id"] for p in problems("tune")}
    test = {p["id"] for p in problems("test")}
    assert not tune & test and len(tune) + len(test) == 659
    assert 250 < len(tune) < 410


def test_modes() -> None:
    assert parse_mode("reasoning=256").budget == 256
    assert parse_mode("reasoning=128+asked").asked
    assert parse_mode("worked").kind == "worked"
    for bad in ("reasoning", "reasoning=0", "free+asked", "typed+more", "think"):
        with pytest.raises(SystemExit):
            parse_mode(bad)

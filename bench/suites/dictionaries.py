"""Dictionary tasks with gold values: the member check (no key written twice) off and on.

    python -m bench.suites.dictionaries [THREADS] [--json OUT]

SmolLM2, greedy. Prints each answer, then per variant: valid answers, facts right (a gold key
with its value; keys compared case- and plural-insensitively), tokens spent (a failed call
counts its whole budget) and answers that wrote a key twice; the counts go to ``--json``
(default ``bench/results/latest/dictionaries.json``). The shape comparison in
docs/benchmarks.md ran the same tasks with the system message of the previous release.
"""

from __future__ import annotations

import argparse
import json
import sys
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.harness import command, results_file, write_json  # noqa: E402
import structgen as sg  # noqa: E402
from structgen._generate._output import spec_for  # noqa: E402


class Stock(BaseModel):
    counts: dict[str, int]
class Prices(BaseModel):
    prices: dict[str, float]
class Teams(BaseModel):
    members: dict[str, list[str]]
class Ages(BaseModel):
    ages: dict[str, int]
class Capitals(BaseModel):
    capitals: dict[str, str]
class Size(Enum):
    S = "small"
    L = "large"
class Orders(BaseModel):
    orders: dict[Literal["small", "medium", "large"], int]

TASKS = [
 (Stock, "Stock count: 4 apples, 12 pears and 0 plums.", {"apples": 4, "pears": 12, "plums": 0}),
 (Stock, "Inventory: 3 chairs, 5 tables, 1 sofa.", {"chairs": 3, "tables": 5, "sofa": 1}),
 (Stock, "Votes: Alice got 7, Bob 3.", {"Alice": 7, "Bob": 3}),
 (Stock, "We have 2 dogs and 5 cats at the shelter.", {"dogs": 2, "cats": 5}),
 (Stock, "Warehouse B holds 40 boxes and 6 pallets.", {"boxes": 40, "pallets": 6}),
 (Prices, "Menu: coffee 2.50, tea 1.80, cake 3.20.", {"coffee": 2.5, "tea": 1.8, "cake": 3.2}),
 (Prices, "Fuel prices today: diesel 1.65, petrol 1.79.", {"diesel": 1.65, "petrol": 1.79}),
 (Teams, "Team red: Ann and Joe. Team blue: Max.", {"red": ["Ann", "Joe"], "blue": ["Max"]}),
 (Ages, "Tom is 31, his sister Lena is 28.", {"Tom": 31, "Lena": 28}),
 (Ages, "Grandma is 80 and grandpa is 83.", {"Grandma": 80, "grandpa": 83}),
 (Capitals, "France's capital is Paris and Japan's is Tokyo.", {"France": "Paris", "Japan": "Tokyo"}),
 (Capitals, "The capital of Kenya is Nairobi; of Peru, Lima.", {"Kenya": "Nairobi", "Peru": "Lima"}),
 (Orders, "Today we sold 12 small, 30 medium and 7 large coffees.", {"small": 12, "medium": 30, "large": 7}),
 (Orders, "Orders: large 2, small 9.", {"large": 2, "small": 9}),
]



def norm(k: str) -> str:
    return k.lower().rstrip("s")


def score(value: dict[str, Any], gold: dict[str, Any]) -> int:
    got = {norm(k): v for k, v in value.items()}
    return sum(1 for k, v in gold.items() if norm(k) in got and (got[norm(k)] == v if not isinstance(v, float) else abs(got[norm(k)] - v) < 1e-6))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("threads", nargs="?", type=int, default=2, help="llama.cpp threads (default 2)")
    parser.add_argument("--json", type=Path, default=None,
                        help="write the counts here (default: bench/results/latest/dictionaries.json)")
    args = parser.parse_args()
    llm = sg.LLM(n_threads=args.threads, max_tokens=120)
    rows = {}
    for variant in ["off", "on"]:
        facts = valid = tokens = dup = 0
        for M, prompt, gold in TASKS:
            spec = spec_for(M)
            guard = variant == "on"
            members = spec.members
            if not guard:
                spec.members = None
            try:
                r = llm.run(M, prompt)
                value = getattr(r.value, next(iter(M.model_fields)))
                valid += 1
                facts += score(value, gold)
                tokens += r.usage.completion_tokens
                pairs: list[list[str]] = []
                json.loads(r.text, object_pairs_hook=lambda p: pairs.append([k for k, _ in p]) or dict(p))
                dup += any(len(p) != len(set(p)) for p in pairs)
                print(variant, r.text)
            except sg.StructgenError as e:
                tokens += 120
                print(variant, type(e).__name__, getattr(e, "text", "")[:100])
            finally:
                spec.members = members
        rows[variant] = (valid, facts, tokens, dup)
    total = sum(len(g) for _, _, g in TASKS)
    print(f"{len(TASKS)} tasks, {total} facts")
    for v, (valid, facts, tokens, dup) in rows.items():
        print(f"{v:8} valid {valid}/{len(TASKS)} facts {facts}/{total} tokens {tokens} answers-with-duplicate-keys {dup}")
    write_json(results_file(args.json, "dictionaries"), {
        "command": command("dictionaries"), "tasks": len(TASKS), "facts": total,
        "variants": {v: dict(zip(("valid", "facts", "tokens", "duplicate_keys"), row)) for v, row in rows.items()}})


if __name__ == "__main__":
    main()

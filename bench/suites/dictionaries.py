"""Dictionary tasks with gold values: the member check (no key written twice) off and on, and
the two shapes a prompt can show a dictionary in.

    python -m bench.suites.dictionaries [THREADS] [--model M] [--shape auto|words|braces]
                                        [--requests tasks|own] [--variants off,on] [--json OUT]

Greedy, 120 tokens. Prints each answer, then per variant: valid answers, facts right (a gold
key with its value; keys compared case- and plural-insensitively), tokens spent (a failed call
counts its whole budget) and answers that wrote a key twice; the counts go to ``--json``
(default ``bench/results/latest/dictionaries.json``). ``--shape``: how the prompt shows a
dictionary (``auto``: what structgen shows this model). ``--requests own``: six requests of our
own, worded as people write, that check the shape chosen on the tasks.
"""

from __future__ import annotations

import argparse
import json
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

import structgen as sg
from bench.harness import command, model_path, results_file, write_json
from structgen._generate._output import spec_for  # the member check switched off and on, measured


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


# Written 2026-12-06 after the shape was chosen on TASKS and before any run of these.
class Tally(BaseModel):
    tally: dict[str, int]
class PriceList(BaseModel):
    prices: dict[str, float]
class Owners(BaseModel):
    owner_of: dict[str, str] = Field(description="which person owns each item")
class Rooms(BaseModel):
    people_per_room: dict[str, list[str]]
class Inventory(BaseModel):
    counts: dict[str, int] = Field(description="how many of each fruit")

OWN_REQUESTS = [
 (Tally, "final count for the lunch poll: pizza 9, sushi 6, tacos 4", {"pizza": 9, "sushi": 6, "tacos": 4}),
 (Tally, "we still have two cans of beans and five onions, oh and one bag of rice", {"beans": 2, "onions": 5, "rice": 1}),
 (PriceList, "Croissants are 1.90 each, a baguette is 2.40 and the sourdough loaf 5.50.",
  {"croissant": 1.9, "baguette": 2.4, "sourdough": 5.5}),
 (Owners, "The red bike is Emma's and the laptop belongs to Raj.", {"red bike": "Emma", "laptop": "Raj"}),
 (Rooms, "Room 101 has Ada and Grace, room 102 just has Linus.", {"101": ["Ada", "Grace"], "102": ["Linus"]}),
 (Inventory, "ok so after the market we've got 7 apples left, a dozen bananas and 3 pears. can you log that?",
  {"apples": 7, "bananas": 12, "pears": 3}),
]


def norm(k: str) -> str:
    return k.lower().rstrip("s")


def score(value: dict[str, Any], gold: dict[str, Any]) -> int:
    got = {norm(k): v for k, v in value.items()}
    return sum(1 for k, v in gold.items() if norm(k) in got and (got[norm(k)] == v if not isinstance(v, float) else abs(got[norm(k)] - v) < 1e-6))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("threads", nargs="?", type=int, default=2, help="llama.cpp threads (default 2)")
    parser.add_argument("--model", default=None, help="gemma, qwen0.5b, qwen1.5b or a path (default: SmolLM2)")
    parser.add_argument("--shape", choices=("auto", "words", "braces"), default="auto",
                        help="how the prompt shows a dictionary (auto: what structgen shows this model)")
    parser.add_argument("--requests", choices=("tasks", "own"), default="tasks")
    parser.add_argument("--variants", default="off,on", help="the member check off, on, or both")
    parser.add_argument("--json", type=Path, default=None,
                        help="write the counts here (default: bench/results/latest/dictionaries.json)")
    args = parser.parse_args()
    llm = sg.LLM(model_path(args.model), n_threads=args.threads, max_tokens=120)
    shape = llm._dictionary_shape() if args.shape == "auto" else args.shape
    llm._dictionary_shape = lambda: shape  # type: ignore[method-assign]
    tasks = TASKS if args.requests == "tasks" else OWN_REQUESTS
    rows = {}
    for variant in args.variants.split(","):
        facts = valid = tokens = dup = 0
        for M, prompt, gold in tasks:
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
    total = sum(len(g) for _, _, g in tasks)
    print(f"{len(tasks)} tasks, {total} facts; model {Path(model_path(args.model)).name}, dictionaries shown as {shape}")
    for v, (valid, facts, tokens, dup) in rows.items():
        print(f"{v:8} valid {valid}/{len(tasks)} facts {facts}/{total} tokens {tokens} answers-with-duplicate-keys {dup}")
    write_json(results_file(args.json, "dictionaries"), {
        "command": command("dictionaries"), "model": Path(model_path(args.model)).name, "shape": shape,
        "requests": args.requests, "tasks": len(tasks), "facts": total,
        "variants": {v: dict(zip(("valid", "facts", "tokens", "duplicate_keys"), row)) for v, row in rows.items()}})


if __name__ == "__main__":
    main()

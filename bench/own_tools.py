"""Ordinary tools other than the ones the decisions were chosen on, requests worded the way people
type, and example requests for the first set's tools: to report the example weights
(``Tool.examples``) and the default decision away from the tools and splits they were chosen on
(docs/benchmarks.md, "Example requests per tool" and "The default on other tools").

The first set (this file) was written on 2026-12-05 (stop 41), after the example weights were
chosen and adopted, before any run of this file: the tools by hand; the 24 requests by one writer
and the examples by another, each seeing only the tools (two examples equal to a request but for
case were given other values before any run: "Eiffel Tower" -> "Louvre", "ephemeral" ->
"laconic"). The later sets (``bench/own_tools_later.py``) came at stop 42, without examples. Every setting on one model load, greedy, 256 tokens, n_ctx 4096, one thread: a setting
is a decision (``action``, ``meaning``), optionally ``/``arguments (``action/free``; else the
default ``"auto"``), optionally ``+examples`` (every tool gets its examples; first set only);
``no-channel`` is ``meaning`` with the model's likelihood withheld, as from a backend that cannot
score text. Right: the first call is to the tool needed, or no call. Usage::

    python bench/own_tools.py [--model gemma] [--set first|second|third|fourth|fifth] [--configs action,action/free] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def get_flight_status(flight_number: str) -> str:
    """Current status of a flight: on time, delayed or cancelled, and its gate.

    Args:
        flight_number: Airline code and number, for instance BA117.
    """
    return "ok"


def track_package(tracking_number: str) -> str:
    """Where a parcel is and when it will be delivered.

    Args:
        tracking_number: The carrier's tracking number.
    """
    return "ok"


def order_food(restaurant: str, items: list[str]) -> str:
    """Order a food delivery from a restaurant.

    Args:
        restaurant: Name of the restaurant.
        items: Dishes to order.
    """
    return "ok"


def set_thermostat(temperature: float, room: str = "living room") -> str:
    """Set the heating thermostat of a room to a temperature in degrees Celsius.

    Args:
        temperature: Target temperature in degrees Celsius.
        room: Which room.
    """
    return "ok"


def find_parking(near: str) -> str:
    """Find free parking spaces near a place.

    Args:
        near: Address or landmark.
    """
    return "ok"


def define_word(word: str) -> str:
    """Dictionary definition of an English word.

    Args:
        word: The word to define.
    """
    return "ok"


def calculate_bmi(weight_kg: float, height_cm: float) -> float:
    """Body mass index from weight and height.

    Args:
        weight_kg: Weight in kilograms.
        height_cm: Height in centimetres.
    """
    return weight_kg / (height_cm / 100) ** 2


def check_balance(account: str = "checking") -> str:
    """Balance of one of the user's bank accounts.

    Args:
        account: Which account: checking or savings.
    """
    return "ok"


TOOLS = [get_flight_status, track_package, order_food, set_thermostat, find_parking, define_word, calculate_bmi, check_balance]
REQUESTS: dict[str, list[tuple[str, str | None]]] = {
    "plain": [
        ("what's the status of flight BA117? is it delayed or on time", "get_flight_status"),
        ("can u track my package? tracking number is 1Z999AA10123456784", "track_package"),
        ("order food from Dragon Palace restaurant pls - kung pao chicken and 2 egg rolls", "order_food"),
        ("set the thermostat in the bedroom to 21 degrees", "set_thermostat"),
        ("find parking near the Eiffel Tower", "find_parking"),
        ("define the word 'ephemeral'", "define_word"),
        ("calculate my bmi, weight 70kg height 175cm", "calculate_bmi"),
        ("check balance on my savings account", "check_balance"),
    ],
    "paraphrase": [
        ("hey is UA882 still leaving on schedule or did they push it back?", "get_flight_status"),
        ("my amazon box 1Z999AA10123456784 hasnt shown up yet, any idea whats up w it", "track_package"),
        ("can u grab me 2 pad thai n spring rolls outta Thai Orchid? tryna eat in like 40 min", "order_food"),
        ("freezing in my kid's nursery rn, can u bump it up to 23°", "set_thermostat"),
        ("any open spots to leave my car by Wembley Stadium?", "find_parking"),
        ("wtf does 'petrichor' mean lol", "define_word"),
        ("I'm 82 kilos n 1.78 m tall, am I chubby according to that ratio doctors go by?", "calculate_bmi"),
        ("yo how much money do i have left till payday", "check_balance"),
    ],
    "no_tool": [
        ("whats the best way to beat jet lag after a long flight to tokyo", None),
        ("tips for packing fragile stuff in a parcel so it doesnt break?", None),
        ("give me a quick recipe for chicken tikka masala, nothing fancy", None),
        ("is it cheaper to leave the heating on low all day or just turn it on when i need it?", None),
        ("how do i parallel park without scraping the curb lol", None),
        ("what's the difference between 'affect' and 'effect'? i always mix them up", None),
        ("write a short motivational msg for my friend who's trying to lose weight", None),
        ("hey how's your day going?", None),
    ],
}
EXAMPLES: dict[str, list[str]] = {
    "get_flight_status": [
        "Get the flight status of BA117.",
        "is LH454 still on time or delayed?",
        "my mom's on UA902 tonight, which gate does it come in at and is it running late",
    ],
    "track_package": [
        "Track package 1Z999AA10123456784.",
        "where's my parcel? tracking no. 9400111899223344556677",
        "any idea when my DHL box shows up, number's JD014600006123456789",
    ],
    "order_food": [
        "Order food from Pizza Express: one margherita and a garlic bread.",
        "can u get me pad thai and spring rolls from Thai Orchid",
        "I'm starving, grab two Big Macs and large fries from McDonald's for me?",
    ],
    "set_thermostat": [
        "Set the thermostat in the bedroom to 19 degrees Celsius.",
        "crank the heat up to 22 in here",
        "it's freezing in the kitchen, can you make it 21°C?",
    ],
    "find_parking": [
        "Find parking near the Louvre.",
        "anywhere free to park around 350 5th Ave?",
        "headed to Wembley Stadium later, where can I leave the car nearby?",
    ],
    "define_word": [
        "Define the word 'laconic'.",
        "what does ubiquitous mean?",
        "wait what's 'sonder', never heard that one",
    ],
    "calculate_bmi": [
        "Calculate my BMI: weight 72 kg, height 178 cm.",
        "I'm 165cm and 60 kilos, what's my bmi?",
        "am I overweight? 95 kg at 1.80 m tall",
    ],
    "check_balance": [
        "Check the balance of my savings account.",
        "how much money do I have in checking rn?",
        "can I afford a $400 rent payment, what's left in my checking account",
    ],
}


CONFIGS = ("action", "action+examples", "meaning", "meaning+examples", "no-channel", "no-channel+examples")


def sets() -> dict[str, tuple[list[Any], dict[str, list[tuple[str, str | None]]], dict[str, list[str]]]]:
    """Each set's tools, requests and examples (none for the later sets)."""
    sys.path.insert(0, str(ROOT))
    from bench import own_tools_later as later

    return {"first": (TOOLS, REQUESTS, EXAMPLES), "second": (later.SECOND_TOOLS, later.SECOND, {}),
            "third": (later.THIRD_TOOLS, later.THIRD, {}), "fourth": (later.FOURTH_TOOLS, later.FOURTH, {}),
            "fifth": (later.FIFTH_TOOLS, later.FIFTH, {})}


class _NeverScores:
    """Stands for ScoringBackend in the ``no-channel`` rows: the model's likelihood is withheld,
    as from a backend that cannot score text (an OpenAI-compatible server)."""


def run(model: str | None, configs: list[str], which: str = "first") -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT))
    import structgen
    from bench.bfcl import model_path
    from structgen._generate import _steps
    from structgen._tools._tool import as_tools

    llm = structgen.LLM(model_path(model), max_tokens=256, n_ctx=4096, n_threads=1, n_threads_batch=1)
    tools, requests, examples_of = sets()[which]
    plain = as_tools(tools)
    shown = [t.with_examples(examples_of[t.name]) if examples_of else t for t in plain]
    scoring = _steps.ScoringBackend
    rows = []
    for config in configs:
        setting, _, examples = config.partition("+")
        decision, _, arguments = setting.partition("/")
        if examples and not examples_of:
            raise SystemExit(f"the {which} set has no examples: {config}")
        _steps.ScoringBackend = _NeverScores if decision == "no-channel" else scoring  # type: ignore[misc,assignment]
        for kind, asked in requests.items():
            for text, wanted in asked:
                turn = llm.call_tools(text, tools=shown if examples else plain, tool_choice="auto",
                                      decision="meaning" if decision != "action" else "action",
                                      arguments=arguments or "auto")
                called = turn.calls[0].name if turn.calls else None
                rows.append({"set": which, "config": config, "kind": kind, "request": text, "wanted": wanted, "called": called,
                             "right": called == wanted})
                print(f"{config:20} {kind:10} {'ok  ' if called == wanted else 'FAIL'} {text!r} -> {called}", flush=True)
    _steps.ScoringBackend = scoring  # type: ignore[misc]
    llm.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: SmolLM2)")
    parser.add_argument("--set", default="first", choices=("first", "second", "third", "fourth", "fifth"))
    parser.add_argument("--configs", default=None, help=f"default: {','.join(CONFIGS)} (first set), "
                        "action,action/free,meaning (later sets)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    configs = (args.configs or (",".join(CONFIGS) if args.set == "first" else "action,action/free,meaning")).split(",")
    rows = run(args.model, configs, args.set)
    command = shlex.join(["python", "bench/own_tools.py", *sys.argv[1:]])
    print(f"\n`{command}`\n\n| setting | plain (8) | paraphrase (8) | no_tool (8) | overall |\n|---|---:|---:|---:|---:|")
    for config in configs:
        mine = [r for r in rows if r["config"] == config]
        cells = [str(sum(r["right"] for r in mine if r["kind"] == k)) for k in REQUESTS]
        print(f"| {config} | " + " | ".join(cells) + f" | {sum(r['right'] for r in mine)}/{len(mine)} |")
    if args.json:
        args.json.write_text(json.dumps({"command": command, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

"""Listed values the user names: does the call carry the value the request asked for?

Written on 2026-12-04, before any run, for the case that made named values a rule: "What's the
temperature in Boston in fahrenheit?" got ``unit="celsius"`` on both small models, in every
version. A small model copies the first value the tool listing shows. Each request below names
one of a parameter's listed values (or, in the last ones, two values of positions that share
one list, where the request alone cannot say which is which); right = the expected tool, called
with every expected argument. The default decision and arguments, greedy, SmolLM2 unless
``--model``; ``--source`` imports structgen from another checkout (the shipped version). Then
DETAILS, written later (before any run of them), for two details of the rule.

``--bfcl tune|test`` measures the rule alone, with no model: over a BFCL half, every parameter
:func:`structgen._tools.policy._arguments.named_tools` narrows to one value, and whether BFCL's ground
truth accepts that value (its own string standardisation). Usage::

    python -m bench.experiments.named_values [--model gemma] [--source PATH] [--json OUT]
    python -m bench.experiments.named_values --bfcl tune|test
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any, Literal

from bench.harness import model_path, use_structgen

Temperature = Literal["celsius", "fahrenheit", "kelvin"]


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Current weather in a city.

    Args:
        city: Name of the city.
        unit: Temperature unit.
    """
    return "sunny"


def set_reminder(text: str, priority: Literal["low", "normal", "high"] = "normal") -> str:
    """Set a reminder.

    Args:
        text: What to be reminded of.
        priority: How urgent the reminder is.
    """
    return "ok"


def search_flights(origin: str, destination: str, cabin: Literal["economy", "premium", "business", "first"] = "economy") -> str:
    """Search flights between two cities.

    Args:
        origin: City of departure.
        destination: City of arrival.
        cabin: Cabin class.
    """
    return "[]"


def translate(text: str, language: Literal["french", "german", "spanish", "italian"]) -> str:
    """Translate text into another language.

    Args:
        text: The text to translate.
        language: The language to translate into.
    """
    return text


def order_coffee(drink: str, size: Literal["small", "medium", "large"] = "medium") -> str:
    """Order a coffee.

    Args:
        drink: The drink, e.g. latte.
        size: Cup size.
    """
    return "ok"


def set_thermostat(temperature: float, mode: Literal["heat", "cool", "auto"] = "auto") -> str:
    """Set the home thermostat.

    Args:
        temperature: Target temperature.
        mode: Heating or cooling mode.
    """
    return "ok"


def convert_temperature(value: float, from_unit: Temperature, to_unit: Temperature) -> float:
    """Convert a temperature between units.

    Args:
        value: The temperature to convert.
        from_unit: Unit of the value.
        to_unit: Unit to convert into.
    """
    return value


TOOLS = [get_weather, set_reminder, search_flights, translate, order_coffee, set_thermostat, convert_temperature]
# (request, tool, arguments the call must carry)
REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    ("What's the temperature in Boston in fahrenheit?", "get_weather", {"unit": "fahrenheit"}),
    ("weather in Paris in Fahrenheit please", "get_weather", {"unit": "fahrenheit"}),
    ("how warm is it in Madrid right now, celsius", "get_weather", {"unit": "celsius"}),
    ("remind me to call mom tonight, high priority", "set_reminder", {"priority": "high"}),
    ("Set a low priority reminder to water the plants", "set_reminder", {"priority": "low"}),
    ("find me business class flights from London to Tokyo", "search_flights", {"cabin": "business"}),
    ("any premium seats from Oslo to Rome?", "search_flights", {"cabin": "premium"}),
    ("translate 'good morning' into German", "translate", {"language": "german"}),
    ("how do you say thank you in Italian", "translate", {"language": "italian"}),
    ("can I get a large latte", "order_coffee", {"size": "large"}),
    ("one small cappuccino please", "order_coffee", {"size": "small"}),
    ("set the thermostat to 21 and cool the house", "set_thermostat", {"mode": "cool", "temperature": 21}),
    # two positions share the list: the request names values, not which position each fills
    ("convert 300 kelvin to celsius", "convert_temperature", {"from_unit": "kelvin", "to_unit": "celsius"}),
    ("what is 70 fahrenheit in celsius", "convert_temperature", {"from_unit": "fahrenheit", "to_unit": "celsius"}),
    # two values of one list named: economy is the class, "first" is a date
    ("economy flights from Rome to Berlin on the first of May", "search_flights", {"cabin": "economy"}),
]


def pay(amount: float, method: Literal["debit_card", "app_balance", "cash"] = "cash") -> str:
    """Pay a bill.

    Args:
        amount: How much to pay.
        method: How to pay.
    """
    return "ok"


def set_lights(room: str, state: Literal["on", "off", "dim"]) -> str:
    """Switch the lights of a room.

    Args:
        room: The room.
        state: What the lights should do.
    """
    return "ok"


def note_length(value: float, unit: Literal["cm", "in", "mm"] = "cm") -> str:
    """Note down a length.

    Args:
        value: The length.
        unit: Its unit.
    """
    return "ok"


# Written later on 2026-12-04, before any run: the rule's two details (an underscore read as a
# space; short function words such as "in" and "on" never count), on requests worded as people talk.
DETAIL_TOOLS = [pay, set_lights, note_length]
DETAILS: list[tuple[str, str, dict[str, Any]]] = [
    ("pay the 20 dollar bill from my app balance", "pay", {"method": "app_balance"}),
    ("use my debit card for the 45 euro gas bill", "pay", {"method": "debit_card"}),
    ("turn off the lights in the kitchen", "set_lights", {"state": "off"}),
    ("dim the lights in the bedroom please", "set_lights", {"state": "dim"}),
    ("switch the hall lights on", "set_lights", {"state": "on"}),
    ("the shelf is 40 cm wide, note it down in my list", "note_length", {"unit": "cm", "value": 40}),
    ("jot down 12 mm in the notes for the screw", "note_length", {"unit": "mm", "value": 12}),
]


def bfcl_precision(split: str) -> None:
    """Each value the rule picks on a BFCL half, against the case's ground truth."""
    import structgen
    from bench.suites.bfcl import cases, normalise
    from structgen._tools.policy._arguments import named_tools  # the rule itself, measured alone
    from tests.support.bfcl import bfcl_tool

    picked = right = 0
    for case in cases(split=split):
        if not case["ground_truth"]:
            continue
        request = [m["content"] for m in case["question"][-1] if m["role"] == "user"][-1]
        truth: dict[str, dict[str, list[Any]]] = {}
        for expected in case["ground_truth"]:
            truth.update(expected)
        for function in case["function"]:
            if function["name"] not in truth:
                continue
            spec = bfcl_tool(function)["function"]
            tool = structgen.Tool(**spec)
            narrowed = named_tools([tool], request)[0]
            for name, schema in narrowed.parameters.get("properties", {}).items():
                before = tool.parameters["properties"][name].get("enum")
                if schema.get("enum") == before or not isinstance(schema.get("enum"), list):
                    continue
                value = schema["enum"][0]
                options = truth[function["name"]].get(name, [])
                ok = any(isinstance(o, str) and normalise(o) == normalise(value) for o in options) \
                    or ("" in options and not [o for o in options if o != ""])
                picked += 1
                right += ok
                print(f"{'ok  ' if ok else 'FAIL'} {case['id']}: {name}={value!r} (truth {options}) <- {request[:90]!r}")
    print(f"`python -m bench.experiments.named_values --bfcl {split}`: {right}/{picked} values the rule picked are accepted")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: SmolLM2)")
    parser.add_argument("--source", type=Path, default=None,
                        help="the checkout to import structgen from (default: this one)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--bfcl", choices=("tune", "test"), help="the rule alone on a BFCL half, no model")
    args = parser.parse_args()
    if args.bfcl:
        return bfcl_precision(args.bfcl)
    structgen = use_structgen(args.source)

    llm = structgen.LLM(model_path(args.model), max_tokens=256, n_ctx=4096, n_threads=1, n_threads_batch=1)
    rows = []
    cases = [(text, wanted, expected, TOOLS) for text, wanted, expected in REQUESTS]
    cases += [(text, wanted, expected, DETAIL_TOOLS) for text, wanted, expected in DETAILS]
    for text, wanted, expected, tools in cases:
        turn = llm.call_tools(text, tools=tools, tool_choice="auto")
        call = turn.calls[0] if turn.calls else None
        arguments = json.loads(call.text) if call else {}
        right = call is not None and call.name == wanted and all(arguments.get(k) == v for k, v in expected.items())
        rows.append({"request": text, "wanted": wanted, "expected": expected, "called": call.name if call else None,
                     "arguments": arguments if call else None, "text": (turn.text or "")[:120], "right": right})
        print(f"{'ok  ' if right else 'FAIL'} {text!r} -> {rows[-1]['called']} {call.text if call else rows[-1]['text']!r}",
              flush=True)
    command = shlex.join(["python", "-m", "bench.experiments.named_values", *sys.argv[1:]])
    first = rows[: len(REQUESTS)]
    print(f"`{command}` (structgen from {structgen.__file__}): {sum(r['right'] for r in first)}/{len(first)} right, "
          f"details {sum(r['right'] for r in rows[len(REQUESTS):])}/{len(DETAILS)}")
    if args.json:
        args.json.write_text(json.dumps({"command": command, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

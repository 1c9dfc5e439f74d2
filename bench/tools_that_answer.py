"""Questions that an offered tool answers, worded as users word them: does the default decision
call the tool, or answer in words?

Written on 2026-12-04 (stop 35), before any run, to test on more than one request the reason the
refitted action signal was not adopted: with an ``add`` tool offered, both refits answered "What
is 12 plus 30?" in words (tests/test_tool_calls.py). Tools that compute or look up an answer;
requests that need them (asked as questions, as people ask), and requests beside the same tools
that need none. The default decision and arguments, greedy, SmolLM2 unless ``--model``;
``--source`` imports structgen from another checkout (the refits' commits). Usage::

    python bench/tools_that_answer.py [--model gemma] [--source PATH] [--json OUT] [--set second]

``--set second``: four other tools and twelve other requests of the same kinds, written on
2026-12-05 (stop 38) before any run, after the first set had been read for two choices.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Literal

ROOT = Path(__file__).resolve().parents[1]


def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def multiply(a: float, b: float) -> float:
    """Multiply two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a * b


def convert_units(value: float, from_unit: str, to_unit: str) -> float:
    """Convert a length, weight or temperature from one unit to another.

    Args:
        value: The quantity to convert.
        from_unit: Unit of the quantity (km, mi, kg, lb, C, F).
        to_unit: Unit to convert into.
    """
    return value


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Current weather in a city.

    Args:
        city: Name of the city.
        unit: Temperature unit.
    """
    return "sunny"


TOOLS = [add, multiply, convert_units, get_weather]
REQUESTS: list[tuple[str, str | None]] = [
    ("what's 17 plus 26?", "add"),
    ("How much is 1250 and 380 together?", "add"),
    ("what do I get if I multiply 12 by 45", "multiply"),
    ("How much is 7 times 13?", "multiply"),
    ("How many km is 26 miles?", "convert_units"),
    ("what's 70 kilos in pounds", "convert_units"),
    ("Is it hot in Cairo right now?", "get_weather"),
    ("What's the temperature in Boston in fahrenheit?", "get_weather"),
    ("Why do we carry the one when adding?", None),
    ("Who came up with the metric system?", None),
    ("What's the hottest place on earth?", None),
    ("thanks, that's it", None),
]


def subtract(a: float, b: float) -> float:
    """Subtract one number from another.

    Args:
        a: The number to subtract from.
        b: The number to subtract.
    """
    return a - b


def divide(a: float, b: float) -> float:
    """Divide one number by another.

    Args:
        a: The dividend.
        b: The divisor.
    """
    return a / b


def tip_amount(bill: float, percent: float) -> float:
    """The tip to leave on a bill.

    Args:
        bill: The bill's total.
        percent: The tip as a percentage of the bill.
    """
    return bill * percent / 100


def local_time(city: str) -> str:
    """The current local time in a city.

    Args:
        city: Name of the city.
    """
    return "12:00"


SECOND_TOOLS = [subtract, divide, tip_amount, local_time]
SECOND: list[tuple[str, str | None]] = [
    ("what's 340 minus 125?", "subtract"),
    ("whats 58 take away 19", "subtract"),
    ("can you divide 96 by 8 for me", "divide"),
    ("If 120 dollars is split between 4 people, how much does each pay?", "divide"),
    ("how much should I tip on a 64 dollar bill at 20 percent?", "tip_amount"),
    ("What's a 15% tip on $42?", "tip_amount"),
    ("what time is it in Tokyo right now?", "local_time"),
    ("Is it still morning in Sydney?", "local_time"),
    ("Why can't you divide by zero?", None),
    ("Who invented the pocket calculator?", None),
    ("is it rude not to tip in the US?", None),
    ("ok great, good night!", None),
]
SETS = {"first": (TOOLS, REQUESTS), "second": (SECOND_TOOLS, SECOND)}
#: Example requests for each tool above (``Tool.examples``), written like bench/tool_requests.py's
#: EXAMPLES (stop 41, by someone who saw only the tools); ``--examples`` gives them to structgen.
EXAMPLES: dict[str, list[str]] = {
    'add': [
        "Add 48 and 276",
        "what's 19.99 plus 7.50?",
        "I ran 3.2 miles yesterday and 4.5 today, how much is that total",
    ],
    'multiply': [
        "Multiply 23 by 17",
        "what's 12 times 8.5?",
        "if one ticket is $14 and I need 6 of them, how much is that",
    ],
    'convert_units': [
        "Convert 10 km to miles",
        "how many pounds is 68 kg?",
        "it says 350 F in this recipe, what's that in celsius",
    ],
    'get_weather': [
        "Get the current weather in Paris",
        "how hot is it in Phoenix right now, in fahrenheit?",
        "do I need a jacket in London rn?",
    ],
    'subtract': [
        "Subtract 45 from 120",
        "what's 1000 minus 367?",
        "I had $250 and spent $87.40, how much do I have left",
    ],
    'divide': [
        "Divide 144 by 12",
        "what's 85 divided by 4?",
        "we're splitting a $96 cab between 3 people, how much each",
    ],
    'tip_amount': [
        "Calculate the tip amount on a $64 bill at 18 percent",
        "how much should I tip on $42.50 if I want to leave 20%?",
        "dinner came to 120 bucks, what's a 15% tip",
    ],
    'local_time': [
        "What is the current local time in Tokyo?",
        "what time is it in Sydney right now?",
        "is it too late to call my brother in New York rn, what time is it there",
    ],
}



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: SmolLM2)")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout to import structgen from")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--set", choices=sorted(SETS), default="first")
    parser.add_argument("--examples", action="store_true", help="give each tool its example requests (EXAMPLES)")
    args = parser.parse_args()
    tools, requests = SETS[args.set]
    sys.path.insert(0, str(ROOT))
    from bench.bfcl import model_path

    sys.path.insert(0, str(args.source.resolve()))
    import structgen

    if args.examples:
        from structgen._tools._tool import as_tool

        tools = [as_tool(t).with_examples(EXAMPLES[as_tool(t).name]) for t in tools]
    llm = structgen.LLM(model_path(args.model), max_tokens=256, n_ctx=4096, n_threads=1, n_threads_batch=1)
    rows = []
    for text, wanted in requests:
        turn = llm.call_tools(text, tools=tools, tool_choice="auto")
        called = turn.calls[0].name if turn.calls else None
        rows.append({"request": text, "wanted": wanted, "called": called, "right": called == wanted,
                     "arguments": turn.calls[0].text if turn.calls else None, "text": (turn.text or "")[:120]})
        print(f"{'ok  ' if called == wanted else 'FAIL'} {text!r} -> {called} {rows[-1]['arguments'] or rows[-1]['text']!r}",
              flush=True)
    command = shlex.join(["python", "bench/tools_that_answer.py", *sys.argv[1:]])
    needing = [r for r in rows if r["wanted"]]
    print(f"`{command}` (structgen from {structgen.__file__}): tool needed {sum(r['right'] for r in needing)}"
          f"/{len(needing)}, none needed {sum(r['right'] for r in rows if not r['wanted'])}/{len(rows) - len(needing)}")
    if args.json:
        args.json.write_text(json.dumps({"command": command, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

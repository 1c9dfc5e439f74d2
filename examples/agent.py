"""A small agent with three tools, on the embedded default model.

Run it with ``.venv/bin/python examples/agent.py``. The model decides which tool to call and
with what arguments; structgen validates the calls, runs the tools, feeds the results back
and ends with a typed answer.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel

import structgen

INVENTORY = {"apples": 4, "pears": 12, "plums": 0}


def count_stock(item: str) -> int:
    """Count how many of an item are in stock.

    Args:
        item: The item to count.
    """
    return INVENTORY.get(item.lower().rstrip("s") + "s", 0)


async def convert_temperature(value: float, to: Literal["celsius", "fahrenheit"]) -> float:
    """Convert a temperature.

    Args:
        value: The temperature to convert.
        to: The unit to convert to.
    """
    await asyncio.sleep(0)  # an async tool: awaited by run_tools
    return round(value * 9 / 5 + 32, 1) if to == "fahrenheit" else round((value - 32) * 5 / 9, 1)


@structgen.tool(description="Add two whole numbers.")
def add(a: int, b: int) -> int:
    return a + b


class Stock(BaseModel):
    item: str
    count: int


def main() -> None:
    tools = [count_stock, convert_temperature, add]
    with structgen.LLM(max_tokens=160) as llm:
        call = llm.call_tool("How many plums are in stock?", tools)
        print("call:", call.name, call.arguments, "->", call.invoke())

        turn = llm.call_tools("Tell me a joke.", tools)
        print("words instead of a call:", turn.text)

        run = llm.run_tools("How many pears are in stock?", tools, output_type=Stock)
        print("typed answer:", run.output, "after", [c.name for c, _ in run.calls])


if __name__ == "__main__":
    main()

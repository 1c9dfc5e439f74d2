"""One LLM shared by asyncio tasks (generations are serialized safely).

Run: python examples/async_many.py
"""

from __future__ import annotations

import asyncio
from enum import Enum

from structgen import LLM


class Sentiment(str, Enum):
    positive = "positive"
    negative = "negative"
    neutral = "neutral"


REVIEWS = [
    "I loved every minute of it!",
    "Terrible service, never again.",
    "It was a movie.",
]


async def main() -> None:
    with LLM() as llm:
        labels = await asyncio.gather(
            *(llm.agenerate(Sentiment, f"What is the sentiment of this review? {r}") for r in REVIEWS)
        )
    for review, label in zip(REVIEWS, labels):
        print(f"{label.value:9} {review}")


if __name__ == "__main__":
    asyncio.run(main())

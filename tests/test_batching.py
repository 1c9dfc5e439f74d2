"""Several generations decoded together (``sequences=N``), on the real default model.

Each generation keeps its own grammar state, sampler and fast-forward; only evaluation is
shared. What is checked: generations running at once really share ``llama_decode`` calls and
each answer is valid; one generation alone on a context of several sequences writes what the
one-sequence backend writes; a stream whose caller stops pulling does not hold the others up;
a cancelled or closed stream gives its sequence back; closing waits for generations in other
threads; ``structgen extract --concurrency N`` runs in-process.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

import structgen as sg
from thread_support import in_threads

model = pytest.mark.model


class Ticket(BaseModel):
    customer: str
    product: Literal["phone", "laptop", "headphones"]
    urgent: bool


MESSAGES = [
    "Hi, this is Maria Lopez. My new phone won't turn on, I need it for work tomorrow!!",
    "Hello, Tom Becker here. I was charged twice for my laptop, please refund one.",
    "where are my headphones?? ordered 2 weeks ago. - Priya",
    "Quick question from Ahmed: does the laptop have a webcam?",
]


def prompt(message: str) -> str:
    return f"Extract the support ticket from this message.\n\n{message}"


def loaded(sequences: int | None) -> sg.LLM:
    return sg.LLM(n_ctx=1024, max_tokens=60, n_threads=1, max_retries=0, sequences=sequences)


@pytest.fixture(scope="module")
def batched() -> Iterator[sg.LLM]:
    with loaded(4) as llm:
        yield llm


@pytest.fixture(scope="module")
def alone() -> Iterator[sg.LLM]:
    with loaded(None) as llm:
        yield llm


def batcher_of(llm: sg.LLM) -> Any:
    return llm.backend._batcher  # type: ignore[attr-defined]


@model
def test_generations_at_once_share_decode_calls(batched: sg.LLM) -> None:
    batcher = batcher_of(batched)
    shared_before = batcher.shared
    tickets = in_threads(lambda m: batched.generate(Ticket, prompt(m)), MESSAGES)
    assert all(isinstance(t, Ticket) for t in tickets)
    assert batcher.shared > shared_before  # steps of several sequences in one llama_decode


@model
def test_concurrent_agenerate_calls_share_decode_calls(batched: sg.LLM) -> None:
    batcher = batcher_of(batched)
    shared_before = batcher.shared

    async def main() -> list[Ticket]:
        return list(await asyncio.gather(*(batched.agenerate(Ticket, prompt(m)) for m in MESSAGES)))

    tickets = asyncio.run(main())
    assert all(isinstance(t, Ticket) for t in tickets)
    assert batcher.shared > shared_before


@model
def test_one_generation_alone_writes_what_the_one_sequence_backend_writes(
    batched: sg.LLM, alone: sg.LLM,
) -> None:
    # Both start from empty caches: a prompt whose prefix the concurrent tests above left in
    # some sequence (where, depends on their timing) would be copied from other cells, and
    # attention summed in another order can flip a near tie.
    for llm in (batched, alone):
        for runner in llm.backend._slots.runners:  # type: ignore[attr-defined]
            runner.forget()
    for message in MESSAGES:
        one = alone.run(Ticket, prompt(message))
        other = batched.run(Ticket, prompt(message))
        assert other.text == one.text


@model
def test_a_stream_left_unread_does_not_hold_up_the_others(batched: sg.LLM) -> None:
    paused = batched.stream(Ticket, prompt(MESSAGES[0]))
    next(iter(paused))  # the first partial value: the generation is under way
    start = time.monotonic()
    tickets = in_threads(lambda m: batched.generate(Ticket, prompt(m)), MESSAGES[1:])
    assert all(isinstance(t, Ticket) for t in tickets)
    assert time.monotonic() - start < 120  # a guard against a hang, not a measurement
    values = list(paused)
    assert isinstance(values[-1], Ticket)


@model
def test_cancelled_and_closed_streams_give_their_sequence_back(batched: sg.LLM) -> None:
    for _ in range(5):  # more than the four sequences
        stream = iter(batched.stream(Ticket, prompt(MESSAGES[1])))
        next(stream)
        stream.close()

    async def cancel_one() -> None:
        async def consume() -> None:
            async for _ in batched.astream(Ticket, prompt(MESSAGES[2])):
                await asyncio.sleep(0)

        task = asyncio.ensure_future(consume())
        await asyncio.sleep(0.3)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    for _ in range(5):
        asyncio.run(cancel_one())
    tickets = in_threads(lambda m: batched.generate(Ticket, prompt(m)), MESSAGES)
    assert len(tickets) == 4


@model
def test_a_stream_stopped_mid_generation_tells_what_it_spent(batched: sg.LLM) -> None:
    """A tool turn that ends before a repeated call stops its stream (``StopGeneration``): on
    the batched backend too, the answer is the completion so far, and the sequence is free
    again."""
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    for _ in range(5):  # more than the four sequences
        turn = batched.call_tools("Look up Paris, Paris, Paris.", [lookup], tool_choice="required")
        assert turn.calls and turn.usage.sampled_tokens + turn.usage.forced_tokens > 0
    assert len(in_threads(lambda m: batched.generate(Ticket, prompt(m)), MESSAGES)) == 4


@model
def test_close_waits_for_generations_in_other_threads() -> None:
    llm = loaded(2)
    results: list[object] = []
    started = threading.Event()

    def generate() -> None:
        stream = llm.stream(Ticket, prompt(MESSAGES[0]))
        values = []
        for value in stream:
            started.set()
            values.append(value)
        results.append(values[-1])

    worker = threading.Thread(target=generate)
    worker.start()
    assert started.wait(60)
    llm.close()  # waits for the generation to end, then frees the model
    worker.join(60)
    assert len(results) == 1 and isinstance(results[0], Ticket)
    with pytest.raises(sg.BackendError, match="closed"):
        llm.generate(Ticket, prompt(MESSAGES[1]))


def test_sequences_must_be_a_positive_int(alone: sg.LLM) -> None:
    llama = alone.backend.llama  # type: ignore[attr-defined]
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="sequences"):
            sg.LlamaCppBackend(llama, sequences=bad)  # type: ignore[arg-type]


@model
def test_extract_with_concurrency_runs_in_process(tmp_path: Path) -> None:
    from test_extract import cli_env

    lines = [{"id": i, "text": message} for i, message in enumerate(MESSAGES)]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "ticket_types.py").write_text(
        "from typing import Literal\nfrom pydantic import BaseModel\n\n"
        "class Ticket(BaseModel):\n    customer: str\n"
        "    product: Literal['phone', 'laptop', 'headphones']\n    urgent: bool\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "structgen", "extract", "ticket_types:Ticket", "--input", "in.jsonl",
         "--output", "out.jsonl", "--concurrency", "3", "--threads", "1", "--max-tokens", "60"],
        cwd=tmp_path, env=cli_env(), capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "4/4 documents" in done.stderr
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in records) == [0, 1, 2, 3]
    assert all(set(r["value"]) == {"customer", "product", "urgent"} for r in records)


@model
def test_a_prompt_starts_from_the_prefix_another_sequence_holds(alone: sg.LLM) -> None:
    alone.backend._runner.forget()  # type: ignore[attr-defined]
    alone.run(Ticket, prompt(MESSAGES[0]))
    reference = alone.run(Ticket, prompt(MESSAGES[1]))  # starts from what the first call left
    llm = loaded(2)
    try:
        held = llm.stream(Ticket, prompt(MESSAGES[0]))
        next(iter(held))  # its prompt is in sequence 0 and stays there while the stream is open
        result: list[sg.Result[Ticket]] = []
        worker = threading.Thread(target=lambda: result.append(llm.run(Ticket, prompt(MESSAGES[1]))))
        worker.start()  # another thread: the other sequence, which starts empty
        worker.join(120)
        list(held)
    finally:
        llm.close()
    (other,) = result
    assert other.usage.cached_prompt_tokens == reference.usage.cached_prompt_tokens > 0
    assert other.text == reference.text

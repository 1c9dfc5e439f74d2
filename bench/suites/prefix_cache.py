"""Prompts paid once: calls of two kinds taking turns, against the same calls grouped by kind.

Two workloads, each run three ways on one model:

(1) ``types``: two output types, each with its own instructions (a system message), four inputs
    each. ``grouped`` runs A1 A2 A3 A4 B1 B2 B3 B4; ``alternating`` runs A1 B1 A2 B2 ...;
    ``alternating, no store`` runs them alternating with the store of saved prompt states
    switched off (``prompt_cache_bytes=0``: only the previous call's prefix is reused);
    ``cold`` runs every call from an empty cache and store.
(2) ``agents``: two agents with different tool lists, five rounds each. Every round adds a
    request, the agent calls a tool (``call_tools(..., tool_choice="required", policy=...)``, the
    small-model policy with ``decision="words"``: every round lists all of the agent's tools), the calls
    run and their results are fed back. Grouped: agent A's five rounds, then B's; alternating:
    A1 B1 A2 B2 ...

Every way starts from an empty cache and store. The ways take turns ``--repeat`` times (in a
rotating order) and their seconds are summed, so every ratio comes from one run. Per way:
prompt tokens, tokens reused (``usage.cached_prompt_tokens``), tokens evaluated, "missed" (the
tokens of each prompt that an earlier evaluation of this way already held, beyond what was
reused: 0 when every prompt evaluates only what no earlier one did), seconds and the ratio to
grouped; and whether every call answered as in the grouped way; the tallies go to ``--json``
(default ``bench/results/latest/prefix_cache.json``). Usage::

    python -m bench.suites.prefix_cache [--model PATH] [--repeat N] [--threads N] [--clock wall|cpu]
                                 [--only types|agents] [--copies]

``--copies`` measures instead what the two ways of keeping prefixes cost on this model: copying
a sequence's state out to host memory and back (what the backend does), against more
sequences in one context with a unified KV cache (``llama_memory_seq_cp``: no copy, but every
later evaluation attends over the cells the other sequences hold).
"""

from __future__ import annotations

import argparse
import ctypes
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness import command, model_path, results_file, write_json
from bench.policies import NamedPolicy
from structgen import LLM, Message, StructgenError
from structgen._backends.llamacpp._prefixes import shared_length  # the prefix store's own measure, measured
from tests.support.prefix_cache import (
    CONTACT_RULES, CONTACTS, TICKET_RULES, TICKETS, Contact, Ticket, book_hotel, convert_currency, find_flights,
    get_exchange_history, get_forecast, get_stock_price, get_weather, loan_payment,
)

#: The agents' policy: the small-model rules, deciding by words.
WORDS = NamedPolicy.of("small-model", decision="words")

# -- (1) two output types ---------------------------------------------------------------------


@dataclass(frozen=True)
class TypedCall:
    key: str
    output_type: Any
    rules: str
    text: str


def typed_calls() -> tuple[list[TypedCall], list[TypedCall]]:
    a = [TypedCall(f"contact{i}", Contact, CONTACT_RULES, t) for i, t in enumerate(CONTACTS, 1)]
    b = [TypedCall(f"ticket{i}", Ticket, TICKET_RULES, t) for i, t in enumerate(TICKETS, 1)]
    return a, b


def run_typed(llm: LLM, call: TypedCall) -> str:
    try:
        return llm.run(call.output_type, call.text, system=call.rules, max_tokens=160, max_retries=0).text
    except StructgenError as error:
        return f"{type(error).__name__}: {getattr(error, 'text', error)}"


# -- (2) two agents with different tools ---------------------------------------------------------


@dataclass(frozen=True)
class Agent:
    name: str
    tools: tuple[Callable[..., str], ...]
    requests: tuple[str, ...]


AGENTS = (
    Agent("travel", (get_weather, get_forecast, find_flights, book_hotel), (
        "What is the weather in Paris right now?",
        "And the forecast for the next 5 days there?",
        "Find me flights from London to Paris on 2025-06-01.",
        "Book a hotel in Paris for 3 nights for 2 guests.",
        "What is the weather in Rome, in fahrenheit?",
    )),
    Agent("finance", (convert_currency, get_stock_price, loan_payment, get_exchange_history), (
        "Convert 250 US dollars to euros.",
        "What is the stock price of Apple, AAPL?",
        "What is the monthly payment on a 200000 loan at 5 percent over 30 years?",
        "How did the Japanese yen move over the last 14 days?",
        "Convert 80 British pounds to Swiss francs.",
    )),
)


@dataclass
class Conversation:
    agent: Agent
    messages: list[Message] = field(default_factory=list)

    def round(self, llm: LLM, number: int) -> str:
        """Round ``number``: the request, the model's calls, their results. Returns the calls."""
        self.messages.append(Message("user", self.agent.requests[number]))
        try:
            # decision "words": the agent's whole tool list is offered every round ("meaning" would
            # list only the tools that fit the request, a listing that changes with every request).
            turn = llm.call_tools(self.messages, list(self.agent.tools), tool_choice="required",
                                  policy=WORDS.policy())
        except StructgenError as error:
            return f"{type(error).__name__}: {error}"
        # Ids of our own (call_tools draws random ones): every way sees the same conversation.
        ids = [f"{self.agent.name[:4]}{number}c{i:03d}" for i in range(len(turn.calls))]
        self.messages.append(Message("assistant", turn.text or "", tuple(
            {"id": id_, "type": "function", "function": {"name": call.name, "arguments": call.text}}
            for id_, call in zip(ids, turn.calls)
        )))
        for id_, call in zip(ids, turn.calls):
            self.messages.append(Message("tool", str(call.invoke()), tool_call_id=id_, name=call.name))
        return "; ".join(f"{call.name}({call.text})" for call in turn.calls)


# -- measuring -----------------------------------------------------------------------------------


@dataclass
class Tally:
    """One way's totals over the repeats."""

    prompt: int = 0
    cached: int = 0
    missed: int = 0
    primes: int = 0
    seconds: float = 0.0
    state_seconds: float = 0.0
    answers: dict[str, str] = field(default_factory=dict)


class Recorder:
    """Wraps the runner's ``prime`` to count, for every prompt, the tokens an earlier evaluation
    of the same way already held (``missed`` when they were evaluated again)."""

    def __init__(self, llm: LLM) -> None:
        self.runner = llm.backend._runner  # type: ignore[attr-defined]
        self.tally = Tally()
        self.seen: list[list[int]] = []
        original = self.runner.prime

        def prime(prompt: list[int]) -> int:
            self.seen.append(list(self.runner.tokens))  # what the last evaluation left
            known = min(max((shared_length(prompt, s) for s in self.seen), default=0), len(prompt) - 1)
            reused: int = original(prompt)
            self.seen.append(list(prompt))
            self.tally.prompt += len(prompt)
            self.tally.cached += reused
            self.tally.missed += max(known - reused, 0)
            self.tally.primes += 1
            return reused

        self.runner.prime = prime

    def start(self, tally: Tally, store: bool, budget: int) -> None:
        """A way begins: empty cache and store (and the store on or off)."""
        self.runner.forget()
        self.runner.saved.budget = budget if store else 0
        self.seen = []
        self.tally = tally


def measure(llm: LLM, recorder: Recorder, ways: dict[str, tuple[bool, Callable[[], dict[str, str]]]],
            repeat: int, clock: Callable[[], float]) -> dict[str, Tally]:
    budget = recorder.runner.saved.budget
    tallies = {name: Tally() for name in ways}
    names = list(ways)
    for r in range(repeat):
        for name in names[r % len(names):] + names[: r % len(names)]:
            store, work = ways[name]
            tally = tallies[name]
            recorder.start(tally, store, budget)
            state_before = recorder.runner.state_seconds
            start = clock()
            tally.answers = work()
            tally.seconds += clock() - start
            tally.state_seconds += recorder.runner.state_seconds - state_before
    recorder.runner.saved.budget = budget
    return tallies


def report(title: str, tallies: dict[str, Tally]) -> None:
    print(f"\n{title}")
    print(f"{'way':24} {'prompts':>7} {'prompt tok':>10} {'reused':>7} {'evaluated':>9} {'missed':>6}"
          f" {'seconds':>8} {'copies s':>8} {'ratio':>6}  same answers")
    first = next(iter(tallies.values()))
    for name, t in tallies.items():
        same = "yes" if t.answers == first.answers else "NO: " + ", ".join(
            k for k in first.answers if t.answers.get(k) != first.answers[k])
        print(f"{name:24} {t.primes:7} {t.prompt:10} {t.cached:7} {t.prompt - t.cached:9} {t.missed:6}"
              f" {t.seconds:8.2f} {t.state_seconds:8.3f} {t.seconds / first.seconds:6.3f}  {same}")


def typed_ways(llm: LLM) -> dict[str, tuple[bool, Callable[[], dict[str, str]]]]:
    a, b = typed_calls()
    alternating = [call for pair in zip(a, b) for call in pair]

    def work(calls: Sequence[TypedCall]) -> Callable[[], dict[str, str]]:
        return lambda: {call.key: run_typed(llm, call) for call in calls}

    def cold() -> dict[str, str]:
        answers = {}
        for call in alternating:
            llm.backend._runner.forget()  # type: ignore[attr-defined]
            answers[call.key] = run_typed(llm, call)
        return answers

    return {
        "grouped": (True, work(a + b)),
        "alternating": (True, work(alternating)),
        "alternating, no store": (False, work(alternating)),
        "cold (every call)": (False, cold),
    }


def agent_ways(llm: LLM) -> dict[str, tuple[bool, Callable[[], dict[str, str]]]]:
    rounds = len(AGENTS[0].requests)

    def grouped() -> dict[str, str]:
        answers = {}
        for agent in AGENTS:
            conversation = Conversation(agent)
            for n in range(rounds):
                answers[f"{agent.name}{n + 1}"] = conversation.round(llm, n)
        return answers

    def alternating() -> dict[str, str]:
        conversations = [Conversation(agent) for agent in AGENTS]
        answers = {}
        for n in range(rounds):
            for conversation in conversations:
                answers[f"{conversation.agent.name}{n + 1}"] = conversation.round(llm, n)
        return answers

    return {
        "grouped": (True, grouped),
        "alternating": (True, alternating),
        "alternating, no store": (False, alternating),
    }


def copies(llm: LLM, repeat: int) -> None:
    """Milliseconds: a state copied out and back, a prompt evaluated, and a token evaluated
    with other sequences' prefixes sharing the context or not."""
    import llama_cpp as lib

    from structgen._backends.llamacpp._runner import ModelRunner

    backend: Any = llm.backend
    runner, tables = backend._runner, backend.tables
    prompt = tables.tokenize(" ".join([CONTACT_RULES, TICKET_RULES] * 3))[:600]
    timed = Timer(repeat)
    runner.forget()
    print(f"prompt of {len(prompt)} tokens: evaluated {timed(lambda: (runner.forget(), runner.prime(prompt))):.1f} ms")
    size = lib.llama_state_seq_get_size(runner.ctx, 0)
    data = (ctypes.c_uint8 * size)()
    save = timed(lambda: lib.llama_state_seq_get_data(runner.ctx, data, size, 0))
    restore = timed(lambda: lib.llama_state_seq_set_data(runner.ctx, data, size, 0))
    print(f"its state, {size / 2**20:.1f} MiB: copied out {save:.2f} ms, back {restore:.2f} ms")
    print(f"one token after it, one sequence: {timed(lambda: one_token(runner, prompt)):.2f} ms")

    params = lib.llama_context_default_params()
    params.n_ctx, params.n_batch, params.n_ubatch = runner.n_ctx, runner.n_batch, runner.n_batch
    params.n_seq_max, params.kv_unified = 4, True
    params.n_threads, params.n_threads_batch = backend.llama.n_threads, backend.llama.n_threads_batch
    ctx = lib.llama_init_from_model(backend.llama.model, params)
    shared = ModelRunner(lib, ctx, runner.n_vocab, runner.n_ctx, runner.n_batch, 0)
    try:
        for seq in (1, 2, 3):  # three other prefixes, in cells of their own
            shared.truncate(0)
            shared.prime(prompt)
            lib.llama_memory_seq_cp(shared.memory, 0, seq, -1, -1)
        shared.truncate(0)
        shared.prime(prompt)
        lib.llama_memory_seq_cp(shared.memory, 0, 1, -1, -1)
        print(f"seq_rm + seq_cp of its {len(prompt)} tokens: {timed(lambda: recopy(lib, shared, len(prompt))):.2f} ms")
        print(f"one token after it, 3 other prefixes in the context: {timed(lambda: one_token(shared, prompt)):.2f} ms")
        for seq in (1, 2, 3):
            lib.llama_memory_seq_rm(shared.memory, seq, -1, -1)
        print(f"one token after it, the others removed: {timed(lambda: one_token(shared, prompt)):.2f} ms")
    finally:
        shared.close()
        lib.llama_free(ctx)


class Timer:
    """Median milliseconds of ``repeat`` runs of a function."""

    def __init__(self, repeat: int) -> None:
        self.repeat = max(repeat, 3)

    def __call__(self, work: Callable[[], object]) -> float:
        times = []
        for _ in range(self.repeat):
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
        return sorted(times)[len(times) // 2] * 1000


def one_token(runner: Any, prompt: list[int]) -> None:
    runner.decode([prompt[1]])
    runner.truncate(len(prompt))


def recopy(lib: Any, runner: Any, length: int) -> None:
    lib.llama_memory_seq_rm(runner.memory, 0, -1, -1)
    lib.llama_memory_seq_cp(runner.memory, 1, 0, -1, length)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None,
                        help="gemma, or a GGUF file (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: this process's CPU time (with --threads 1, the work done, "
                             "whatever else the machine runs)")
    parser.add_argument("--only", choices=("types", "agents"), default=None)
    parser.add_argument("--show", action="store_true", help="print the answers")
    parser.add_argument("--copies", action="store_true", help="time the ways of keeping prefixes")
    parser.add_argument("--json", type=Path, default=None,
                        help="write each way's tallies here (default: bench/results/latest/prefix_cache.json)")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    threads = {} if args.threads is None else {"n_threads": args.threads, "n_threads_batch": args.threads}
    llm = LLM(model_path(args.model), n_ctx=4096, max_retries=0, **threads)
    llama = llm.backend.llama  # type: ignore[attr-defined]
    print(f"model: {Path(llama.model_path).name}; store budget {llm.backend._runner.saved.budget >> 20} MiB")  # type: ignore[attr-defined]
    llm.run(int, "Extract the year: 'The war ended in 1945.'", max_tokens=8)  # page the weights in
    if args.copies:
        copies(llm, args.repeat)
        return
    recorder = Recorder(llm)
    measured: dict[str, dict[str, Any]] = {}
    for name, ways in (("types", typed_ways), ("agents", agent_ways)):
        if args.only not in (None, name):
            continue
        tallies = measure(llm, recorder, ways(llm), args.repeat, clock)
        report(f"({name}) {args.repeat} repeats, {args.clock} clock", tallies)
        measured[name] = {way: vars(t) for way, t in tallies.items()}
        if args.show:
            for key, answer in next(iter(tallies.values())).answers.items():
                print(f"    {key}: {answer[:200]}")
    write_json(results_file(args.json, "prefix_cache"), {
        "command": command("prefix_cache"), "model": Path(llama.model_path).name, "repeat": args.repeat,
        "clock": args.clock, "workloads": measured})
    llm.close()


if __name__ == "__main__":
    main()

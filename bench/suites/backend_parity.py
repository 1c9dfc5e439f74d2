"""One behaviour per model, whatever the backend: the same calls through ``LlamaServerBackend``
and ``OpenAICompatibleBackend`` on one llama-server, or through ``LlamaServerBackend`` and the
in-process backend on the same model (``--against in-process``), case by case (issue #61).

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

With ``--against in-process`` the second pass runs in this process after the server has
stopped (one model at a time): ``structgen.LLM(path, n_threads=1, n_threads_batch=1, n_ctx=...)``
with no prompt store (``prompt_cache_bytes=0``) and a one-token score of another text before
each case, the in-process counterpart of the server's settings (``--server-cache``: the default
store, nothing between cases). Each backend runs behind a recorder of its requests, the prompts
it renders and the tokens it samples (the server is asked for two log-probabilities a token,
``n_probs``, which its times include), and every case that differs is diagnosed
(``bench.suites.parity_diagnosis``): the prompt both rendered, the grammar and request both were
asked, and where the answers part, what the in-process model writes after the server's tokens.
The cause is ``request``, ``prompt``, ``numerics (near tie, margin X)``, ``tokens`` (the same text
in other tokens before) or ``unexplained``, in the results and the report.

Greedy, the library's defaults otherwise (policy ``auto``, ``--max-tokens``). A case differs
when the calls (names and arguments, in order), the text of a reply in words, the typed
answer's text or the error differ; each backend's tool policy is reported. Times are wall
seconds per case. Prints the command, the counts and every difference; writes every case to
``--json`` (default ``bench/results/latest/backend_parity.json``). Usage::

    python -m bench.suites.backend_parity [--model qwen0.5b|PATH] [--bfcl 3] [--requests 12] [--typed 11]
                                          [--against openai|in-process] [--max-tokens 256] [--timeout 300]
                                          [--control] [--server-cache] [--json OUT] [--show]
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
from bench.suites.parity_diagnosis import diagnose, explained
from bench.suites.parity_recording import Recorder, ServerTokens, in_process_backend, served_prompt
from bench.suites.quality import OWN_TASKS
from tests.server_support import running_server
from tests.support.bfcl import bfcl_tool
from tests.support.tool_requests import TEST, TOOLS

SERVER = "llama-server"
#: What ``LlamaServerBackend`` is compared with (``--against``), and how the report names each.
AGAINST = ("openai", "in-process")
NAMES = {SERVER: "LlamaServerBackend", "openai": "OpenAICompatibleBackend", "in-process": "in process"}
CONTROL = "llama-server-again"


def _backends(url: str, timeout: float, against: str, control: bool) -> dict[str, Any]:
    """The server's backends; against the in-process backend, ``LlamaServerBackend`` behind a
    recorder of its requests, prompts and tokens (the in-process pass comes after the server has
    stopped)."""
    import structgen

    if against == "in-process":
        tokens = ServerTokens()
        server = structgen.LlamaServerBackend(url, timeout=timeout, transport=tokens)
        backends: dict[str, Any] = {
            SERVER: Recorder(server, lambda request: served_prompt(url, request, timeout), tokens.fill)}
    else:
        backends = {SERVER: structgen.LlamaServerBackend(url, timeout=timeout),
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
        against: str = "openai", control: bool = False, flush: bool = True) -> dict[str, Any]:
    """Every sample through the server's backends, one pass a backend; against the in-process
    backend, :func:`run_in_process` adds its pass and compares."""
    import structgen

    backends = _backends(url, bounds.timeout, against, control)
    llms = {name: structgen.LLM.from_backend(b, max_tokens=bounds.max_tokens) for name, b in backends.items()}
    out: dict[str, Any] = {"against": against,
                           "policies": {name: llm.tool_policy for name, llm in llms.items()},
                           "samples": {sample: [{"id": key} for key, _ in items] for sample, items in chosen.items()}}
    if against == "openai":  # (getattr: an older structgen, measured before the change, has none)
        out["template_source"] = getattr(backends["openai"], "template_source", "none (not read)")
    for llm in llms.values():
        _warm_up(llm)
    for sample, items in chosen.items():
        for name, llm in llms.items():
            _pass(out["samples"][sample], name, llm, sample, items, show, (lambda: _flush(url)) if flush else None)
        if against == "openai":
            _compare(out["samples"][sample], "openai", control)
    for llm in llms.values():
        llm.close()
    return out


def run_in_process(out: dict[str, Any], path: str, chosen: dict[str, list[tuple[str, Any]]], bounds: Bounds,
                   show: bool, *, control: bool = False, flush: bool = True) -> None:
    """The in-process pass over every sample (after the server's), then each case compared
    and every difference diagnosed on the in-process model."""
    import llama_cpp
    import structgen
    from structgen.backends import ScoreRequest

    model = in_process_backend(path, bounds.n_ctx, cache=not flush)
    backend = model.backend
    llm = structgen.LLM.from_backend(Recorder(backend, model.render, model.fill), max_tokens=bounds.max_tokens)
    out["policies"]["in-process"] = llm.tool_policy
    out["in_process"] = {"llama_cpp_python": llama_cpp.__version__, "settings": dict(backend.settings)}

    def cold() -> None:  # the server's one-token completion of another text, in process
        backend.score(ScoreRequest("Flush.", (" Done.",)))

    _warm_up(llm)
    for sample, items in chosen.items():
        _pass(out["samples"][sample], "in-process", llm, sample, items, show, cold if flush else None)
    for sample, rows in out["samples"].items():
        _compare(rows, "in-process", control)
        for row in rows:
            if not row["same"]:
                row["diagnosis"] = diagnose(row["in-process"]["steps"], row[SERVER]["steps"], model)
                if show:
                    print(f"  {sample:8} {row['id'][:40]:40} {row['diagnosis']['cause']}", file=sys.stderr, flush=True)
            for name in (SERVER, "in-process"):
                row[name]["steps"] = [step.summary() for step in row[name]["steps"]]
    llm.close()


def _warm_up(llm: Any) -> None:
    """The embedding model and the backend's first request: before any case."""
    _tool_case(llm, [{"role": "user", "content": "Weather in Paris?"}], [bfcl_tool(WARM_UP_TOOL)])
    if isinstance(llm.backend, Recorder):
        llm.backend.taken()


def _pass(rows: list[dict[str, Any]], name: str, llm: Any, sample: str, items: list[tuple[str, Any]], show: bool,
          flush: Callable[[], None] | None) -> None:
    """Each case of one sample through ``llm``, its answer put in its row under ``name`` (with
    the recorded steps, behind a :class:`Recorder`)."""
    for row, (key, item) in zip(rows, items):
        if flush is not None:
            flush()
        answer = _typed_case(llm, item) if sample == "typed" else _tool_case(llm, *item)
        if isinstance(llm.backend, Recorder):
            answer["steps"] = llm.backend.taken()
        row[name] = answer
        if show:
            shown = answer.get("calls") or answer.get("text") or answer.get("error")
            print(f"  {sample:8} {name:12} {answer['seconds']:6.2f}s {key[:40]:40} {str(shown)[:70]}",
                  file=sys.stderr, flush=True)


def _compare(rows: list[dict[str, Any]], against: str, control: bool) -> None:
    for row in rows:
        row["same"] = _same(row[SERVER], row[against])
        if control:
            row["same_again"] = _same(row[SERVER], row[CONTROL])


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("calls", "text", "error")
    return all(a.get(k) == b.get(k) for k in keys)


def report(result: dict[str, Any]) -> str:
    against = result.get("against", "openai")
    pair = (SERVER, against)
    lines = [f"| sample | cases | differences | differences, LlamaServerBackend again | "
             f"LlamaServerBackend s (total / median) | {NAMES[against]} s (total / median) | "
             "time ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    every: dict[str, list[float]] = {name: [] for name in pair}
    differ = control_differ = 0
    controlled = any("same_again" in r for rows in result["samples"].values() for r in rows)
    for sample, rows in result["samples"].items():
        if not rows:
            continue
        times = {name: [r[name]["seconds"] for r in rows] for name in pair}
        for name in pair:
            every[name] += times[name]
        n_diff = sum(not r["same"] for r in rows)
        differ += n_diff
        again = sum(not r.get("same_again", True) for r in rows)
        control_differ += again
        lines.append(f"| {sample} | {len(rows)} | {n_diff} | {again if controlled else '—'} | "
                     f"{_times(times[SERVER])} | {_times(times[against])} | "
                     f"{sum(times[against]) / sum(times[SERVER]):.2f} |")
    total = sum(len(r) for r in result["samples"].values())
    lines.append(f"| all | {total} | {differ} | {control_differ if controlled else '—'} | "
                 f"{_times(every[SERVER])} | {_times(every[against])} | "
                 f"{sum(every[against]) / sum(every[SERVER]):.2f} |")
    lines.append("")
    template = (f"; OpenAICompatibleBackend's template: {result['template_source']}"
                if "template_source" in result else "")
    lines.append(f"Tool policy: {result['policies']}{template}.")
    if against == "in-process":
        lines.append(_alike(result))
    causes: dict[str, int] = {}
    for sample, rows in result["samples"].items():
        for row in rows:
            if not row["same"]:
                lines.append(f"- {sample} {row['id']}: llama-server {_shown(row[SERVER])} | "
                             f"{against} {_shown(row[against])}")
                if "diagnosis" in row:
                    kind = row["diagnosis"]["kind"]
                    causes[kind] = causes.get(kind, 0) + 1
                    lines.append(f"  - {explained(row['diagnosis'])}")
            if not row.get("same_again", True):
                lines.append(f"- {sample} {row['id']} (LlamaServerBackend twice): {_shown(row[SERVER])} | "
                             f"again {_shown(row[CONTROL])}")
    if causes:
        lines.append("")
        lines.append("Causes: " + ", ".join(f"{cause}: {n}" for cause, n in sorted(causes.items())) + ".")
    return "\n".join(lines)


def _alike(result: dict[str, Any]) -> str:
    """How many of the completion requests both backends were asked in the same place of a case
    were the same request (grammar included) and rendered to the same prompt text."""
    pairs = [(a, b) for rows in result["samples"].values() for row in rows
             for a, b in zip(row["in-process"]["steps"], row[SERVER]["steps"]) if a["kind"] == "complete" == b["kind"]]
    requests = sum(a["request"] == b["request"] for a, b in pairs)
    prompts = sum(a["prompt"] == b["prompt"] for a, b in pairs)
    return (f"Completion requests asked in the same place of a case: {len(pairs)}; the same request (grammar "
            f"included): {requests}; rendered to byte-identical prompts: {prompts}.")


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
    parser.add_argument("--against", choices=AGAINST, default="openai",
                        help="what LlamaServerBackend is compared with: OpenAICompatibleBackend on the same server, "
                             "or the in-process backend on the same model (each difference diagnosed)")
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
    path = model_path(args.model)
    started = time.perf_counter()
    with running_server(*options, model=path) as (url, _):
        result = run(url, chosen, bounds, args.show, against=args.against, control=args.control,
                     flush=not args.server_cache)
    if args.against == "in-process":
        run_in_process(result, path, chosen, bounds, args.show, control=args.control, flush=not args.server_cache)
    result["command"] = command("backend_parity")
    result["model"] = args.model
    result["server"] = {"version": server_version(binary), "options": ["-t", "1", *options]}
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    write_json(results_file(args.json, "backend_parity"), result)
    print(f"`{result['command']}`\n")
    print(report(result))


if __name__ == "__main__":
    main()

"""Does a prompt rendered here read as llama-server renders it? For each chat template of
llama.cpp's ``models/templates`` (``STRUCTGEN_CHAT_TEMPLATES``), one llama-server is started with
it (``--jinja --chat-template-file T`` on ``--model``'s weights: only its vocabulary's special
tokens matter) and a few conversations are rendered both ways: by llama-server's own
``/apply-template`` (llama.cpp's minja, what ``LlamaServerBackend`` sends) and by
llama-cpp-python's ``Jinja2ChatFormatter`` with the server's BOS and EOS texts (what the
in-process backend and ``OpenAICompatibleBackend`` on llama-server send).

Conversations: a user message; a system and a user message; the same with two tools; a call
and its result after a user message, with the tools. Reported per template: how many render
the same, differently (where the texts first part), or fail on one side only. Usage::

    python -m bench.experiments.template_rendering [--model qwen0.5b|PATH] [--json OUT] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bench.harness import command, model_path, results_file, write_json
from tests.server_support import running_server
from tests.support.models import chat_templates

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Get the weather in a city.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                     "required": ["city"]}}},
    {"type": "function", "function": {"name": "get_time", "description": "Get the time in a timezone.",
                                      "parameters": {"type": "object",
                                                     "properties": {"timezone": {"type": "string"}},
                                                     "required": ["timezone"]}}},
]
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
CONVERSATIONS: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "user": ([{"role": "user", "content": "Hi <there> & 'you'"}], []),
    "system": ([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 2 + 2?"}], []),
    "tools": ([{"role": "system", "content": "Be brief."},
               {"role": "user", "content": "What's the weather in Paris?"}], TOOLS),
    "call": ([{"role": "user", "content": "What's the weather in Paris?"},
              {"role": "assistant", "content": "", "tool_calls": [CALL]},
              {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "sunny, 21 C"}], TOOLS),
}


def compare(url: str) -> dict[str, Any]:
    import httpx
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    props = httpx.get(url + "/props", timeout=30).json()
    formatter: Any = Jinja2ChatFormatter(props["chat_template"], props.get("eos_token") or "",
                                         props.get("bos_token") or "", add_generation_prompt=True)
    out: dict[str, Any] = {}
    for name, (messages, tools) in CONVERSATIONS.items():
        body: dict[str, Any] = {"messages": messages, **({"tools": tools} if tools else {})}
        reply = httpx.post(url + "/apply-template", json=body, timeout=60)
        served = reply.json().get("prompt") if reply.status_code == 200 else None
        try:
            here: str | None = str(formatter(messages=messages, tools=tools or None).prompt)
            error = ""
        except Exception as e:  # the template raised (raise_exception), or jinja2 cannot run it
            here, error = None, f"{type(e).__name__}: {str(e)[:120]}"
        if served is None and here is None:
            out[name] = {"verdict": "both fail"}
        elif served is None:
            out[name] = {"verdict": "server fails", "detail": reply.text[:160]}
        elif here is None:
            out[name] = {"verdict": "here fails", "detail": error}
        elif served == here:
            out[name] = {"verdict": "same"}
        else:
            at = next((i for i, (a, b) in enumerate(zip(served, here)) if a != b), min(len(served), len(here)))
            out[name] = {"verdict": "differ", "server": served[max(0, at - 40):at + 60],
                         "here": here[max(0, at - 40):at + 60]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen0.5b")
    parser.add_argument("--json", default=None)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    path = model_path(args.model)
    results: dict[str, Any] = {}
    for template in sorted(chat_templates().glob("*.jinja")):
        if args.only and template.stem not in args.only:
            continue
        try:
            with running_server("--jinja", "--chat-template-file", str(template), "-c", "512", "-np", "1",
                                model=path) as (url, _):
                results[template.name] = compare(url)
        except RuntimeError as error:  # the server refuses the template
            results[template.name] = {"server": {"verdict": "server refuses the template", "detail": str(error)[-200:]}}
        verdicts = [v["verdict"] for v in results[template.name].values()]
        print(f"{template.name:60} {' '.join(verdicts)}", file=sys.stderr, flush=True)
    counts: dict[str, int] = {}
    for rendered in results.values():
        for v in rendered.values():
            counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
    same_templates = sum(all(v["verdict"] == "same" for v in r.values()) for r in results.values())
    out = {"command": command("template_rendering").replace("bench.suites", "bench.experiments"),
           "templates": len(results), "templates_all_same": same_templates, "renders": counts, "results": results}
    write_json(results_file(args.json, "template_rendering"), out)
    print(json.dumps({k: out[k] for k in ("command", "templates", "templates_all_same", "renders")}, indent=1))
    for name, rendered in results.items():
        for conversation, v in rendered.items():
            if v["verdict"] != "same":
                print(f"- {name} / {conversation}: {v['verdict']} {json.dumps({k: v[k] for k in v if k != 'verdict'})[:300]}")


if __name__ == "__main__":
    main()


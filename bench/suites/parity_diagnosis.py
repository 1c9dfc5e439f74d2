"""Why a case of ``backend_parity --against in-process`` answers differently in process and on
llama-server (not a suite: the diagnosis that suite runs on each case that differs, from what
``parity_recording`` kept of both runs).

:func:`diagnose` walks the two runs of one case side by side to the first step where they part:

- ``request``: the backends were asked different things (another grammar, other messages or
  tools), which can only follow from an earlier step: the scores the tool gate read, whose
  per-token log-likelihoods are shown side by side;
- ``prompt``: the same request rendered to different prompt texts (the in-process Jinja
  rendering against the server's ``/apply-template``): the first differing character, in context;
- otherwise the same prompt and grammar gave different answers. Their tokens (as each backend
  sampled them; as the tokenizer splits the texts where not recorded) are followed to where they
  first differ, and the in-process model is asked what it writes after the prompt and the
  server's tokens (:func:`parting`):
  - ``numerics (near tie, margin X)``: there the two chose other text, after the same tokens, and
    the in-process model finds the two tokens within ``NEAR_TIE`` nats (X: in-process token less
    server token), or the server's token is its runner-up;
  - ``tokens``: there the two spelled the same text in other tokens (the in-process backend
    fast-forwards text the grammar forces, split as the tokenizer splits it, special tokens such
    as ``<tool_call>`` included; llama-server samples it token by token, at each the most likely
    token the grammar allows, which need not be the tokenizer's split), and where the server's
    text later leaves the in-process one, the in-process model, given the server's tokens,
    writes the server's token too;
  - ``unexplained``: anything else, with what was measured.

The margin is read from the raw logits, before the grammar: greedy decoding under a grammar takes
the most likely token the grammar allows, and both tokens were allowed (each backend's grammar
sampler accepted its own), so what decides between them is their raw log-probabilities. The raw
top two are reported too: the grammar can refuse a third token that the model ranks higher.
Each margin is read in two layouts: ``stepwise`` as the in-process backend decodes (the prompt
but its last token in batches, then every token alone) and ``batched`` (all in batches, as a
server evaluates a prompt); the server's own top two come with its tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from bench.suites.parity_recording import Model, Step, digest
from structgen.backends import CompletionRequest, ScoreRequest

#: Below this margin (nats) between two tokens, llama.cpp's numbers in other batch and thread
#: layouts can put either first.
NEAR_TIE = 0.1

#: Characters shown on each side of where two texts part.
CONTEXT = 60

LAYOUTS = ("stepwise", "batched")


def first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    """The first index where ``a`` and ``b`` differ (the shorter one's length when it is a
    prefix of the other); None when they are equal."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def departure(pieces: Sequence[bytes], text: bytes) -> int | None:
    """The index of the first piece after which ``pieces`` no longer spell a beginning of
    ``text``; None when all of them do."""
    spelled = b""
    for i, piece in enumerate(pieces):
        spelled += piece
        if not text.startswith(spelled):
            return i
    return None


def shown_difference(ours: str, theirs: str, at: int, context: int = CONTEXT) -> dict[str, Any]:
    """Where two texts part: the position and each side's text around it."""
    start = max(0, at - context)
    return {"at": at, "ours": ours[start:at + context], "theirs": theirs[start:at + context]}


def differing_fields(a: CompletionRequest | ScoreRequest, b: CompletionRequest | ScoreRequest) -> list[str]:
    """The names of the fields two requests differ in (``kind`` for a completion against a score)."""
    if type(a) is not type(b):
        return ["kind"]
    return [f.name for f in fields(a) if getattr(a, f.name) != getattr(b, f.name)]


def is_near_tie(margin: float, runner_up: bool) -> bool:
    """Whether a margin between two tokens is one that batch and thread numerics can turn."""
    return abs(margin) < NEAR_TIE or runner_up


def token_choice(model: Model, prompt: list[int], prefix: list[int], ours: int, theirs: int,
                 layout: str) -> dict[str, Any]:
    """The in-process model's log-probabilities (raw logits, before any grammar) of ``ours`` and
    ``theirs`` right after ``prompt`` + ``prefix``, evaluated in ``layout`` (:data:`LAYOUTS`), and
    its top two tokens there."""
    import llama_cpp
    import numpy as np

    from bench.harness import cold_cache

    llama = model.llama
    cold_cache(llama)  # the in-process backend then finds Llama.n_tokens != 0 and forgets its cache
    if layout == "stepwise":
        llama.eval(prompt[:-1])
        for token in [prompt[-1], *prefix]:
            llama.eval([token])
    else:
        llama.eval([*prompt, *prefix])
    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llama.ctx, -1), shape=(llama.n_vocab(),))
    logits = logits.astype(np.float64)
    top = float(logits.max())
    logprobs = logits - (top + math.log(float(np.exp(logits - top).sum())))
    order = [int(t) for t in np.argsort(-logprobs)[:2]]

    def shown(token: int) -> dict[str, Any]:
        return {"token": token, "piece": model.piece(token), "logprob": round(float(logprobs[token]), 4),
                "rank": int((logprobs > logprobs[token]).sum()) + 1}

    return {"layout": layout, "ours": shown(ours), "theirs": shown(theirs),
            "margin": round(float(logprobs[ours] - logprobs[theirs]), 4), "top2": [shown(t) for t in order]}


def spells_alike(ours: bytes, theirs: bytes, our_rest: bytes, their_rest: bytes) -> bool:
    """Whether two different tokens at one position (their pieces ``ours`` and ``theirs``) both
    begin both answers' rest of text: the same text split into other tokens, not a choice."""
    return bool(ours) and bool(theirs) and their_rest.startswith(ours) and our_rest.startswith(theirs)


def parting(model: Model, ours: Step, theirs: Step) -> dict[str, Any]:
    """Where two completions of the same prompt and grammar part, and what the in-process model
    writes there after the server's tokens (:func:`token_choice`, in each layout).

    Where the tokens first differ, either the two chose other text (then both had the same
    tokens before), or they spelled the same text in other tokens (``split``): then the token
    where the server's text leaves the in-process one is read, after the server's tokens."""
    assert ours.prompt is not None
    text, other_text = ours.text.encode(), theirs.text.encode()
    recorded = ours.tokens is not None and theirs.tokens is not None
    mine = _spelling(model, ours.tokens, text) if recorded else model.tokens(text)
    other = _spelling(model, theirs.tokens, other_text) if recorded else model.tokens(other_text)
    split = first_difference(mine, other)
    if split is None:
        return {"detail": f"the same tokens, another finish ({ours.finish} / {theirs.finish})"}
    offset = len(model.text(mine[:split]))
    ours_token = mine[split] if split < len(mine) else model.end
    theirs_token = other[split] if split < len(other) else model.end
    at = split
    alike = model.end not in (ours_token, theirs_token) and spells_alike(
        model.text([ours_token]), model.text([theirs_token]), text[offset:], other_text[offset:])
    if alike:
        pieces = [model.text([t]) for t in other]
        leaves = departure(pieces, text)
        at = len(other) if leaves is None else leaves  # the server's token that leaves our text (or its end)
        theirs_token = other[at] if at < len(other) else model.end
        offset = len(b"".join(pieces[:at]))
        ours_token = (model.tokens(text[offset:]) or [model.end])[0]  # our text from there, as the tokenizer splits it
    prompt = model.encode(ours.prompt)
    found: dict[str, Any] = {
        "tokens": "as sampled" if recorded else "as the tokenizer splits the texts",
        "token": at, "prompt_tokens": len(prompt), "after": text[:offset].decode("utf-8", "replace")[-CONTEXT:],
        "same_tokens_before": not alike,
        "choices": [token_choice(model, prompt, other[:at], ours_token, theirs_token, layout) for layout in LAYOUTS],
    }
    if alike:
        found["split"] = {"token": split, "in-process": [model.piece(t) for t in mine[split:split + 4]],
                          "llama-server": [model.piece(t) for t in other[split:split + 4]]}
        own = next((k for k in range(split, len(mine) + 1) if len(model.text(mine[:k])) >= offset), None)
        if own is not None and len(model.text(mine[:own])) == offset:  # the same place, on our own tokens
            mine_next = mine[own] if own < len(mine) else model.end
            found["own_tokens"] = token_choice(model, prompt, mine[:own], mine_next, theirs_token, LAYOUTS[0])
    if theirs.reported is not None and at < len(theirs.reported):
        found["server"] = [{"piece": t.get("token"), "logprob": round(float(t["logprob"]), 4)}
                           for t in theirs.reported[at].get("top_logprobs", [])]
    return found


def _spelling(model: Model, tokens: list[int] | None, text: bytes) -> list[int]:
    """A backend's tokens of ``text``, the rest of the text (a last token not evaluated) as the
    tokenizer splits it."""
    tokens = list(tokens or [])
    spelled = model.text(tokens)
    if text.startswith(spelled) and len(spelled) < len(text):
        tokens += model.tokens(text[len(spelled):])
    return tokens


def diagnose(ours: Sequence[Step], theirs: Sequence[Step], model: Model) -> dict[str, Any]:
    """Why two runs of one case (in process: ``ours``; on the server: ``theirs``) part, at the
    first step where they do: ``kind`` (request, prompt, numerics, tokens or unexplained),
    ``cause`` (the kind, with the margin for numerics) and what shows it."""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        where: dict[str, Any] = {"step": i, "step_kind": a.kind, "steps": [len(ours), len(theirs)]}
        if isinstance(a.request, CompletionRequest) and isinstance(b.request, CompletionRequest):
            where["gbnf"] = {"in-process": digest(a.request.gbnf), "llama-server": digest(b.request.gbnf)}
        if a.kind != b.kind or a.request != b.request:
            return _found("request", **where, fields=differing_fields(a.request, b.request),
                          scores_before=_scores_before(ours[:i], theirs[:i]),
                          detail=_request_detail(a, b, ours[:i], theirs[:i]))
        if not isinstance(a.request, CompletionRequest):
            continue  # scores: their numbers always differ a little; what they decide shows in the next request
        assert a.prompt is not None and b.prompt is not None
        if a.prompt != b.prompt:
            at = first_difference(a.prompt, b.prompt) or 0
            return _found("prompt", **where, prompt=shown_difference(a.prompt, b.prompt, at))
        if not a.answers_as(b):
            if a.request.reasoning is not None:
                return _found("unexplained", **where, detail="the answers part after a reasoning section (not read)")
            return {**where, "prompt": "byte-identical", "request": "identical",
                    **_cause(a.request, a.finish, parting(model, a, b))}
    detail = ("every step both ran is the same; one backend ran more steps" if len(ours) != len(theirs)
              else "every request and answer is the same")
    return _found("unexplained", steps=[len(ours), len(theirs)], detail=detail)


def _found(kind: str, cause: str | None = None, **shown: Any) -> dict[str, Any]:
    return {"kind": kind, "cause": cause or kind, **shown}


def _cause(request: CompletionRequest, finish: str, found: dict[str, Any]) -> dict[str, Any]:
    """The kind of an answer difference from what :func:`parting` measured (module doc)."""
    if "choices" not in found:
        return _found("unexplained", numerics=found)
    stepwise = found["choices"][0]
    if found["same_tokens_before"]:
        if any(is_near_tie(c["margin"], c["theirs"]["rank"] == 2) for c in found["choices"]):
            return _found("numerics", f"numerics (near tie, margin {stepwise['margin']:.3f})", numerics=found)
    elif stepwise["margin"] < 0:  # after the server's tokens, the in-process model writes the server's text
        return _found("tokens", numerics=found)
    notes = []
    if not found["same_tokens_before"]:
        notes.append("the two had other tokens before (see split)")
    if request.choices:
        notes.append("the request names choices: in process a whole value is chosen by its likelihood, "
                     "the server decodes it token by token")
    if finish == "repeat":
        notes.append("the in-process loop guard ended a repeat")
    return _found("unexplained", numerics=found, notes=notes)


def _scores_before(ours: Sequence[Step], theirs: Sequence[Step]) -> list[dict[str, Any]]:
    """The score steps before a difference: each continuation's per-token log-likelihood on both."""
    return [{"context": a.request.context[:60], "in-process": a.summary()["per_token"],
             "llama-server": b.summary()["per_token"]}
            for a, b in zip(ours, theirs) if isinstance(a.request, ScoreRequest) and b.kind == "score"]


def _request_detail(a: Step, b: Step, ours: Sequence[Step], theirs: Sequence[Step]) -> str:
    """What the requests differ in, and the scores before them."""
    if a.kind != b.kind:
        what = f"in process a {a.kind}, on the server a {b.kind}"
    else:
        what = "the requests differ in " + ", ".join(differing_fields(a.request, b.request))
    if isinstance(a.request, CompletionRequest) and isinstance(b.request, CompletionRequest):
        if a.request.tools != b.request.tools:
            what += f" (tools offered: in process {_names(a.request)}, on the server {_names(b.request)})"
    gaps = [abs(x[0] / x[1] - y[0] / y[1]) for s, t in zip(ours, theirs) if s.kind == "score" == t.kind
            for x, y in zip(s.scores, t.scores) if x[1] and y[1]]
    if gaps:
        what += (f"; after {len(gaps)} scores the gate read, whose per-token log-likelihoods differ "
                 f"between the backends by up to {max(gaps):.4f} nats (median {sorted(gaps)[len(gaps) // 2]:.4f})")
    return what


def _names(request: CompletionRequest) -> list[str]:
    return [str(t.get("function", t).get("name")) for t in request.tools]


def explained(diagnosis: dict[str, Any]) -> str:
    """One line of the report: the cause, where, and what shows it."""
    parts = [diagnosis["cause"]]
    if "step" in diagnosis:
        ran = diagnosis["steps"]
        parts.append(f"step {diagnosis['step'] + 1} ({diagnosis['step_kind']}; {ran[0]} steps in process, "
                     f"{ran[1]} on the server)")
    if "gbnf" in diagnosis:
        grammars = diagnosis["gbnf"]
        same = grammars["in-process"] == grammars["llama-server"]
        parts.append(f"gbnf {grammars['in-process']}" + ("" if same else f" / {grammars['llama-server']}"))
    if diagnosis["kind"] == "prompt":
        shown = diagnosis["prompt"]
        parts.append(f"prompts part at character {shown['at']}: in process {shown['ours']!r} / server "
                     f"{shown['theirs']!r}")
    if "numerics" in diagnosis:
        parts.append(_parting_shown(diagnosis["numerics"]))
    parts += diagnosis.get("notes", [])
    if "detail" in diagnosis:
        parts.append(diagnosis["detail"])
    return "; ".join(parts)


def _parting_shown(found: dict[str, Any]) -> str:
    if "choices" not in found:
        return str(found["detail"])
    first = found["choices"][0]
    ours, theirs = first["ours"], first["theirs"]
    text = "prompt and request identical"
    if "split" in found:
        split = found["split"]
        text += (f"; the same text in other tokens from answer token {split['token']}: in process "
                 f"{split['in-process']} / server {split['llama-server']}")
    text += (f"; answer token {found['token']} (tokens {found['tokens']}) after {found['after'][-40:]!r}: the "
             f"in-process model after the server's tokens: in process {ours['piece']!r} ({ours['logprob']:.3f}, "
             f"rank {ours['rank']}), server {theirs['piece']!r} ({theirs['logprob']:.3f}, rank {theirs['rank']}), "
             f"raw top two {[(t['piece'], t['logprob']) for t in first['top2']]}")
    for other in found["choices"][1:]:
        text += f"; {other['layout']}: margin {other['margin']:.3f}"
    if "own_tokens" in found:
        own = found["own_tokens"]
        text += (f"; after its own tokens the in-process model writes {own['top2'][0]['piece']!r} "
                 f"(margin {own['margin']:.3f})")
    if found.get("server"):
        text += f"; the server's own top two {[(t['piece'], t['logprob']) for t in found['server']]}"
    return text


__all__ = ["CONTEXT", "LAYOUTS", "NEAR_TIE", "departure", "diagnose", "differing_fields", "explained",
           "first_difference", "is_near_tie", "parting", "shown_difference", "spells_alike", "token_choice"]

"""What a batch of guessed tokens costs on this machine, and whether a draft model could pay.

The decoding loop confirms guesses (a prompt lookup, a held-back forced token) by evaluating
them in one batch with the token just picked, with logits for every row. Speculative decoding
with a draft model works the same way, plus the draft model's own evaluations. Both pay only
where a batch of ``k`` tokens costs much less than ``k`` single evaluations, which depends on
the hardware as much as on the model: on a GPU, or a CPU whose matrix products are limited by
memory bandwidth, a small batch costs about one evaluation; on a CPU limited by its arithmetic,
nearly ``k``.

For each model, after a prompt of ``--prompt`` tokens: the median seconds of evaluating ``k``
tokens (``k`` = 1 … ``--most``) with logits for every row, through structgen's own runner, the
batch truncated again after each. From these, with ``t(k)`` the target's and ``d`` the draft's
one-token time:

- ``lookup``: the best case of a free guess of ``k - 1`` tokens, all confirmed — ``k · t(1) /
  t(k)`` tokens' worth of single evaluations per batch's worth of time;
- ``draft``: the best case of a draft model (``--draft``, the first model by default a smaller
  one sharing the target's vocabulary) guessing ``k - 1`` tokens, all confirmed — ``k · t(1) /
  ((k - 1) · d + t(k))``. Below 1, speculative decoding loses even when every guess is right.

Usage::

    python -m bench.suites.batch_cost [--models qwen0.5b,qwen1.5b] [--draft qwen0.5b] [--threads N]
                                      [--threads-batch N] [--most 8] [--repeat 7] [--json OUT]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bench.harness import command, model_path, results_file, write_json
# The in-process backend's own evaluation (and thread choice), timed batch by batch.
from structgen._backends.llamacpp._prefixes import PrefixStore
from structgen._backends.llamacpp._runner import ModelRunner
from structgen._backends.llamacpp._threads import Threads, chosen_threads

#: An ordinary extraction prompt, repeated to the length asked for.
PROMPT = ("Extract the ticket: the printer on floor three has been jammed since Monday, and Maria "
          "Garcia from accounting needs it fixed before Friday's audit. ")


def batch_seconds(path: str, *, threads: Threads, prompt_tokens: int, most: int, repeat: int) -> dict[int, float]:
    """Median seconds of evaluating ``k`` tokens with every row's logits, for ``k`` = 1 … ``most``."""
    import llama_cpp

    llama = llama_cpp.Llama(path, n_ctx=prompt_tokens + most + 8, n_batch=512, verbose=False,
                            n_threads=threads.token, n_threads_batch=threads.batch)
    try:
        vocab = llama_cpp.llama_model_get_vocab(llama.model)
        runner = ModelRunner(llama_cpp, llama.ctx, llama_cpp.llama_vocab_n_tokens(vocab), llama.n_ctx(),
                             llama.n_batch, PrefixStore(0))
        tokens = llama.tokenize((PROMPT * (1 + prompt_tokens // 20)).encode())
        prompt, more = tokens[:prompt_tokens], tokens[prompt_tokens:prompt_tokens + most]
        runner.prime(prompt)
        times: dict[int, list[float]] = {k: [] for k in range(1, most + 1)}
        for _ in range(repeat):
            for k in times:  # every size once per round: a busy moment touches all alike
                start = time.perf_counter()
                runner.decode(more[:k], last_rows=k)
                runner.logits(k - 1)
                times[k].append(time.perf_counter() - start)
                runner.truncate(prompt_tokens)
        runner.close()
        return {k: statistics.median(v) for k, v in times.items()}
    finally:
        llama.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="qwen0.5b,qwen1.5b", help="comma-separated: names or GGUF paths")
    parser.add_argument("--draft", default="qwen0.5b", help="the draft model (one of --models)")
    parser.add_argument("--threads", type=int, default=None,
                        help="llama.cpp threads for single tokens (default: structgen's), and for batches unless given")
    parser.add_argument("--threads-batch", type=int, default=None, help="llama.cpp threads for batches")
    parser.add_argument("--prompt", type=int, default=300, help="prompt tokens before each batch")
    parser.add_argument("--most", type=int, default=8, help="largest batch")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    names = args.models.split(",")
    if args.draft not in names:
        parser.error("--draft must be one of --models")
    threads = chosen_threads(args.threads, args.threads_batch)
    seconds = {name: batch_seconds(model_path(name), threads=threads, prompt_tokens=args.prompt,
                                   most=args.most, repeat=args.repeat) for name in names}
    draft_one = seconds[args.draft][1]
    rows = []
    print(f"{'model':>12} {'k':>2} {'ms':>7} {'x t(1)':>7} {'lookup':>7} {'draft':>7}")
    for name, times in seconds.items():
        one = times[1]
        for k, t in times.items():
            row = {"model": name, "k": k, "seconds": t, "times_one": t / one, "lookup": k * one / t,
                   "draft": None if name == args.draft else k * one / ((k - 1) * draft_one + t)}
            rows.append(row)
            draft = "" if row["draft"] is None else f"{row['draft']:7.2f}"
            print(f"{name:>12} {k:>2} {t * 1000:7.1f} {t / one:7.2f} {row['lookup']:7.2f} {draft:>7}")
    out = results_file(args.json, "batch_cost")
    write_json(out, {"what": "seconds of a k-token batch with every row's logits, after a prompt; the best cases "
                             "of a free guess (lookup) and of a draft model (draft) guessing k - 1 tokens",
                     "command": command("batch_cost"), "measured": time.strftime("%Y-%m-%d"),
                     "threads": {"token": threads.token, "batch": threads.batch}, "prompt_tokens": args.prompt,
                     "draft": args.draft, "rows": rows})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

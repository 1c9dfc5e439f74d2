"""Several documents at once: ``structgen.extract`` in-process, one at a time against N at a time
(``concurrency=N``: the engine's lanes, up to one model per core, each decoding its share of the N
documents together; see ``structgen._extract.lane_plan``).

32 short support messages of our own (written for this bench, the way customers write) are
turned into records by ``structgen.extract`` (the engine ``structgen extract`` runs), once per
concurrency, each on freshly loaded models (the load is not timed); the concurrencies take turns
``--repeat`` times in a rotating order and their seconds are summed. ``--one-model`` adds, for
each N > 1, the layout before lanes: one model of N sequences with ``LLM()``'s threads ("N, one
model"). Per row: documents per second, the ratio to one at a time, the records that differ from
one at a time's (batched rows may round differently, and greedy decoding then follows another
path: each difference is listed), the ``llama_decode`` calls and the rows they evaluated.

Two record types: ``ticket`` (a name, then three fields of listed values, which the backend
scores as whole alternatives: nearly every evaluation is already a batch of several tokens)
and ``note`` (three free strings: mostly one sampled token at a time). The table and the records
go to ``--results`` (default ``bench/results/latest/extract.json``). Usage::

    python -m bench.suites.extract [--type ticket|note] [--model PATH|smollm2|gemma]
                            [--concurrency 1,4,8] [--repeat N] [--threads N] [--documents N]
                            [--one-model] [--results FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

import structgen
from bench.harness import model_path, results_file
from structgen import LLM
from structgen import _extract as ex  # the engine's choice of lanes (threads and sequences per model)


class Ticket(BaseModel):
    customer: str
    product: Literal["phone", "laptop", "headphones", "smartwatch", "tablet"]
    category: Literal["broken", "billing", "delivery", "question"]
    urgent: bool


class Note(BaseModel):
    customer: str
    product: str
    problem: str


TYPES: dict[str, type[BaseModel]] = {"ticket": Ticket, "note": Note}

MESSAGES = [
    "Hi, this is Maria Lopez. My new phone won't turn on since yesterday, I need it for work tomorrow!!",
    "Hello, Tom Becker here. I was charged twice for my laptop order, please refund one.",
    "where are my headphones?? ordered 2 weeks ago, still nothing. - Priya",
    "Quick question from Ahmed: does the smartwatch work with Android?",
    "The tablet screen cracked on its own, I barely used it. Jonas Weber",
    "Hey it's Lucy. My laptop keyboard stopped working mid-exam, please help ASAP",
    "Good morning, Chen Wei. The invoice for my headphones shows the wrong address.",
    "Sam here - smartwatch arrived but the box was empty. Need this sorted today.",
    "Can I pay for a tablet in installments? Thanks, Olga",
    "My phone's battery dies in an hour. Not urgent, just annoying. Regards, Paul Martin",
    "This is Fatima. The courier left my laptop at the wrong house!",
    "Hi, Diego here, do the headphones have noise cancelling?",
    "URGENT: my smartwatch charges me twice a month for the subscription. - Kenji",
    "Hello. The tablet I ordered for my daughter's birthday tomorrow hasn't shipped. Anna Novak",
    "Phone speaker crackles on calls. Whenever you get a chance. Ben",
    "I'd like to know if the laptop comes with a charger. Sofia R.",
    "Headphones: left ear stopped working after a week. Mark Evans",
    "Lena writing: my refund for the returned phone never arrived, it's been a month.",
    "Does the tablet support a stylus? Asking before I buy. Omar",
    "Hi! Grace here. The smartwatch strap broke on day one.",
    "The laptop was delivered to my neighbour, who is away for a month. Need it now. Victor",
    "Nadia: I was billed for headphones I cancelled.",
    "Is there a student discount on the phone? - Leo",
    "My tablet keeps restarting, I run my shop on it, please hurry! Ines Costa",
    "Hello from Raj. Package with my smartwatch says delivered, it is not here.",
    "Can the laptop run two external monitors? Thanks, Hannah",
    "Phone arrived with a scratched screen. Mateo Silva",
    "Eva here, why did my headphones cost more than the price on the website?",
    "Tablet charger is missing from the box. No rush. Kofi",
    "It's Julia. Smartwatch doesn't count my steps at all.",
    "My laptop order is stuck in customs for ten days, my job starts Monday. Yusuf",
    "Are replacement ear pads sold for the headphones? Clara",
]

#: Written after the batched backend's choices (one unified KV cache, prefix copies between
#: sequences) were made on MESSAGES, to report them on inputs they were not chosen on.
HOLDOUT = [
    "hey so my headphones only play out of the right side now?? bought them in march. -dan",
    "Good afternoon. I am writing regarding invoice 4471 for a tablet; the VAT looks wrong. Kind regards, Margaret Hill",
    "laptop fan is SO loud, sounds like a jet. is that normal or is it broken. Tariq",
    "pls where is my phone, tracking hasnt moved since friday, need it for my trip on sunday!!! Bea",
    "Hi there, does the smartwatch need a subscription for the heart rate stuff? Thanks, Ingrid",
    "My son dropped the tablet and now the screen flickers. Not a rush, it's a spare. George Ade",
    "charged 3 times for one pair of headphones, fix this today please, rent is due. Marisol",
    "Is the laptop ok for video editing or should I get something bigger? cheers, Finn",
    "Smartwatch won't pair with my phone since the update. I use it for my insulin alarms, urgent. Harriet Cole",
    "the courier says he delivered the laptop but my doorbell cam shows nobody came. Wen",
    "Hello, can I change the colour of the phone I ordered yesterday? Priyanka",
    "Tablet battery swells a bit at the back, is that dangerous? it's next to my bed. Rosa",
    "I got an email saying my headphones refund was approved but nothing in my account after 3 weeks. Emeka",
    "do you ship the smartwatch to Norway? - Sven",
    "Phone gets really hot when charging, like too hot to hold. Worried. Aylin",
    "Laptop arrived with a German keyboard, I ordered UK. I start my new job tomorrow. Callum Reid",
    "Quick one: what's the warranty on the tablet? Jo",
    "my headphones came in a box that was clearly opened and taped back. Nikolai",
    "Billing question: why am I paying a monthly fee for the phone insurance I never asked for? Dolores",
    "smartwatch strap gives me a rash, can I swap it? no hurry. Ama",
    "The laptop's charger smells like burning plastic. I unplugged it. What now? Ben Okafor",
    "Parcel with tablet stuck at the depot for a week, nobody answers the phone there. Lukas",
    "Does the phone have a headphone jack? asking for my dad. - Mei",
    "Screen on my smartwatch is dead after swimming, it says waterproof on the box!! Carlos",
    "Hello, I'd like an invoice with my company name for the two laptops. Sincerely, Ruth Adler",
    "headphones keep disconnecting every 5 min on calls, I have client calls all day. Omari",
    "Can I return the tablet if my daughter doesn't like it? It was a gift. Helen",
    "The phone I got is a different model from the one on the receipt. Yara",
    "they took the money for the smartwatch twice, bank shows two payments. Ivan Petrov",
    "Laptop won't boot, just a black screen with a blinking light, thesis due friday. Nora",
    "Where is my headphones order? It's been ten days. Thanks. Kwame",
    "Is there a cheaper tablet plan for students? Aditi",
]

PROMPT = "Extract the support ticket from this message.\n\n{text}"
NOTE_PROMPT = "Who wrote this message, about which product, and what is the problem, in a few words?\n\n{text}"


def run_once(model: str, kind: str, layout: str, concurrency: int, threads: int | None, documents: int,
             workdir: Path) -> dict[str, Any]:
    source = workdir / "messages.jsonl"
    output = workdir / f"tickets-{layout}-{concurrency}.jsonl"
    output.unlink(missing_ok=True)
    if layout == "lanes":
        llms = ex.load_lanes(model, ex.lane_plan(concurrency, threads=threads))
    else:  # before lanes: one model of N sequences, LLM()'s threads
        llms = [LLM(model, n_threads=threads, sequences=concurrency if concurrency > 1 else None)]
    try:
        start = time.perf_counter()
        done = list(structgen.extract(TYPES[kind], source, llm=llms, output=output, concurrency=concurrency,
                                      prompt=PROMPT if kind == "ticket" else NOTE_PROMPT))
        seconds = time.perf_counter() - start
        batchers = [getattr(llm.backend, "_batcher", None) for llm in llms]
        decodes = sum(b.decodes for b in batchers if b is not None) or None
        rows = sum(b.rows for b in batchers if b is not None) or None
    finally:
        for llm in llms:
            llm.close()
    records = {r["id"]: r for r in map(json.loads, output.read_text().splitlines())}
    assert len(done) == len(records) == documents, (len(done), len(records))
    assert all(r.ok for r in done), [r.error for r in done if not r.ok]
    return {"seconds": seconds, "records": records, "decodes": decodes, "rows": rows, "lanes": len(llms)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--type", choices=sorted(TYPES), default="ticket")
    parser.add_argument("--model", default=None, help="a GGUF path, or smollm2 (default) / gemma")
    parser.add_argument("--concurrency", default="1,4,8")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--documents", type=int, default=len(MESSAGES))
    parser.add_argument("--one-model", action="store_true",
                        help="also run each N > 1 on one model of N sequences (the layout before lanes)")
    parser.add_argument("--split", choices=["dev", "holdout"], default="dev",
                        help="dev: the messages the backend's choices were made on; holdout: written after")
    parser.add_argument("--results", default=None,
                        help="write the table and records as JSON here (default: bench/results/latest/extract.json)")
    args = parser.parse_args()
    model = model_path(None if args.model == "smollm2" else args.model)
    levels = [int(c) for c in args.concurrency.split(",")]
    if levels[0] != 1:
        levels.insert(0, 1)
    runs_of = [("lanes", c) for c in levels]
    if args.one_model:
        runs_of += [("one model", c) for c in levels if c > 1]
    label = {key: f"{key[1]}" if key[0] == "lanes" else f"{key[1]}, one model" for key in runs_of}
    pool = HOLDOUT if args.split == "holdout" else MESSAGES
    texts = (pool * (args.documents // len(pool) + 1))[: args.documents]
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {key: [] for key in runs_of}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        with open(workdir / "messages.jsonl", "w") as f:
            for i, text in enumerate(texts, 1):
                f.write(json.dumps({"id": i, "text": text}) + "\n")
        for round_ in range(args.repeat):
            order = runs_of[round_ % len(runs_of):] + runs_of[: round_ % len(runs_of)]
            for key in order:
                run = run_once(model, args.type, key[0], key[1], args.threads, len(texts), workdir)
                runs[key].append(run)
                print(f"round {round_ + 1}, concurrency {label[key]} ({run['lanes']} models): "
                      f"{run['seconds']:.1f} s", flush=True)
    one = ("lanes", 1)
    base = runs[one][0]["records"]
    base_seconds = sum(r["seconds"] for r in runs[one])
    table = []
    print(f"\n{args.type}, {args.split}: {len(texts)} documents, {args.repeat} rounds; command: {' '.join(sys.argv)}")
    print("| concurrency | models | seconds (sum) | per round | documents/s | × one at a time | records differing "
          "| decodes | rows |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for key in runs_of:
        seconds = sum(r["seconds"] for r in runs[key])
        differing = sorted({i for r in runs[key] for i, rec in r["records"].items() if rec != base[i]})
        row = {
            "concurrency": key[1], "layout": key[0], "models": runs[key][0]["lanes"], "seconds": seconds,
            "rounds": [r["seconds"] for r in runs[key]],
            "documents_per_second": len(texts) * args.repeat / seconds,
            "speedup": base_seconds / seconds, "differing": differing,
            "decodes": runs[key][-1]["decodes"], "rows": runs[key][-1]["rows"],
        }
        table.append(row)
        print(f"| {label[key]} | {row['models']} | {seconds:.1f} | {' / '.join(f'{r:.1f}' for r in row['rounds'])} "
              f"| {row['documents_per_second']:.2f} | {row['speedup']:.2f} | {len(differing)} "
              f"| {row['decodes'] or '-'} | {row['rows'] or '-'} |")
    for key, row in zip(runs_of, table):
        for i in row["differing"]:
            other = next(r["records"][i] for r in runs[key] if r["records"][i] != base[i])
            print(f"concurrency {label[key]}, document {i}: {base[i].get('value')} -> {other.get('value')}")
    results_file(args.results, "extract").write_text(json.dumps(
        {"command": " ".join(sys.argv), "type": args.type, "split": args.split, "documents": len(texts), "table": table,
         "records": {label[key]: runs[key][0]["records"] for key in runs_of}}, indent=1) + "\n")


if __name__ == "__main__":
    main()

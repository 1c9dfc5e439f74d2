"""One spelling for generated values (``escapes="needed"``), tried on requests of my own worded as
people type, with the characters that have several JSON spellings: accents, other scripts,
quotes, slashes. Written before any run of it (stop 40), after the setting was chosen on HOLDOUT6.

Tool requests: right when the first call is to the wanted tool and its arguments, decoded, hold the
wanted text. Extractions (``llm.generate``): right when the name and the city are the ones said.

    python bench/spelling.py [--model gemma|PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bfcl import model_path  # noqa: E402
from bench.tool_requests import TOOLS  # noqa: E402

#: (request, wanted tool, text its arguments must hold)
CALLS: list[tuple[str, str, str]] = [
    ("remind me to call José about the café tomorrow at 9", "set_reminder", "José"),
    ("email ana@example.com saying the crème brûlée was great", "send_email", "crème brûlée"),
    ("translate 'où est la gare' to English", "translate_text", "où est la gare"),
    ("weather in Zürich tomorrow?", "get_forecast", "Zürich"),
    ("directions from Köln to Düsseldorf", "get_directions", "Köln"),
    ("book a table at Café Müller for 2 at 7pm", "book_table", "Müller"),
    ("play some Sigur Rós", "play_music", "Sigur Rós"),
    ("any news about São Paulo?", "get_news", "São Paulo"),
    ("recipes with jalapeños and crème fraîche", "search_recipes", "jalapeños"),
    ('set a reminder "pick up the kids" at 3:30', "set_reminder", "pick up the kids"),
    ("create an event called Maëlle's farewell on 2026-03-02 with Maëlle and Ünal", "create_event", "Maëlle"),
    ("translate 'good morning' into Greek", "translate_text", "good morning"),
    ("news about 東京 please", "get_news", "東京"),
    ("remind me at 18:00 to buy naan & chai", "set_reminder", "naan"),
    ("email bo@x.io with subject Q3/Q4 plan, body: numbers attached", "send_email", "Q3/Q4"),
    ("what's the forecast for Malmö this week", "get_forecast", "Malmö"),
]


class Contact(BaseModel):
    name: str
    city: str


#: (text, name, a piece of the city as said)
CONTACTS: list[tuple[str, str, str]] = [
    ("Hi, I'm José Álvarez from Málaga.", "José Álvarez", "Málaga"),
    ("This is Zoë Brontë, living in Zürich.", "Zoë Brontë", "Zürich"),
    ("Contact: Łukasz Wróbel, Kraków.", "Łukasz Wróbel", "Kraków"),
    ("I'm Søren Lund from København.", "Søren Lund", "København"),
    ("Name: François Dupré / City: Montréal", "François Dupré", "Montréal"),
    ("我叫王伟，住在北京。", "王伟", "北京"),
    ("It's Nguyễn Văn An in Hà Nội.", "Nguyễn Văn An", "Hà Nội"),
    ('He signs as "Big Al" O\'Neil, from Cork.', "O'Neil", "Cork"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    args = parser.parse_args()
    import structgen

    llm = structgen.LLM(model_path(args.model) if args.model else None, n_ctx=4096, max_tokens=256,
                        n_threads=1, n_threads_batch=1)
    print(f"structgen from {Path(structgen.__file__).parent}", file=sys.stderr)
    started = time.perf_counter()
    calls_right = 0
    for text, tool, wanted in CALLS:
        turn = llm.call_tools(text, TOOLS)
        made = turn.calls[0] if turn.calls else None
        args_text = json.dumps(made.arguments.model_dump(), ensure_ascii=False) if made else ""
        ok = made is not None and made.name == tool and wanted.casefold() in args_text.casefold()
        calls_right += ok
        escaped = "\\u" in turn.raw
        print(f"  call {'ok  ' if ok else 'FAIL'} {'ESC ' if escaped else '    '}{text!r} -> "
              f"{made.name if made else None} {args_text[:90]}", flush=True)
    contacts_right = 0
    for text, name, city in CONTACTS:
        try:
            got = llm.generate(Contact, f"Extract the contact's name and city: {text}")
            ok = got.name.strip().casefold() == name.casefold() and city.casefold() in got.city.casefold()
            shown = f"{got.name!r}, {got.city!r}"
        except structgen.StructgenError as error:
            ok, shown = False, f"{type(error).__name__}"
        contacts_right += ok
        print(f"  extract {'ok  ' if ok else 'FAIL'} {text!r} -> {shown}", flush=True)
    print("command:", " ".join(sys.argv))
    print(f"calls {calls_right}/{len(CALLS)}, extractions {contacts_right}/{len(CONTACTS)}, "
          f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

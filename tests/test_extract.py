"""``structgen extract``: records, resume, torn lines, the prompt template, progress, Ctrl-C.

The control flow (which line becomes which record, concurrency, a failing server, a stop) runs
on scripted backends, which reach on demand what a model does only by chance; the job itself
runs on the real default model, in-process and as ``python -m structgen extract``: a full
run, a run interrupted by SIGINT and resumed to the same output, a torn line repaired, and N
requests at once against a real llama-server.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

import structgen as sg
from structgen import _extract as ex
from structgen._cli import main
from structgen._backends._seam import Completion, CompletionRequest, TextDelta, Usage

REPO = Path(__file__).resolve().parents[1]


class Person(BaseModel):  # as in MODELS, which the command imports: the same grammar
    name: str
    age: int


class Adult(BaseModel):  # for scripted answers: a negative age fails validation
    name: str
    age: int = Field(ge=0)


MODELS = '''
from pydantic import BaseModel


class Person(BaseModel):
    name: str
    age: int
'''

# Four documents and one line that is not JSON: the model runs four times per full run.
DOCS = [
    {"id": "ada", "text": "Ada Lovelace is 36 years old."},
    {"id": "bob", "text": "Bob, aged 41, fixes bikes."},
    "this line is not JSON",
    {"text": "Chen turned 29 last week."},
    {"id": "dora", "text": "The baker Dora is 52."},
]


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines))
    return path


def records(path: Path) -> dict[Any, dict[str, Any]]:
    """The output keyed by id (each line must be one complete record)."""
    raw = path.read_text()
    assert raw == "" or raw.endswith("\n"), "a torn last line"
    keyed: dict[Any, dict[str, Any]] = {}
    for line in raw.splitlines():
        record = json.loads(line)
        assert record["id"] not in keyed, f"two records for {record['id']!r}"
        keyed[record["id"]] = record
    return keyed


# ---------------------------------------------------------------- scripted backends


def answer_for(prompt: str) -> str:
    """The scripted model: the first capitalised word and the first number of the prompt's
    last line (the document); FAIL gives a negative age (the type refuses it)."""
    document = prompt.splitlines()[-1]
    name = re.search(r"([A-Z][a-z]+)", document)
    age = re.search(r"\d+", document)
    value = {"name": name.group(1) if name else "?", "age": int(age.group()) if age else 0}
    if "FAIL" in prompt:
        value["age"] = -1
    return json.dumps(value)


class PromptBackend:
    """Answers by :func:`answer_for`; CUT runs out of tokens, LONG is a prompt that does not
    fit (a BackendError of the document, in-process or HTTP 400), DOWN a server that does not
    answer and DENY one that refuses the API key (both stop the run)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def complete(self, request: CompletionRequest) -> Iterator[TextDelta | Completion]:
        prompt = request.messages[-1].content
        self.prompts.append(prompt)
        if "DOWN" in prompt:
            raise sg.BackendError("connection refused", url="http://127.0.0.1:9/completion")
        if "DENY" in prompt:
            raise sg.BackendError("401 Unauthorized", url="http://127.0.0.1:9/completion", status=401)
        if "LONG" in prompt:
            raise sg.BackendError("the prompt does not fit in the context")
        if "TOO BIG" in prompt:
            raise sg.BackendError("400 context size exceeded", url="http://127.0.0.1:9/completion",
                                  status=400)
        text = answer_for(prompt)
        if "CUT" in prompt:
            yield TextDelta(text[:5])
            yield Completion(text[:5], "length", Usage(sampled_tokens=5))
            return
        yield TextDelta(text)
        yield Completion(text, "stop", Usage(sampled_tokens=len(text)))

    def close(self) -> None:
        pass


class AsyncPromptBackend(PromptBackend):
    """The same answers over ``acomplete``, counting requests in flight; the i-th request
    waits 10 * (20 - i) turns of the event loop, so later ones finish first (ten turns apart:
    more than the loop's own work on a finished answer takes)."""

    def __init__(self, stop_at: int | None = None) -> None:
        super().__init__()
        self.in_flight = self.most_in_flight = 0
        self.stop_at, self.stop = stop_at, asyncio.Event()

    async def acomplete(self, request: CompletionRequest) -> AsyncIterator[TextDelta | Completion]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if len(self.prompts) + 1 == self.stop_at:
                self.stop.set()
            turns = 10 * (20 - len(self.prompts))
            events = list(self.complete(request))
            for _ in range(turns):
                await asyncio.sleep(0)
            for event in events:
                yield event
        finally:
            self.in_flight -= 1


GENERATION = {"max_retries", "max_tokens", "system", "temperature", "seed", "reasoning"}


def job(tmp_path: Path, lines: list[Any], **settings: Any) -> ex.ExtractJob:
    """A job over ``lines`` (as in.jsonl); generation keywords go to its options."""
    options: Any = {"max_retries": 0, **{k: v for k, v in settings.items() if k in GENERATION}}
    rest = {k: v for k, v in settings.items() if k not in GENERATION}
    return ex.ExtractJob(Adult, write_jsonl(tmp_path / "in.jsonl", lines), tmp_path / "out.jsonl",
                         options=options, **rest)


def run_on(llm: sg.LLM, plan: ex.CheckedJob) -> ex.Summary:
    """Run ``plan`` to its end as the command does; the summary (a fatal failure in it)."""
    counts = ex.Counts()
    try:
        for _ in ex.records(plan, [llm], counts=counts):
            pass
    except sg.BackendError as failure:
        return ex.summary(plan, counts, failure=failure)
    return ex.summary(plan, counts)


def run_scripted(the_job: ex.ExtractJob, backend: Any = None) -> ex.Summary:
    return run_on(sg.LLM.from_backend(backend or PromptBackend()), ex.prepare(the_job))


# ---------------------------------------------------------------- records of every kind


def test_every_line_becomes_one_record(tmp_path: Path) -> None:
    lines: list[Any] = [
        {"id": "a", "text": "Ada is 36."},
        "not json",
        "[1, 2]",
        "",  # blank lines are no documents
        {"id": "b"},
        {"id": "c", "text": 42},
        {"id": 1.5, "text": "Fay is 3."},
        {"text": "Gus is 70."},
        {"id": "h", "text": "Hal is FAIL 8."},
        {"id": "i", "text": "Ivy is CUT 9."},
        {"id": "j", "text": "Jo is LONG 1."},
        {"id": "k", "text": "Kai is TOO BIG 2."},
    ]
    the_job = job(tmp_path, lines)
    summary = run_scripted(the_job)
    out = records(the_job.output_path)
    assert out["a"] == {"id": "a", "value": {"name": "Ada", "age": 36}}
    assert out[8] == {"id": 8, "value": {"name": "Gus", "age": 70}}  # no id: the line number
    kinds = {doc_id: r["error"]["type"] for doc_id, r in out.items() if "error" in r}
    assert kinds == {2: "InputError", 3: "InputError", "b": "InputError", "c": "InputError",
                     7: "InputError", "h": "OutputValidationError",
                     "i": "IncompleteOutputError", "j": "BackendError", "k": "BackendError"}
    assert out[2]["error"]["message"].startswith("line 2: not JSON")
    assert "not a JSON object but an array" in out[3]["error"]["message"]
    assert "no field 'text'" in out["b"]["error"]["message"]
    assert "a number in field 'text'" in out["c"]["error"]["message"]
    assert "must be a string or an integer, not 1.5" in out[7]["error"]["message"]
    assert json.loads(out["h"]["error"]["text"]) == {"name": "Hal", "age": -1}  # the raw answer
    assert out["i"]["error"]["text"] == '{"nam'
    assert "text" not in out["j"]["error"]
    assert (summary.total, summary.written_values, summary.written_errors) == (11, 2, 9)
    assert ex.exit_status(summary) == 1


def test_plain_text_input_has_line_numbers_for_ids(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("Ada is 36.\n\nBob is 41.\r\n")
    the_job = ex.ExtractJob(Adult, tmp_path / "in.txt", tmp_path / "out.jsonl",
                            input_format="text", options={"max_retries": 0})
    assert ex.exit_status(run_scripted(the_job)) == 0
    assert records(the_job.output_path) == {
        1: {"id": 1, "value": {"name": "Ada", "age": 36}},
        3: {"id": 3, "value": {"name": "Bob", "age": 41}},
    }


# ---------------------------------------------------------------- the prompt template


def test_the_template_fills_text_and_other_fields(tmp_path: Path) -> None:
    lines = [{"id": 1, "body": "Ada is 36.", "title": "Notes", "tags": ["x", "é"]},
             {"id": 2, "body": "Bob is 41."}]
    backend = PromptBackend()
    the_job = job(tmp_path, lines, text_field="body",
                  prompt="{{title}}: {title} {tags}\n{text} / {body}")
    run_scripted(the_job, backend)
    assert backend.prompts == ['{title}: Notes ["x", "é"]\nAda is 36. / Ada is 36.']
    error = records(the_job.output_path)[2]["error"]
    assert error == {"type": "InputError",
                     "message": "line 2: no field 'title' for the prompt placeholder"}


def test_the_text_field_may_stand_for_the_document(tmp_path: Path) -> None:
    backend = PromptBackend()
    run_scripted(job(tmp_path, [{"body": "Ada is 36."}], text_field="body", prompt="{body}"),
                 backend)
    assert backend.prompts == ["Ada is 36."]
    with pytest.raises(ex.JobError, match=re.escape("no {text} placeholder (or {body}, the text_field)")):
        ex.prepare(job(tmp_path, [{"body": "Ada is 36."}], text_field="body", prompt="Hi."))


@pytest.mark.parametrize(("prompt", "message"), [
    ("Extract it.", "no {text} placeholder"),
    ("{} {text}", "placeholder {} is not a plain {name}"),
    ("{0} {text}", "placeholder {0} is not a plain {name}"),
    ("{text!r}", "placeholder {text!r} is not a plain {name}"),
    ("{text:>9}", "placeholder {text:>9} is not a plain {name}"),
    ("{text.upper}", "placeholder {text.upper} is not a plain {name}"),
    ("{text} {", "Single '{' encountered"),
    ("{text} {titel}", "no document is usable (the first: line 1: no field 'titel'"),
])
def test_a_bad_template_stops_before_any_model_work(tmp_path: Path, prompt: str, message: str) -> None:
    with pytest.raises(ex.JobError, match=re.escape(message)):
        ex.prepare(job(tmp_path, [{"text": "Ada is 36."}], prompt=prompt))
    assert not (tmp_path / "out.jsonl").exists()


def test_an_input_without_one_usable_document_is_refused(tmp_path: Path) -> None:
    lines = [{"body": "Ada is 36."}, "not json", {"body": "Bob is 41."}]
    with pytest.raises(ex.JobError, match=re.escape(
            "no document is usable (the first: line 1: no field 'text' (the document "
            "text, a string)); check text_field, prompt and input_format")):
        ex.prepare(job(tmp_path, lines))
    assert ex.prepare(job(tmp_path, lines, text_field="body")).todo == 3


def test_lines_end_at_newlines_only_and_may_be_undecodable(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_bytes(
        b'{"text": "Ada is 36.",\r"id": "a"}\r\n{"text": "\xff Bob"}\n{"text": "Cy is 7."}')
    the_job = ex.ExtractJob(Adult, tmp_path / "in.jsonl", tmp_path / "out.jsonl")
    run_scripted(the_job)
    out = records(the_job.output_path)
    assert out["a"]["value"] == {"name": "Ada", "age": 36}  # a \r is JSON whitespace
    assert out[3]["value"]["age"] == 7
    assert out[2]["error"]["message"] == "line 2: not UTF-8 text (byte 11)"


def test_plain_text_has_only_the_text_placeholder(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("Ada is 36.\n")
    with pytest.raises(ex.JobError, match=r"\{title\}: plain text input has only \{text\}"):
        ex.prepare(ex.ExtractJob(Adult, tmp_path / "in.txt", tmp_path / "out.jsonl",
                                 input_format="text", prompt="{title}: {text}"))


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    lines = [{"id": 2, "text": "a"}, {"id": "2", "text": "b"}, {"text": "c"}]  # line 3: id 3
    ex.prepare(job(tmp_path, lines))  # 2 and "2" differ, as in JSON
    lines.append({"id": 3, "text": "d"})
    with pytest.raises(ex.JobError, match=r"in\.jsonl:4: id 3 is already the id of line 3"):
        ex.prepare(job(tmp_path, lines))


# ---------------------------------------------------------------- resume


def test_a_rerun_skips_what_is_done_and_retries_errors_on_request(tmp_path: Path) -> None:
    lines = [{"id": i, "text": f"Person{i} is {i} FAIL."} for i in range(3)]
    the_job = job(tmp_path, lines)
    assert run_scripted(the_job).written_errors == 3
    lines[1]["text"] = "Zed is 5."  # the cause of one error fixed
    backend = PromptBackend()
    summary = run_scripted(job(tmp_path, lines), backend)
    assert backend.prompts == [] and summary.skipped == 3 and ex.exit_status(summary) == 1
    retried = run_scripted(job(tmp_path, lines, retry_errors=True), backend)
    assert len(backend.prompts) == 3 and retried.written_values == 1
    out = records(the_job.output_path)  # one record per id: the old errors were removed
    assert sorted(out) == [0, 1, 2] and out[1]["value"] == {"name": "Zed", "age": 5}
    assert retried.errors_on_disk == 2 and ex.exit_status(retried) == 1


def test_a_finished_output_needs_no_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [{"id": 1, "text": "Ada is 36."}, {"id": 2, "text": "Bob is FAIL 41."}]
    run_scripted(job(tmp_path, lines))
    before = (tmp_path / "out.jsonl").read_bytes()
    status = main(["extract", "builtins:dict", "--input", str(tmp_path / "in.jsonl"),
                   "--output", str(tmp_path / "out.jsonl"), "--model", "no-such-model.gguf"])
    assert status == 1  # an error record is on disk
    err = capsys.readouterr().err
    assert "nothing to do: every document has a record" in err and "(1 error: " in err
    assert (tmp_path / "out.jsonl").read_bytes() == before


@pytest.mark.parametrize(("tail", "cut"), [
    (b'{"id": 9, "val', 14),             # a torn write: no newline
    (b'{"id": 9, "value": \xc3', 20),     # torn inside a UTF-8 character
    (b'{"id": 9, "val\n', 15),           # not JSON, even with its newline
])
def test_a_torn_last_line_is_cut_off(tmp_path: Path, tail: bytes, cut: int) -> None:
    lines = [{"id": i, "text": f"Ada is {i}."} for i in range(1, 4)] + [{"id": 9, "text": "Bo is 9."}]
    the_job = job(tmp_path, lines[:3])
    run_scripted(the_job)
    good = the_job.output_path.read_bytes()
    the_job.output_path.write_bytes(good + tail)
    plan = ex.prepare(job(tmp_path, lines))
    assert plan.repaired_bytes == cut and plan.todo == 1
    assert the_job.output_path.read_bytes() == good
    run_on(sg.LLM.from_backend(PromptBackend()), plan)
    assert sorted(records(the_job.output_path)) == [1, 2, 3, 9]


def test_a_last_record_without_its_newline_is_kept(tmp_path: Path) -> None:
    the_job = job(tmp_path, [{"id": 1, "text": "Ada is 1."}, {"id": 2, "text": "Bo is 2."}])
    the_job.output_path.write_text('{"id": 1, "value": {"name": "Ada", "age": 1}}')
    plan = ex.prepare(the_job)
    assert plan.repaired_bytes == 0 and plan.todo == 1
    assert the_job.output_path.read_text().endswith("}}\n")


@pytest.mark.parametrize("content", [
    '{"id": 1, "value": 2}\nnot json\n{"id": 3, "value": 4}\n',   # damage before the end
    '{"name": "Ada"}\n',                                          # not records at all
    '{"id": 1, "value": 2, "error": {}}\n',
])
def test_an_output_that_is_not_ours_is_left_alone(tmp_path: Path, content: str) -> None:
    the_job = job(tmp_path, [{"id": 1, "text": "Ada is 1."}])
    the_job.output_path.write_text(content)
    with pytest.raises(ex.JobError, match="not an extract record"):
        ex.prepare(the_job)
    assert the_job.output_path.read_text() == content


# ---------------------------------------------------------------- concurrency, stops, failures


def test_concurrency_keeps_n_requests_in_flight(tmp_path: Path) -> None:
    lines = [{"id": i, "text": f"Person{i} is {i}."} for i in range(7)]
    backend = AsyncPromptBackend()
    the_job = job(tmp_path, lines, concurrency=3)
    summary = run_scripted(the_job, backend)
    assert backend.most_in_flight == 3 and summary.written_values == 7
    order = [json.loads(line)["id"] for line in the_job.output_path.read_text().splitlines()]
    assert sorted(order) == list(range(7)) and order != list(range(7))  # completion order


def test_a_stop_leaves_finished_records_and_a_rerun_completes_them(tmp_path: Path) -> None:
    lines = [{"id": i, "text": f"Person{i} is {i}."} for i in range(6)]
    backend = AsyncPromptBackend(stop_at=4)  # stop when the fourth request starts

    async def interrupted() -> int:
        run = ex.arecords(ex.prepare(job(tmp_path, lines, concurrency=2)), [sg.LLM.from_backend(backend)])
        got = 0
        async with contextlib.aclosing(run):
            async for _ in run:
                got += 1
                if backend.stop.is_set():
                    break  # leaving the loop stops the run
        return got

    got = asyncio.run(interrupted())
    assert backend.in_flight == 0  # the requests in flight were cancelled
    partial = records(tmp_path / "out.jsonl")
    assert 0 < got <= len(partial) < 6  # what finished in flight is written too
    summary = run_scripted(job(tmp_path, lines), PromptBackend())
    assert summary.skipped == len(partial) and ex.exit_status(summary) == 0
    reference = tmp_path / "reference"
    reference.mkdir()
    run_scripted(job(reference, lines))
    assert records(tmp_path / "out.jsonl") == records(reference / "out.jsonl")


class SignallingBackend(AsyncPromptBackend):
    """Sends this process SIGTERM when its third request starts, as a scheduler would, and
    takes its time over that request."""

    async def acomplete(self, request: CompletionRequest) -> AsyncIterator[TextDelta | Completion]:
        if len(self.prompts) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(5)  # cancelled long before
        async for event in super().acomplete(request):
            yield event


def test_sigterm_stops_a_blocking_run_cleanly(tmp_path: Path) -> None:
    from structgen._cli import run_to_end

    lines = [{"id": i, "text": f"Person{i} is {i}."} for i in range(5)]
    before = signal.getsignal(signal.SIGTERM)
    llm = sg.LLM.from_backend(SignallingBackend())
    plan, counts = ex.prepare(job(tmp_path, lines)), ex.Counts()
    started = time.monotonic()
    signum, failure = run_to_end(ex.records(plan, [llm], counts=counts), counts)
    assert time.monotonic() - started < 4  # the request in flight was cancelled
    summary = ex.summary(plan, counts, interrupted=signum is not None, signum=signum or 0, failure=failure)
    assert summary.interrupted and summary.signum == signal.SIGTERM
    assert ex.exit_status(summary) == 143 and summary.on_disk == 2
    assert sorted(records(tmp_path / "out.jsonl")) == [0, 1]
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is gone with the run


@pytest.mark.parametrize("failure", ["DOWN", "DENY"])
def test_a_failing_server_stops_the_run_without_error_records(tmp_path: Path, failure: str) -> None:
    lines = [{"id": i, "text": f"Person{i} is {i}."} for i in range(4)]
    lines[2]["text"] += " " + failure
    summary = run_scripted(job(tmp_path, lines))
    assert isinstance(summary.failure, sg.BackendError) and ex.exit_status(summary) == 2
    assert sorted(records(tmp_path / "out.jsonl")) == [0, 1] and summary.remaining == 2
    assert "stopped by the backend failure" in ex.report(summary, job(tmp_path, lines))
    lines[2]["text"] = "Person2 is 2."  # the server is back
    assert ex.exit_status(run_scripted(job(tmp_path, lines))) == 0
    assert sorted(records(tmp_path / "out.jsonl")) == [0, 1, 2, 3]


# ---------------------------------------------------------------- progress


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_on_a_terminal_is_one_redrawn_line() -> None:
    stream, clock = io.StringIO(), FakeClock()
    progress = ex.Progress(stream, total=10, already=4, tty=True, clock=clock)
    progress.start()
    for ok in (True, False):
        clock.now += 2
        progress.advance(ok)
    progress.finish()
    frames = stream.getvalue().split("\r\x1b[K")
    assert frames[0] == "" and frames[-1].endswith("\n")
    assert frames[2] == "extract: 6/10 (60%), 1 error, 0.50 docs/s, ETA 0:00:08"


def test_progress_in_a_log_is_plain_lines_at_each_tenth() -> None:
    stream, clock = io.StringIO(), FakeClock()
    progress = ex.Progress(stream, total=20, already=0, tty=False, clock=clock, log_seconds=30)
    progress.start()
    for _ in range(20):
        clock.now += 1
        progress.advance(True)
        progress.tick()
    clock.now += 31  # a long document: the log still hears from the job
    progress.tick()
    progress.finish()
    lines = stream.getvalue().splitlines()
    assert "\x1b" not in stream.getvalue() and "\r" not in stream.getvalue()
    assert len(lines) == 11 and lines[0] == "extract: 2/20 (10%), 1.00 docs/s, ETA 0:00:18"
    assert lines[9] == "extract: 20/20 (100%), 1.00 docs/s, ETA 0:00:00"
    assert lines[10] == "extract: 20/20 (100%), 0.39 docs/s, ETA 0:00:00"


# ---------------------------------------------------------------- the command line


NO_MODEL = ["--model", "no-such.gguf"]  # a mistake found first never reaches the model


@pytest.mark.parametrize(("flags", "message"), [
    ([*NO_MODEL, "--backend", "http://127.0.0.1:9"], "not both"),
    ([*NO_MODEL, "--max-retries", "-1"], "--max-retries must be at least 0"),
    ([*NO_MODEL, "--prompt", "Extract."], "no {text} placeholder"),
    ([*NO_MODEL, "--keep-reasoning"], "--keep-reasoning needs --reasoning"),
    (["--output", "in.jsonl"], "is the input file"),
])
def test_command_line_mistakes_are_one_line_before_any_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    flags: list[str], message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "in.jsonl", [{"text": "Ada is 36."}])
    status = main(["extract", "builtins:dict", "--input", "in.jsonl", "--output", "out.jsonl",
                   *flags])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and message in err[0]
    assert err[0].startswith("structgen extract: error: ")


def test_a_server_that_is_not_there_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    write_jsonl(tmp_path / "in.jsonl", [{"text": "Ada is 36."}, {"text": "Bob is 41."}])
    status = main(["extract", "builtins:dict", "--input", str(tmp_path / "in.jsonl"),
                   "--output", str(tmp_path / "out.jsonl"), "--backend", f"http://127.0.0.1:{port}",
                   "--concurrency", "2"])
    err = capsys.readouterr().err
    assert status == 2 and "structgen extract: error: BackendError: " in err
    assert "0/2 documents" in err and "rerun the same command to resume" in err
    assert (tmp_path / "out.jsonl").read_text() == ""  # no error records for the server's failure


def test_the_prompt_may_come_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "in.jsonl", [{"text": "Ada is 36."}])
    (tmp_path / "prompt.txt").write_text("Who is it?\n")
    base = ["extract", "builtins:dict", "--input", "in.jsonl", "--output", "out.jsonl",
            "--model", "no-such.gguf", "--prompt-file", "prompt.txt"]
    assert main(base) == 2  # the file's template is checked, before the model
    assert "no {text} placeholder" in capsys.readouterr().err
    assert main([*base, "--prompt", "{text}"]) == 2
    assert "--prompt or --prompt-file, not both" in capsys.readouterr().err
    (tmp_path / "prompt.txt").write_text("Who is it?\n{text}\n")
    assert main(base) == 2
    assert "ModelNotFoundError" in capsys.readouterr().err  # the template passed


def test_the_input_must_be_a_file_it_can_read_twice(tmp_path: Path) -> None:
    with pytest.raises(ex.JobError, match="not a regular file"):
        ex.prepare(ex.ExtractJob(Adult, tmp_path, tmp_path / "out.jsonl"))


def test_a_missing_input_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["extract", "builtins:dict", "--input", str(tmp_path / "nope.jsonl"),
                   "--output", str(tmp_path / "out.jsonl")])
    assert status == 2 and "nope.jsonl: no such file" in capsys.readouterr().err


# ---------------------------------------------------------------- structgen.extract, on scripted models


def scripted(backend: Any = None) -> sg.LLM:
    return sg.LLM.from_backend(backend or PromptBackend())


def test_extract_takes_documents_of_every_kind(tmp_path: Path) -> None:
    llm = scripted()
    got = list(sg.extract(Adult, ["Ada is 36.", "Bob is 41."], llm=llm, max_retries=0))
    assert [(r.id, r.value) for r in got] == [(0, Adult(name="Ada", age=36)), (1, Adult(name="Bob", age=41))]
    assert all(r.ok and r.error is None and r.reasoning is None for r in got)
    pairs = list(sg.extract(Adult, [("a", "Ada is 36."), (7, "Bob is FAIL 41.")], llm=llm, max_retries=0))
    assert [r.id for r in pairs] == ["a", 7] and pairs[0].ok and not pairs[1].ok
    failure = pairs[1].error
    assert failure is not None and failure.type == "OutputValidationError"
    assert json.loads(failure.text) == {"name": "Bob", "age": -1}
    by_id = list(sg.extract(Adult, {"ada": "Ada is 36.", 3: "Cy is 3."}, llm=llm))
    assert [(r.id, r.value.age if r.value else None) for r in by_id] == [("ada", 36), (3, 3)]
    mappings = [{"id": "x", "body": "Cy is 7.", "title": "T"}, {"body": "Di is 8.", "title": "U"},
                {"id": 1.5, "body": "Ed is 9."}, {"id": "y", "body": "Fay is 2."}]
    out = {r.id: r for r in sg.extract(Adult, mappings, llm=llm, text_field="body", prompt="{title}\n{text}")}
    assert out["x"].value == Adult(name="Cy", age=7) and out[1].value == Adult(name="Di", age=8)
    assert out[2].error == sg.ExtractFailure("InputError", "document 2: the id ('id') must be a string or an "
                                                           "integer, not 1.5")
    assert out["y"].error == sg.ExtractFailure("InputError", "document 3: no field 'title' for the prompt placeholder")
    (tmp_path / "in.txt").write_text("Ada is 36.\n\nBob is 41.\n")
    from_file = {r.id: r.value for r in sg.extract(Adult, tmp_path / "in.txt", llm=llm)}
    assert from_file == {1: Adult(name="Ada", age=36), 3: Adult(name="Bob", age=41)}  # line numbers
    write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "Ada is 1."}, "not json"])
    kinds = {r.id: r.ok for r in sg.extract(Adult, tmp_path / "in.jsonl", llm=llm)}
    assert kinds == {"a": True, 2: False}


def test_extract_checks_its_job_when_called(tmp_path: Path) -> None:
    llm = scripted()
    with pytest.raises(sg.JobError) as caught:
        sg.extract(Adult, ["Ada is 1."], llm=llm, prompt="Who is it?")
    assert caught.value.option == "prompt" and caught.value.path is None
    assert str(caught.value).startswith("prompt: the template has no {text} placeholder")
    assert isinstance(caught.value, sg.StructgenError) and isinstance(caught.value, ValueError)
    with pytest.raises(sg.JobError, match=r'document 1: id "a" is already the id of document 0'):
        sg.extract(Adult, [("a", "x"), ("a", "y")], llm=llm)
    source = write_jsonl(tmp_path / "in.jsonl", [{"id": 1, "text": "x"}, {"id": 1, "text": "y"}])
    with pytest.raises(sg.JobError) as caught:
        sg.extract(Adult, source, llm=llm)
    assert (caught.value.option, caught.value.path, caught.value.line) == ("documents", str(source), 2)
    (tmp_path / "out.jsonl").write_text('{"name": "Ada"}\n')
    with pytest.raises(sg.JobError) as caught:
        sg.extract(Adult, ["Ada is 1."], llm=llm, output=tmp_path / "out.jsonl")
    assert (caught.value.option, caught.value.line) == ("output", 1) and "right output?" in str(caught.value)
    with pytest.raises(sg.JobError, match="keep_reasoning needs a reasoning budget"):
        sg.extract(Adult, ["x"], llm=llm, keep_reasoning=True)
    with pytest.raises(TypeError, match="documents is a str"):
        sg.extract(Adult, "Ada is 36.", llm=llm)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="document 1 is a number"):
        sg.extract(Adult, ["x", 5], llm=llm)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="not both"):
        sg.extract(Adult, ["x"], llm=llm, model="m.gguf")
    run = sg.extract(Adult, ["Ada is 1."], model=tmp_path / "no-such.gguf")  # checked; nothing loaded yet
    with pytest.raises(sg.ModelNotFoundError):
        next(run)


def test_documents_read_once_are_checked_as_they_come(tmp_path: Path) -> None:
    heard: list[sg.ExtractProgress] = []
    docs = (text for text in ["Ada is 1.", "Bob is 2."])
    got = list(sg.extract(Adult, docs, llm=scripted(), output=tmp_path / "out.jsonl", progress=heard.append))
    assert [r.id for r in got] == [0, 1] and [p.total for p in heard] == [None, None]
    again = ((i, text) for i, text in enumerate(["Ada is 1.", "Bob is 2.", "Cy is 3."]))
    assert [r.id for r in sg.extract(Adult, again, llm=scripted(), output=tmp_path / "out.jsonl")] == [2]
    twice = iter([("a", "Ada is 1."), ("b", "Bob is 2."), ("a", "Cy is 3.")])
    run = sg.extract(Adult, twice, llm=scripted())
    assert [next(run).id, next(run).id] == ["a", "b"]
    with pytest.raises(sg.JobError, match=r'document 2: id "a" is already the id of document 0'):
        next(run)


def test_extract_resumes_from_its_output(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    backend = PromptBackend()
    llm = scripted(backend)
    texts: dict[str | int, str] = {"a": "Ada is 1.", "b": "Bob is FAIL 2.", "c": "Cy is 3."}
    assert len(list(sg.extract(Adult, texts, llm=llm, output=out, max_retries=0))) == 3
    assert records(out)["b"]["error"]["type"] == "OutputValidationError"
    again = list(sg.extract(Adult, {**texts, "d": "Di is 4."}, llm=llm, output=out))
    assert [r.id for r in again] == ["d"] and len(backend.prompts) == 4  # finished ids skipped
    texts["b"] = "Bob is 2."
    retried = list(sg.extract(Adult, iter(texts.items()), llm=llm, output=out, retry_errors=True))
    assert [(r.id, r.ok) for r in retried] == [("b", True)] and len(backend.prompts) == 5
    assert sorted(records(out)) == ["a", "b", "c", "d"]  # one record per id


def test_extract_reports_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    heard: list[sg.ExtractProgress] = []
    texts = [f"P{i} is {i} {'FAIL' if i == 2 else ''}" for i in range(4)]
    out = tmp_path / "out.jsonl"
    list(sg.extract(Adult, texts, llm=scripted(), output=out, max_retries=0, progress=heard.append))
    assert [(p.done, p.total, p.errors, p.skipped) for p in heard] == [
        (1, 4, 0, 0), (2, 4, 0, 0), (3, 4, 1, 0), (4, 4, 1, 0)]
    assert all(p.seconds >= 0 for p in heard) and heard[-1].eta in (None, 0)
    heard.clear()
    list(sg.extract(Adult, [*texts, "Q is 4.", "R is 5."], llm=scripted(), output=out, progress=heard.append))
    assert [(p.done, p.total, p.errors, p.skipped) for p in heard] == [(5, 6, 1, 4), (6, 6, 1, 4)]
    capsys.readouterr()
    list(sg.extract(Adult, ["Ada is 1.", "Bob is 2."], llm=scripted(), progress=True))
    err = capsys.readouterr().err  # not a terminal: a plain line at each tenth
    assert err.splitlines()[-1].startswith("extract: 2/2 (100%)") and "\x1b" not in err


def test_leaving_the_loop_stops_the_run(tmp_path: Path) -> None:
    backend = AsyncPromptBackend()
    out = tmp_path / "out.jsonl"
    run = sg.extract(Adult, [f"P{i} is {i}." for i in range(8)], llm=scripted(backend), output=out,
                     concurrency=3)
    first = next(run)
    run.close()  # as a break does
    assert backend.in_flight == 0  # the requests in flight were cancelled
    assert first.id in records(out) and 1 <= len(records(out)) < 8


def test_documents_go_to_the_model_with_the_fewest_in_flight() -> None:
    one, two = AsyncPromptBackend(), AsyncPromptBackend()
    got = list(sg.extract(Adult, [f"P{i} is {i}." for i in range(8)], llm=[scripted(one), scripted(two)],
                          concurrency=4))
    assert sorted(r.id for r in got) == list(range(8)) and all(r.ok for r in got)
    assert one.most_in_flight == two.most_in_flight == 2 and len(one.prompts) + len(two.prompts) == 8


def test_aextract_runs_on_the_event_loop(tmp_path: Path) -> None:
    backend = AsyncPromptBackend()

    async def main() -> tuple[list[Any], list[Any]]:
        texts = [f"P{i} is {i}." for i in range(6)]
        every = [r async for r in sg.aextract(Adult, texts, llm=scripted(backend), concurrency=3)]
        some = []
        run = sg.aextract(Adult, texts, llm=scripted(backend), concurrency=3, output=tmp_path / "o.jsonl")
        async with contextlib.aclosing(run):  # type: ignore[type-var]
            async for record in run:
                some.append(record)
                break
        return every, some

    every, some = asyncio.run(main())
    assert sorted(r.value.age for r in every) == list(range(6)) and backend.most_in_flight == 3
    assert len(some) == 1 and backend.in_flight == 0 and len(records(tmp_path / "o.jsonl")) >= 1


def test_a_failing_server_ends_the_run_with_its_error(tmp_path: Path) -> None:
    texts = ["P0 is 0.", "P1 is 1.", "P2 is 2. DOWN", "P3 is 3."]
    out = tmp_path / "out.jsonl"
    got = []
    with pytest.raises(sg.BackendError, match="connection refused"):
        for record in sg.extract(Adult, texts, llm=scripted(), output=out):
            got.append(record.id)
    assert got == [0, 1] and sorted(records(out)) == [0, 1]


@pytest.mark.parametrize(("concurrency", "threads", "batch", "cores", "cpus", "lanes"), [
    (1, None, None, 2, 2, [(None, None, 1)]),           # LLM()'s own threads
    (1, 3, None, 2, 2, [(3, None, 1)]),
    (4, None, None, 2, 2, [(1, 1, 2), (1, 1, 2)]),      # a model per core, two documents each
    (3, None, None, 2, 2, [(1, 1, 2), (1, 1, 1)]),
    (2, None, None, 8, 16, [(4, 8, 1), (4, 8, 1)]),     # the cores shared out
    (4, None, None, 1, 1, [(1, 1, 4)]),                 # one core: one model
    (4, 2, None, 2, 2, [(2, 2, 4)]),                    # --threads 2 on 2 cores: one model
    (3, 1, 2, 4, 8, [(1, 2, 1), (1, 2, 1), (1, 2, 1)]),
])
def test_lanes_spread_documents_over_the_cores(concurrency: int, threads: int | None, batch: int | None,
                                               cores: int, cpus: int, lanes: list[tuple[Any, ...]]) -> None:
    plan = ex.lane_plan(concurrency, threads=threads, threads_batch=batch, cores=cores, cpus=cpus)
    assert [(lane.threads, lane.threads_batch, lane.sequences) for lane in plan] == lanes
    assert sum(lane.sequences for lane in plan) == concurrency


def test_job_errors_are_structgen_errors() -> None:
    assert issubclass(sg.JobError, sg.StructgenError) and issubclass(sg.JobError, ValueError)
    error = sg.JobError("in.jsonl:3: id 1 is already the id of line 1", option="documents", path="in.jsonl", line=3)
    assert (error.option, error.path, error.line) == ("documents", "in.jsonl", 3)
    assert str(error) == "in.jsonl:3: id 1 is already the id of line 1"


# ---------------------------------------------------------------- the command line's model flags


def fake_llm(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, dict[str, Any]]]:
    """LLM(...) records its arguments and answers as PromptBackend does; two cores."""
    from structgen._backends.llamacpp import _threads

    made: list[tuple[Any, dict[str, Any]]] = []
    real = sg.LLM

    def loaded(model: Any = None, **options: Any) -> sg.LLM:
        made.append((model, options))
        return real.from_backend(PromptBackend())

    monkeypatch.setattr("structgen._llm.LLM", loaded)
    monkeypatch.setattr(_threads, "default_threads", lambda: _threads.Threads(token=2, batch=2))
    return made


def test_llama_flags_reach_every_model_of_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = fake_llm(monkeypatch)
    write_jsonl(tmp_path / "in.jsonl", [{"text": f"P{i} is {i}."} for i in range(5)])
    base = ["extract", "builtins:dict", "--input", str(tmp_path / "in.jsonl"), "--model", "m.gguf", "--quiet"]
    status = main([*base, "--output", str(tmp_path / "a.jsonl"), "--concurrency", "3", "--n-ctx", "1024",
                   "--threads-batch", "3", "--n-batch", "64", "--lookahead", "0", "--prompt-cache-bytes", "0",
                   "--grammar-step-seconds", "2.5", "--seed", "7"])
    assert status == 0 and len(records(tmp_path / "a.jsonl")) == 5
    shared = {"seed": 7, "n_ctx": 1024, "n_batch": 64, "lookahead": 0, "prompt_cache_bytes": 0,
              "grammar_step_seconds": 2.5, "n_threads": 1, "n_threads_batch": 3}
    assert made == [("m.gguf", {**shared, "sequences": 2}), ("m.gguf", {**shared, "sequences": None})]
    made.clear()
    assert main([*base, "--output", str(tmp_path / "b.jsonl"), "--threads", "2"]) == 0
    assert made == [("m.gguf", {"seed": 0, "n_threads": 2, "n_threads_batch": None, "sequences": None})]


def test_generate_takes_the_llama_flags(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    made = fake_llm(monkeypatch)
    assert main(["generate", "builtins:dict", "Ada is 36.", "--model", "m.gguf", "--n-ctx", "512",
                 "--threads", "1", "--threads-batch", "2", "--n-gpu-layers", "-1"]) == 0
    assert made == [("m.gguf", {"seed": 0, "n_ctx": 512, "n_threads": 1, "n_threads_batch": 2, "n_gpu_layers": -1})]
    assert json.loads(capsys.readouterr().out) == {"name": "Ada", "age": 36}


def test_llama_flags_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_jsonl(tmp_path / "in.jsonl", [{"text": "Ada is 36."}])
    base = ["extract", "builtins:dict", "--input", str(tmp_path / "in.jsonl"), "--output", str(tmp_path / "o.jsonl")]
    assert main([*base, "--backend", "http://127.0.0.1:9", "--n-ctx", "512"]) == 2
    assert "--n-ctx: settings of the in-process model" in capsys.readouterr().err
    for bad in (["--lookahead", "-1"], ["--n-ctx", "0"], ["--grammar-step-seconds", "0"], ["--threads", "x"]):
        with pytest.raises(SystemExit) as exited:
            main([*base, *bad])
        assert exited.value.code == 2


# ---------------------------------------------------------------- on the real model


def cli(*args: str) -> list[str]:
    threads = [] if "--backend" in args else ["--threads", "1"]  # a server's threads are its own
    return [sys.executable, "-m", "structgen", "extract", "models:Person", *args, *threads,
            "--max-tokens", "24", "--max-retries", "0"]


def cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("extract")
    (folder / "models.py").write_text(MODELS)
    write_jsonl(folder / "docs.jsonl", DOCS)
    return folder


@pytest.fixture(scope="module")
def reference(work: Path) -> dict[Any, dict[str, Any]]:
    """An uninterrupted run of the command on the default model."""
    done = subprocess.run(cli("--input", "docs.jsonl", "--output", "full.jsonl"),
                          cwd=work, env=cli_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr  # the line that is not JSON is an error record
    assert "extract: 5/5 documents in full.jsonl, 1 of them errors" in done.stderr
    return records(work / "full.jsonl")


@pytest.mark.model
def test_a_full_run_writes_one_typed_record_per_document(reference: dict[Any, dict[str, Any]]) -> None:
    assert sorted(reference, key=str) == sorted(["ada", "bob", 3, 4, "dora"], key=str)
    assert reference[3]["error"]["type"] == "InputError"
    for doc_id in ("ada", "bob", 4, "dora"):
        Person.model_validate(reference[doc_id]["value"])
    assert reference["ada"]["value"]["age"] == 36  # the model reads the documents


@pytest.mark.model
def test_an_interrupted_run_resumes_to_the_same_output(
    work: Path, reference: dict[Any, dict[str, Any]],
) -> None:
    out = work / "resumed.jsonl"
    command = cli("--input", "docs.jsonl", "--output", out.name)
    # A run started in the background (``cmd &``) inherits Ctrl-C ignored, and Python keeps it
    # ignored: the command is given the default disposition, as a terminal gives it.
    process = subprocess.Popen(command, cwd=work, env=cli_env(), stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300  # a guard against a hang, not a measurement
    while not (out.exists() and out.read_bytes().count(b"\n") >= 1):
        assert process.poll() is None and time.monotonic() < deadline, "no record appeared"
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    partial = records(out)  # whole records only
    assert 1 <= len(partial) < len(DOCS)
    assert "interrupted with" in err and "rerun the same command to resume" in err
    again = subprocess.run(command, cwd=work, env=cli_env(), capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 1, again.stderr
    assert f"{len(partial)} already in {out.name}" in again.stderr
    assert records(out) == reference


@pytest.fixture(scope="module")
def llm() -> Iterator[sg.LLM]:
    model = sg.LLM(n_threads=1, max_tokens=24, max_retries=0)  # as the command loads it
    yield model
    model.close()


@pytest.mark.model
def test_a_torn_line_is_repaired_and_its_document_done_again(
    llm: sg.LLM, work: Path, reference: dict[Any, dict[str, Any]],
) -> None:
    out = work / "torn.jsonl"
    lines = (work / "full.jsonl").read_bytes().splitlines(keepends=True)
    last = lines[-1]
    out.write_bytes(b"".join(lines[:-1]) + last[: len(last) // 2])
    the_job = ex.ExtractJob(Person, work / "docs.jsonl", out)
    plan = ex.prepare(the_job)
    assert plan.repaired_bytes == len(last) // 2 and plan.todo == 1
    summary = run_on(llm, plan)
    assert summary.written_values + summary.written_errors == 1
    assert records(out) == reference


@pytest.mark.model
def test_a_model_error_is_a_typed_record_with_the_text(llm: sg.LLM, tmp_path: Path) -> None:
    the_job = job(tmp_path, [{"id": "x", "text": "Ada Lovelace is 36 years old."}], max_tokens=4)
    summary = run_on(llm, ex.prepare(the_job))
    error = records(the_job.output_path)["x"]["error"]
    assert error["type"] == "IncompleteOutputError" and "max_tokens=4 ran out" in error["message"]
    assert error["text"].startswith('{"name": ')
    assert ex.exit_status(summary) == 1


@pytest.mark.model
def test_concurrent_requests_to_a_llama_server(work: Path, reference: dict[Any, dict[str, Any]]) -> None:
    from test_server_backend import _running_server

    with _running_server("-c", "2048", "-np", "2") as (url, _):
        done = subprocess.run(
            cli("--input", "docs.jsonl", "--output", "served.jsonl", "--backend", url,
                "--concurrency", "2"),
            cwd=work, env=cli_env(), capture_output=True, text=True, timeout=300,
        )
    assert done.returncode == 1, done.stderr
    # Greedy decoding under the same grammar: the server's sampler gives the same records.
    assert records(work / "served.jsonl") == reference


@pytest.mark.model
def test_extract_on_the_default_model(llm: sg.LLM, tmp_path: Path) -> None:
    texts = {"ada": "Ada Lovelace is 36 years old.", "bob": "Bob, aged 41, fixes bikes.",
             "chen": "Chen turned 29 last week."}
    out, heard = tmp_path / "people.jsonl", []
    got = {r.id: r for r in sg.extract(Person, texts, llm=llm, output=out, progress=heard.append)}
    assert sorted(got) == ["ada", "bob", "chen"] and all(isinstance(r.value, Person) for r in got.values())
    assert got["ada"].value == Person.model_validate(records(out)["ada"]["value"])
    assert [p.done for p in heard] == [1, 2, 3] and heard[-1].total == 3
    texts["dora"] = "The baker Dora is 52."
    again = list(sg.extract(Person, texts, llm=llm, output=out))
    assert [r.id for r in again] == ["dora"] and again[0].ok  # the finished ids are skipped
    assert sorted(records(out)) == ["ada", "bob", "chen", "dora"]


@pytest.mark.model
def test_concurrency_on_the_default_model_gives_every_record(llm: sg.LLM, tmp_path: Path) -> None:
    texts = [doc["text"] for doc in DOCS if isinstance(doc, dict)]
    one = {r.id: r.value for r in sg.extract(Person, texts, llm=llm)}
    two = {r.id: r for r in sg.extract(Person, texts, concurrency=2, max_tokens=24, max_retries=0)}
    assert sorted(two) == sorted(one) == [0, 1, 2, 3] and all(r.ok for r in two.values())
    if len(ex.lane_plan(2)) == 2:  # one document per model: decoded exactly as one at a time
        assert {i: r.value for i, r in two.items()} == one

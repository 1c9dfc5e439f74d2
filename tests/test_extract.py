"""``structgen extract``: records, resume, torn lines, the prompt template, progress, Ctrl-C.

The control flow (which line becomes which record, concurrency, a failing server, a stop) runs
on scripted backends, which reach on demand what a model does only by chance; the job itself
runs on the real default model, in-process and as ``python -m structgen extract``: a full
run, a run interrupted by SIGINT and resumed to the same output, a torn line repaired, and N
requests at once against a real llama-server.
"""

from __future__ import annotations

import asyncio
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


def job(tmp_path: Path, lines: list[Any], **options: Any) -> ex.ExtractJob:
    return ex.ExtractJob(Adult, write_jsonl(tmp_path / "in.jsonl", lines),
                         tmp_path / "out.jsonl", **{"max_retries": 0, **options})


def run_scripted(the_job: ex.ExtractJob, backend: Any = None) -> ex.Summary:
    llm = sg.LLM.from_backend(backend or PromptBackend())
    return asyncio.run(ex.extract(llm, ex.prepare(the_job)))


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
                            input_format="text")
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
                     "message": "line 2: no field 'title' for the --prompt placeholder"}


def test_the_text_field_may_stand_for_the_document(tmp_path: Path) -> None:
    backend = PromptBackend()
    run_scripted(job(tmp_path, [{"body": "Ada is 36."}], text_field="body", prompt="{body}"),
                 backend)
    assert backend.prompts == ["Ada is 36."]
    with pytest.raises(ex.JobError, match=re.escape("no {text} placeholder (or {body}, the --field)")):
        ex.prepare(job(tmp_path, [{"body": "Ada is 36."}], text_field="body", prompt="Hi."))


@pytest.mark.parametrize(("prompt", "message"), [
    ("Extract it.", "no {text} placeholder"),
    ("{} {text}", "placeholder {} is not a plain {name}"),
    ("{0} {text}", "placeholder {0} is not a plain {name}"),
    ("{text!r}", "placeholder {text!r} is not a plain {name}"),
    ("{text:>9}", "placeholder {text:>9} is not a plain {name}"),
    ("{text.upper}", "placeholder {text.upper} is not a plain {name}"),
    ("{text} {", "Single '{' encountered"),
    ("{text} {titel}", "no line is a usable document (the first: line 1: no field 'titel'"),
])
def test_a_bad_template_stops_before_any_model_work(tmp_path: Path, prompt: str, message: str) -> None:
    with pytest.raises(ex.JobError, match=re.escape(message)):
        ex.prepare(job(tmp_path, [{"text": "Ada is 36."}], prompt=prompt))
    assert not (tmp_path / "out.jsonl").exists()


def test_an_input_without_one_usable_document_is_refused(tmp_path: Path) -> None:
    lines = [{"body": "Ada is 36."}, "not json", {"body": "Bob is 41."}]
    with pytest.raises(ex.JobError, match=re.escape(
            "no line is a usable document (the first: line 1: no field 'text' (the document "
            "text, a string)); check --field")):
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
    asyncio.run(ex.extract(sg.LLM.from_backend(PromptBackend()), plan))
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

    async def interrupted() -> ex.Summary:
        the_llm = sg.LLM.from_backend(backend)
        return await ex.extract(the_llm, ex.prepare(job(tmp_path, lines, concurrency=2)),
                                stop=backend.stop)

    summary = asyncio.run(interrupted())
    assert summary.interrupted and ex.exit_status(summary) == 130
    assert 0 < summary.on_disk < 6 and summary.remaining == 6 - summary.on_disk
    assert backend.in_flight == 0  # the requests in flight were cancelled
    partial = records(tmp_path / "out.jsonl")
    summary = run_scripted(job(tmp_path, lines), PromptBackend())
    assert summary.skipped == len(partial) and ex.exit_status(summary) == 0
    reference = tmp_path / "reference"
    reference.mkdir()
    run_scripted(job(reference, lines))
    assert records(tmp_path / "out.jsonl") == records(reference / "out.jsonl")


class SignallingBackend(AsyncPromptBackend):
    """Sends this process SIGTERM when its third request starts, as a scheduler would."""

    async def acomplete(self, request: CompletionRequest) -> AsyncIterator[TextDelta | Completion]:
        if len(self.prompts) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
        async for event in super().acomplete(request):
            yield event


def test_sigterm_stops_a_blocking_run_cleanly(tmp_path: Path) -> None:
    lines = [{"id": i, "text": f"Person{i} is {i}."} for i in range(5)]
    before = signal.getsignal(signal.SIGTERM)
    llm = sg.LLM.from_backend(SignallingBackend())
    summary = ex.run_extract(llm, ex.prepare(job(tmp_path, lines)))
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


# ---------------------------------------------------------------- on the real model


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "structgen", "extract", "models:Person", *args,
            "--threads", "1", "--max-tokens", "24", "--max-retries", "0"]


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
    process = subprocess.Popen(command, cwd=work, env=cli_env(), stderr=subprocess.PIPE, text=True)
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
    summary = ex.run_extract(llm, plan)
    assert summary.written_values + summary.written_errors == 1
    assert records(out) == reference


@pytest.mark.model
def test_a_model_error_is_a_typed_record_with_the_text(llm: sg.LLM, tmp_path: Path) -> None:
    the_job = job(tmp_path, [{"id": "x", "text": "Ada Lovelace is 36 years old."}], max_tokens=4)
    summary = ex.run_extract(llm, ex.prepare(the_job))
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

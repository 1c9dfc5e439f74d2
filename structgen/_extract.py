"""``structgen extract``: one typed record per input document, a bulk job that loses nothing.

A job reads documents (JSON Lines, or plain text one document a line), asks the model for a
value of the output type for each, and appends one JSON record per document to the output as
soon as it completes (one write and a flush per record, an fsync at the end)::

    {"id": 7, "value": {...}}                                     a value of the type
    {"id": 8, "error": {"type": "IncompleteOutputError", "message": "...", "text": "..."}}

Records are in completion order (input order when one document runs at a time); key them by
``id``. A rerun with the same output resumes: documents whose id has a record are skipped
(error records too, unless ``retry_errors``), and a torn last line (an interrupted write) is
cut off first. The work splits in two so that every mistake in the input, the output or the
prompt shows before a model is loaded: :func:`prepare` reads the input and the output and
returns a :class:`CheckedJob`; :func:`extract` (asyncio) or :func:`run_extract` (blocking, stops
cleanly on Ctrl-C) run it on an :class:`~structgen.LLM`.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import string
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TextIO

from ._backends._seam import DEFAULT_SAMPLING, ReasoningDelta
from ._errors import BackendError, GenerationError
from ._generate._generation import GenerateOptions
from ._generate._reasoning import checked_budget

__all__ = [
    "DEFAULT_PROMPT",
    "ExtractJob",
    "JobError",
    "CheckedJob",
    "Progress",
    "PromptTemplate",
    "Summary",
    "describe",
    "exit_status",
    "extract",
    "idle_summary",
    "nothing_to_do",
    "prepare",
    "report",
    "run_extract",
]

DEFAULT_PROMPT = "Extract the data from this text.\n\n{text}"
InputFormat = Literal["jsonl", "text"]
DocId = str | int
RETRY_HINT = "--retry-errors runs them again"
INPUT_ERROR = "InputError"  # the "type" of a record for a line that is not a usable document


class JobError(Exception):
    """The job cannot start: its input, output or prompt template is unusable (one line, with
    the file and line). Nothing was sent to a model."""


# ---------------------------------------------------------------- the job


@dataclass(frozen=True)
class ExtractJob:
    """What to extract from which file into which file (see the module doc).

    ``text_field`` names the document text in each JSON line, ``id_field`` its id (the line
    number when absent). ``prompt`` is a template: ``{text}`` is the document text, any other
    ``{name}`` the input field of that name. The generation settings are those of
    :meth:`LLM.generate` (None: the LLM's own). With ``reasoning`` (a budget of tokens) the
    model thinks before each answer; ``keep_reasoning`` writes what it thought into the
    record (``"reasoning"``).
    """

    output_type: Any
    input_path: Path
    output_path: Path
    text_field: str = "text"
    id_field: str = "id"
    input_format: InputFormat = "jsonl"
    prompt: str = DEFAULT_PROMPT
    system: str | None = None
    concurrency: int = 1
    retry_errors: bool = False
    max_tokens: int | None = None
    max_retries: int | None = None
    temperature: float = DEFAULT_SAMPLING.temperature
    seed: int | None = None
    reasoning: int | None = None
    keep_reasoning: bool = False

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if checked_budget(self.reasoning) is None and self.keep_reasoning:
            raise ValueError("keep_reasoning needs a reasoning budget")


# ---------------------------------------------------------------- the prompt template


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt with ``{name}`` placeholders (``{{`` and ``}}`` are literal braces)."""

    source: str
    pieces: tuple[tuple[str, str | None], ...]  # (literal text, placeholder name or None)

    @classmethod
    def parse(cls, source: str, text_field: str = "text") -> PromptTemplate:
        """The template, or a JobError naming what is wrong; it must show the document, as
        ``{text}`` or as ``{<text_field>}``."""
        pieces: list[tuple[str, str | None]] = []
        try:
            parsed = list(string.Formatter().parse(source))
        except ValueError as e:
            raise JobError(f"--prompt: {e} (write {{{{ and }}}} for literal braces)") from None
        for literal, name, spec, conversion in parsed:
            if name is not None and (not name.isidentifier() or spec or conversion):
                shown = ("{" + name + (f"!{conversion}" if conversion else "")
                         + (f":{spec}" if spec else "") + "}")
                raise JobError(f"--prompt: placeholder {shown} is not a plain {{name}} "
                               "(write {{ and }} for literal braces)")
            pieces.append((literal, name))
        template = cls(source, tuple(pieces))
        if not template.names & {"text", text_field}:
            also = f" (or {{{text_field}}}, the --field)" if text_field != "text" else ""
            raise JobError(f"--prompt: the template has no {{text}} placeholder{also}, so the "
                           "model would never see the document")
        return template

    @property
    def names(self) -> frozenset[str]:
        return frozenset(name for _, name in self.pieces if name is not None)

    def render(self, text: str, fields: Mapping[str, Any]) -> str:
        """The prompt of one document; a KeyError names a placeholder the document lacks."""
        parts: list[str] = []
        for literal, name in self.pieces:
            parts.append(literal)
            if name is None:
                continue
            value = text if name == "text" else fields[name]  # {<text_field>} is in fields
            parts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
        return "".join(parts)


# ---------------------------------------------------------------- input


@dataclass(frozen=True)
class Document:
    """One input line: a prompt to run, or the problem that makes it an error record."""

    line: int
    id: DocId
    prompt: str | None
    problem: str | None = None


def _id_key(doc_id: DocId) -> str:
    """A set key that keeps 1 and "1" apart, as JSON does."""
    return json.dumps(doc_id)


def _read_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of every non-blank line; lines end at \\n only (a \\r\\n ending is
    dropped too), so the numbers are those of ``wc -l`` and editors."""
    try:
        with path.open("rb") as lines:
            for number, line in enumerate(lines, 1):
                line = line.rstrip(b"\r\n")
                if line.strip():
                    yield number, line
    except FileNotFoundError:
        raise JobError(f"{path}: no such file") from None
    except OSError as e:
        raise JobError(f"{path}: cannot read: {e}") from None


def _documents(job: ExtractJob, template: PromptTemplate) -> Iterator[Document]:
    for line, raw in _read_lines(job.input_path):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            yield Document(line, line, None, f"line {line}: not UTF-8 text (byte {e.start + 1})")
            continue
        if job.input_format == "text":
            yield Document(line, line, template.render(text, {}))
        else:
            yield _json_document(job, template, line, text)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else "null"


def _json_document(job: ExtractJob, template: PromptTemplate, line: int, text: str) -> Document:
    def problem(message: str, doc_id: DocId = line) -> Document:
        return Document(line, doc_id, None, f"line {line}: {message}")

    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        return problem(f"not JSON: {e.msg} (column {e.colno})")
    if not isinstance(record, dict):
        return problem(f"not a JSON object but {_json_kind(record)}")
    doc_id = record.get(job.id_field, line)
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
        return problem(f"the id ({job.id_field!r}) must be a string or an integer, "
                       f"not {json.dumps(doc_id)}")
    body = record.get(job.text_field)
    if not isinstance(body, str):
        what = "no" if body is None else f"{_json_kind(body)} in"
        return problem(f"{what} field {job.text_field!r} (the document text, a string)", doc_id)
    try:
        return Document(line, doc_id, template.render(body, record))
    except KeyError as e:
        return problem(f"no field {e.args[0]!r} for the --prompt placeholder", doc_id)


def _scan_input(job: ExtractJob, template: PromptTemplate) -> tuple[set[str], int]:
    """Every document's id key and the count. Duplicate ids are JobErrors (resuming by id
    needs unique ids), and so is an input in which no line is a usable document: a wrong
    --field, --prompt or format, better said now than in an error record per line."""
    if job.input_format == "text" and template.names != {"text"}:
        others = ", ".join("{" + n + "}" for n in sorted(template.names - {"text"}))
        raise JobError(f"--prompt: {others}: plain text input has only {{text}}")
    seen: dict[str, int] = {}
    usable, first_problem = 0, ""
    for doc in _documents(job, template):
        key = _id_key(doc.id)
        if key in seen:
            raise JobError(f"{job.input_path}:{doc.line}: id {key} is already the id of line "
                           f"{seen[key]} (ids must be unique to resume by them)")
        seen[key] = doc.line
        usable += doc.prompt is not None
        first_problem = first_problem or (doc.problem or "")
    if seen and not usable:
        raise JobError(f"{job.input_path}: no line is a usable document (the first: "
                       f"{first_problem}); check --field, --prompt and --input-format")
    return set(seen), len(seen)


# ---------------------------------------------------------------- the output so far


@dataclass
class _OutputState:
    done: dict[str, bool] = field(default_factory=dict)  # id key -> whether it is a value
    repaired_bytes: int = 0


def _parse_record(raw: bytes) -> dict[str, Any] | None:
    """The record on one output line; None if the line is not JSON (a torn write)."""
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return record if isinstance(record, dict) else {}


def _is_record(record: dict[str, Any]) -> bool:
    doc_id = record.get("id")
    return (isinstance(doc_id, (str, int)) and not isinstance(doc_id, bool)
            and (("value" in record) != ("error" in record)))


def _read_output(path: Path) -> _OutputState:
    """The records already in the output, after cutting off a torn last line: bytes after the
    last newline that are not a record, or a last line that is not JSON. A record that lost
    only its newline gets one. Any other line that is not a record is a JobError (not our
    file?), raised before anything changes."""
    state = _OutputState()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return state
    except OSError as e:
        raise JobError(f"{path}: cannot read: {e}") from None
    body_end = data.rfind(b"\n") + 1
    lines, tail = data[:body_end].split(b"\n")[:-1], data[body_end:]
    keep, add_newline = len(data), False
    if tail and _parse_record(tail) is None:
        keep = body_end
    elif tail:
        lines.append(tail)
        add_newline = True
    elif lines and lines[-1].strip() and _parse_record(lines[-1]) is None:
        keep = body_end - len(lines.pop()) - 1
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        record = _parse_record(raw)
        if record is None or not _is_record(record):
            raise JobError(f"{path}:{number}: not an extract record (an object with an id and a "
                           "value or an error); is this the right --output?")
        state.done[_id_key(record["id"])] = "value" in record
    state.repaired_bytes = len(data) - keep
    if state.repaired_bytes or add_newline:
        _cut(path, keep, newline=add_newline)
    return state


def _cut(path: Path, size: int, *, newline: bool) -> None:
    """Truncate the output to ``size`` bytes (dropping a torn line), or end its last record,
    which lost only its newline, with one."""
    with path.open("r+b") as f:
        if newline:
            f.seek(0, os.SEEK_END)
            f.write(b"\n")
        else:
            f.truncate(size)
        f.flush()
        os.fsync(f.fileno())


def _drop_errors(path: Path, retry: set[str]) -> None:
    """Rewrite the output without the error records of ``retry`` (a new file renamed over the
    old one, so a crash leaves either)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with path.open("rb") as old, temporary.open("wb") as new:
        for raw in old:
            record = _parse_record(raw)
            if record is not None and "error" in record and _id_key(record.get("id", "")) in retry:
                continue
            new.write(raw)
        new.flush()
        os.fsync(new.fileno())
    os.replace(temporary, path)


# ---------------------------------------------------------------- the checked job


@dataclass
class CheckedJob:
    """A checked job: how many documents there are, which are done, what is left."""

    job: ExtractJob
    template: PromptTemplate
    total: int                # documents in the input
    skip: set[str]            # id keys with a record to keep
    done_values: int          # of the input's documents, records with a value kept
    done_errors: int          # ... and error records kept
    retried_errors: int       # error records dropped to run again (retry_errors)
    foreign_records: int      # records whose id is not in the input (kept, not counted)
    repaired_bytes: int       # bytes of a torn last line cut off

    @property
    def todo(self) -> int:
        return self.total - self.done_values - self.done_errors


def prepare(job: ExtractJob) -> CheckedJob:
    """Check the job and bring the output to a clean state (a torn line cut, errors dropped
    for retrying); no model is involved. JobError for an unusable input, output or prompt;
    the output type's own errors (SchemaError, ...) as :func:`spec_for` raises them."""
    from ._generate._output import spec_for

    spec_for(job.output_type)  # a type without a grammar fails here, not at every document
    if job.input_path.exists() and not job.input_path.is_file():
        raise JobError(f"{job.input_path}: not a regular file (the input is read twice: to "
                       "count and check it, then to run)")
    if job.input_path.resolve() == job.output_path.resolve():
        raise JobError(f"--output {job.output_path} is the input file")
    template = PromptTemplate.parse(job.prompt, job.text_field)
    input_keys, total = _scan_input(job, template)
    state = _read_output(job.output_path)
    mine = {key: ok for key, ok in state.done.items() if key in input_keys}
    retry = {key for key, ok in mine.items() if not ok} if job.retry_errors else set()
    if retry:
        _drop_errors(job.output_path, retry)
    skip = set(mine) - retry
    values = sum(1 for key in skip if mine[key])
    return CheckedJob(job, template, total, skip, values, len(skip) - values, len(retry),
                len(state.done) - len(mine), state.repaired_bytes)


# ---------------------------------------------------------------- records


def _value_record(doc_id: DocId, output_type: Any, value: Any) -> dict[str, Any]:
    from ._types import type_adapter

    return {"id": doc_id, "value": type_adapter(output_type).dump_python(value, mode="json")}


def _error_record(doc_id: DocId, kind: str, message: str, text: str = "") -> dict[str, Any]:
    error: dict[str, Any] = {"type": kind, "message": message}
    if text:
        error["text"] = text
    return {"id": doc_id, "error": error}


class _RecordWriter:
    """Appends one record per call: a single write of the whole line, then a flush, so that
    nothing short of a crash leaves half a line; fsync on close."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("ab", buffering=0)

    def write(self, record: Mapping[str, Any]) -> None:
        data = memoryview((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
        while data:
            written = self._file.write(data)
            data = data[written or 0:]

    def close(self) -> None:
        try:
            os.fsync(self._file.fileno())
        finally:
            self._file.close()


# ---------------------------------------------------------------- progress


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """``done/total, errors, rate, ETA`` on ``stream``: one line redrawn in place on a terminal
    (``tty``), else a plain line at each tenth of the work and at least every
    ``log_seconds`` — no escape codes in logs."""

    def __init__(
        self, stream: TextIO, *, total: int, already: int, tty: bool, errors: int = 0,
        log_seconds: float = 30.0, clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream, self.total, self.tty, self.log_seconds = stream, total, tty, log_seconds
        self.done, self.errors, self._clock = already, errors, clock
        self._already = already
        self._started = self._last_line = clock()
        self._tenth = self._tenths()
        self._drawn = False

    def start(self) -> None:
        """The work begins (the rate leaves out the time before: loading a model)."""
        self._started = self._last_line = self._clock()

    def advance(self, ok: bool) -> None:
        """One document more is on disk."""
        self.done += 1
        self.errors += not ok
        tenth = self._tenths()
        if self.tty or tenth > self._tenth:
            self._tenth = tenth
            self._show()

    def tick(self) -> None:
        """Called every second or so: keeps the ETA fresh, and a log alive."""
        if self.tty or self._clock() - self._last_line >= self.log_seconds:
            self._show()

    def finish(self) -> None:
        if self.tty and self._drawn:
            self._show()
            self.stream.write("\n")
            self.stream.flush()

    def line(self) -> str:
        finished = self.done - self._already
        elapsed = self._clock() - self._started
        percent = 100 * self.done // self.total if self.total else 100
        text = f"extract: {self.done}/{self.total} ({percent}%)"
        if self.errors:
            text += f", {_count(self.errors, 'error')}"
        if finished and elapsed >= 1.0:  # sooner, a few instant records (bad lines) mislead
            rate = finished / elapsed
            text += f", {rate:.2f} docs/s, ETA {_clock((self.total - self.done) / rate)}"
        return text

    def _tenths(self) -> int:
        return 10 * self.done // self.total if self.total else 10

    def _show(self) -> None:
        self._last_line = self._clock()
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line())
            self._drawn = True
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()


# ---------------------------------------------------------------- running


@dataclass(frozen=True)
class Summary:
    """What a run did and what the output now holds for the input's documents."""

    total: int
    skipped: int             # already in the output
    written_values: int      # this run
    written_errors: int      # this run
    errors_on_disk: int      # error records for the input's documents, kept and new
    interrupted: bool = False
    signum: int = signal.SIGINT  # the signal of an interruption
    failure: BackendError | None = None  # the backend failure that stopped the run

    @property
    def on_disk(self) -> int:
        return self.skipped + self.written_values + self.written_errors

    @property
    def remaining(self) -> int:
        return self.total - self.on_disk


_DOCUMENT_STATUSES = frozenset({400, 413, 422})  # a request the server cannot take (too long)


def _fatal(error: BackendError) -> bool:
    """A failure of the server, not of the document: no answer, a 5xx, or a refusal of every
    request alike (401, 403, 404, 429). It stops the run (to be resumed) instead of filling the
    output with error records. An HTTP 400, 413 or 422 and the in-process backend's errors (a
    prompt too long for the context) belong to the document."""
    return error.url is not None and error.status not in _DOCUMENT_STATUSES


async def _answer(llm: Any, job: ExtractJob, doc: Document) -> tuple[dict[str, Any], bool]:
    """The record of one document and whether it is a value (a fatal BackendError raises)."""
    options: GenerateOptions = {
        "system": job.system, "max_tokens": job.max_tokens, "max_retries": job.max_retries,
        "temperature": job.temperature, "seed": job.seed, "reasoning": job.reasoning,
    }
    thought: list[str] = []
    try:
        value: Any = None
        # astream, not agenerate: cancelling it stops an in-process generation at its next
        # token (a worker thread running generate would run on to the end).
        async for value in llm.astream(job.output_type, doc.prompt, **options):
            if isinstance(value, ReasoningDelta):
                thought.append(value.text)
    except GenerationError as e:
        return _error_record(doc.id, type(e).__name__, str(e), e.text), False
    except BackendError as e:
        if _fatal(e):
            raise
        return _error_record(doc.id, type(e).__name__, str(e)), False
    record = _value_record(doc.id, job.output_type, value)
    if job.keep_reasoning:
        record["reasoning"] = "".join(thought).strip()
    return record, True


async def extract(
    llm: Any, plan: CheckedJob, *, progress: Progress | None = None, stop: asyncio.Event | None = None,
) -> Summary:
    """Run a prepared plan on ``llm``: up to ``job.concurrency`` documents at a time (useful on
    a backend with ``acomplete``; an in-process model takes them in turn), each record written
    as it completes. Setting ``stop`` ends the run at once: documents in flight are cancelled
    (a rerun does them) and everything finished is on disk. A fatal BackendError (see
    :func:`_fatal`) ends it the same way and is returned as ``Summary.failure``."""
    job = plan.job
    pending = (doc for doc in _documents(job, plan.template) if _id_key(doc.id) not in plan.skip)
    counts = {"values": 0, "errors": 0}
    writer = _RecordWriter(job.output_path)
    stopper: asyncio.Future[Any] = asyncio.ensure_future((stop or asyncio.Event()).wait())
    ticker: asyncio.Future[Any] = asyncio.ensure_future(_tick(progress))
    running: dict[asyncio.Future[Any], None] = {}  # in start order: ties are written so
    failure: BackendError | None = None

    def record(item: dict[str, Any], ok: bool) -> None:
        writer.write(item)
        counts["values" if ok else "errors"] += 1
        if progress is not None:
            progress.advance(ok)

    if progress is not None:
        progress.start()
    try:
        exhausted = False
        while not stopper.done() and failure is None:
            while not exhausted and len(running) < job.concurrency:
                doc = next(pending, None)
                if doc is None:
                    exhausted = True
                elif doc.problem is not None:
                    record(_error_record(doc.id, INPUT_ERROR, doc.problem), False)
                else:
                    running[asyncio.ensure_future(_answer(llm, job, doc))] = None
            if not running:
                break
            finished, _ = await asyncio.wait({*running, stopper}, return_when=asyncio.FIRST_COMPLETED)
            for task in [t for t in running if t in finished]:
                del running[task]
                error = task.exception()
                if isinstance(error, BackendError):
                    failure = failure or error
                elif error is not None:
                    raise error
                else:
                    record(*task.result())
    finally:
        pending.close()
        for task in (*running, stopper, ticker):
            task.cancel()
        await asyncio.gather(*running, stopper, ticker, return_exceptions=True)
        writer.close()
        if progress is not None:
            progress.finish()
    done = counts["values"] + counts["errors"]
    return Summary(
        total=plan.total, skipped=len(plan.skip), written_values=counts["values"],
        written_errors=counts["errors"], errors_on_disk=plan.done_errors + counts["errors"],
        interrupted=stop is not None and stop.is_set() and done < plan.todo,
        failure=failure,
    )


async def _tick(progress: Progress | None) -> None:
    if progress is None:
        return
    while True:
        await asyncio.sleep(1.0)
        progress.tick()


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run_extract(llm: Any, plan: CheckedJob, *, progress: Progress | None = None) -> Summary:
    """:func:`extract` from blocking code. The first Ctrl-C (SIGINT) or SIGTERM stops the run
    cleanly (``Summary.interrupted``, ``Summary.signum``); a second one acts as usual, at once
    (a KeyboardInterrupt; a line torn by it is cut off by the next run). Signals are handled
    only in the main thread of a Unix process; elsewhere they act as usual."""

    async def main() -> Summary:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        caught: list[int] = []

        def first(signum: int) -> None:
            caught.append(signum)
            stop.set()
            _release(loop)  # the next one acts as usual

        try:
            for signum in _STOP_SIGNALS:
                loop.add_signal_handler(signum, first, signum)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows; not the main thread
            _release(loop)
        try:
            summary = await extract(llm, plan, progress=progress, stop=stop)
        finally:
            _release(loop)
        return replace(summary, signum=caught[0]) if summary.interrupted and caught else summary

    return asyncio.run(main())


def _release(loop: asyncio.AbstractEventLoop) -> None:
    for signum in _STOP_SIGNALS:
        try:
            loop.remove_signal_handler(signum)
        except (NotImplementedError, RuntimeError, ValueError):  # never installed (see above)
            pass


def idle_summary(plan: CheckedJob) -> Summary:
    """The summary of a plan with nothing to do (no model needed)."""
    return Summary(total=plan.total, skipped=len(plan.skip), written_values=0, written_errors=0,
                   errors_on_disk=plan.done_errors)


def nothing_to_do(plan: CheckedJob) -> str:
    if not plan.total:
        return f"extract: nothing to do: {plan.job.input_path} has no documents"
    errors = f" ({_count(plan.done_errors, 'error')}: {RETRY_HINT})" if plan.done_errors else ""
    return f"extract: nothing to do: every document has a record in {plan.job.output_path}{errors}"


def describe(plan: CheckedJob) -> str:
    """One line on what a run of ``plan`` will do, for the log."""
    job = plan.job
    text = f"extract: {plan.total} documents in {job.input_path}"
    kept = plan.done_values + plan.done_errors
    if kept:
        errors = f" ({plan.done_errors} of them errors)" if plan.done_errors else ""
        text += f"; {kept} already in {job.output_path}{errors}"
    if plan.retried_errors:
        text += f"; {plan.retried_errors} error records to run again"
    text += f"; {plan.todo} to do"
    if plan.repaired_bytes:
        text += f" (cut a torn last line of {plan.repaired_bytes} bytes)"
    if plan.foreign_records:
        text += f"; {plan.foreign_records} records of ids not in the input kept"
    return text


def report(summary: Summary, job: ExtractJob) -> str:
    """The closing lines for the log: what is on disk, and how to go on."""
    out = job.output_path
    errors = (f", {summary.errors_on_disk} of them errors ({RETRY_HINT})"
              if summary.errors_on_disk else "")
    text = f"extract: {summary.on_disk}/{summary.total} documents in {out}{errors}"
    if summary.written_values or summary.written_errors:
        text += (f"\nextract: this run wrote {_count(summary.written_values, 'value')} and "
                 f"{_count(summary.written_errors, 'error')}")
    if summary.remaining:
        why = ("interrupted" if summary.interrupted else "stopped by the backend failure above"
               if summary.failure is not None else "the input changed while it ran")
        text += (f"\nextract: {why} with {summary.remaining} documents left; rerun the same "
                 "command to resume")
    return text


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def exit_status(summary: Summary) -> int:
    """0: every document has a value; 1: finished, some records are errors; 2: stopped by a
    backend failure; 128 + the signal when interrupted (130 for Ctrl-C, 143 for SIGTERM, as a
    shell reports them)."""
    if summary.interrupted:
        return 128 + summary.signum
    if summary.failure is not None or summary.remaining:
        return 2
    return 1 if summary.errors_on_disk else 0


"""Bulk extraction: one typed record per document, a job that loses nothing.

:func:`extract` (blocking) and :func:`aextract` (asyncio) take documents (a file as ``structgen
extract`` reads it: JSON Lines, or plain text one document a line; or documents given in Python:
strings, ``(id, text)`` pairs, mappings) and yield an :class:`ExtractRecord` per document as it
completes. With an output file each record is also appended to it, one JSON line per record
(one write and a flush each, an fsync at the end)::

    {"id": 7, "value": {...}}                                     a value of the type
    {"id": 8, "error": {"type": "IncompleteOutputError", "message": "...", "text": "..."}}

and a rerun with the same output resumes: documents whose id has a record are skipped (error
records too, unless ``retry_errors``), and a torn last line (an interrupted write) is cut off
first. Records come in completion order (input order when one document runs at a time).

The work splits in two so that every mistake in the input, the output or the prompt shows before
a model is loaded: :func:`prepare` reads the documents' ids and the output and returns a
:class:`CheckedJob`; :func:`records` (or :func:`arecords`) runs it on one or more models, the lanes
(:func:`lane_plan`: N documents at once in-process run on up to one model per core, each with its
own threads and sequences). ``structgen extract`` (``_cli.py``) is a client of the same pieces.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import stat
import string
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Collection, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, Literal, TextIO, TypeVar

from typing_extensions import TypeForm, Unpack

from ._backends._seam import ReasoningDelta
from ._errors import BackendError, GenerationError, JobError
from ._generate._generation import GenerateOptions
from ._generate._reasoning import checked_budget

if TYPE_CHECKING:
    from ._llm import LLM

__all__ = [
    "DEFAULT_PROMPT",
    "ExtractFailure",
    "ExtractJob",
    "ExtractProgress",
    "ExtractRecord",
    "JobError",
    "CheckedJob",
    "Lane",
    "Progress",
    "PromptTemplate",
    "Summary",
    "aextract",
    "arecords",
    "describe",
    "exit_status",
    "extract",
    "lane_plan",
    "load_lanes",
    "nothing_to_do",
    "prepare",
    "records",
    "report",
    "summary",
]

T = TypeVar("T")

DEFAULT_PROMPT = "Extract the data from this text.\n\n{text}"
InputFormat = Literal["jsonl", "text"]
DocId = str | int
INPUT_ERROR = "InputError"  # the "type" of a record for a line that is not a usable document

#: How the caller spells each option in messages: Python's keywords here, flags on the command
#: line (``_cli.py``). JobError.option is always the key.
PYTHON_NAMES: Mapping[str, str] = MappingProxyType({
    "documents": "documents", "output": "output", "prompt": "prompt", "text_field": "text_field",
    "id_field": "id_field", "input_format": "input_format", "retry_errors": "retry_errors",
    "keep_reasoning": "keep_reasoning", "concurrency": "concurrency",
})


# ---------------------------------------------------------------- what a run yields


@dataclass(frozen=True)
class ExtractFailure:
    """Why a document has no value: ``type`` is the error's class name (one of the
    :class:`~structgen.GenerationError` subclasses, ``BackendError`` for a document the backend
    refuses, such as a prompt too long for the context, or ``"InputError"`` for a document that
    is not usable: no text, an id that is neither a string nor an integer, a line that is not
    JSON); ``message`` its message; ``text`` what the model wrote, if it wrote anything."""

    type: str
    message: str
    text: str = ""


@dataclass(frozen=True)
class ExtractRecord(Generic[T]):
    """The outcome of one document: its ``id`` and either its ``value`` (validated, of the
    output type) or its ``error``. ``reasoning`` is what the model thought before answering,
    with ``keep_reasoning`` (else None). In an output file it is one JSON line,
    ``{"id": ..., "value": ...}`` or ``{"id": ..., "error": {"type", "message", "text"}}``."""

    id: str | int
    value: T | None = None
    error: ExtractFailure | None = None
    reasoning: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the document has a value (``error`` is None)."""
        return self.error is None


@dataclass(frozen=True)
class ExtractProgress:
    """Where a run stands, as the progress callback hears it after each record.

    ``done`` counts the documents with a record, ``skipped`` of them from earlier runs (found in
    the output file), ``errors`` the error records among them; ``total`` is the number of
    documents (None for documents read once, an iterator, until it ends); ``seconds`` the time
    since this run started its first document.
    """

    done: int
    total: int | None
    errors: int
    skipped: int
    seconds: float

    @property
    def rate(self) -> float | None:
        """Documents per second this run (None before the first second)."""
        finished = self.done - self.skipped
        return finished / self.seconds if finished and self.seconds >= 1.0 else None

    @property
    def eta(self) -> float | None:
        """Seconds left at this run's rate (None while the total or the rate is unknown)."""
        rate = self.rate
        return None if rate is None or self.total is None else max(self.total - self.done, 0) / rate


# ---------------------------------------------------------------- the job


@dataclass(frozen=True, eq=False)
class ExtractJob:
    """What to extract from which documents into which file (see the module doc).

    ``source`` is a file (a :class:`~pathlib.Path`: JSON Lines, or ``input_format="text"``) or
    the documents themselves (see :func:`extract`). ``text_field`` names the document text of a
    JSON line or mapping, ``id_field`` its id (absent: the line number in a file, the position in
    Python). ``prompt`` is a template: ``{text}`` is the document text, any other ``{name}`` the
    document's field of that name. ``options`` are :meth:`LLM.generate`'s keywords. With
    ``keep_reasoning`` (and a ``reasoning`` budget in ``options``) each record keeps what the
    model thought. ``names`` spells the options in messages as the caller knows them.
    """

    output_type: Any
    source: Path | Iterable[Any]
    output_path: Path | None = None
    text_field: str = "text"
    id_field: str = "id"
    input_format: InputFormat = "jsonl"
    prompt: str = DEFAULT_PROMPT
    concurrency: int = 1
    retry_errors: bool = False
    keep_reasoning: bool = False
    options: GenerateOptions = field(default_factory=lambda: GenerateOptions())
    names: Mapping[str, str] = field(default_factory=lambda: PYTHON_NAMES)

    def __post_init__(self) -> None:
        if isinstance(self.concurrency, bool) or not isinstance(self.concurrency, int):
            raise TypeError(f"concurrency must be an int, not {type(self.concurrency).__name__}")
        if self.concurrency < 1:
            raise JobError(f"{self.names['concurrency']} must be at least 1, not {self.concurrency}",
                           option="concurrency")
        if self.keep_reasoning and checked_budget(self.options.get("reasoning")) is None:
            raise JobError(f"{self.names['keep_reasoning']} needs a reasoning budget (reasoning=N)",
                           option="keep_reasoning")
        if isinstance(self.source, (str, bytes)):
            raise TypeError("documents is a str: give a Path for a file, or a list of texts")

    @property
    def from_file(self) -> bool:
        return isinstance(self.source, Path)

    def where(self, position: int) -> str:
        """How a problem names a document: its line in a file, its position in Python."""
        return f"line {position}" if self.from_file else f"document {position}"


# ---------------------------------------------------------------- the prompt template


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt with ``{name}`` placeholders (``{{`` and ``}}`` are literal braces)."""

    source: str
    pieces: tuple[tuple[str, str | None], ...]  # (literal text, placeholder name or None)

    @classmethod
    def parse(cls, source: str, text_field: str = "text",
              names: Mapping[str, str] = PYTHON_NAMES) -> PromptTemplate:
        """The template, or a JobError naming what is wrong; it must show the document, as
        ``{text}`` or as ``{<text_field>}``."""
        if not isinstance(source, str):
            raise TypeError(f"prompt must be a str, not {type(source).__name__}")
        option = names["prompt"]
        pieces: list[tuple[str, str | None]] = []
        try:
            parsed = list(string.Formatter().parse(source))
        except ValueError as e:
            raise JobError(f"{option}: {e} (write {{{{ and }}}} for literal braces)", option="prompt") from None
        for literal, name, spec, conversion in parsed:
            if name is not None and (not name.isidentifier() or spec or conversion):
                shown = ("{" + name + (f"!{conversion}" if conversion else "")
                         + (f":{spec}" if spec else "") + "}")
                raise JobError(f"{option}: placeholder {shown} is not a plain {{name}} "
                               "(write {{ and }} for literal braces)", option="prompt")
            pieces.append((literal, name))
        template = cls(source, tuple(pieces))
        if not template.names & {"text", text_field}:
            also = f" (or {{{text_field}}}, the {names['text_field']})" if text_field != "text" else ""
            raise JobError(f"{option}: the template has no {{text}} placeholder{also}, so the "
                           "model would never see the document", option="prompt")
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
            parts.append(value if isinstance(value, str)
                         else json.dumps(value, ensure_ascii=False, default=str))
        return "".join(parts)


# ---------------------------------------------------------------- documents


@dataclass(frozen=True)
class Document:
    """One document: a prompt to run, or the problem that makes it an error record.
    ``position`` is its line in a file, its index in Python."""

    position: int
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
        raise JobError(f"{path}: no such file", option="documents", path=str(path)) from None
    except OSError as e:
        raise JobError(f"{path}: cannot read: {e}", option="documents", path=str(path)) from None


def _documents(job: ExtractJob, template: PromptTemplate) -> Generator[Document, None, None]:
    """Every document of the job's source, in order."""
    if not isinstance(job.source, Path):
        yield from _python_documents(job, template)
        return
    for line, raw in _read_lines(job.source):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            yield Document(line, line, None, f"line {line}: not UTF-8 text (byte {e.start + 1})")
            continue
        if job.input_format == "text":
            yield Document(line, line, template.render(text, {}))
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as e:
            yield Document(line, line, None, f"line {line}: not JSON: {e.msg} (column {e.colno})")
            continue
        if not isinstance(record, dict):
            yield Document(line, line, None, f"line {line}: not a JSON object but {_kind(record)}")
            continue
        yield _mapping_document(job, template, line, record)


def _python_documents(job: ExtractJob, template: PromptTemplate) -> Generator[Document, None, None]:
    source = job.source
    assert not isinstance(source, Path)
    pairs = isinstance(source, Mapping)
    items: Iterable[Any] = source.items() if isinstance(source, Mapping) else source
    for index, item in enumerate(items):
        if isinstance(item, str) and not pairs:
            yield _text_document(job, template, index, index, item)
        elif isinstance(item, tuple) and len(item) == 2:
            yield _text_document(job, template, index, item[0], item[1])
        elif isinstance(item, Mapping):
            yield _mapping_document(job, template, index, item)
        else:
            raise TypeError(f"document {index} is {_kind(item)} ({type(item).__name__}); a document "
                            "is a str, an (id, text) pair or a mapping with a text field")


def _text_document(job: ExtractJob, template: PromptTemplate, index: int, doc_id: Any,
                   text: Any) -> Document:
    where = job.where(index)
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
        return Document(index, index, None, f"{where}: the id must be a string or an integer, "
                                            f"not {_shown(doc_id)}")
    if not isinstance(text, str):
        return Document(index, doc_id, None, f"{where}: the text is {_kind(text)}, not a string")
    try:
        return Document(index, doc_id, template.render(text, {job.text_field: text}))
    except KeyError as e:  # a placeholder other than {text}: only mappings have fields
        return Document(index, doc_id, None, f"{where}: no field {e.args[0]!r} for the "
                                             f"{job.names['prompt']} placeholder")


def _mapping_document(job: ExtractJob, template: PromptTemplate, position: int,
                      record: Mapping[str, Any]) -> Document:
    where = job.where(position)

    def problem(message: str, doc_id: DocId = position) -> Document:
        return Document(position, doc_id, None, f"{where}: {message}")

    doc_id = record.get(job.id_field, position)
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
        return problem(f"the id ({job.id_field!r}) must be a string or an integer, "
                       f"not {_shown(doc_id)}")
    body = record.get(job.text_field)
    if not isinstance(body, str):
        what = "no" if body is None else f"{_kind(body)} in"
        return problem(f"{what} field {job.text_field!r} (the document text, a string)", doc_id)
    try:
        return Document(position, doc_id, template.render(body, record))
    except KeyError as e:
        return problem(f"no field {e.args[0]!r} for the {job.names['prompt']} placeholder", doc_id)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if value is None:
        return "null"
    return "an object"


def _shown(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _scan(job: ExtractJob, template: PromptTemplate) -> tuple[set[str], int]:
    """Every document's id key and the count. Duplicate ids are JobErrors (resuming by id
    needs unique ids), and so are documents none of which is usable: a wrong text field,
    prompt or format, better said now than in an error record each."""
    names = job.names
    if job.from_file and job.input_format == "text" and template.names != {"text"}:
        others = ", ".join("{" + n + "}" for n in sorted(template.names - {"text"}))
        raise JobError(f"{names['prompt']}: {others}: plain text input has only {{text}}", option="prompt")
    seen: dict[str, int] = {}
    usable, first_problem = 0, ""
    for doc in _documents(job, template):
        key = _id_key(doc.id)
        if key in seen:
            raise _duplicate(job, doc, key, seen[key])
        seen[key] = doc.position
        usable += doc.prompt is not None
        first_problem = first_problem or (doc.problem or "")
    if seen and not usable:
        where = f"{job.source}" if job.from_file else names["documents"]
        fields = (f"{names['text_field']}, {names['prompt']} and {names['input_format']}"
                  if job.from_file else f"{names['text_field']} and {names['prompt']}")
        raise JobError(f"{where}: no document is usable (the first: {first_problem}); check {fields}",
                       option="documents", path=str(job.source) if job.from_file else None)
    return set(seen), len(seen)


def _duplicate(job: ExtractJob, doc: Document, key: str, first: int) -> JobError:
    if job.from_file:
        return JobError(f"{job.source}:{doc.position}: id {key} is already the id of line {first} "
                        "(ids must be unique to resume by them)",
                        option="documents", path=str(job.source), line=doc.position)
    return JobError(f"{job.names['documents']}: document {doc.position}: id {key} is already the id "
                    f"of document {first} (ids must be unique to resume by them)", option="documents")


def _unique(job: ExtractJob, docs: Iterator[Document]) -> Iterator[Document]:
    """``docs``, a JobError at the first id seen before (for documents read only once)."""
    seen: dict[str, int] = {}
    for doc in docs:
        key = _id_key(doc.id)
        if key in seen:
            raise _duplicate(job, doc, key, seen[key])
        seen[key] = doc.position
        yield doc


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


def _read_output(path: Path, names: Mapping[str, str]) -> _OutputState:
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
        raise JobError(f"{path}: cannot read: {e}", option="output", path=str(path)) from None
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
                           f"value or an error); is this the right {names['output']}?",
                           option="output", path=str(path), line=number)
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
    """A checked job: how many documents there are, which are done, what is left. Documents
    read only once (an iterator) are not counted ahead: ``total`` is None, ``skip`` holds every
    id of the output and the counts of what is done stay 0."""

    job: ExtractJob
    template: PromptTemplate
    total: int | None         # documents in the input
    skip: set[str]            # id keys with a record to keep
    done_values: int = 0      # of the input's documents, records with a value kept
    done_errors: int = 0      # ... and error records kept
    retried_errors: int = 0   # error records dropped to run again (retry_errors)
    foreign_records: int = 0  # records whose id is not in the input (kept, not counted)
    repaired_bytes: int = 0   # bytes of a torn last line cut off

    @property
    def todo(self) -> int | None:
        return None if self.total is None else self.total - self.done_values - self.done_errors


def prepare(job: ExtractJob) -> CheckedJob:
    """Check the job and bring the output to a clean state (a torn line cut, errors dropped
    for retrying); no model is involved. JobError for unusable documents, output or prompt;
    the output type's own errors (SchemaError, ...) as :func:`spec_for` raises them."""
    from ._generate._output import spec_for

    spec_for(job.output_type)  # a type without a grammar fails here, not at every document
    names = job.names
    if isinstance(job.source, Path):
        try:
            mode = job.source.stat().st_mode
        except OSError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise JobError(f"{job.source}: not a regular file (the input is read twice: to count and "
                           "check it, then to run)", option="documents", path=str(job.source))
        if job.output_path is not None and job.source.resolve() == job.output_path.resolve():
            raise JobError(f"{names['output']} {job.output_path} is the input file", option="output",
                           path=str(job.output_path))
    elif not isinstance(job.source, Collection) and job.retry_errors:
        job = replace(job, source=list(job.source))  # read twice: to find the errors to redo, then to run
    template = PromptTemplate.parse(job.prompt, job.text_field, names)
    once = not isinstance(job.source, (Path, Collection))
    input_keys, total = (set[str](), None) if once else _scan(job, template)
    state = _read_output(job.output_path, names) if job.output_path is not None else _OutputState()
    if once:
        return CheckedJob(job, template, None, set(state.done), repaired_bytes=state.repaired_bytes)
    mine = {key: ok for key, ok in state.done.items() if key in input_keys}
    retry = {key for key, ok in mine.items() if not ok} if job.retry_errors else set()
    if retry and job.output_path is not None:
        _drop_errors(job.output_path, retry)
    skip = set(mine) - retry
    values = sum(1 for key in skip if mine[key])
    return CheckedJob(job, template, total, skip, values, len(skip) - values, len(retry),
                len(state.done) - len(mine), state.repaired_bytes)


# ---------------------------------------------------------------- lanes: N documents at once in-process


@dataclass(frozen=True)
class Lane:
    """One model of an in-process run: its CPU threads (None: the LLM's defaults) and how many
    documents it decodes together (``sequences``)."""

    threads: int | None
    threads_batch: int | None
    sequences: int


def lane_plan(concurrency: int, *, threads: int | None = None, threads_batch: int | None = None,
              cores: int | None = None, cpus: int | None = None) -> list[Lane]:
    """How ``concurrency`` documents at once run in-process: on up to one model per core.

    One document at a time runs on one model with the LLM's default threads (every core for a
    token). N at once run on ``min(N, cores)`` models, the lanes, each loaded with its share of
    the cores' threads (one thread each on a machine of N cores or fewer) and decoding its share
    of the N documents together (``sequences``). Spreading documents over cores beats handing
    every core to one decode: a decode of a few rows on a CPU costs about its rows' worth of
    arithmetic whoever computes it (docs/extract.md, "Models and concurrency"), while
    llama.cpp's threads of one decode wait for each other at every step of the model (a few
    hundred times a token), which costs much more than the arithmetic on a small model and
    most of all on a busy machine. A lane decoding alone on one thread waits for nobody.

    With ``threads`` given, each lane has that many and there are as many lanes as the cores
    hold (at least one). ``cores`` and ``cpus`` (physical cores and usable CPUs) default to
    what this process may use (:func:`~._backends.llamacpp._threads.default_threads`).
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if concurrency == 1:
        return [Lane(threads, threads_batch, 1)]
    if cores is None or cpus is None:
        from ._backends.llamacpp._threads import default_threads

        default = default_threads()
        cores, cpus = cores or default.token, cpus or default.batch
    if threads is None:
        count = min(concurrency, cores)
        token = max(1, cores // count)
        batch = threads_batch or max(1, cpus // count)
    else:
        count = max(1, min(concurrency, cores // threads))
        token, batch = threads, threads_batch or threads
    return [Lane(token, batch, concurrency // count + (i < concurrency % count)) for i in range(count)]


def load_lanes(model: str | os.PathLike[str] | None, lanes: Sequence[Lane],
               **llm_options: Any) -> list[LLM]:
    """One in-process LLM per lane (``llm_options``: the LLM constructor's other keywords). The
    weights are memory-mapped from the one file, so the lanes share them; each lane has its own
    KV cache (``n_ctx`` tokens per sequence)."""
    from ._llm import LLM

    loaded: list[LLM] = []
    try:
        for lane in lanes:
            loaded.append(LLM(model, n_threads=lane.threads, n_threads_batch=lane.threads_batch,
                              sequences=lane.sequences if lane.sequences > 1 else None, **llm_options))
    except BaseException:
        for llm in loaded:
            llm.close()
        raise
    return loaded


# ---------------------------------------------------------------- running


@dataclass
class Counts:
    """What a run did so far (the engine keeps it; ``structgen extract`` reports it)."""

    values: int = 0     # records written with a value
    errors: int = 0     # ... with an error
    skipped: int = 0    # documents with a record from an earlier run
    finished: bool = False  # the run came to the end of its documents
    settled: bool = False   # the run has ended (finished, stopped or failed): all it did is on disk
    started: float = field(default_factory=time.monotonic)


_DOCUMENT_STATUSES = frozenset({400, 413, 422})  # a request the server cannot take (too long)


def _fatal(error: BackendError) -> bool:
    """A failure of the server, not of the document: no answer, a 5xx, or a refusal of every
    request alike (401, 403, 404, 429). It stops the run (to be resumed) instead of filling the
    output with error records. An HTTP 400, 413 or 422 and the in-process backend's errors (a
    prompt too long for the context) belong to the document."""
    return error.url is not None and error.status not in _DOCUMENT_STATUSES


async def _answer(llm: LLM, job: ExtractJob, doc: Document) -> ExtractRecord[Any]:
    """The record of one document (a fatal BackendError raises)."""
    thought: list[str] = []
    try:
        value: Any = None
        # astream, not agenerate: cancelling it stops an in-process generation at its next
        # token (a worker thread running generate would run on to the end).
        stream: AsyncIterator[Any] = llm.astream(job.output_type, doc.prompt, **job.options)  # type: ignore[arg-type]
        async for value in stream:
            if isinstance(value, ReasoningDelta):
                thought.append(value.text)
    except GenerationError as e:
        return ExtractRecord(doc.id, error=ExtractFailure(type(e).__name__, str(e), e.text))
    except BackendError as e:
        if _fatal(e):
            raise
        return ExtractRecord(doc.id, error=ExtractFailure(type(e).__name__, str(e)))
    return ExtractRecord(doc.id, value, reasoning="".join(thought).strip() if job.keep_reasoning else None)


def _json_line(record: ExtractRecord[Any], output_type: Any) -> dict[str, Any]:
    if record.error is not None:
        error: dict[str, Any] = {"type": record.error.type, "message": record.error.message}
        if record.error.text:
            error["text"] = record.error.text
        return {"id": record.id, "error": error}
    from ._types import type_adapter

    line = {"id": record.id, "value": type_adapter(output_type).dump_python(record.value, mode="json")}
    if record.reasoning is not None:
        line["reasoning"] = record.reasoning
    return line


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


ProgressCallback = Callable[[ExtractProgress], object]


async def arecords(
    plan: CheckedJob, lanes: Sequence[LLM], *, counts: Counts | None = None,
    on_progress: ProgressCallback | None = None, bar: Progress | None = None,
) -> AsyncIterator[ExtractRecord[Any]]:
    """Run a prepared plan: up to ``job.concurrency`` documents at a time, each given to the
    lane (model) with the fewest in flight, each record written (if there is an output) before
    it is yielded. Closing the generator (or cancelling its consumer) ends the run at once:
    documents in flight are cancelled (a rerun does them) and everything finished is on disk,
    also what finished while the consumer held a record (written, not yielded). A fatal
    BackendError (see :func:`_fatal`) ends it the same way and is raised."""
    job = plan.job
    counts = counts if counts is not None else Counts()
    if not lanes:
        raise ValueError("no model to run on")
    once = plan.total is None
    docs = _documents(job, plan.template)
    pending = _unique(job, docs) if once else docs
    writer = _RecordWriter(job.output_path) if job.output_path is not None else None
    load = [0] * len(lanes)
    running: dict[asyncio.Future[ExtractRecord[Any]], int] = {}  # in start order: ties are written so
    ticker: asyncio.Future[Any] = asyncio.ensure_future(_tick(bar))
    already = 0 if once else len(plan.skip)
    counts.skipped = already
    counts.started = time.monotonic()
    failure: BaseException | None = None
    if bar is not None:
        bar.start()

    def finished(record: ExtractRecord[Any]) -> None:
        if writer is not None:
            writer.write(_json_line(record, job.output_type))
        if record.ok:
            counts.values += 1
        else:
            counts.errors += 1
        if bar is not None:
            bar.total = plan.total
            bar.advance(record.ok, skipped=counts.skipped)
        if on_progress is not None:
            on_progress(ExtractProgress(
                done=counts.skipped + counts.values + counts.errors, total=plan.total,
                errors=plan.done_errors + counts.errors, skipped=counts.skipped,
                seconds=time.monotonic() - counts.started))

    try:
        exhausted = False
        while failure is None:
            ready: list[ExtractRecord[Any]] = []
            while not exhausted and len(running) < job.concurrency:
                doc = next(pending, None)
                if doc is None:
                    exhausted = True
                    if once:
                        plan.total = counts.skipped + counts.values + counts.errors + len(running)
                elif _id_key(doc.id) in plan.skip:
                    if once:
                        counts.skipped += 1
                elif doc.problem is not None:
                    ready.append(ExtractRecord(doc.id, error=ExtractFailure(INPUT_ERROR, doc.problem)))
                    finished(ready[-1])
                else:
                    lane = min(range(len(lanes)), key=load.__getitem__)
                    load[lane] += 1
                    running[asyncio.ensure_future(_answer(lanes[lane], job, doc))] = lane
            for record in ready:
                yield record
            if not running:
                if exhausted:
                    break
                continue
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in [t for t in running if t in done]:
                load[running.pop(task)] -= 1
                error = task.exception()
                if isinstance(error, BackendError):
                    failure = failure or error
                elif error is not None:
                    raise error
                else:
                    record = task.result()
                    finished(record)
                    yield record
        if failure is not None:
            raise failure
        counts.finished = True
    finally:
        docs.close()
        for task in running:  # finished while the consumer held a record: on disk all the same
            if task.done() and not task.cancelled() and task.exception() is None:
                try:
                    finished(task.result())
                except Exception:  # noqa: BLE001 - the run is ending for another reason
                    pass
        for task in (*running, ticker):
            task.cancel()
        await asyncio.gather(*running, ticker, return_exceptions=True)
        if writer is not None:
            writer.close()
        if bar is not None:
            bar.finish()


async def _tick(progress: Progress | None) -> None:
    if progress is None:
        return
    while True:
        await asyncio.sleep(1.0)
        progress.tick()


_ITEM, _END, _FAILED = "item", "end", "failed"


def records(
    plan: CheckedJob, lanes: Sequence[LLM] | Callable[[], Sequence[LLM]], *, counts: Counts | None = None,
    on_progress: ProgressCallback | None = None, bar: Progress | None = None,
    close_lanes: bool = False,
) -> Iterator[ExtractRecord[Any]]:
    """:func:`arecords` from blocking code: the run goes on in a thread of its own (with its
    event loop) and the records come here as they are written. ``lanes`` may be a function
    that loads them (in that thread, when the first record is asked for); ``close_lanes``
    closes them when the run ends. Leaving the loop early (``break``, an exception, Ctrl-C
    while waiting) stops the run at once and waits for it to end (``counts.settled``):
    everything finished is on disk. Nothing runs until the first record is asked for."""
    counts = counts if counts is not None else Counts()
    items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    guard = threading.Lock()
    control: dict[str, Any] = {"stopping": False, "ahead": 0}

    async def pump(models: Sequence[LLM]) -> None:
        space = asyncio.Event()  # the consumer took a record
        with guard:
            control["loop"], control["task"] = asyncio.get_running_loop(), asyncio.current_task()
            control["space"] = space
            if control["stopping"]:
                return
        async with _closing(arecords(plan, models, counts=counts, on_progress=on_progress, bar=bar)) as run:
            async for record in run:
                items.put((_ITEM, record))
                with guard:
                    control["ahead"] += 1
                while True:  # at most ``concurrency`` records ahead of the consumer
                    with guard:
                        if control["ahead"] < plan.job.concurrency:
                            break
                        space.clear()
                    await space.wait()

    def main() -> None:
        models: Sequence[LLM] = ()
        try:
            models = lanes() if callable(lanes) else lanes
            asyncio.run(pump(models))
            items.put((_END, None))
        except BaseException as error:  # noqa: BLE001 - the consumer raises it (or has left)
            items.put((_FAILED, error))
        finally:
            if close_lanes:
                for llm in models:
                    llm.close()

    def stop() -> None:
        with guard:
            control["stopping"] = True
            loop, task = control.get("loop"), control.get("task")
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop has closed: the run is over
                pass

    def consume() -> Iterator[ExtractRecord[Any]]:
        worker = threading.Thread(target=main, name="structgen-extract", daemon=True)
        ended = False
        try:
            worker.start()
            while True:
                kind, value = items.get()
                if kind == _ITEM:
                    with guard:
                        control["ahead"] -= 1
                        loop, space = control.get("loop"), control.get("space")
                    if loop is not None and space is not None:
                        try:
                            loop.call_soon_threadsafe(space.set)
                        except RuntimeError:  # the loop has closed: the run is over
                            pass
                    yield value
                    continue
                ended = True
                if kind == _FAILED:
                    raise value
                return
        finally:
            if not ended:
                stop()
            if worker.ident is not None:
                worker.join()
            counts.settled = True

    return consume()


class _closing:
    """``contextlib.aclosing`` (Python 3.10 has it, typed loosely): ``aclose()`` on the way out."""

    def __init__(self, run: AsyncIterator[ExtractRecord[Any]]) -> None:
        self.run = run

    async def __aenter__(self) -> AsyncIterator[ExtractRecord[Any]]:
        return self.run

    async def __aexit__(self, *exc: object) -> None:
        await self.run.aclose()  # type: ignore[attr-defined]


# ---------------------------------------------------------------- the public functions


def _job(
    output_type: Any, documents: Any, *, output: str | os.PathLike[str] | None, retry_errors: bool,
    prompt: str, text_field: str, id_field: str, input_format: str, concurrency: int,
    keep_reasoning: bool, options: GenerateOptions,
) -> ExtractJob:
    if isinstance(documents, (str, bytes)):
        raise TypeError("documents is a str: give a Path for a file, or a list of texts ([text] for one)")
    source: Path | Iterable[Any]
    if isinstance(documents, os.PathLike):
        source = Path(documents)
    elif isinstance(documents, Iterable):
        source = documents
    else:
        raise TypeError(f"documents must be a file (a Path) or an iterable of documents, "
                        f"not {type(documents).__name__}")
    if input_format not in ("auto", "jsonl", "text"):
        raise ValueError(f"input_format must be 'auto', 'jsonl' or 'text', not {input_format!r}")
    resolved: InputFormat = "jsonl" if input_format == "jsonl" else "text" if input_format == "text" else (
        "text" if isinstance(source, Path) and source.suffix.lower() == ".txt" else "jsonl")
    return ExtractJob(
        output_type, source, None if output is None else Path(output), text_field=text_field, id_field=id_field,
        input_format=resolved, prompt=prompt, concurrency=concurrency, retry_errors=retry_errors,
        keep_reasoning=keep_reasoning, options=options,
    )


def _given_lanes(llm: LLM | Sequence[LLM] | None, model: str | os.PathLike[str] | None,
                 concurrency: int) -> tuple[Sequence[LLM] | Callable[[], Sequence[LLM]], bool]:
    """The models to run on, or a function loading them, and whether the run owns them."""
    if llm is None:
        return (lambda: load_lanes(model, lane_plan(concurrency))), True
    if model is not None:
        raise TypeError("give llm (a loaded model) or model (a file to load), not both")
    from ._llm import LLM

    given = [llm] if isinstance(llm, LLM) else list(llm)
    if not given or not all(isinstance(each, LLM) for each in given):
        raise TypeError("llm must be an LLM or a non-empty sequence of LLMs")
    return given, False


def _bar(progress: bool | ProgressCallback, plan: CheckedJob) -> tuple[Progress | None, ProgressCallback | None]:
    if progress is True:
        stream = sys.stderr
        tty = stream.isatty() and os.environ.get("TERM") != "dumb"
        already = 0 if plan.total is None else len(plan.skip)
        return Progress(stream, total=plan.total, already=already, errors=plan.done_errors, tty=tty), None
    if progress is False or progress is None:
        return None, None
    if not callable(progress):
        raise TypeError("progress must be True, False or a function taking an ExtractProgress")
    return None, progress


def extract(
    output_type: TypeForm[T],
    documents: Iterable[str] | Iterable[tuple[str | int, str]] | Iterable[Mapping[str, Any]]
    | Mapping[str | int, str] | os.PathLike[str],
    *,
    llm: LLM | Sequence[LLM] | None = None,
    model: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    retry_errors: bool = False,
    concurrency: int = 1,
    prompt: str = DEFAULT_PROMPT,
    text_field: str = "text",
    id_field: str = "id",
    input_format: Literal["auto", "jsonl", "text"] = "auto",
    keep_reasoning: bool = False,
    progress: bool | Callable[[ExtractProgress], object] = False,
    **options: Unpack[GenerateOptions],
) -> Iterator[ExtractRecord[T]]:
    """A value of ``output_type`` from every document, as an :class:`ExtractRecord` each, in the
    order they complete (input order with ``concurrency=1``); a document that fails is a record
    with an ``error``, and the run goes on.

    ``documents``: a file (a :class:`~pathlib.Path`, read as ``structgen extract`` reads it:
    JSON Lines, or plain text one document a line for a ``.txt`` file or
    ``input_format="text"``; the id is the ``id_field``, else the line number), or documents in
    Python: strings (the id is the position, from 0), ``(id, text)`` pairs, mappings (the text
    is ``text_field``, the id ``id_field``, else the position; other fields fill the prompt's
    placeholders) or one mapping of ids to texts. Ids are strings or integers, and unique.
    ``prompt`` is the user message, a template: ``{text}`` the document, ``{name}`` its field.

    ``output``: a JSON Lines file each record is appended to as it completes; documents whose id
    already has a record there are skipped (not yielded), so a rerun resumes; ``retry_errors``
    runs those whose record is an error again.

    The model: ``llm`` (an :class:`~structgen.LLM`, or several: each document goes to the one
    with the fewest in flight), else ``model`` (a GGUF file, None: the default model) loaded for
    the run and closed after it. ``concurrency=N`` keeps N documents in flight: in-process the
    model is loaded once per core, up to N (:func:`lane_plan`), each copy decoding its share
    together; on a server, N requests. ``progress``: True draws a progress line on stderr, a
    function is called with an :class:`ExtractProgress` after each record. ``keep_reasoning``
    keeps what the model thought (with ``reasoning=N``). The other keywords are
    :class:`~structgen.GenerateOptions`, for every document.

    The documents, the output and the prompt are checked when this is called: :class:`JobError`
    (before any model is loaded). The run starts with the first record asked for and stops when
    the loop ends early (``break``, an exception, Ctrl-C); everything finished is in ``output``.
    A server that fails every request (no answer, a 5xx) ends it with :class:`BackendError`.
    """
    job = _job(output_type, documents, output=output, retry_errors=retry_errors, prompt=prompt,
               text_field=text_field, id_field=id_field, input_format=input_format,
               concurrency=concurrency, keep_reasoning=keep_reasoning, options=options)
    lanes, owned = _given_lanes(llm, model, concurrency)
    plan = prepare(job)
    bar, callback = _bar(progress, plan)
    return records(plan, lanes, on_progress=callback, bar=bar, close_lanes=owned)


def aextract(
    output_type: TypeForm[T],
    documents: Iterable[str] | Iterable[tuple[str | int, str]] | Iterable[Mapping[str, Any]]
    | Mapping[str | int, str] | os.PathLike[str],
    *,
    llm: LLM | Sequence[LLM] | None = None,
    model: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    retry_errors: bool = False,
    concurrency: int = 1,
    prompt: str = DEFAULT_PROMPT,
    text_field: str = "text",
    id_field: str = "id",
    input_format: Literal["auto", "jsonl", "text"] = "auto",
    keep_reasoning: bool = False,
    progress: bool | Callable[[ExtractProgress], object] = False,
    **options: Unpack[GenerateOptions],
) -> AsyncIterator[ExtractRecord[T]]:
    """:func:`extract` for ``async for``, on the running event loop (the in-process model runs
    in worker threads, a server's requests on the loop). Checked when called, as
    :func:`extract`; leaving the loop early or cancelling it stops the run at once."""
    job = _job(output_type, documents, output=output, retry_errors=retry_errors, prompt=prompt,
               text_field=text_field, id_field=id_field, input_format=input_format,
               concurrency=concurrency, keep_reasoning=keep_reasoning, options=options)
    lanes, owned = _given_lanes(llm, model, concurrency)
    plan = prepare(job)
    bar, callback = _bar(progress, plan)
    return _arun(plan, lanes, owned, callback, bar)


async def _arun(plan: CheckedJob, lanes: Sequence[LLM] | Callable[[], Sequence[LLM]], owned: bool,
                on_progress: ProgressCallback | None, bar: Progress | None) -> AsyncIterator[ExtractRecord[Any]]:
    models: Sequence[LLM] = ()
    try:
        if callable(lanes):
            loading = asyncio.ensure_future(asyncio.to_thread(lanes))
            try:
                models = await asyncio.shield(loading)
            except asyncio.CancelledError:  # the models still load: closed once they have
                loading.add_done_callback(_close_loaded)
                raise
        else:
            models = lanes
        async with _closing(arecords(plan, models, on_progress=on_progress, bar=bar)) as run:
            async for record in run:
                yield record
    finally:
        if owned:
            for llm in models:
                await asyncio.to_thread(llm.close)


def _close_loaded(loading: asyncio.Future[Sequence[LLM]]) -> None:
    if not loading.cancelled() and loading.exception() is None:
        for llm in loading.result():
            llm.close()


# ---------------------------------------------------------------- progress on a terminal or in a log


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """``done/total, errors, rate, ETA`` on ``stream``: one line redrawn in place on a terminal
    (``tty``), else a plain line at each tenth of the work and at least every
    ``log_seconds`` (every ``log_seconds`` alone while the total is unknown) — no escape codes
    in logs."""

    def __init__(
        self, stream: TextIO, *, total: int | None, already: int, tty: bool, errors: int = 0,
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

    def advance(self, ok: bool, *, skipped: int | None = None) -> None:
        """One document more has its record (``skipped``: documents found done so far, when
        they are found along the way)."""
        if skipped is not None and skipped > self._already:
            self.done += skipped - self._already
            self._already = skipped
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
        if self.total is None:
            text = f"extract: {self.done} done"
        else:
            percent = 100 * self.done // self.total if self.total else 100
            text = f"extract: {self.done}/{self.total} ({percent}%)"
        if self.errors:
            text += f", {_count(self.errors, 'error')}"
        if finished and elapsed >= 1.0:  # sooner, a few instant records (bad lines) mislead
            rate = finished / elapsed
            text += f", {rate:.2f} docs/s"
            if self.total is not None:
                text += f", ETA {_clock(max(self.total - self.done, 0) / rate)}"
        return text

    def _tenths(self) -> int:
        if self.total is None:
            return 0
        return 10 * self.done // self.total if self.total else 10

    def _show(self) -> None:
        self._last_line = self._clock()
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line())
            self._drawn = True
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()


# ---------------------------------------------------------------- the command line's account of a run


RETRY_HINT = "--retry-errors runs them again"


@dataclass(frozen=True)
class Summary:
    """What a run did and what the output now holds for the input's documents."""

    total: int
    skipped: int             # already in the output
    written_values: int      # this run
    written_errors: int      # this run
    errors_on_disk: int      # error records for the input's documents, kept and new
    interrupted: bool = False
    signum: int = 2          # the signal of an interruption (SIGINT)
    failure: BackendError | None = None  # the backend failure that stopped the run

    @property
    def on_disk(self) -> int:
        return self.skipped + self.written_values + self.written_errors

    @property
    def remaining(self) -> int:
        return self.total - self.on_disk


def summary(plan: CheckedJob, counts: Counts | None = None, *, interrupted: bool = False, signum: int = 2,
            failure: BackendError | None = None) -> Summary:
    """The summary of a run of ``plan`` that did ``counts`` (None: nothing to do)."""
    counts = counts or Counts()
    total = plan.total if plan.total is not None else counts.skipped + counts.values + counts.errors
    return Summary(total=total, skipped=len(plan.skip) if plan.total is not None else counts.skipped,
                   written_values=counts.values, written_errors=counts.errors,
                   errors_on_disk=plan.done_errors + counts.errors,
                   interrupted=interrupted, signum=signum, failure=failure)


def nothing_to_do(plan: CheckedJob) -> str:
    source, out = plan.job.source, plan.job.output_path
    if not plan.total:
        return f"extract: nothing to do: {source} has no documents"
    errors = f" ({_count(plan.done_errors, 'error')}: {RETRY_HINT})" if plan.done_errors else ""
    return f"extract: nothing to do: every document has a record in {out}{errors}"


def describe(plan: CheckedJob) -> str:
    """One line on what a run of ``plan`` will do, for the log."""
    job = plan.job
    text = f"extract: {plan.total} documents in {job.source}"
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

"""The ``structgen`` command line: grammars and schemas of Python types, GBNF check/lint/format,
and generation. ``main(argv) -> exit status``; every expected failure is one line on stderr
and exit status 2 (1 means "rejected" for ``check`` and "findings" for ``lint``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, get_args

__all__ = ["main", "build_parser", "load_target"]

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


class CliError(Exception):
    """An expected failure: printed as one line, exit status 2."""


# ---------------------------------------------------------------- inputs


def load_target(spec: str) -> Any:
    """``pkg.module:Name`` (dots after the colon reach nested attributes) → the object.

    The current directory is importable, as with ``python -m``."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise CliError(f"expected pkg.module:Name or a JSON Schema file, got {spec!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise CliError(f"cannot import module {module_name!r}: {e}") from e
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise CliError(f"module {module_name!r} has no attribute {attribute!r}") from None
    return target


def _schema_file(spec: str) -> Any | None:
    """The JSON Schema in file ``spec``, or None if ``spec`` is not a file."""
    path = Path(spec)
    if ":" in spec and not path.is_file():
        return None
    if not path.is_file():
        raise CliError(f"{spec}: no such file (expected pkg.module:Name or a JSON Schema file)")
    try:
        return json.loads(_read(path))
    except json.JSONDecodeError as e:
        raise CliError(f"{spec}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from e


def _read(path: str | Path) -> str:
    if str(path) == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CliError(f"{path}: cannot read: {e}") from e


def _parse_grammar_file(path: str) -> tuple[str, Any]:
    """The text and syntax tree of a GBNF file; syntax errors as ``file:line:col: message``."""
    from ._errors import GrammarError
    from ._gbnf import parse_gbnf

    text = _read(path)
    try:
        return text, parse_gbnf(text, check_undefined=False)
    except GrammarError as e:
        raise CliError(_located(path, e)) from e


def _located(path: str, error: Any) -> str:
    if getattr(error, "line", None) is not None:
        return f"{path}:{error.line}:{error.column}: {error.message}"
    return f"{path}: {getattr(error, 'message', error)}"


# ---------------------------------------------------------------- commands


def _grammar_options(args: argparse.Namespace) -> dict[str, Any]:
    """The grammar options given on the command line (the others come from the preset)."""
    given = {name: getattr(args, name) for name in cli_option_names()}
    return {name: value for name, value in given.items() if value is not None}


def cmd_gbnf(args: argparse.Namespace) -> int:
    from ._grammar import SchemaConverter
    from ._schema.options import PRESETS

    changes = _grammar_options(args)
    converter = SchemaConverter.shared()
    schema = _schema_file(args.target)
    if schema is not None:
        options = PRESETS[args.preset or "schema"].with_changes(**changes)
        grammar = converter.convert(schema, options=options)
    else:
        from ._generate._output import spec_for

        target = load_target(args.target)
        # Without --preset, the options generate() uses: @structured's own, or the preset's.
        base = PRESETS[args.preset] if args.preset else spec_for(target).options.grammar
        grammar = converter.convert_type(target, options=base.with_changes(**changes))
    sys.stdout.write(grammar.gbnf if grammar.gbnf.endswith("\n") else grammar.gbnf + "\n")
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from ._types import json_schema_of

    schema = json_schema_of(load_target(args.target))
    print(json.dumps(schema, indent=args.indent, ensure_ascii=False))
    return EXIT_OK


def _input_text(args: argparse.Namespace) -> str:
    if args.text is not None:
        if args.input is not None:
            raise CliError("give either FILE or --text, not both")
        return str(args.text)
    text = _read(args.input or "-")
    if not args.keep_newline:
        for ending in ("\r\n", "\n"):
            if text.endswith(ending):
                return text[: -len(ending)]
    return text


def cmd_check(args: argparse.Namespace) -> int:
    from ._errors import GrammarError

    gbnf, tree = _parse_grammar_file(args.grammar)
    text = _input_text(args)
    try:
        if args.pure:
            from ._gbnf._recognizer import Recognizer

            rejected_at = Recognizer(tree, args.root).first_rejected(text)
        else:
            from ._gbnf import check_safe
            from .testing import check

            check_safe(tree, args.root)
            verdict = check(gbnf, text, root=args.root)
            rejected_at = None if verdict.accepted else verdict.rejected_at
    except GrammarError as e:
        raise CliError(_located(args.grammar, e)) from e
    if rejected_at is None:
        print("accepted")
        return EXIT_OK
    from ._roundtrip import caret_excerpt

    print(f"rejected at offset {rejected_at}")
    print(caret_excerpt(text, rejected_at))
    return EXIT_FAILED


def cmd_lint(args: argparse.Namespace) -> int:
    from ._errors import GrammarError
    from ._gbnf import lint

    text = _read(args.grammar)
    try:
        findings = lint(text, root=args.root, portable=args.portable)
    except GrammarError as e:
        print(f"{_located(args.grammar, e)} [syntax]")
        return EXIT_FAILED
    for finding in findings:
        print(f"{args.grammar}:{finding.line}:{finding.column}: {finding.severity}: "
              f"{finding.message} [{finding.code}]")
    return EXIT_FAILED if findings else EXIT_OK


def cmd_format(args: argparse.Namespace) -> int:
    from ._gbnf import format_gbnf

    text, tree = _parse_grammar_file(args.grammar)
    formatted = format_gbnf(tree)
    formatted = formatted if formatted.endswith("\n") else formatted + "\n"
    if args.check:
        if formatted != text:
            print(f"{args.grammar}: would be reformatted", file=sys.stderr)
            return EXIT_FAILED
        return EXIT_OK
    sys.stdout.write(formatted)
    return EXIT_OK


def cmd_sample(args: argparse.Namespace) -> int:
    import random

    from ._errors import GrammarError
    from ._gbnf._samples import Sampler

    _, tree = _parse_grammar_file(args.grammar)
    try:
        sampler = Sampler(tree, args.root)
        texts = [sampler.derive(random.Random(args.seed + i), args.max_depth)
                 for i in range(args.count)]
    except GrammarError as e:
        raise CliError(_located(args.grammar, e)) from e
    for text in texts:
        print(json.dumps(text, ensure_ascii=False) if args.quote else text)
    return EXIT_OK


def cmd_generate(args: argparse.Namespace) -> int:
    from ._llm import LLM
    from ._types import type_adapter

    output_type = load_target(args.target)
    llm = LLM(args.model, seed=args.seed, **_llama_options(args))
    value = llm.generate(output_type, args.prompt, system=args.system,
                         max_tokens=args.max_tokens, temperature=args.temperature)
    dumped = type_adapter(output_type).dump_python(value, mode="json")
    print(json.dumps(dumped, indent=args.indent, ensure_ascii=False))
    return EXIT_OK


#: The LLM constructor's llama.cpp keywords that are flags (the in-process model's settings).
LLAMA_FLAGS = ("n_ctx", "n_threads", "n_threads_batch", "n_batch", "lookahead", "prompt_cache_bytes",
               "grammar_step_seconds", "n_gpu_layers")


_LLAMA_FLAG_NAMES = {"n_threads": "--threads", "n_threads_batch": "--threads-batch"}


def _llama_options(args: argparse.Namespace) -> dict[str, Any]:
    """The in-process model's settings given on the command line (the others: LLM's defaults)."""
    given = {name: getattr(args, name, None) for name in LLAMA_FLAGS}
    return {name: value for name, value in given.items() if value is not None}


def cmd_extract(args: argparse.Namespace) -> int:
    from . import _extract as ex

    job = _extract_job(args)
    try:
        return _run_extract(args, job)
    except ex.JobError as e:
        raise CliError(str(e)) from e
    except KeyboardInterrupt:  # a second Ctrl-C, while the first was stopping the run
        _to_stderr(f"extract: aborted; the records finished so far are in {job.output_path}; "
                   "rerun the same command to resume")
        return 130


#: How the command line spells the options of an extract job (in its messages).
EXTRACT_FLAGS = {
    "documents": "--input", "output": "--output", "prompt": "--prompt", "text_field": "--field",
    "id_field": "--id-field", "input_format": "--input-format", "retry_errors": "--retry-errors",
    "keep_reasoning": "--keep-reasoning", "concurrency": "--concurrency",
}


def _extract_job(args: argparse.Namespace) -> Any:
    from ._extract import ExtractJob
    from ._generate._generation import GenerateOptions

    if args.backend is not None and args.model is not None:
        raise CliError("give --model (in-process) or --backend (a server), not both")
    if args.backend is not None and _llama_options(args):
        flags = ", ".join(_LLAMA_FLAG_NAMES.get(name, "--" + name.replace("_", "-"))
                          for name in _llama_options(args))
        raise CliError(f"{flags}: settings of the in-process model, not of a server (--backend)")
    if args.max_retries < 0:
        raise CliError(f"--max-retries must be at least 0, not {args.max_retries}")
    if args.keep_reasoning and args.reasoning is None:
        raise CliError("--keep-reasoning needs --reasoning N (a budget of tokens)")
    options = GenerateOptions(system=args.system, max_tokens=args.max_tokens, max_retries=args.max_retries,
                              temperature=args.temperature, seed=args.seed, reasoning=args.reasoning)
    return ExtractJob(
        load_target(args.target), Path(args.input), Path(args.output), text_field=args.field,
        id_field=args.id_field, input_format=_input_format(args), prompt=_prompt(args),
        concurrency=args.concurrency, retry_errors=args.retry_errors,
        keep_reasoning=args.keep_reasoning, options=options, names=EXTRACT_FLAGS,
    )


def _run_extract(args: argparse.Namespace, job: Any) -> int:
    """Check the job (no model yet), then run; progress and summary on stderr."""
    from . import _extract as ex

    plan = ex.prepare(job)
    say: Callable[[str], None] = (lambda line: None) if args.quiet else _to_stderr
    say(ex.describe(plan))
    if not plan.todo:
        say(ex.nothing_to_do(plan))
        return ex.exit_status(ex.summary(plan))
    progress = None if args.quiet else ex.Progress(
        sys.stderr, total=plan.total, already=len(plan.skip), errors=plan.done_errors,
        tty=sys.stderr.isatty() and os.environ.get("TERM") != "dumb",
    )
    counts = ex.Counts()
    run = ex.records(plan, _extract_lanes(args), counts=counts, bar=progress, close_lanes=True)
    signum, failure = run_to_end(run, counts)
    summary = ex.summary(plan, counts, interrupted=signum is not None, signum=signum or 0, failure=failure)
    if summary.failure is not None:
        _to_stderr(f"structgen extract: error: {type(summary.failure).__name__}: "
                   f"{str(summary.failure).splitlines()[0]}")
    say(ex.report(summary, job))
    return ex.exit_status(summary)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the main thread waits, as Ctrl-C raises KeyboardInterrupt."""


def run_to_end(run: Iterator[Any], counts: Any) -> tuple[int | None, Any]:
    """Drain ``run`` (an extract run's records); (the signal that stopped it, None when it ran
    to its end; the backend failure that ended it, if one did). The first Ctrl-C (SIGINT) or
    SIGTERM stops the run cleanly: documents in flight are cancelled and everything finished
    is on disk; a second one acts as usual, at once (a KeyboardInterrupt, or the end of the
    process). Only the main thread hears signals; elsewhere they act as usual."""
    import signal

    from ._errors import BackendError

    def terminated(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, previous)  # the next one acts as usual
        raise _Terminated()

    try:
        previous: Any = signal.signal(signal.SIGTERM, terminated)
    except ValueError:  # not the main thread
        previous = None
    try:
        for _ in run:
            pass
    except KeyboardInterrupt as stop:
        close = getattr(run, "close", None)
        if close is not None:
            close()  # if the signal came between two records: the run stops here
        if not counts.settled:  # a second signal while the first was stopping the run
            raise
        return (signal.SIGTERM if isinstance(stop, _Terminated) else signal.SIGINT), None
    except BackendError as failure:
        return None, failure
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return None, None


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _prompt(args: argparse.Namespace) -> str:
    if args.prompt_file is None:
        return str(args.prompt) if args.prompt is not None else _extract_default_prompt()
    if args.prompt is not None:
        raise CliError("give --prompt or --prompt-file, not both")
    text = _read(args.prompt_file)
    return text[:-1] if text.endswith("\n") else text


def _input_format(args: argparse.Namespace) -> Any:
    if args.input_format != "auto":
        return args.input_format
    return "text" if Path(args.input).suffix.lower() == ".txt" else "jsonl"


def _extract_lanes(args: argparse.Namespace) -> Callable[[], list[Any]]:
    """What loads the models of the run: in-process, one per lane (``lane_plan``: N documents at
    once on up to one model per core), or an LLM on the server at --backend."""
    from . import _extract as ex
    from ._llm import LLM

    if args.backend is None:
        options = _llama_options(args)
        lanes = ex.lane_plan(args.concurrency, threads=options.pop("n_threads", None),
                             threads_batch=options.pop("n_threads_batch", None))
        return lambda: ex.load_lanes(args.model, lanes, seed=args.seed, **options)
    api_key = os.environ.get(args.api_key_env) or None
    backend: Any
    if args.engine == "llama-server":
        from ._backends.server import LlamaServerBackend

        backend = LlamaServerBackend(args.backend, api_key=api_key)
    else:
        from ._backends.server import OpenAICompatibleBackend

        engine: Any = "llama-server" if args.engine == "openai" else args.engine
        backend = OpenAICompatibleBackend(args.backend, engine=engine, model=args.served_model,
                                          api_key=api_key)
    return lambda: [LLM.from_backend(backend, seed=args.seed)]


# ---------------------------------------------------------------- parser


def _at_least(least: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``least``."""

    def checked(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
        return value

    return checked


_positive = _at_least(1)
_count_flag = _at_least(0)


_TARGET_HELP = ("a Python type as pkg.module:Name (a Pydantic model or anything TypeAdapter "
                "handles; the current directory is importable)")


#: Options that are no flags: a mapping of documents is given in Python, not on a command line.
_NOT_FLAGS = frozenset({"refs"})


def cli_option_names() -> list[str]:
    """The GrammarOptions fields that are CLI flags, in declaration order."""
    from dataclasses import fields

    from ._schema.options import GrammarOptions

    return [f.name for f in fields(GrammarOptions) if f.name not in _NOT_FLAGS]


def _int_or_none(text: str) -> int | None:
    if text.lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer or 'none': {text!r}") from None


def grammar_flag(name: str) -> tuple[str, dict[str, Any]]:
    """The flag of a GrammarOptions field and its argparse settings, from the field's type and
    help text (unset flags stay None: the preset decides)."""
    import types
    from typing import Literal, Union, get_origin, get_type_hints

    from ._schema.options import GrammarOptions, option_help

    kind = get_type_hints(GrammarOptions)[name]
    settings: dict[str, Any] = {"default": None, "help": option_help(name).replace("%", "%%")}
    members = set(get_args(kind)) if get_origin(kind) in (Union, types.UnionType) else {kind}
    if members <= {bool, type(None)}:
        settings["action"] = argparse.BooleanOptionalAction
    elif members == {int, type(None)}:
        settings.update(type=_int_or_none, metavar="N")
    elif get_origin(kind) is Literal:
        settings["choices"] = get_args(kind)
    elif get_origin(kind) is tuple:
        settings.update(nargs="+", metavar="NAME")
    else:
        raise TypeError(f"no flag for the option {name} of type {kind}")
    return "--" + name.replace("_", "-"), settings


def _add_grammar_options(p: argparse.ArgumentParser) -> None:
    from ._schema.options import PRESET_HELP

    g = p.add_argument_group("grammar options (the fields of GrammarOptions; a flag not given "
                             "takes the preset's value)")
    presets = "; ".join(f"{name}: {text}" for name, text in PRESET_HELP.items())
    g.add_argument("--preset", choices=list(PRESET_HELP), default=None,
                   help=f"the options to start from (default: what generate uses for a type, "
                        f"'schema' for a schema file). {presets}".replace("%", "%%"))
    for name in cli_option_names():
        flag, settings = grammar_flag(name)
        g.add_argument(flag, **settings)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="structgen",
        description="Grammars for structured output on llama.cpp: convert Python types to GBNF, "
                    "check, lint and format GBNF files, and generate typed JSON.",
        epilog="Examples:\n  structgen gbnf myapp.models:User --whitespace minified\n"
               "  echo '{\"a\": 1}' | structgen check grammar.gbnf -\n"
               "  structgen lint grammar.gbnf\n"
               "  structgen sample grammar.gbnf -n 3\n"
               "  structgen generate myapp.models:User \"A user named Ada\"\n"
               "  structgen extract myapp.models:User --input docs.jsonl --output users.jsonl",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"structgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser("gbnf", help="print the GBNF grammar of a Python type or JSON Schema",
                            description="Print the GBNF grammar of a Python type (or of a JSON "
                                        "Schema file) as the converter builds it.")
    p.add_argument("target", metavar="TARGET",
                   help=_TARGET_HELP + ", or the path of a JSON Schema file")
    _add_grammar_options(p)
    p.set_defaults(run=cmd_gbnf)

    p = commands.add_parser("schema", help="print the JSON Schema of a Python type",
                            description="Print the JSON Schema Pydantic validates the type "
                                        "against (validation mode).")
    p.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    p.add_argument("--indent", type=int, default=2, help="JSON indentation (default 2)")
    p.set_defaults(run=cmd_schema)

    p = commands.add_parser("check", help="does a GBNF grammar accept a text?",
                            description="Say whether the grammar accepts the text (exit 0) or "
                                        "where it first rejects it (exit 1). The verdict is "
                                        "llama.cpp's own grammar sampler on the default model's "
                                        "vocabulary, or the pure-Python recognizer with --pure.")
    p.add_argument("grammar", metavar="GRAMMAR", help="a GBNF file")
    p.add_argument("input", metavar="FILE", nargs="?", default=None,
                   help="the text to check; - or absent: standard input")
    p.add_argument("--text", default=None, help="check this text instead of a file")
    p.add_argument("--root", default="root", help="the start rule (default: root)")
    p.add_argument("--keep-newline", action="store_true",
                   help="keep one trailing newline of FILE (dropped by default, so that "
                        "`echo ... |` works)")
    p.add_argument("--pure", action="store_true",
                   help="use the pure-Python recognizer (no model file needed)")
    p.set_defaults(run=cmd_check)

    p = commands.add_parser("lint", help="find mistakes in a GBNF grammar",
                            description="Print file:line:col: severity: message [code] for each "
                                        "finding (undefined or unused rules, missing root, left "
                                        "recursion, nested unbounded repetition, chained "
                                        "optionals, repetition limits); exit 1 if any.")
    p.add_argument("grammar", metavar="GRAMMAR", help="a GBNF file (- for standard input)")
    p.add_argument("--root", default="root", help="the start rule (default: root)")
    p.add_argument("--portable", action="store_true",
                   help="also flag what xgrammar (vLLM, SGLang) or llguidance read otherwise "
                        "than llama.cpp [portable]")
    p.set_defaults(run=cmd_lint)

    p = commands.add_parser("format", help="print a GBNF grammar in canonical layout",
                            description="Print the grammar formatted (same language, one rule "
                                        "per line); --check only says whether it would change.")
    p.add_argument("grammar", metavar="GRAMMAR", help="a GBNF file (- for standard input)")
    p.add_argument("--check", action="store_true",
                   help="print nothing; exit 1 if the file is not formatted")
    p.set_defaults(run=cmd_format)

    p = commands.add_parser("sample", help="print random strings a GBNF grammar derives",
                            description="Print random derivations of the grammar, one per line "
                                        "(pure Python; the same derivations as "
                                        "structgen.testing.samples).")
    p.add_argument("grammar", metavar="GRAMMAR", help="a GBNF file (- for standard input)")
    p.add_argument("-n", "--count", type=_positive, default=5, help="how many (default 5)")
    p.add_argument("--root", default="root", help="the start rule (default: root)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--max-depth", type=int, default=12, metavar="N",
                   help="nested rule references before derivations take the shortest way out")
    p.add_argument("--quote", action="store_true",
                   help="print each string as a JSON string (shows newlines and escapes)")
    p.set_defaults(run=cmd_sample)

    p = commands.add_parser("generate", help="generate a value of a Python type with a local model",
                            description="Generate JSON for the type with llama.cpp under its "
                                        "grammar, validate it with Pydantic and print it.")
    p.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    p.add_argument("prompt", metavar="PROMPT", help="the user message")
    p.add_argument("--max-tokens", type=_positive, default=512, metavar="N",
                   help="token budget of the answer (default 512)")
    p.add_argument("--system", default=None, help="a system message")
    p.add_argument("--temperature", type=float, default=0.0, help="0 is greedy (default)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--indent", type=int, default=None, help="indent the JSON output")
    m = p.add_argument_group("model")
    m.add_argument("--model", default=None, metavar="PATH",
                   help="a GGUF model file (default: $STRUCTGEN_MODEL or SmolLM2-135M-Instruct)")
    _add_llama_flags(m, threads="CPU threads for single tokens and batches (default: one per physical core "
                                "for single tokens, every usable CPU for batches)")
    p.set_defaults(run=cmd_generate)
    _add_extract_parser(commands)
    return parser


def _add_extract_parser(commands: Any) -> None:
    p = commands.add_parser(
        "extract", help="extract a typed record from every document of a file (resumable)",
        description="Generate a value of the type for every document of --input and append "
                    "one JSON record per document to --output as it completes: "
                    '{"id": ..., "value": ...}, or {"id": ..., "error": {"type", "message", '
                    '"text"}} when it fails (the run goes on). Records come in completion '
                    "order. Rerun the same command to resume: documents with a record are "
                    "skipped and a torn last line is cut off. Ctrl-C or SIGTERM stops cleanly "
                    "(a second one at once). Exit status: 0 every document has a value, 1 some "
                    "records are errors, 2 the job could not run or the backend failed, 130 "
                    "interrupted (143 by SIGTERM).",
    )
    p.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    p.add_argument("--input", required=True, metavar="FILE",
                   help="JSON Lines, one document per line (a .txt file: one document per "
                        "line of plain text, its line number the id)")
    p.add_argument("--output", required=True, metavar="FILE",
                   help="JSON Lines of records; appended to, so a rerun resumes")
    p.add_argument("--field", default="text", metavar="NAME",
                   help="the input field with the document text (default: text)")
    p.add_argument("--id-field", default="id", metavar="NAME",
                   help="the input field with the document id, a string or an integer "
                        "(default: id; absent: the line number)")
    p.add_argument("--input-format", choices=("auto", "jsonl", "text"), default="auto",
                   help="auto (default): text for a .txt file, else jsonl")
    p.add_argument("--prompt", default=None, metavar="TEMPLATE",
                   help="the user message: {text} is the document, {name} any other input "
                        "field, {{ and }} literal braces (default: "
                        f"{_extract_default_prompt()!r})")
    p.add_argument("--prompt-file", default=None, metavar="FILE",
                   help="read the template from FILE (one trailing newline dropped)")
    p.add_argument("--system", default=None, help="a system message")
    p.add_argument("--retry-errors", action="store_true",
                   help="run the documents whose record is an error again (their old records "
                        "are removed first)")
    p.add_argument("--concurrency", type=_positive, default=1, metavar="N",
                   help="documents in flight at once (default 1); in-process, spread over up to one "
                        "model per core, each decoding its share together")
    p.add_argument("--quiet", action="store_true",
                   help="no progress or summary on stderr (errors still)")
    m = p.add_argument_group("model (in-process by default)")
    m.add_argument("--model", default=None, metavar="PATH",
                   help="a GGUF model file (default: $STRUCTGEN_MODEL or SmolLM2-135M-Instruct)")
    _add_llama_flags(m, threads="CPU threads of each model in-process (default: one document at a time "
                                "gets one per physical core; with --concurrency N the cores are shared "
                                "among up to N models, one or more each); also for batches unless "
                                "--threads-batch")
    m.add_argument("--backend", default=None, metavar="URL",
                   help="a running server instead of an in-process model")
    m.add_argument("--engine", default="llama-server",
                   choices=("llama-server", "openai", "vllm", "vllm-legacy", "sglang"),
                   help="the server at --backend: llama-server (its own /completion API, the "
                        "default), openai (llama-server's /v1/chat/completions, e.g. behind "
                        "a balancer), vllm, vllm-legacy (before 0.12) or sglang")
    m.add_argument("--served-model", default=None, metavar="NAME",
                   help="the model name sent to an OpenAI-compatible server")
    m.add_argument("--api-key-env", default="STRUCTGEN_API_KEY", metavar="VAR",
                   help="the environment variable holding the server's API key (default: "
                        "STRUCTGEN_API_KEY; never a flag, which others could read)")
    g = p.add_argument_group("generation")
    g.add_argument("--max-tokens", type=_positive, default=512, metavar="N",
                   help="token budget of each answer (default 512)")
    g.add_argument("--max-retries", type=int, default=1, metavar="N",
                   help="retries after a failed validation (default 1)")
    g.add_argument("--temperature", type=float, default=0.0, help="0 is greedy (default)")
    g.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    g.add_argument("--reasoning", type=_positive, default=None, metavar="N",
                   help="let the model think in free text before each answer, at most N tokens "
                        "(default: no reasoning section unless the model's template opens one)")
    g.add_argument("--keep-reasoning", action="store_true",
                   help="write what the model thought into each record (\"reasoning\")")
    p.set_defaults(run=cmd_extract)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def _add_llama_flags(group: Any, *, threads: str) -> None:
    """The in-process model's settings: the llama.cpp keywords of the LLM constructor."""
    group.add_argument("--n-ctx", type=_positive, default=None, metavar="N",
                       help="context window in tokens, of each document in flight (default 4096)")
    group.add_argument("--threads", dest="n_threads", type=_positive, default=None, metavar="N", help=threads)
    group.add_argument("--threads-batch", dest="n_threads_batch", type=_positive, default=None, metavar="N",
                       help="CPU threads for batches (the prompt, forced text, several documents)")
    group.add_argument("--n-batch", type=_positive, default=None, metavar="N",
                       help="most tokens one llama_decode call evaluates (default 512)")
    group.add_argument("--lookahead", type=_count_flag, default=None, metavar="N",
                       help="tokens guessed by prompt lookup after each sampled token (default 8; 0: none)")
    group.add_argument("--prompt-cache-bytes", type=_count_flag, default=None, metavar="N",
                       help="host memory for earlier prompts' KV states (default 256 MiB; 0: only the "
                            "previous call's)")
    group.add_argument("--grammar-step-seconds", type=_seconds, default=None, metavar="S",
                       help="CPU seconds one step of llama.cpp's grammar sampler may take before the "
                            "generation fails with SlowGrammarError (default 20)")
    group.add_argument("--n-gpu-layers", type=int, default=None, metavar="N",
                       help="layers offloaded to the GPU (-1: all; a GPU build of llama-cpp-python)")


def _extract_default_prompt() -> str:
    from ._extract import DEFAULT_PROMPT

    return DEFAULT_PROMPT


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    from pydantic import PydanticUserError

    from ._errors import StructgenError

    args = build_parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except CliError as e:
        message = str(e)
    except StructgenError as e:
        message = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    except (OSError, ValueError, TypeError, PydanticUserError) as e:
        message = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    except KeyboardInterrupt:
        message = "interrupted"
    print(f"structgen {args.command}: error: {message}", file=sys.stderr)
    return EXIT_ERROR

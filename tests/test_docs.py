"""The documentation builds strictly, documents the whole public API, and its code runs.

Every ```python block of docs/*.md and README.md is a test (id ``file:line``). The convention,
also stated in docs/index.md ("About the examples"):

- The blocks of one page run in order in one namespace, so a block may use what an earlier
  block of its page defined. Each page runs in a fresh temporary working directory.
- ``structgen.LLM()`` without a model or backend is the default model, loaded once for all
  pages (loading is cheap, but a fresh model's first generation is not), on one thread;
  closing it is a no-op.
- A block defining ``test_*`` functions without parameters has them called after it runs.
- An HTML comment on the line right before the fence changes what is checked:
  ``<!-- no-run: REASON -->`` the block is not run (pytest reports it skipped with that reason),
  and the reason is required;
  ``<!-- raises: ErrorName -->`` the block must raise that exception (or a subclass);
  ``<!-- output -->`` before a ```text block right after a python block: that text is exactly
  what the python block prints.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from default_model_support import load_default_backend, sharing_llm

import structgen

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
MARKER = re.compile(r"^<!--\s*(no-run|raises|output)\b\s*:?\s*(.*?)\s*-->$")
PYTHON = {"python", "py"}


# ------------------------------------------------------------------------- the build


def test_mkdocs_builds_strictly(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**_environ(), "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "api" / "generation" / "index.html").is_file()


def _environ() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_the_api_reference_has_every_public_name() -> None:
    import structgen.backends
    import structgen.gbnf
    import structgen.testing

    reference = "\n".join(page.read_text() for page in (ROOT / "docs" / "api").glob("*.md"))
    documented = set(re.findall(r"^::: (structgen(?:\.testing|\.backends|\.gbnf)?\.\w+)", reference, re.M))
    documented |= set(re.findall(r"`(structgen\.gbnf\.[A-Z_]+_GBNF)`", reference))
    public = {f"structgen.{name}" for name in structgen.__all__}
    for module in (structgen.backends, structgen.gbnf, structgen.testing):
        # a name also at the top level (a concrete backend, Message...) is documented there once
        public |= {f"{module.__name__}.{name}" for name in module.__all__ if name not in structgen.__all__}
    assert public - documented == set()
    # the modules themselves, for their docstrings
    assert documented - public == {"structgen.testing", "structgen.backends", "structgen.gbnf"}


def test_the_options_tables_are_generated_from_the_code() -> None:
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import options_tables
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert options_tables.stale() == [], "run: python docs/options_tables.py --write"
    blocks = {f"{path.name}: {match['name']}" for path in (ROOT / "docs").glob("*.md")
              for match in options_tables.BLOCK.finditer(path.read_text())}
    assert {"conversion.md: presets", "conversion.md: grammar-options", "gbnf.md: cli-flags"} <= blocks


def test_readme_gives_the_setup_commands_and_links_the_docs() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme
    for target in re.findall(r"\]\((docs/[\w/.-]+\.md)\)", readme):
        assert (ROOT / target).is_file(), target
    assert "docs/api/index.md" in readme and "docs/tools.md" in readme


# ------------------------------------------------------------------------- the blocks


@dataclass(frozen=True)
class Block:
    page: str  # path from the repo root
    line: int  # 1-based line of the opening fence
    source: str
    no_run: str | None = None
    raises: str | None = None
    output: str | None = None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass
class _Fence:
    line: int
    info: str
    marker: tuple[str, str] | None
    body: list[str] = field(default_factory=list)
    end: int = 0  # line of the closing fence


def _fences(text: str) -> Iterator[_Fence]:
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        mark, info = opening.groups()
        above = MARKER.match(lines[i - 1].strip()) if i else None
        fence = _Fence(i + 1, info.lower(), (above[1], above[2]) if above else None)
        i += 1
        while i < len(lines) and not (lines[i].startswith(mark[0] * len(mark)) and not lines[i].strip(mark[0])):
            fence.body.append(lines[i])
            i += 1
        fence.end = i + 1
        i += 1
        yield fence


def blocks_of(page: str, text: str) -> list[Block]:
    """The python blocks of a page, with their markers; ValueError for a malformed marker."""
    blocks: list[Block] = []
    lines = text.splitlines()
    last_python_end = -1
    for fence in _fences(text):
        kind, argument = fence.marker or ("", "")
        where = f"{page}:{fence.line}"
        if kind == "output":
            between = lines[last_python_end:fence.line - 2] if last_python_end >= 0 else ["x"]
            if fence.info != "text" or any(line.strip() for line in between):
                raise ValueError(f"{where}: <!-- output --> belongs on a ```text block right after a python block")
            blocks[-1] = Block(**{**blocks[-1].__dict__, "output": "\n".join(fence.body) + "\n"})
            last_python_end = -1
            continue
        if fence.info not in PYTHON:
            if kind:
                raise ValueError(f"{where}: a <!-- {kind} --> marker on a {fence.info or 'plain'} block")
            continue
        if kind in ("no-run", "raises") and not argument:
            raise ValueError(f"{where}: <!-- {kind}: ... --> needs its {'reason' if kind == 'no-run' else 'exception'}")
        blocks.append(Block(
            page, fence.line, "\n".join(fence.body) + "\n",
            no_run=argument if kind == "no-run" else None,
            raises=argument if kind == "raises" else None,
        ))
        last_python_end = fence.end
    return blocks


def _all_blocks() -> dict[str, list[Block]]:
    return {str(p.relative_to(ROOT)): blocks_of(str(p.relative_to(ROOT)), p.read_text()) for p in PAGES}


BLOCKS = _all_blocks()
_MODEL_USE = re.compile(r"\bLLM\((?!\s*backend=)|\bllm\.|run_extract\(")


def _params() -> list[Any]:
    params = []
    for blocks in BLOCKS.values():
        needs_model = False  # an earlier block of the page may load the model for this one
        for block in blocks:
            needs_model |= block.no_run is None and bool(_MODEL_USE.search(block.source))
            marks = [pytest.mark.model] if needs_model else []
            params.append(pytest.param(block, id=block.id, marks=marks))
    return params


def test_the_marker_convention_is_enforced() -> None:
    assert blocks_of("p.md", "<!-- no-run: needs a server -->\n```python\nx\n```\n")[0].no_run == "needs a server"
    for wrong in ("<!-- no-run -->\n```python\nx\n```\n", "<!-- raises -->\n```python\nx\n```\n",
                  "<!-- output -->\n```text\nx\n```\n", "<!-- no-run: why -->\n```sh\nx\n```\n"):
        with pytest.raises(ValueError):
            blocks_of("p.md", wrong)
    pair = blocks_of("p.md", "```python\nprint(1)\n```\n\n<!-- output -->\n```text\n1\n```\n")
    assert pair[0].output == "1\n"


@dataclass
class _Page:
    namespace: dict[str, Any]
    cwd: Path
    done: int = 0  # blocks of the page run so far
    failed: str | None = None


_pages: dict[str, _Page] = {}


@pytest.fixture(scope="module")
def default_backend() -> Iterator[structgen.LlamaCppBackend]:
    backend = load_default_backend()
    yield backend
    backend.close()


@pytest.mark.parametrize("block", _params())
def test_code_block(
    block: Block, default_backend: structgen.LlamaCppBackend, monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    if block.no_run is not None:
        pytest.skip(f"no-run: {block.no_run}")  # blocks_of refused a marker without a reason
    monkeypatch.setattr(structgen, "LLM", sharing_llm(default_backend))
    if block.page not in _pages:
        _pages[block.page] = _Page(_page_module(block.page).__dict__, tmp_path_factory.mktemp("page"))
    page = _pages[block.page]
    monkeypatch.chdir(page.cwd)
    blocks = BLOCKS[block.page]
    for earlier in blocks[page.done:blocks.index(block)]:
        _run(page, earlier)
    if page.failed is not None:
        pytest.fail(f"an earlier block of the page failed: {page.failed}")
    _run(page, block)


def _page_module(page: str) -> types.ModuleType:
    """A real module per page, so Pydantic resolves the page's forward references."""
    module = types.ModuleType("docs_page_" + re.sub(r"\W", "_", page))
    sys.modules[module.__name__] = module
    return module


def _run(page: _Page, block: Block) -> None:
    page.done += 1
    if block.no_run is not None or page.failed is not None:
        return
    # Tracebacks show page lines; the page's code does not inherit this file's __future__ imports.
    code = compile("\n" * block.line + block.source, block.page, "exec", dont_inherit=True)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            _execute(code, page.namespace, block)
    except AssertionError as error:
        page.failed = f"{block.id}: {error}"
        raise
    except Exception as error:
        page.failed = f"{block.id}: {type(error).__name__}: {error}"
        raise
    if block.output is not None:
        assert printed.getvalue() == block.output, f"{block.id} printed:\n{printed.getvalue()}"


def _execute(code: Any, namespace: dict[str, Any], block: Block) -> None:
    before = set(namespace)
    if block.raises is None:
        exec(code, namespace)
    else:
        with pytest.raises(Exception) as caught:
            exec(code, namespace)
        names = {cls.__name__ for cls in type(caught.value).__mro__}
        assert block.raises in names, f"{block.id} raised {caught.value!r}, not {block.raises}"
    for name in sorted(set(namespace) - before):
        test = namespace[name]
        if name.startswith("test") and callable(test) and _takes_no_arguments(test):
            test()


def _takes_no_arguments(function: Callable[..., Any]) -> bool:
    import inspect

    return not inspect.signature(function).parameters


def test_the_benchmark_figures_are_drawn_from_the_committed_results(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "plots.py"), "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    drawn = sorted(p.name for p in tmp_path.glob("*.svg"))
    shown = sorted(re.findall(r"\]\(img/([\w-]+\.svg)\)", (ROOT / "docs" / "benchmarks.md").read_text()))
    assert drawn == shown and all((ROOT / "docs" / "img" / name).is_file() for name in shown)
    assert all("<svg" in (tmp_path / name).read_text() for name in drawn)

"""The package's imports point one way: down the layers of ``LAYERS``, and never in a circle.

Every module of ``structgen`` must be placed in a layer (a new module fails here until it is). A
module may import modules of its own layer or of the layers below it; imports made inside
functions and under ``TYPE_CHECKING`` count too, since they tie the modules just as firmly.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from structgen._gbnf._analysis import recursive_cycles

PACKAGE = Path(__file__).resolve().parents[1] / "structgen"

#: Bottom first. An entry names a module or a package (all of its modules); the longest entry
#: that names a module places it.
LAYERS: list[tuple[str, ...]] = [
    ("_errors", "_escapes", "_frozen", "_memo", "_pointers", "_resume", "_type_names", "_llama_log",
     "_model_path", "_callers"),
    ("_builtins", "_gbnf"),
    ("_schema.options",),
    ("_schema.automata",),
    ("_schema.ir",),
    ("_schema.strings",),
    ("_schema.algebra",),
    ("_schema.normalize",),
    ("_schema.emit",),
    ("_schema.converter",),
    ("_schema",),
    ("_types",),
    ("_grammar", "_instance_schema"),
    ("_instances",),
    ("_backends._seam", "_backends._choices"),
    ("_backends._answer_check", "_backends._scripted", "_backends._section_grammar",
     "_backends._template_options", "_backends._template_files"),
    ("_backends.llamacpp", "_backends.server"),
    ("_backends",),
    ("_generate",),
    # Tool calling, one package above generation: definitions, then formats and the policy
    # layer (decisions, copied arguments, the sentence encoder), one turn, the tool methods.
    ("_tools._docstrings", "_tools._tool", "_tools._calls", "_tools._call_schema"),
    ("_tools._formats", "_tools.policy", "_tools._mcp"),
    ("_tools._turn",),
    ("_tools._api", "_tools"),
    ("_llm", "_description"),
    ("_extract", "_roundtrip"),
    ("testing", "backends", "gbnf"),
    ("__init__",),
    ("_cli", "_pytest_plugin"),
    ("__main__",),
]

#: Pairs of packages on one layer that must not import each other at all.
APART: list[tuple[str, str]] = [("_backends.llamacpp", "_backends.server")]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, found = -1, None
    for i, entries in enumerate(LAYERS):
        for entry in entries:
            if (module == entry or module.startswith(entry + ".")) and len(entry) > best:
                best, found = len(entry), i
    if found is None:
        raise LookupError(module)
    return found


def imports_of(module: str) -> Iterator[tuple[str, int]]:
    """(imported module of this package, line) for every import statement in ``module``."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" and module != "__init__" else \
        module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("structgen."):
                    yield _known(alias.name.removeprefix("structgen.")), node.lineno
        elif isinstance(node, ast.ImportFrom):
            named = node.module.split(".") if node.module else []
            if node.level:
                yield from _targets(package[: len(package) - node.level + 1] + named, node)
            elif named[:1] == ["structgen"]:
                yield from _targets(named[1:], node)


def _targets(parts: list[str], node: ast.ImportFrom) -> Iterator[tuple[str, int]]:
    target = ".".join(parts) or "__init__"
    for alias in node.names:  # `from . import _x` imports the module _x
        sub = f"{target}.{alias.name}" if parts else alias.name
        if sub in MODULES:
            yield sub, node.lineno
        else:
            yield _known(target), node.lineno


def _known(module: str) -> str:
    assert module in MODULES, f"an import names {module!r}, which is no module of structgen"
    return module


GRAPH = {m: sorted({t for t, _ in imports_of(m)} - {m}) for m in MODULES}


def test_every_module_has_a_layer() -> None:
    unplaced = []
    for module in MODULES:
        try:
            layer_of(module)
        except LookupError:
            unplaced.append(module)
    assert not unplaced, f"place these modules in LAYERS: {unplaced}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    own = layer_of(module)
    upward = [f"{module}:{line} imports {target} (layer {layer_of(target)} > {own})"
              for target, line in imports_of(module) if layer_of(target) > own]
    assert not upward


def test_apart_packages_do_not_import_each_other() -> None:
    crossing = [f"{m} imports {t}" for a, b in APART for m in MODULES for t in GRAPH[m]
                if (m.startswith(a) and t.startswith(b)) or (m.startswith(b) and t.startswith(a))]
    assert not crossing


def test_no_import_cycles() -> None:
    """Any strongly connected set of modules is a circle (found by the GBNF toolkit's own walk,
    which does the same for recursive rules)."""
    assert not recursive_cycles(GRAPH)


def test_imports_inside_functions_count() -> None:
    """The walk finds imports at any depth: ``_tools._tool`` imports ``_types`` inside a function."""
    tree = ast.parse(MODULES["_tools._tool"].read_text())
    top_level = {n.lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))}
    nested = [line for target, line in imports_of("_tools._tool")
              if target == "_types" and line not in top_level]
    assert nested

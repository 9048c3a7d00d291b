"""The package's layers import one way, and no module is over 600 lines.

Every `import` of every module counts, those inside functions too; imports under
`if TYPE_CHECKING:` do not (they are for types, never run). A module may import from its
own layer or the layers below it, never above, and no set of modules may import each
other in a circle. docs/development.md draws the layers.
"""

from __future__ import annotations

import ast
import itertools
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "gateway"
LAYERS: list[tuple[str, ...]] = [
    ("gateway.redaction",),
    ("gateway.errors", "gateway.resources", "gateway.deadline", "gateway.settings", "gateway.llm", "gateway.memory"),
    ("gateway.terms",),
    ("gateway.ids", "gateway.authorities", "gateway.sparql", "gateway.auth", "gateway.deployment_key", "gateway.models",
     "gateway.values", "gateway.rdf_export", "gateway.arguments", "gateway.pictures"),
    ("gateway.backends",),
    ("gateway.profiles",),
    ("gateway.engine",),
    ("gateway.tools",),
    ("gateway.api", "gateway.loading"),
    ("gateway.importers", "gateway.demos"),
    ("gateway.surfaces",),
]
"""Bottom to top."""
MAX_LINES = 600
PROVIDED_BY = {"starlette": "fastapi", "anyio": "fastapi", "mcp_types": "mcp", "uvicorn": "uvicorn[standard]",
               "pydantic_core": "pydantic"}
"""Third-party imports that come with a declared dependency rather than being one."""
DEVELOPMENT_EXTRAS = ("test", "bench")
"""Extras for working on the project; the others add a feature for users."""


def modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


def layer(module: str) -> int | None:
    for index, members in enumerate(LAYERS):
        if any(module == m or module.startswith(m + ".") for m in members):
            return index
    return None


def imports(path: Path, *, for_types: bool = False) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import that runs, at any depth of the file (and,
    `for_types`, those for type checkers only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if not for_types and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "gateway":
                for alias in node.names:  # `from gateway import deadline` imports a module
                    yield node.lineno, f"gateway.{alias.name}"
            else:
                yield node.lineno, node.module


def edges(*, for_types: bool = False) -> list[tuple[str, str, int]]:
    """(importing module, imported gateway module, line)."""
    return [(module, target, line) for module, path in modules() for line, target in imports(path, for_types=for_types)
            if target.startswith("gateway.")]


def test_every_module_has_a_layer() -> None:
    assert [m for m, _ in modules() if m != "gateway" and layer(m) is None] == []


def test_imports_go_down_the_layers() -> None:
    upward = [f"{m}:{line} imports {t}" for m, t, line in edges()
              if m != "gateway" and (layer(t) or 0) > (layer(m) or 0)]
    assert upward == []


def test_no_module_imports_itself_round_about() -> None:
    """Imports for type checkers count too: a circle of them is a circle a reader follows."""
    graph: dict[str, set[str]] = {}
    names = {m for m, _ in modules()}
    for module, target, _ in edges(for_types=True):
        if target in names and target != module:
            graph.setdefault(module, set()).add(target)
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*trail[trail.index(nxt):], nxt]))
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    # A package's __init__ importing its own modules, which import the package, is no cycle.
    assert [c for c in cycles if not _through_package_face(c)] == []


def _through_package_face(cycle: str) -> bool:
    steps = cycle.split(" -> ")
    return any(b.startswith(a + ".") or a.startswith(b + ".") for a, b in itertools.pairwise(steps))


@pytest.mark.parametrize(("module", "path"), list(modules()), ids=[m for m, _ in modules()])
def test_modules_stay_small(module: str, path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


SHARED_BY_TESTS_AND_BENCH = "support"
"""What the tests and the benchmarks both use; it imports neither."""
APART: dict[str, frozenset[str]] = {
    "tests": frozenset({"bench"}),
    "bench": frozenset({"tests"}),
    SHARED_BY_TESTS_AND_BENCH: frozenset({"tests", "bench"}),
}


@pytest.mark.parametrize("folder", list(APART))
def test_tests_and_benchmarks_share_only_the_support_package(folder: str) -> None:
    """tests/ never imports bench/, nor bench/ tests/: what both need is in support/, which
    imports neither (imports for type checkers count too)."""
    crossing = [f"{path.relative_to(ROOT)}:{line} imports {target}"
                for path in sorted((ROOT / folder).rglob("*.py"))
                for line, target in imports(path, for_types=True) if target.split(".")[0] in APART[folder]]
    assert crossing == []


def test_third_party_imports_are_declared_dependencies() -> None:
    """A core dependency may be imported anywhere; a user-facing extra's (`rdflib`), only
    inside a function, so that the core install never runs the import."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {_distribution(requirement) for requirement in project["dependencies"]}
    optional = {_distribution(requirement) for extra, requirements in project["optional-dependencies"].items()
                if extra not in DEVELOPMENT_EXTRAS for requirement in requirements}
    missing = []
    for module, path in modules():
        lazy = lazy_lines(path)
        for line, target in imports(path):
            top = target.split(".")[0]
            if top == "gateway" or top in sys.stdlib_module_names:
                continue
            if top in optional and line in lazy:
                continue
            if top not in declared and _distribution(PROVIDED_BY.get(top, "")) not in declared:
                missing.append(f"{module}:{line} imports {top}")
    assert missing == []


def lazy_lines(path: Path) -> set[int]:
    """The lines of the imports inside a function: run only when it is called."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {inner.lineno for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            for inner in ast.walk(node) if isinstance(inner, (ast.Import, ast.ImportFrom))}


def _distribution(requirement: str) -> str:
    name = requirement.split(";")[0].split("[")[0]
    for mark in "<>=!~ ":
        name = name.split(mark)[0]
    return name.strip().lower().replace("-", "_")


# -- where a store's and a statement model's own knowledge lives ----------------------------
INTERFACES = ("gateway.backends.base", "gateway.profiles.base")
"""What the engine and the tools may import of backends/ and profiles/: the interfaces (and
modules that hold only the shapes and protocols those are made of, below)."""
SHAPES = ("gateway.profiles.graph", "gateway.profiles.statistics", "gateway.backends.store_directory")
GENERIC = ("gateway.engine", "gateway.tools")
MAX_COMPLEXITY = 20
"""radon's grade C at worst: a function past it does too many things to be read as one."""


def test_the_engine_and_the_tools_know_no_store_and_no_statement_model() -> None:
    """Neither imports a concrete backend or profile module, reads a profile's `bounded`
    flag, nor asks which class a backend or profile is: each says what it can do."""
    found = []
    for module, path in modules():
        if not module.startswith(GENERIC):
            continue
        for line, target in imports(path, for_types=True):
            if target.startswith(("gateway.backends", "gateway.profiles")) and target not in (*INTERFACES, *SHAPES) \
                    and target not in ("gateway.backends", "gateway.profiles"):
                found.append(f"{module}:{line} imports {target}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "bounded":
                found.append(f"{module}:{node.lineno} reads .bounded")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "type"):
                named = ast.unparse(node)
                if "Backend" in named or "Profile" in named:
                    found.append(f"{module}:{node.lineno} {named}")
            elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                named = ast.unparse(node)
                if "type(" in named and ("Backend" in named or "Profile" in named):
                    found.append(f"{module}:{node.lineno} {named}")
    assert found == []


def test_no_function_is_past_grade_c() -> None:
    from radon.complexity import cc_visit

    def past(blocks: list[Any], module: str) -> Iterator[str]:
        for block in blocks:
            if block.complexity > MAX_COMPLEXITY:
                yield f"{module}:{block.lineno} {block.name} ({block.complexity})"
            yield from past([*getattr(block, "methods", ()), *getattr(block, "closures", ())], module)

    found = {entry for module, path in modules() for entry in past(cc_visit(path.read_text(encoding="utf-8")), module)}
    assert sorted(found) == []

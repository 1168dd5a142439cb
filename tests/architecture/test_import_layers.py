"""The house's import contract (pyproject.toml, docs/architecture.md), checked with import-linter and grimp.

The contract holds on the checkout; it breaks, naming the import, when a detector imports the CLI or a
reader imports a detector (each tried on a copy of the package in a temp dir); and the import graph has
no circle anywhere, between packages or between the modules of one package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "faultlib"


def lint_imports(cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    lint = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(lint), "--config", str(cwd / "pyproject.toml"), "--no-cache"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def copy_with(tmp_path: Path, module: str, line: str) -> Path:
    """A copy of the package and its pyproject.toml under ``tmp_path``, with ``line`` added to ``module``."""
    shutil.copytree(PACKAGE, tmp_path / "faultlib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / (module.replace(".", "/") + ".py")
    if not target.exists():
        target = tmp_path / module.replace(".", "/") / "__init__.py"
    target.write_text(target.read_text() + f"\n{line}\n")
    return tmp_path


def test_the_checkout_keeps_every_contract():
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize("module, line, importer, imported", [
    ("faultlib.detect.numerics.sentinel", "import faultlib.cli.root", "faultlib.detect.numerics.sentinel",
     "faultlib.cli.root"),
    ("faultlib.readers.files", "from faultlib.detect.checkpoints import reader", "faultlib.readers.files",
     "faultlib.detect.checkpoints.reader"),
    ("faultlib.detect.data.drift.stats", "import faultlib.detect.serving.latency", "faultlib.detect.data.drift.stats",
     "faultlib.detect.serving.latency"),
])
def test_an_upward_or_cross_family_import_breaks_the_build_naming_it(tmp_path, module, line, importer, imported):
    root = copy_with(tmp_path, module, line)
    result = lint_imports(root, pythonpath=root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "BROKEN" in result.stdout
    assert f"{importer} -> {imported}" in result.stdout


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_between_modules_or_packages():
    graph = grimp.build_graph("faultlib", cache_dir=None)
    modules = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycles(modules) == []

    def room(module: str) -> str:
        return ".".join(module.split(".")[:2])

    rooms: dict[str, set[str]] = {}
    for importer, imported in modules.items():
        rooms.setdefault(room(importer), set()).update(room(i) for i in imported if room(i) != room(importer))
    assert _cycles(rooms) == []

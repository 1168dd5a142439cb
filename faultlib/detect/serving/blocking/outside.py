"""The repository's own packages outside the scanned folder: ``check blocking server/`` where ``server/`` code does
``from config import load_config`` and ``config/`` is a package beside it (a monorepo whose services share a
config or client package, put on ``sys.path`` by the service or its launcher).

An absolute import whose top-level name no analysed file provides, and no standard-library module has, is looked
up in the folders around the scanned one: its parent, and every folder above it up to the root of the git
repository it sits in (the folder holding ``.git``; without one, the parent only). A package found there
(``NAME/__init__.py``, or ``src/NAME/__init__.py`` of a project in the src layout: ``check blocking app/`` whose
``from mypkg.store import Store`` names the project's own package under ``src/``) or a module (``NAME.py``) is read
and analysed with the rest, and so are the packages its own files import in turn, up to :data:`MAX_ADDED` files in
all; its tests (``tests/``, ``test_*.py``, ``conftest.py``) are left out. The files added are listed in the report
(``added``); a coroutine of an added file is an entry only when the scanned code calls a function of that name (the
scan is about the scanned folder's own loop).

A single FILE is still analysed alone; the imports of its own project that it names (relative ones, and absolute
ones that resolve to files around it as above) are listed in the report (``not_followed``) so that a quiet result
does not read as "followed everything".
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

__all__ = ["MAX_ADDED", "own_imports", "outside_sources", "search_roots"]

MAX_ADDED = 300
"""Files read from outside the scanned folder, at most (a bound on a runaway lookup, not a sample)."""
MAX_UP = 16
"""Folders climbed looking for the repository's root."""
TEST_DIRS = frozenset({"tests", "test", "testing"})
SRC_LAYOUT = "src"
"""The folder a project in the src layout keeps its importable packages in."""
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*)([A-Za-z_]\w*)?[\w.]*[ \t]+import\b|import[ \t]+([^#\n;]+))", re.M)


def search_roots(directory: Path) -> list[Path]:
    """The folders an outside package may sit in, nearest first: ``directory``'s parent and its ancestors up to the
    git repository's root (the parent only outside a repository)."""
    here = directory.resolve()
    ancestors = list(here.parents)[:MAX_UP]
    for i, folder in enumerate([here, *ancestors]):
        if (folder / ".git").exists():
            return ancestors[:i]  # up to the folder holding .git; nothing when the scan is the repository
    return ancestors[:1]


def imported_heads(source: str) -> tuple[set[str], bool]:
    """The top-level names of ``source``'s absolute imports, and whether it has a relative one."""
    heads: set[str] = set()
    relative = False
    for dots, head, plain in _IMPORT.findall(source):
        if dots:
            relative = True
        elif head:
            heads.add(head)
        elif plain:
            heads.update(p.split()[0].split(".")[0] for p in plain.split(",") if p.split())
    return heads, relative


def _locate(name: str, roots: list[Path]) -> Path | None:
    """The package or module ``name`` in the nearest of ``roots``: ``ROOT/NAME`` or, for a project in the src layout,
    ``ROOT/src/NAME`` (its own package, imported by absolute name once the project is installed: Python Packaging
    User Guide, "src layout vs flat layout",
    https://packaging.python.org/en/latest/discussions/src-layout-vs-flat-layout/)."""
    if name in sys.stdlib_module_names or not name.isidentifier():
        return None
    for root in roots:
        for folder in (root, root / SRC_LAYOUT):
            package, module = folder / name, folder / f"{name}.py"
            if (package / "__init__.py").is_file() and not package.is_symlink() and not folder.is_symlink():
                return package
            if module.is_file() and not module.is_symlink() and not folder.is_symlink():
                return module
    return None


def _files(found: Path) -> list[Path]:
    if found.is_file():
        return [found]
    files = []
    for dirpath, dirnames, filenames in os.walk(found, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in TEST_DIRS
                             and d != "__pycache__" and not os.path.islink(os.path.join(dirpath, d)))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name.endswith(".py") and not path.is_symlink() and not (
                    name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"):
                files.append(path)
    return files


def outside_sources(directory: Path, sources: list[tuple[str, list[str], str]], read) -> tuple[
        list[tuple[str, list[str], str]], list[str]]:
    """The sources to add for ``directory``'s imports of packages around it (see the module docstring), as
    ``(path, module parts, text)``, and why any file was left out. ``read(path, root)`` reads one file through the
    hardened readers (it raises :class:`~faultlib.errors.InputError` for an unreadable one)."""
    from faultlib.errors import InputError

    roots = search_roots(directory)
    if not roots:
        return [], []
    provided = {part for _, parts, _ in sources for part in parts}
    todo = [text for _, _, text in sources]
    added: list[tuple[str, list[str], str]] = []
    left: list[str] = []
    looked: set[str] = set()
    while todo and len(added) < MAX_ADDED:
        heads, _ = imported_heads(todo.pop())
        for name in sorted(heads - provided - looked):
            looked.add(name)
            found = _locate(name, roots)
            if found is None:
                continue
            base = found.parent
            for path in _files(found):
                if len(added) >= MAX_ADDED:
                    left.append(f"{path}: past {MAX_ADDED} files added from outside {directory} (not read)")
                    break
                parts = list(path.relative_to(base).with_suffix("").parts)
                parts = parts[:-1] if parts[-1] == "__init__" else parts
                try:
                    text = read(path.relative_to(base), base)
                except InputError as exc:
                    left.append(f"{path}: {exc.message}")
                    continue
                added.append((str(path), parts, text))
                todo.append(text)
            provided.add(name)
    return added, left


def own_imports(file: Path, source: str, module_parts: list[str]) -> list[str]:
    """The imports of ``file``'s own project that analysing it alone does not follow: relative imports, and absolute
    ones that name a package or module beside it or around it (see :func:`search_roots`)."""
    heads, relative = imported_heads(source)
    roots = [file.resolve().parent, *search_roots(file.resolve().parent)]
    found = sorted(name for name in heads if name not in module_parts[:1] and _locate(name, roots) is not None)
    if module_parts and module_parts[0] in heads and len(module_parts) > 1:
        found.append(module_parts[0])  # `from app.db import x` inside app/main.py
    return (["relative imports (from . ...)"] if relative else []) + sorted(set(found))

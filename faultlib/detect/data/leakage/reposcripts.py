"""The scripts of a project folder and their syntax trees, for the leakage analysis of files handed on.

Shared by :mod:`.repofiles` (which scripts write and read which files) and :mod:`.deadends` (files nobody reads):
the walk skips hidden folders, environments and caches, and stops at :data:`MAX_FILES` scripts.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from faultlib.detect.data.leakage.nbfiles import is_notebook, notebook_tree

MAX_FILES = 400
_SKIP = frozenset({"site-packages", "node_modules", "__pycache__", "venv", ".venv", "env", "build", "dist"})


def scripts_under(root: Path, limit: int) -> list[Path]:
    """The ``.py`` files under ``root`` in a sorted walk, at most ``limit`` of them (hidden folders, environments,
    caches and build output skipped)."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP)
        for name in sorted(filenames):
            if name.endswith(".py"):
                out.append(Path(dirpath) / name)
                if len(out) >= limit:
                    return out
    return out


def project_scripts(root: Path) -> list[Path]:
    """The ``.py`` scripts under a project root (at most :data:`MAX_FILES`; environments and caches skipped)."""
    return scripts_under(root, MAX_FILES)


def script_tree(path: Path) -> ast.Module | None:
    """The syntax tree of a script or of a notebook's code cells; ``None`` when it cannot be read or parsed."""
    from faultlib.detect.data.leakage.session import _parsed

    return notebook_tree(path) if is_notebook(path) else _parsed(path)


__all__ = ["MAX_FILES", "project_scripts", "script_tree", "scripts_under"]

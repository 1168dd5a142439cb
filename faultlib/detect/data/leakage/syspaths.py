"""Folders a script puts on ``sys.path`` through a computed path, for the project imports of a session.

:mod:`.projimports` follows ``sys.path.append('../src')`` and ``os.path.join`` of literals and ``os.getcwd()``.
Scripts that may be run from anywhere compute the folder from their own file instead::

    ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.append(os.path.join(ROOT, "src"))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from preprocessing import scale_all            # ../src/preprocessing.py

The helpers those imports name were not joined, so a scaler fitted in them on every row was not seen (issue 17:
the stop-53 list of kinds left, "a ``sys.path`` entry built from a computed path"). The folder a script's file
lives in is where :mod:`.projimports` resolves relative paths, so ``__file__``'s folder is ``.``:
:func:`computed_folder` reads such an expression as a path relative to it, from

* ``__file__`` under ``os.path.dirname`` (``..`` for each further ``dirname``), ``pathlib.Path(__file__).parent``
  (``.parents[k]``: ``k + 1`` levels up), with ``os.path.abspath``/``realpath``/``normpath``, ``str``,
  ``os.fspath``, ``Path(...)``, ``.resolve()``/``.absolute()`` in between (they change the spelling, not the
  folder);
* ``os.getcwd()`` / ``Path.cwd()`` (``.``, as :mod:`.projimports` reads them), string literals;
* ``os.path.join``, ``Path / 'part'``, ``.joinpath`` of such parts;
* names bound once at the script's top level to such an expression.

Anything else (an environment variable, ``sys.argv``, a configuration value) is no folder: ``None``, no guess.
Source: the Python library reference (``os.path.dirname``/``abspath``, ``pathlib.PurePath.parent``/``parents``,
``__file__`` as the module's path in the import system's module attributes).
"""

from __future__ import annotations

import ast
import posixpath

#: the script's own file: its folder is ``.``
_FILE = "\0file"
_SAME = frozenset({"abspath", "realpath", "normpath", "str", "fspath", "Path", "PurePath", "PosixPath", "resolve",
                   "absolute", "expanduser"})
_CWD = frozenset({"getcwd", "getcwdu", "cwd"})


def top_bindings(tree: ast.Module) -> dict[str, ast.expr]:
    """Names bound exactly once, by a plain assignment at the module's top level (``None`` for the others)."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
    return {s.targets[0].id: s.value for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and counts.get(s.targets[0].id) == 1}


def _up(path: str, levels: int = 1) -> str:
    for _ in range(levels):
        path = "." if path == _FILE else posixpath.join(path, "..")
    return path


def _joined(parts: list[str | None]) -> str | None:
    if not parts or any(p is None or p == _FILE for p in parts[1:]) or parts[0] is None:
        return None
    return posixpath.join(*parts)  # type: ignore[arg-type]


def _callee(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _path(node: ast.expr, names: dict[str, ast.expr], depth: int) -> str | None:
    if depth > 12:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return node.value
    if isinstance(node, ast.Name):
        if node.id == "__file__":
            return _FILE
        return _path(names[node.id], names, depth + 1) if node.id in names else None
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        inner = _path(node.value, names, depth + 1)
        return _up(inner) if inner is not None else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents" \
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int) and node.slice.value >= 0:
        inner = _path(node.value.value, names, depth + 1)
        return _up(inner, node.slice.value + 1) if inner is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _joined([_path(node.left, names, depth + 1), _path(node.right, names, depth + 1)])
    if not isinstance(node, ast.Call):
        return None
    name = _callee(node)
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    if name in _CWD and not node.args:
        return "."
    if name == "dirname" and len(node.args) == 1:
        inner = _path(node.args[0], names, depth + 1)
        return _up(inner) if inner is not None else None
    if name in ("resolve", "absolute", "expanduser") and receiver is not None and not node.args:
        return _path(receiver, names, depth + 1)
    if name in _SAME and len(node.args) == 1:
        return _path(node.args[0], names, depth + 1)
    if name in ("Path", "PurePath", "PosixPath") and len(node.args) > 1 or name == "join" and node.args:
        return _joined([_path(a, names, depth + 1) for a in node.args])
    if name == "joinpath" and receiver is not None:
        return _joined([_path(a, names, depth + 1) for a in [receiver, *node.args]])
    return None


def computed_folder(node: ast.expr, names: dict[str, ast.expr]) -> str | None:
    """The folder ``node`` names, relative to the script's own folder (see the module docstring), or ``None``."""
    found = _path(node, names, 0)
    if found is None or found == _FILE or _FILE in found:
        return None
    return posixpath.normpath(found)


__all__ = ["computed_folder", "top_bindings"]

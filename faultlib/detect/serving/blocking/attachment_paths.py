"""What an attachment class is given: a path it opens, or a stream it only wraps.

``discord.File(fp)`` opens ``fp`` only when it is a filename (discord.py's ``File``: "a file-like object opened in
binary mode and read mode or a filename representing a file in the hard drive to open",
https://discordpy.readthedocs.io/en/stable/api.html#discord.File). A bot hands it a path as often as a stream: a
``BytesIO`` a worker thread rendered, the handle of a ``with open(...) as f`` block (whose ``open`` is reported
where it is), a value awaited from an executor. So the class is reported only where its argument is evidently a
path: a string literal, an f-string, a concatenation or ``%`` format of text, ``str(...)``, ``os.path.join``,
``pathlib.Path`` and its ``/``, ``joinpath``, ``with_suffix``..., a parameter annotated ``str``/``Path``, or a name
whose every assignment in the function (or at the module's top level) is one of these. Anything else stays silent
(the whole-corpus run of stop 49: a Discord bot's ``with open(...) as f: discord.File(f)`` and an image a worker
rendered into ``BytesIO`` and returned through ``run_in_executor``).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted, nodes_of

__all__ = ["names_a_path"]

_PATH_CALLS = frozenset({"str", "os.path.join", "os.path.abspath", "os.path.expanduser", "os.path.realpath",
                         "os.fspath", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"})
_PATH_METHODS = frozenset({"joinpath", "with_suffix", "with_name", "with_stem", "resolve", "absolute", "expanduser"})
_PATH_ANNOTATIONS = frozenset({"str", "Path", "pathlib.Path", "os.PathLike", "PathLike"})
_DEPTH = 6


def names_a_path(expr: ast.expr | None, func: Func, depth: int = 0) -> bool:
    """Whether ``expr``, an argument in ``func``, is evidently a filename (see the module docstring)."""
    if expr is None or depth > _DEPTH:
        return False
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str)
    if isinstance(expr, ast.JoinedStr):
        return True
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.Div):  # Path / "name"
            return names_a_path(expr.left, func, depth + 1)
        if isinstance(expr.op, (ast.Add, ast.Mod)):
            return names_a_path(expr.left, func, depth + 1) or names_a_path(expr.right, func, depth + 1)
        return False
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _PATH_METHODS:
            return True
        return _qualified(expr.func, func) in _PATH_CALLS
    if isinstance(expr, ast.Name):
        return _name_is_path(expr.id, func, depth)
    return False


def _qualified(node: ast.expr, func: Func) -> str:
    parts = dotted(node) or []
    if not parts:
        return ""
    head = func.module.imports.get(parts[0], parts[0])
    return ".".join([head, *parts[1:]])


def _name_is_path(name: str, func: Func, depth: int) -> bool:
    args = func.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            return arg.annotation is not None and ".".join(dotted(arg.annotation) or []) in _PATH_ANNOTATIONS
    stores = [n for n in nodes_of(func, ast.Name) if n.id == name and isinstance(n.ctx, ast.Store)]
    if stores:
        values = [n.value for n in nodes_of(func, ast.Assign)
                  if len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name]
        # bound also by `with ... as name`, a loop or a tuple: not every value is known
        return len(values) == len(stores) and all(names_a_path(v, func, depth + 1) for v in values)
    value = func.module.globals.get(name)
    return value is not None and names_a_path(value, func, depth + 1)

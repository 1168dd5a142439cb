"""A file opened in one method and kept on ``self``, read or written in another: each read or write is disk I/O.

``self.temp = NamedTemporaryFile()`` in ``__init__`` and ``self.temp.write(chunk)`` in ``async def __aenter__``: the
open was reported where it ran, but the writes in the coroutine are file I/O of their own, one per chunk, with nothing
on the loop's side to show it (a file object's ``read``/``write`` are the system calls,
https://docs.python.org/3/library/io.html#io.RawIOBase.read; ``NamedTemporaryFile`` returns a file object,
https://docs.python.org/3/library/tempfile.html#tempfile.NamedTemporaryFile). :func:`kept_file` answers for a call
``self.<attr>.<read/write...>(...)`` in a method that does not open the file itself, when every assignment of
``self.<attr>`` in the class (and its analysed bases) is a call of a file opener. An opener over an in-memory buffer
is not one of them (``io.BytesIO`` is a different class). Used by
:func:`~faultlib.detect.serving.blocking.sites.any_of_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["kept_file"]

OPENERS = frozenset({"builtins.open", "io.open", "codecs.open", "gzip.open", "bz2.open", "lzma.open",
                     "tempfile.NamedTemporaryFile", "tempfile.TemporaryFile"})
FILE_METHODS = frozenset({"read", "readline", "readlines", "readinto", "write", "writelines", "truncate"})
MAX_CLASSES = 8


def kept_file(index, call: ast.Call, func: Func) -> str | None:
    """What ``call`` reads or writes when it is ``self.<attr>.<method>(...)`` on a file kept on ``self`` (see the
    module docstring), else None."""
    target = call.func
    if not (isinstance(target, ast.Attribute) and target.attr in FILE_METHODS and func.cls is not None):
        return None
    holder = target.value
    params = [*func.node.args.posonlyargs, *func.node.args.args]
    if not (isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name) and params
            and holder.value.id == params[0].arg):
        return None
    if _stores(func, holder.attr):
        return None  # opened (or replaced) right here: the open is the finding
    openers = set()
    for method in _methods(index, func.cls):
        for node in _stores(method, holder.attr):
            if isinstance(node.value, ast.Constant) and node.value.value is None:
                continue
            made = index.callee(node.value.func, method) if isinstance(node.value, ast.Call) else None
            if made not in OPENERS:
                return None
            openers.add(made)
    if not openers:
        return None
    return f"{'/'.join(sorted(openers))} file kept in self.{holder.attr}: .{target.attr}"


def _methods(index, klass: Klass) -> list[Func]:
    out, todo, seen = [], [klass], []
    while todo and len(seen) < MAX_CLASSES:
        current = todo.pop(0)
        seen.append(current)
        out += list(current.methods.values())
        todo += [b for b in index.bases(current) if isinstance(b, Klass) and b not in seen]
    return out


def _stores(method: Func, attr: str) -> list[ast.Assign]:
    """The assignments ``self.<attr> = ...`` in ``method`` (its first parameter being ``self``)."""
    params = [*method.node.args.posonlyargs, *method.node.args.args]
    if not params:
        return []
    me = params[0].arg
    return [n for n in method.nodes if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == me
        for t in n.targets)]

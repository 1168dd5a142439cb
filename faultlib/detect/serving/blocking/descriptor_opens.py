"""An opener handed a file descriptor wraps a file already open: it opens nothing on disk.

``io.FileIO(name)``: "name can be one of two things: a character string or bytes object representing the path to
the file which will be opened ... or an integer representing the number of an existing OS-level file descriptor to
which the resulting FileIO object will give access" (https://docs.python.org/3/library/io.html#io.FileIO); the
built-in ``open`` takes a descriptor alike ("file is a path-like object ... or an integer file descriptor of the
file to be wrapped", https://docs.python.org/3/library/functions.html#open). A kernel's output stream wrapping the
duplicate of its original stdout (``io.FileIO(os.dup(1), "w")``) makes an object, no I/O; the writes through it
are reported where they are. :func:`wraps_descriptor` says when the first argument is such a descriptor: an
``int``, what ``os.dup``/``os.open``/``fileno()`` return, or a name or attribute assigned one of those.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["DESCRIPTOR_MAKERS", "WRAPPERS", "wraps_descriptor"]

WRAPPERS = frozenset({"io.FileIO", "builtins.open", "io.open"})
DESCRIPTOR_MAKERS = frozenset({"dup", "fileno", "open", "memfd_create", "eventfd"})
"""``os.dup(fd)``, ``os.open(path, flags)`` (its own open is reported as ``os.open``), ``f.fileno()``,
``os.memfd_create``, ``os.eventfd``: each returns a descriptor (https://docs.python.org/3/library/os.html
#file-descriptor-operations)."""


def _makes_descriptor(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Constant):
        return type(value.value) is int
    if not isinstance(value, ast.Call):
        return False
    parts = dotted(value.func) or []
    if parts[-1:] == ["fileno"]:
        return True
    return len(parts) == 2 and parts[0] == "os" and parts[1] in DESCRIPTOR_MAKERS


def _assigned(func: Func, target: ast.expr) -> list[ast.expr]:
    """The values assigned to the name or ``self.attribute`` ``target`` in its function or, for an attribute, in
    the methods of its class."""
    wanted = ast.unparse(target)
    in_class = isinstance(target, ast.Attribute) and func.cls is not None
    scopes = [m.node for m in func.cls.methods.values()] if in_class else [func.node]
    values = []
    for scope in scopes:
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign) and any(ast.unparse(t) == wanted for t in node.targets):
                values.append(node.value)
    return values


def wraps_descriptor(target: str, call: ast.Call, func: Func) -> bool:
    """``call`` (of ``target``, an opener of :data:`WRAPPERS`) is given a file descriptor, not a path."""
    if target not in WRAPPERS:
        return False
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("file", "name")), None)
    if first is None:
        return False
    if _makes_descriptor(first):
        return True
    if isinstance(first, (ast.Name, ast.Attribute)):
        values = _assigned(func, first)
        return bool(values) and all(_makes_descriptor(v) for v in values)
    return False

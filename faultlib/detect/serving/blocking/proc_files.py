"""Files of the ``/proc`` pseudo-filesystem: the kernel writes their text from its own tables when they are read.

``open(f"/proc/{pid}/status")`` or ``open("/proc/meminfo")`` reads no disk and waits on no device: "the proc
filesystem is a pseudo-filesystem which provides an interface to kernel data structures" (proc(5),
https://man7.org/linux/man-pages/man5/proc.5.html), generated in memory on each read. Such a file call on the loop is
no blocker. Only a path written in the call -- a string or an f-string whose written text starts with ``/proc/``, as
the file call's argument or as the ``pathlib`` path it is a method of (``Path("/proc/net/route").read_text()``,
``(Path("/proc") / "meminfo").open()``) -- counts; a variable may hold any path. ``/sys`` is left out: a sysfs attribute may be read from the device behind it
(a sensor over I2C). Used by :func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import dotted

__all__ = ["PROC_ROOT", "reads_proc"]

PROC_ROOT = "/proc/"
PATH_CLASSES = frozenset({"Path", "PurePath", "PosixPath", "PurePosixPath"})
"""``pathlib``'s classes by their last name (https://docs.python.org/3/library/pathlib.html): a path object built in
the call from a written string."""


def reads_proc(call: ast.Call) -> bool:
    """The file call's first argument (or ``file=``/``path=``), or the path object it is a method of, is a
    ``/proc/...`` path written in the call."""
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("file", "path")), None)
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    return any(_written_proc_path(e) for e in (first, receiver) if e is not None)


def _written_proc_path(expr: ast.expr) -> bool:
    """``expr`` is a string (or an f-string's leading text) under ``/proc``, a ``pathlib`` path built from one, or
    such a path joined further with ``/``."""
    while True:
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
            expr = expr.left
        elif (isinstance(expr, ast.Call) and expr.args and not expr.keywords
              and (dotted(expr.func) or [""])[-1] in PATH_CLASSES):
            expr = expr.args[0]
        else:
            break
    if isinstance(expr, ast.JoinedStr) and expr.values:
        expr = expr.values[0]
    return (isinstance(expr, ast.Constant) and isinstance(expr.value, str)
            and (expr.value.startswith(PROC_ROOT) or expr.value == PROC_ROOT.rstrip("/")))

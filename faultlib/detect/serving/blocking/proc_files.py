"""Files of the ``/proc`` pseudo-filesystem: the kernel writes their text from its own tables when they are read.

``open(f"/proc/{pid}/status")`` or ``open("/proc/meminfo")`` reads no disk and waits on no device: "the proc
filesystem is a pseudo-filesystem which provides an interface to kernel data structures" (proc(5),
https://man7.org/linux/man-pages/man5/proc.5.html), generated in memory on each read. Such a file call on the loop is
no blocker. Only a path written in the call -- a string or an f-string whose written text starts with ``/proc/`` --
counts; a variable may hold any path. ``/sys`` is left out: a sysfs attribute may be read from the device behind it
(a sensor over I2C). Used by :func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

__all__ = ["PROC_ROOT", "reads_proc"]

PROC_ROOT = "/proc/"


def reads_proc(call: ast.Call) -> bool:
    """The file call's first argument (or ``file=``/``path=``) is a ``/proc/...`` path written in the call."""
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("file", "path")), None)
    if isinstance(first, ast.JoinedStr) and first.values:
        first = first.values[0]
    return isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith(PROC_ROOT)

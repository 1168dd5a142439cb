"""Python children of a traced script (``subprocess``, ``os.exec*``, multiprocessing ``spawn``/``forkserver``),
armed through the environment: the traced process's side (the child's: :mod:`faultlib.trace.childboot`; the parent's,
which merges their reports: :mod:`faultlib.trace.family`).

The traced process (:func:`arm_children`, from :func:`faultlib.trace.launch.main`) writes :data:`SITECUSTOMIZE` into
``<FAULTLIB_TRACE_CHILDREN>/boot/`` and puts that folder first on ``PYTHONPATH``: every Python interpreter started
below it with its environment runs that ``sitecustomize`` (which runs any ``sitecustomize`` the interpreter had
before, takes its folder off ``sys.path`` again and does nothing without ``FAULTLIB_TRACE_CHILD_DIR``). In the child,
:func:`faultlib.trace.childboot.boot_child` (through :func:`faultlib.trace.forks.boot_child`) installs a :class:`faultlib.trace.boot.Tracer` right after the child
imports torch (a child that never imports torch pays for no torch import) and writes ``child-<pid>.json`` at its exit.

On the watch pass a child counts instead of stopping (``--continue``): its control flow and exit code are its own.
On the replay, the one child named by ``FAULTLIB_TRACE_CHILD_PLAN`` (``{"key", "nth", "arm_at", "trip_step",
"arm_step", "dump"}``: its ``sys.argv`` as JSON, or a multiprocessing child's process name, and which start of that
it is, 0-based) is armed; at the end of the step it found it writes its report and uninstalls its tracer, and the
child runs on untraced.

Every start the traced process or a traced child makes through ``subprocess.Popen``, ``os.execv``/``os.execve``
(every ``os.exec*`` ends there) or a multiprocessing ``Process.start`` without fork is written as
``launch-<pid>.json`` (``{"pid", "argv", "executable", "env_kept", "t"}``) before or right after it starts, so a
child that never reports (not Python, ``-I``/``-S``/``-E``, its environment replaced) is listed as not traced.
Children started another way (``os.system``, ``os.posix_spawn``) are armed all the same but never listed when they
do not report. Forked children (``fork`` start method, ``os.fork``, DataLoader workers) are traced by
:mod:`faultlib.trace.forks`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

ENV_FOLDER = "FAULTLIB_TRACE_CHILDREN"  # set by faultlib.trace.session for the traced process: where children report
ENV_ARMED = "FAULTLIB_TRACE_CHILD_DIR"  # set by the traced process for its children: read by SITECUSTOMIZE
ENV_OFF = "FAULTLIB_TRACE_CHILD_OFF"  # set around a start whose children have their own tracer (spawned ranks)
ENV_PLAN = "FAULTLIB_TRACE_CHILD_PLAN"  # the replay: the child to arm

SITECUSTOMIZE = '''\
"""Written by faultlib trace (faultlib.trace.children): arms this Python child of a traced script."""
import os as _os
import sys as _sys


def _faultlib_trace_child():
    import importlib.machinery
    import importlib.util

    here = _os.path.dirname(_os.path.abspath(__file__))
    _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or _os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _sys.path)
    if spec is not None and spec.loader is not None:  # the interpreter's own sitecustomize runs as before
        module = importlib.util.module_from_spec(spec)
        _sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
    if not _os.environ.get("FAULTLIB_TRACE_CHILD_DIR") or _os.environ.get("FAULTLIB_TRACE_CHILD_OFF"):
        return
    try:
        from faultlib.trace.forks import boot_child
    except ImportError as exc:  # an interpreter without faultlib: said in its report, the child runs on
        import json
        path = _os.path.join(_os.environ["FAULTLIB_TRACE_CHILD_DIR"], "child-%d.json" % _os.getpid())
        try:
            with open(path, "w") as fh:
                json.dump({"pid": _os.getpid(), "argv": _sys.argv,
                           "could_not_arm": "%s: %s" % (type(exc).__name__, exc)}, fh)
        except OSError:
            pass
        return
    boot_child()


_faultlib_trace_child()
'''
"""The ``sitecustomize`` the children import (a constant: nothing of the user's goes into it)."""


def arm_children() -> bool:
    """In the traced process: arm the Python children it starts from now on (``os.environ``: PYTHONPATH and
    :data:`ENV_ARMED`) and record its launches. Returns False when the session gave no folder."""
    folder = os.environ.get(ENV_FOLDER)
    if not folder:
        return False
    boot = os.path.join(folder, "boot")
    os.makedirs(boot, exist_ok=True)
    write_atomic(os.path.join(boot, "sitecustomize.py"), SITECUSTOMIZE)
    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = boot + (os.pathsep + path if path else "")
    os.environ[ENV_ARMED] = folder
    record_launches(folder)
    return True


def armed() -> bool:
    """Whether Python children started now would be armed (:data:`ENV_ARMED` set and not switched off)."""
    return bool(os.environ.get(ENV_ARMED)) and not os.environ.get(ENV_OFF)


def write_atomic(path: str, text: str) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _arms(env: Any, folder: str) -> bool:
    """Whether an environment given to a child still arms it: faultlib's variable and the boot folder on PYTHONPATH."""
    try:
        text = {k.decode() if isinstance(k, bytes) else k: v.decode() if isinstance(v, bytes) else v
                for k, v in env.items()}
    except (AttributeError, UnicodeDecodeError):
        return True  # not a mapping we can read: say nothing about it
    return bool(text.get(ENV_ARMED)) and os.path.join(folder, "boot") in text.get("PYTHONPATH", "").split(os.pathsep)


def _record(folder: str, pid: int | None, argv: Any, executable: str | None, env: Any) -> None:
    if pid is None or not armed():
        return
    kept = env is None or _arms(env, folder)  # None: this environment
    record = {"pid": pid, "argv": [str(a) for a in argv] if isinstance(argv, (list, tuple)) else [str(argv)],
              "executable": str(executable) if executable else None, "env_kept": kept, "t": time.time()}
    try:
        write_atomic(os.path.join(folder, f"launch-{pid}.json"), json.dumps(record))
    except OSError:
        pass  # the session already ended (a child that outlived the traced script)


def record_launches(folder: str) -> None:
    """Write a ``launch-<pid>.json`` for every child this process starts (see the module docstring)."""
    import multiprocessing.process
    import subprocess

    original_execute = subprocess.Popen._execute_child

    def _execute_child(popen, args, executable, *rest):
        original_execute(popen, args, executable, *rest)
        env = rest[4] if len(rest) > 4 else None  # (preexec_fn, close_fds, pass_fds, cwd, env, ...): 3.9-3.13
        argv = [args] if isinstance(args, (str, bytes)) else list(args)
        _record(folder, popen.pid, argv, executable or (argv[0] if argv else None), env)

    subprocess.Popen._execute_child = _execute_child
    for name in ("execv", "execve"):
        original = getattr(os, name)

        def exec_(path, args, *env, _original=original):
            _record(folder, os.getpid(), list(args), path, env[0] if env else None)
            return _original(path, args, *env)

        setattr(os, name, exec_)
    original_start = multiprocessing.process.BaseProcess.start

    def start(process, *args, **kwargs):
        import multiprocessing

        target = getattr(process, "_target", None)  # start() deletes it
        out = original_start(process, *args, **kwargs)
        method = getattr(process, "_start_method", None) or multiprocessing.get_start_method(allow_none=True) or "fork"
        if method != "fork":
            _record(folder, process.pid, [f"multiprocessing {method}: {process.name}"
                                          + (f" ({getattr(target, '__qualname__', target)})" if target else "")],
                    sys.executable, None)
        return out

    multiprocessing.process.BaseProcess.start = start

"""Forked children of a traced process (``os.fork``, multiprocessing's ``fork`` start method, DataLoader workers on
Linux), traced like the children :mod:`faultlib.trace.children` arms through the environment.

A fork inherits its parent's installed :class:`faultlib.trace.boot.Tracer`. The at-fork hook
(:func:`os.register_at_fork`, ``after_in_child``; registered once by :func:`trace_forks` in the traced process and
in every armed child, inherited by their forks) uninstalls that tracer in the child and makes it a child of its own
(:class:`faultlib.trace.childboot._Child`): its identity across the passes is its parent's and which fork of that
parent it is (``["fork", parent key, parent nth, index]``, counted by ``after_in_parent``), its report is
``child-<pid>.json``, written at its exit (``sys.exit`` / running off the end: ``atexit``; multiprocessing's fork
children and DataLoader workers leave through ``os._exit``, wrapped once in every armed child to write it first; a
fork killed by a signal: :mod:`faultlib.trace.exits`), and the parent's session
merges it like any child. On the watch pass its tracer counts instead of stopping; on the replay it is armed only
when it is the child the plan names, and steps aside once it has named the value. Nothing of the tool raises into
the child's code and its exit code is its own.

Not followed: the short-lived fork that ``subprocess`` makes to run a ``preexec_fn`` before ``exec`` (the program it
runs is armed through the environment), and forks made while children are not armed (``torch.multiprocessing``
ranks under their own world tracer, :mod:`faultlib.trace.spawn`).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from faultlib.trace import childboot, children, exits  # imported before the fork: a fork pays for no import

_lineage: "_Lineage | None" = None  # this process: who it is and how many forks it made
_exit_wrapped = False


class _Lineage:
    """The process whose forks are followed: ``owner`` has ``key``, ``nth`` and ``tracer`` (a ``_Child`` or, for
    the traced process, :class:`ScriptOwner`)."""

    def __init__(self, folder: str, owner: Any):
        self.folder, self.owner, self.pid, self.forks = folder, owner, os.getpid(), 0


class ScriptOwner:
    """The traced process itself as the parent of its forks."""

    key, nth = json.dumps(["script"]), 0

    def __init__(self, tracer: Any):
        self.tracer = tracer


def trace_forks(folder: str, owner: Any) -> None:
    """Follow the forks of this process from now on (see the module docstring)."""
    global _lineage
    first = _lineage is None
    _lineage = _Lineage(folder, owner)
    exits.record_waits(folder)  # how the children it reaps ended (faultlib.trace.exits)
    if first:
        os.register_at_fork(after_in_parent=_after_in_parent, after_in_child=_after_in_child)


def boot_child() -> None:
    """What the children's ``sitecustomize`` runs (:data:`faultlib.trace.children.SITECUSTOMIZE`): the child's boot
    (:func:`faultlib.trace.childboot.boot_child`), and its forks followed from then on."""
    child = childboot.boot_child()
    if child is not None:
        trace_forks(child.folder, child)
        _wrap_exit()  # a child that leaves through os._exit writes its report first


def _after_in_parent() -> None:
    lineage = _lineage
    if lineage is not None and lineage.pid == os.getpid():
        lineage.forks += 1


def _runs_preexec() -> bool:
    """Whether this fork is ``subprocess``'s child that runs a ``preexec_fn`` and then ``exec``s."""
    import subprocess

    try:
        frame = sys._getframe(2)
    except ValueError:  # forked with no Python caller
        return False
    return frame.f_code.co_name == "_execute_child" and \
        frame.f_code.co_filename == subprocess.__file__


def _after_in_child() -> None:
    lineage = _lineage
    if lineage is None or lineage.pid == os.getpid() or not children.armed() or _runs_preexec():
        return
    import gc

    collecting = gc.isenabled()
    gc.disable()  # a collection here would touch (copy) every page of the parent's heap: tens of ms
    try:
        _follow(lineage)
    except Exception as exc:  # noqa: BLE001 - never the child's failure: its row says it could not be armed
        try:
            children.write_atomic(os.path.join(lineage.folder, f"child-{os.getpid()}.json"), json.dumps(
                {"pid": os.getpid(), "argv": [f"os.fork() of pid {lineage.pid}"], "forked": True,
                 "could_not_arm": f"{type(exc).__name__}: {exc}"}))
        except OSError:
            pass
    finally:
        if collecting:
            gc.enable()


def _follow(lineage: _Lineage) -> None:
    """In the fork: step the inherited tracer aside and trace this process as a child of its own."""
    import atexit

    global _lineage
    owner = lineage.owner
    key = json.dumps(["fork", owner.key, owner.nth, lineage.forks])
    inherited = owner.tracer
    if inherited is not None:
        inherited.uninstall()  # its hooks, its modes: the parent's pass, not this child's
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, childboot._AfterImport)]
    childboot.forget_pass()
    child = childboot._Child(lineage.folder, forked=(key, [f"os.fork() of pid {lineage.pid}", *sys.argv]))
    child.inherited = _current_process()  # a multiprocessing child replaces it in _bootstrap
    _lineage = _Lineage(lineage.folder, child)
    atexit.register(child.finish)
    _wrap_exit()
    child.arm()
    if inherited is not None and inherited.audits and child.tracer is not None:
        child.tracer.adopt_scalers(inherited.audits)  # a GradScaler made before the fork, used in it


def _current_process() -> Any:
    module = sys.modules.get("multiprocessing.process")
    return module.current_process() if module is not None else None


def _name(child: Any) -> list[str] | None:
    """A multiprocessing fork child's row (``multiprocessing fork: NAME (TARGET)``), like a spawned one's."""
    process = _current_process()
    if process is None or process is getattr(child, "inherited", None):
        return None
    target = getattr(process, "_target", None)
    return [f"multiprocessing fork: {process.name}"
            + (f" ({getattr(target, '__qualname__', target)})" if target is not None else "")]


def _wrap_exit() -> None:
    """``os._exit`` writes the armed child's report first (multiprocessing's fork children end through it, and so
    may any child)."""
    global _exit_wrapped
    if _exit_wrapped:
        return
    _exit_wrapped = True
    original = os._exit

    def _exit(code, _original=original):
        child = childboot.CURRENT
        if child is not None and child.pid == os.getpid() and not child.done:
            try:
                named = _name(child) if child.forked else None
                if named is not None:
                    child.state["argv"] = named
                child.finish()
            except Exception:  # noqa: BLE001 - the exit goes on: the row says the report is missing
                pass
        _original(code)

    os._exit = _exit


def script_ended(result: dict[str, Any]) -> None:
    """In a fork of the traced process whose copy of the script ended (``runpy`` returned or raised): how, in its
    report, written now (a fork that dies of SIGINT next runs no ``atexit``)."""
    child = childboot.CURRENT
    if child is None or not child.forked or child.pid != os.getpid():
        return
    if result.get("end") in ("raised", "interrupted"):
        child.state.update(end=result["end"], error=result.get("error"))
    child.finish()


def tracer_here(default: Any) -> Any:
    """The tracer of this process: a fork's own, else ``default`` (the traced process's)."""
    child = childboot.CURRENT
    if child is not None and child.forked and child.pid == os.getpid() and child.tracer is not None:
        return child.tracer
    return default

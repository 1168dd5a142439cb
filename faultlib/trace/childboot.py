"""The child side of :mod:`faultlib.trace.children`: what the ``sitecustomize`` runs in an armed Python child
(:func:`boot_child`): its report ``child-<pid>.json``, its launches, and a :class:`faultlib.trace.boot.Tracer`
installed right after the child imports torch."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from faultlib.trace.children import ENV_ARMED, ENV_PLAN, record_launches, write_atomic

MULTIPROCESSING_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")
"""The ``-c`` commands of multiprocessing's helper processes (started with ``spawnv_passfds``): never armed."""


def _claim(folder: str, key: str) -> int:
    """Which start of the command ``key`` this child is (0-based), in the order the starts reach this line."""
    import hashlib

    stem = hashlib.sha1(key.encode()).hexdigest()[:16]
    nth = 0
    while True:
        try:
            os.close(os.open(os.path.join(folder, f"seq-{stem}-{nth}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return nth
        except FileExistsError:
            nth += 1
        except OSError:
            return nth


class _Child:
    """One armed child: its report, its tracer once torch is imported."""

    def __init__(self, folder: str):
        self.folder, self.pid = folder, os.getpid()
        self.key = json.dumps(sys.argv)
        self.nth = _claim(folder, self.key)
        self.path = os.path.join(folder, f"child-{self.pid}.json")
        self.state: dict[str, Any] = {"pid": self.pid, "ppid": os.getppid(), "argv": list(sys.argv), "key": self.key,
                                      "nth": self.nth, "started": True, "end": "exit", "error": None, "armed": False}
        self.plan: dict[str, Any] | None = None
        self.tracer: Any = None
        self.found: dict[str, Any] | None = None  # the replay: what the armed tracer found, written when it stopped
        self.save(self.state)

    def save(self, result: dict[str, Any]) -> None:
        try:
            write_atomic(self.path, json.dumps(result, default=str))
        except OSError:
            pass

    def start(self) -> None:
        """Install the tracer (torch was just imported)."""
        from faultlib.trace.boot import Tracer, _Stop

        if "--multiprocessing-fork" in sys.argv:  # every spawn child has the same argv: its name is who it is
            import multiprocessing  # (set by spawn's prepare() before the child's main module imports torch)

            self.key = json.dumps(["multiprocessing", multiprocessing.current_process().name])
            self.nth = _claim(self.folder, self.key)
            self.state.update(key=self.key, nth=self.nth)
        plan = json.loads(os.environ.get(ENV_PLAN) or "null")
        self.plan = plan if plan and plan.get("key") == self.key and plan.get("nth") == self.nth else None
        self.state["armed"] = self.plan is not None
        plan = self.plan or {}
        arm_at, arm_step = plan.get("arm_at"), plan.get("arm_step")
        self.tracer = Tracer(arm_at=arm_at if self.plan else None, keep_going=self.plan is None,
                             dump_path=plan.get("dump"), trip_step=plan.get("trip_step"),
                             arm_step=arm_step if self.plan else None)
        self.tracer.install()
        if self.plan is not None:
            self.tracer._stop = self.stopped  # the step is finished: report and step aside, never stop the child
        original = sys.excepthook
        child = self

        def excepthook(kind, exc, tb):
            if isinstance(exc, _Stop):  # the replay stopped this child at the end of its step
                child.state.update(end="stopped")
                return
            child.state.update(end="raised", error=f"{kind.__name__}: {exc}".rstrip(": "))
            main = getattr(sys.modules.get("__main__"), "__file__", None) or ""
            child.tracer.script_failed(exc, os.path.abspath(main) if main else "")
            original(kind, exc, tb)

        sys.excepthook = excepthook

    def stopped(self) -> None:
        """The replay's armed tracer found its value and finished the step: write what it found and uninstall it,
        so the child runs on untraced (its parent may wait for it: a worker, a launcher) with its own exit code."""
        if os.getpid() != self.pid or self.found is not None:
            return
        self.found = {**self.state, "end": "stopped", **self.tracer.results()}
        self.tracer.uninstall()
        self.save(self.found)

    def finish(self) -> None:
        """At the child's exit: its report (a forked grandchild leaves it to the child)."""
        if os.getpid() != self.pid:
            return
        result = {**self.state, "argv": list(sys.argv)}
        if self.found is not None:
            result = {**self.found, "end": "stopped", "error": self.state["error"]}
        elif self.tracer is None:
            result.update(watched={"forwards": 0, "optimizer_steps": 0}, torch=False)
        else:
            if result["end"] != "stopped":
                self.tracer.check_buffers_at_end()
            result.update(self.tracer.results())
        self.save(result)


def boot_child() -> None:
    """In a Python child (from :data:`SITECUSTOMIZE`): report, record launches, trace once torch is imported."""
    import atexit

    command = getattr(sys, "orig_argv", sys.argv)
    if any(helper in arg for arg in command for helper in MULTIPROCESSING_HELPERS):
        return  # multiprocessing's own server process: no user code, and ended by a signal at its parent's exit
    folder = os.environ[ENV_ARMED]
    for name in ("FAULTLIB_TRACE_RESULT", "FAULTLIB_TRACE_ARM_AT", "FAULTLIB_TRACE_ARM_STEP",
                 "FAULTLIB_TRACE_TRIP_STEP", "FAULTLIB_TRACE_DUMP", "FAULTLIB_TRACE_CONTINUE"):
        os.environ.pop(name, None)  # the traced process's own pass: not this child's (and not torch.mp.spawn's)
    child = _Child(folder)
    record_launches(folder)
    atexit.register(child.finish)
    if "torch" in sys.modules:
        child.start()
    else:
        sys.meta_path.insert(0, _AfterImport("torch", child.start))


class _AfterImport:
    """A meta path finder that calls ``then()`` once the module ``name`` has been executed, then steps aside."""

    def __init__(self, name: str, then):
        self.name, self.then = name, then

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader, then = spec.loader, self.then
        original = loader.exec_module

        def exec_module(module):
            original(module)
            then()

        loader.exec_module = exec_module
        return spec

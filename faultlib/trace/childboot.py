"""The child side of :mod:`faultlib.trace.children`: what the ``sitecustomize`` runs in an armed Python child
(:func:`boot_child`): its report ``child-<pid>.json``, its launches, and a :class:`faultlib.trace.boot.Tracer`
installed right after the child imports torch. A forked child is one too (:mod:`faultlib.trace.forks`)."""

from __future__ import annotations

import json
import os
import sys
import time
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


CURRENT: "_Child | None" = None
"""This process's armed child (a fork replaces its parent's: :mod:`faultlib.trace.forks`), read by the hooks that
outlive one (``sys.excepthook``, ``os._exit``)."""


class _Child:
    """One armed child: its report, its tracer once torch is imported.

    Args:
        folder: where the children of the pass report.
        forked: a forked child (:mod:`faultlib.trace.forks`): ``(key, argv)``, its identity across the passes
            (its parent's and which fork of it) and what its row shows; else the child's ``sys.argv`` is both.
    """

    def __init__(self, folder: str, forked: tuple[str, list[str]] | None = None):
        global CURRENT
        self.folder, self.pid, self.forked = folder, os.getpid(), forked is not None
        self.key, argv = forked or (json.dumps(sys.argv), list(sys.argv))
        self.nth = _claim(folder, self.key)
        self.path = os.path.join(folder, f"child-{self.pid}.json")
        self.state: dict[str, Any] = {"pid": self.pid, "ppid": os.getppid(), "argv": argv, "key": self.key,
                                      "nth": self.nth, "started": True, "end": "exit", "error": None, "armed": False,
                                      "forked": self.forked, "t": time.time()}
        self.plan: dict[str, Any] | None = None
        self.tracer: Any = None
        self.found: dict[str, Any] | None = None  # the replay: what the armed tracer found, written when it stopped
        self.done = False
        CURRENT = self
        self.save(self.state)

    def save(self, result: dict[str, Any]) -> None:
        try:
            write_atomic(self.path, json.dumps(result, default=str))
        except OSError:
            pass

    def start(self) -> None:
        """Install the tracer (torch was just imported)."""
        from faultlib.trace.boot import Tracer, _Stop

        if not self.forked and "--multiprocessing-fork" in sys.argv:  # every spawn child has the same argv: its name is who it is
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
                             arm_step=arm_step if self.plan else None, arm_start=bool(plan.get("arm_start")))
        self.tracer.install()
        from torch.optim.optimizer import register_optimizer_step_post_hook

        from faultlib.trace.exits import Progress

        handle = register_optimizer_step_post_hook(Progress(self.save, self.state, self.tracer))  # if it is killed
        self.tracer._undo.append(handle.remove)
        if self.plan is not None:
            self.tracer._stop = self.stopped  # the step is finished: report and step aside, never stop the child
        if getattr(sys.excepthook, "_faultlib_child", False):
            return  # a fork's: its parent's hook reads CURRENT
        original = sys.excepthook

        def excepthook(kind, exc, tb):
            child = CURRENT
            if child is None or child.pid != os.getpid():
                return original(kind, exc, tb)
            if isinstance(exc, _Stop):  # the replay stopped this child at the end of its step
                child.state.update(end="stopped")
                return
            child.raised(exc)
            original(kind, exc, tb)

        excepthook._faultlib_child = True  # type: ignore[attr-defined]
        sys.excepthook = excepthook

    def arm(self) -> None:
        """Install the tracer now if torch is imported, else right after the child imports it."""
        if "torch" in sys.modules:
            self.start()
        else:
            sys.meta_path.insert(0, _AfterImport("torch", self.start))

    def raised(self, exc: BaseException) -> None:
        """The child's script raised ``exc`` (uncaught): said in its report, and a trip when it names a value."""
        self.state.update(end="raised", error=f"{type(exc).__name__}: {exc}".rstrip(": "))
        if self.tracer is not None:
            main = getattr(sys.modules.get("__main__"), "__file__", None) or ""
            self.tracer.script_failed(exc, os.path.abspath(main) if main else "")

    def stopped(self) -> None:
        """The replay's armed tracer found its value and finished the step: write what it found and uninstall it,
        so the child runs on untraced (its parent may wait for it: a worker, a launcher) with its own exit code."""
        if os.getpid() != self.pid or self.found is not None:
            return
        self.found = {**self.state, "end": "stopped", **self.tracer.results()}
        self.tracer.uninstall()
        self.save(self.found)

    def finish(self) -> None:
        """At the child's exit: its report (a forked grandchild leaves it to the child; written once)."""
        if os.getpid() != self.pid or self.done:
            return
        self.done = True
        result = {**self.state, "argv": self.state["argv"] if self.forked else list(sys.argv)}
        if self.found is not None:
            result = {**self.found, "end": "stopped", "error": self.state["error"]}
        elif self.tracer is None:
            result.update(watched={"forwards": 0, "optimizer_steps": 0}, torch=False)
        else:
            if result["end"] != "stopped":
                self.tracer.check_buffers_at_end()
            result.update(self.tracer.results())
        self.save(result)


PASS_VARIABLES = ("FAULTLIB_TRACE_RESULT", "FAULTLIB_TRACE_ARM_AT", "FAULTLIB_TRACE_ARM_STEP",
                  "FAULTLIB_TRACE_TRIP_STEP", "FAULTLIB_TRACE_DUMP", "FAULTLIB_TRACE_CONTINUE")


def forget_pass() -> None:
    """Drop the traced process's own pass from the environment: not this child's (and not torch.mp.spawn's)."""
    for name in PASS_VARIABLES:
        os.environ.pop(name, None)


def boot_child() -> "_Child | None":
    """In a Python child (from :data:`SITECUSTOMIZE`, through :func:`faultlib.trace.forks.boot_child`): report,
    record launches, trace once torch is imported. Returns the child, or None for multiprocessing's helpers."""
    import atexit

    command = getattr(sys, "orig_argv", sys.argv)
    if any(helper in arg for arg in command for helper in MULTIPROCESSING_HELPERS):
        return None  # multiprocessing's own server process: no user code, and ended by a signal at its parent's exit
    folder = os.environ[ENV_ARMED]
    forget_pass()
    child = _Child(folder)
    record_launches(folder)
    atexit.register(child.finish)
    child.arm()
    return child


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

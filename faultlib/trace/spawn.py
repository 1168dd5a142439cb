"""``torch.multiprocessing.spawn`` worlds under ``faultlib trace``: each child runs its rank under its own world
tracer (:func:`run_spawned_rank`, writing ``rank<i>.json``), and the traced parent's join ends the other ranks
once one stopped at its value and they ran on past a grace period (:func:`join_spawned`)."""

from __future__ import annotations

import os
from typing import Any, Callable

from faultlib.trace.children import ENV_OFF
from faultlib.trace.script import _write_result


def patch_spawn(tracer: Any, stop: type[BaseException]) -> None:
    """``torch.multiprocessing.spawn`` / ``start_processes``: each child runs ``fn(i, *args)`` under its own
    world tracer (:func:`run_spawned_rank`, a tracer of ``type(tracer)``; ``stop`` is the exception the tracer stops a
    rank with), writing ``rank<i>.json`` into ``tracer.spawn_dir``."""
    import sys as _sys

    module = _sys.modules.get("torch.multiprocessing.spawn")
    result_path = os.environ.get("FAULTLIB_TRACE_RESULT")
    if module is None or result_path is None or tracer.world:
        return
    original = module.start_processes

    def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
        if os.getpid() != tracer.pid:
            return original(fn, args, nprocs, join, daemon, start_method)
        tracer.spawn_dir = f"{result_path}.ranks"
        os.makedirs(tracer.spawn_dir, exist_ok=True)
        tracer.spawned -= nprocs if start_method != "fork" else 0  # traced: not "ran untraced"
        os.environ[ENV_OFF] = "1"  # each rank runs under its own world tracer, not as an armed child
        try:
            context = original(SpawnedRank(fn, tracer.spawn_dir, type(tracer), stop), args, nprocs, False, daemon,
                               start_method)
        finally:
            os.environ.pop(ENV_OFF, None)
        if not join:
            return context
        join_spawned(tracer, context)
        return None

    module.start_processes = start_processes
    tracer._undo.append(lambda: setattr(module, "start_processes", original))


def join_spawned(tracer: Any, context: Any) -> None:
    """``spawn``'s join (``while not context.join()``, which raises a rank's failure), but once a rank stopped at
    its value and the others run on past ``FAULTLIB_TRACE_WORLD_GRACE_S`` (10 s; they wait in a collective
    the stopped rank will never issue), the others are terminated and the script goes on. A rank that stopped at
    its value and whose process then died at teardown is the tool's stop too, never the script's failure."""
    import json
    import time

    from torch.multiprocessing.spawn import ProcessExitedException

    try:
        grace = float(os.environ.get("FAULTLIB_TRACE_WORLD_GRACE_S") or 10.0)
    except ValueError:
        grace = 10.0

    stopped_at = None
    while True:
        try:
            if context.join(timeout=0.2):
                return
        except ProcessExitedException as exc:
            if _end(tracer.spawn_dir, exc.error_index) != "stopped":
                raise  # the rank's own failure, as spawn reports it
            # the rank wrote its result and then died at teardown (a gloo thread still joinable at exit is a
            # C++ std::terminate: SIGABRT); spawn's join has already terminated the other ranks
            tracer.spawn_ended = (f"rank {exc.error_index} stopped at its value, then its process ended with "
                                  f"{exc.signal_name or f'exit code {exc.exit_code}'} at teardown; the others "
                                  "were terminated")
            return
        if stopped_at is None:
            for name in os.listdir(tracer.spawn_dir):
                try:
                    with open(os.path.join(tracer.spawn_dir, name), encoding="utf-8") as fh:
                        if json.load(fh).get("end") == "stopped":
                            stopped_at = time.monotonic()
                except (OSError, ValueError):
                    continue
        elif time.monotonic() - stopped_at > grace:
            for process in context.processes:
                if process.is_alive():
                    process.terminate()
            for process in context.processes:
                process.join(5)
            tracer.spawn_ended = (f"a rank stopped at its value and the others ran on for {grace:g} s: they "
                                "were terminated")
            return


def _end(spawn_dir: str, index: int) -> str | None:
    """How rank ``index`` said it ended (``rank<index>.json``'s ``end``); None when it wrote nothing readable."""
    import json

    try:
        with open(os.path.join(spawn_dir, f"rank{index}.json"), encoding="utf-8") as fh:
            return json.load(fh).get("end")
    except (OSError, ValueError, AttributeError):
        return None


class SpawnedRank:
    """What ``torch.multiprocessing.spawn`` runs in each child under ``faultlib trace``: ``fn(i, *args)`` under a
    world tracer (picklable: ``fn`` is pickled by reference, as spawn does)."""

    def __init__(self, fn: Callable, spawn_dir: str, tracer_type: type, stop: type[BaseException]):
        self.fn, self.spawn_dir, self.tracer_type, self.stop = fn, spawn_dir, tracer_type, stop

    def __call__(self, index: int, *args: Any) -> None:
        run_spawned_rank(self.fn, index, args, self.spawn_dir, self.tracer_type, self.stop)


def run_spawned_rank(fn: Callable, index: int, args: tuple, spawn_dir: str, tracer_type: type,
                     stop: type[BaseException]) -> None:
    """One spawned rank: the result file ``<spawn_dir>/rank<index>.json`` as :func:`faultlib.trace.launch.main` writes it; the rank's own
    exception is raised again after it is written (``spawn`` reports it in the parent as it would)."""
    import json

    result_path = os.path.join(spawn_dir, f"rank{index}.json")
    os.environ["FAULTLIB_TRACE_RESULT"] = result_path
    plan = json.loads(os.environ.get("FAULTLIB_TRACE_PLAN") or "{}").get(str(index)) or {}
    _write_result(result_path, {"started": True})
    tracer = tracer_type(arm_at=plan.get("arm_at", 0) if plan else None, keep_going=False,
                         dump_path=plan.get("dump"), trip_step=plan.get("trip_step"), world=True)
    tracer.rank = index
    tracer.install()
    result: dict[str, Any] = {"started": True, "end": "exit", "script_exit": 0, "error": None}
    failure: BaseException | None = None
    try:
        fn(index, *args)
    except stop:
        result.update(end="stopped", script_exit=None)
    except SystemExit as exc:
        result.update(script_exit=exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1))
        failure = exc if result["script_exit"] else None
    except BaseException as exc:  # noqa: BLE001 - the rank's own failure, raised again below
        tracer.script_failed(exc, getattr(getattr(fn, "__code__", None), "co_filename", ""))
        result.update(end="raised", script_exit=1, error=f"{type(exc).__name__}: {exc}".rstrip(": "))
        failure = exc
    result.update(tracer.results())
    _write_result(result_path, result)
    tracer.uninstall()
    if failure is not None:
        raise failure

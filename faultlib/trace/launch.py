"""The traced process of ``faultlib trace`` (``python -c LAUNCHER SCRIPT ARGS...``, :data:`faultlib.trace.session.
LAUNCHER`): install a :class:`faultlib.trace.boot.Tracer` (its environment: :mod:`faultlib.trace.boot`), arm the
Python children and follow the forks (:mod:`faultlib.trace.children`, :mod:`faultlib.trace.forks`), run the script
with ``runpy``, write the result file."""

from __future__ import annotations

import os
import sys
from typing import Any

from faultlib.trace import children, forks
from faultlib.trace.boot import Tracer, _Stop
from faultlib.trace.script import _write_result, run_script


def _here(tracer: Tracer) -> Tracer:
    """The tracer of this process: a traced fork's own (:mod:`faultlib.trace.forks`), else ``tracer``."""
    return forks.tracer_here(tracer)


def main(argv: list[str]) -> int:
    """Run ``argv`` (``SCRIPT ARGS...``) as ``python SCRIPT ARGS...`` would, under the tracer.

    Returns 0: how the script ended is in the result file, read by :mod:`faultlib.trace.session`.
    """
    result_path = os.environ["FAULTLIB_TRACE_RESULT"]
    _write_result(result_path, {"started": True})
    arm_at = os.environ.get("FAULTLIB_TRACE_ARM_AT")
    trip_step = os.environ.get("FAULTLIB_TRACE_TRIP_STEP")
    arm_step = os.environ.get("FAULTLIB_TRACE_ARM_STEP")
    tracer = Tracer(arm_at=int(arm_at) if arm_at else None, keep_going=os.environ.get("FAULTLIB_TRACE_CONTINUE") == "1",
                    dump_path=os.environ.get("FAULTLIB_TRACE_DUMP"), trip_step=int(trip_step) if trip_step else None,
                    world=os.environ.get("FAULTLIB_TRACE_WORLD") == "1", arm_step=int(arm_step) if arm_step else None,
                    arm_start=os.environ.get("FAULTLIB_TRACE_ARM_START") == "1")
    tracer.install()
    if not tracer.world and children.arm_children():  # its Python children report to the session
        forks.trace_forks(os.environ[children.ENV_FOLDER], forks.ScriptOwner(tracer))
    if tracer.collectives is not None:  # a rank killed later (the world torn down) still says what it saw
        import threading

        lock = threading.Lock()

        def partial(_event: dict[str, Any]) -> None:
            with lock:
                _write_result(result_path, {"started": True, "trip": tracer.trip,
                                            "world": tracer.collectives.summary(tracer.rank)})

        tracer.collectives.on_event = partial
    result = run_script(argv, stop=_Stop, on_error=lambda exc, script: _here(tracer).script_failed(exc, script))
    if os.getpid() != tracer.pid:  # a forked child that ran off the script's end: it exits as it would untraced
        forks.script_ended(result)  # its report (faultlib.trace.forks)
        if result["end"] == "interrupted":  # Python dies of SIGINT after an uncaught KeyboardInterrupt
            import signal

            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        code = result.get("script_exit")
        sys.exit(1 if code is None else code)
    if result["end"] != "stopped":
        tracer.check_buffers_at_end()
    result.update(tracer.results())
    _write_result(result_path, result)
    return 0


if __name__ == "__main__":  # python -m faultlib.trace.launch SCRIPT ARGS... (the launcher is what trace uses)
    sys.exit(main(sys.argv[1:]))

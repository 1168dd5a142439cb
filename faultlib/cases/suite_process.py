"""The process that runs a case's assertion suite: ``python -m faultlib.cases.suite_process PYTEST-ARGS``
(:func:`faultlib.runner.run_assertion_suite`).

It is pytest's own command line (``python -m pytest``, :func:`pytest.main` on ``sys.argv``) that ends without the
interpreter's teardown. Once pytest has returned its exit code, the suite's results are on disk (the JUnit
XML is written at session finish, every fixture torn down), and what the interpreter does next is what any
exit does (join the threads that are not daemons, run the ``atexit`` functions, flush stdout and stderr), then
tear every module down, object by object. A suite that imported torch (nan_gradient's, state_dict_mismatch's,
preempted_training's, dependency_drift's) holds hundreds of thousands of objects: that teardown cost 0.7-1.4 s
of CPU per suite (nan_gradient's on a shared 2-core machine, issue 17: 3.7-4.0 s under ``python -m pytest``,
2.9-3.0 s here at load 5; 5.3-6.8 s against 3.8-5.3 s at load 18), and decides nothing; a suite without torch
saves next to nothing (0.5 s in all). So this process does the first three itself and leaves with
:func:`os._exit`, the way CPython's own ``multiprocessing`` ends a forked worker (``multiprocessing.popen_fork``).
A ``__del__`` that would have run at the teardown does not; CPython does not promise those either (the data
model: "It is not guaranteed that ``__del__()`` methods are called for objects that still exist when the
interpreter exits").
"""

from __future__ import annotations

import atexit
import gc
import io
import os
import sys
import threading


def exit_without_teardown(code: int) -> None:
    """End this process with ``code`` as a normal exit would, less the interpreter's teardown: wait for the
    threads that are not daemons, run the ``atexit`` functions, flush the files still open, stdout and stderr, then
    :func:`os._exit`.

    The threads are waited for by :func:`threading._shutdown`, what ``Py_FinalizeEx`` calls: it first runs the
    functions registered with ``threading._register_atexit`` (``concurrent.futures`` wakes an open pool's idle
    workers there; joined without it, they wait for work forever)."""
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()  # what Py_FinalizeEx runs after the threads, in the same (last-registered-first) order
    for stream in (*_open_files(), sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed or replaced by something without flush
            pass
    os._exit(code)


#: the file types that hold written data in a buffer of their own (what ``open`` returns for writing)
_BUFFERED = frozenset({io.TextIOWrapper, io.BufferedWriter, io.BufferedRandom, io.BufferedRWPair})


def _open_files() -> list[io.IOBase]:
    """The files still open (a module-level log the suite never closed): the teardown would flush their buffers
    as it freed them, so the exit without it flushes them (one pass over the tracked objects: 30 ms with torch)."""
    out = []
    for obj in gc.get_objects():
        if type(obj) in _BUFFERED:  # exact types: an isinstance of the io ABCs costs 0.4 s among torch's objects
            try:
                if not obj.closed:
                    out.append(obj)
            except (ValueError, AttributeError):  # detached from its buffer
                pass
    return out


def main() -> None:
    """``python -m pytest ARGS``, ended by :func:`exit_without_teardown`."""
    import pytest

    code = pytest.main()  # the arguments are sys.argv's, as for ``python -m pytest`` (console_main: deprecated)
    exit_without_teardown(int(code))


if __name__ == "__main__":
    main()

"""The process that runs a case's assertion suite: ``python -m faultlib.cases.suite_process PYTEST-ARGS``
(:func:`faultlib.runner.run_assertion_suite`).

It is pytest's own command line (``python -m pytest``, :func:`pytest.console_main`) that ends without the
interpreter's teardown. Once pytest has returned its exit code, the suite's results are on disk (the JUnit
XML is written at session finish, every fixture torn down), and what the interpreter does next is what any
exit does (join the threads that are not daemons, run the ``atexit`` functions, flush stdout and stderr), then
tear every module down, object by object. A suite that imported torch (most catalog cases do) holds
hundreds of thousands of objects: that teardown cost about 1.2 s of CPU per suite (nan_gradient's, on a loaded
2-core machine: an ``atexit`` probe against the process's total; 5.3-6.8 s of CPU under ``python -m pytest``,
3.8-5.3 s here; issue 17), and decides nothing. So this process does
the first three itself and leaves with :func:`os._exit`, the way CPython's own ``multiprocessing`` ends a
forked worker (``multiprocessing.popen_fork``). A ``__del__`` that would have run at the teardown does not;
CPython does not promise those either (the data model: "It is not guaranteed that ``__del__()`` methods are
called for objects that still exist when the interpreter exits").
"""

from __future__ import annotations

import atexit
import os
import sys
import threading


def exit_without_teardown(code: int) -> None:
    """End this process with ``code`` as a normal exit would, less the interpreter's teardown: wait for the
    threads that are not daemons, run the ``atexit`` functions, flush stdout and stderr, then :func:`os._exit`."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()  # what Py_FinalizeEx runs after the threads, in the same (last-registered-first) order
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed or replaced by something without flush
            pass
    os._exit(code)


def main() -> None:
    """``python -m pytest ARGS``, ended by :func:`exit_without_teardown`."""
    import pytest

    code = pytest.console_main()
    exit_without_teardown(int(code))


if __name__ == "__main__":
    main()

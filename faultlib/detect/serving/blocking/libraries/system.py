"""System monitoring and process control: psutil's sampling calls that sleep for their interval, its waits for a
process to end, and pip run in-process.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``psutil.cpu_percent(interval=1)`` measures CPU use over the interval by sleeping in the calling thread ("When
interval is > 0.0 compares system CPU times elapsed before and after the interval (blocking)"); with ``interval``
left out, ``None`` or ``0.0`` it compares with the last call and returns at once. ``cpu_times_percent`` behaves the
same way, and so does a ``psutil.Process``'s ``cpu_percent``. The condition on the argument is a :class:`~faultlib.detect.serving.blocking.entries.BlocksWhen`: a
literal interval above zero, or a variable one (it may be), blocks; the default does not. ``Process.wait`` and
``wait_procs`` wait for processes to terminate (up to their timeout). ``pip.main`` (pip's old public entry point, still
importable from ``pip._internal``) runs a whole ``pip install`` inside the calling thread: index requests, downloads,
builds and file writes.

psutil's walks over every process are ``blocking_cpu`` (house rule, stop 53): ``process_iter`` reads each process's
``/proc/<pid>`` entries as it yields it, ``Process.children`` builds a parent map from every ``/proc/<pid>/stat``
(psutil ``_ppid_map``, recursive or not), ``net_connections`` reads the file-descriptor links of every process and
parses the namespace's ``/proc/net`` socket tables, and a ``Process``'s ``net_connections``/``connections`` parses
those tables too. A single ``/proc`` file read stays silent (:mod:`~faultlib.detect.serving.blocking.proc_files`:
kernel text generated in memory, microseconds); what differs here is the amount: hundreds of open/read/close calls and
their parsing in Python, in proportion to the host's processes and sockets, not to the request -- measured 17 ms for
``process_iter(["name"])`` over 103 processes and 45 ms for ``net_connections()`` on a two-core container at load 3,
already near the 50 ms long-task threshold of :class:`~faultlib.detect.serving.loop_watchdog.LoopWatchdog` on a host
this small, and growing with every process a server runs. No disk is read, so the kind is CPU, not file I/O. Left
silent: the one-file readings (``virtual_memory``, ``cpu_count``, ``Process.memory_info``, ``pids``: one listing).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

S = "blocking_sleep"
P = "blocking_subprocess"
C = "blocking_cpu"
PROC_WALKS = ("https://psutil.readthedocs.io/en/latest/#psutil.process_iter (\"a generator yielding a Process class "
              "instance for all running processes\"; net_connections: \"system-wide socket connections\", read from "
              "every process's /proc/<pid>/fd and /proc/net; Process.children builds a {pid: ppid} map of every "
              "process: psutil/_pslinux.py ppid_map)")
PROCESS_WAIT = ("https://psutil.readthedocs.io/en/latest/#psutil.Process.wait (\"Wait for a process PID to terminate\" "
                "-- up to timeout seconds; wait_procs waits for a list of them)")
PIP_MAIN = ("https://pip.pypa.io/en/stable/user_guide/#using-pip-from-your-program (pip is not a library: calling its "
            "main runs the whole command -- resolving, downloading and installing -- in the calling process)")
_PROCESS = ("psutil.Process", "psutil.Popen")
CPU_PERCENT = ("https://psutil.readthedocs.io/en/latest/#psutil.cpu_percent (\"When interval is > 0.0 compares "
               "system CPU times elapsed before and after the interval (blocking)\")")
PROCESS_CPU_PERCENT = ("https://psutil.readthedocs.io/en/latest/#psutil.Process.cpu_percent (\"When interval is > "
                       "0.0 compares process times to system CPU times elapsed before and after the interval "
                       "(blocking)\")")
CPU_TIMES_PERCENT = ("https://psutil.readthedocs.io/en/latest/#psutil.cpu_times_percent (\"interval and percpu "
                     "arguments have the same meaning as in cpu_percent()\")")

SYSTEM = Vocabulary(
    calls={"psutil.cpu_percent": (S, CPU_PERCENT), "psutil.cpu_times_percent": (S, CPU_TIMES_PERCENT),
           "psutil.Process.cpu_percent": (S, PROCESS_CPU_PERCENT),
           **{f"{p}.wait": (P, PROCESS_WAIT) for p in _PROCESS}, "psutil.wait_procs": (P, PROCESS_WAIT),
           **{name: (P, PIP_MAIN) for name in ("pip.main", "pip._internal.main", "pip._internal.cli.main.main")},
           **{name: (C, PROC_WALKS) for name in ("psutil.process_iter", "psutil.net_connections", *(
               f"{p}.{m}" for p in _PROCESS for m in ("children", "net_connections", "connections")))}},
    when={name: BlocksWhen("interval", position=0, test="positive")
          for name in ("psutil.cpu_percent", "psutil.cpu_times_percent", "psutil.Process.cpu_percent")},
    # a Process and the children it lists: https://psutil.readthedocs.io/en/latest/#psutil.Process.children
    returns={"psutil.Process": "psutil.Process", "psutil.Process.children": "psutil.Process.children",
             "psutil.Process.children.__iter__": "psutil.Process",
             "psutil.process_iter": "psutil.process_iter", "psutil.process_iter.__iter__": "psutil.Process"},
)

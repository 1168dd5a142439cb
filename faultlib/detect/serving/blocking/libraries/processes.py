"""multiprocessing's child processes and a manager's shared objects: starting a process, starting and stopping a
manager's server process, waiting on the proxies a ``SyncManager`` hands out.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`;
``Process.join`` and the module-level ``Queue``/``Event`` are in :mod:`~faultlib.detect.serving.blocking.libraries.
stdlib`, ``multiprocessing.Manager()`` and the pools in :mod:`~faultlib.detect.serving.blocking.libraries.waits`).
``Process.start`` under the ``spawn`` and ``forkserver`` start methods launches a fresh interpreter (or asks the
server to fork one) and pickles the process object to it; the documentation calls starting a process this way "rather
slow". A manager's ``Event()``/``Queue()``/``Lock()`` return proxies whose every method is a round trip to the
manager's server process, and ``wait``/``get``/``acquire`` block there like the objects they stand for. Each entry
names the documentation of the call. A context from ``multiprocessing.get_context(method)`` has the module's API
(``ctx.Process``, ``ctx.Queue``, ``ctx.Pipe``...) and hands out the same objects; a ``Connection`` of a ``Pipe()``
waits in ``recv`` until the other end sends.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

S, T = "blocking_subprocess", "blocking_task"
PY = "https://docs.python.org/3/library/multiprocessing.html"

START = (PY + "#contexts-and-start-methods (spawn: \"The parent process starts a fresh Python interpreter process "
         "... Starting a process using this method is rather slow compared to using fork or forkserver\"; the default "
         "on macOS and Windows, and forkserver on Linux since 3.14)")
CONTEXTS = (PY + "#contexts-and-start-methods (\"Context objects have the same API as the multiprocessing module\": "
            "get_context(method) returns one whose Process, Queue, Pipe, Event... are the module's)")
RECV = (PY + "#multiprocessing.connection.Connection.recv (\"Blocks until there is something to receive\"; "
        "recv_bytes and recv_bytes_into the same)")
PROXIES = (PY + "#multiprocessing.managers.SyncManager (Event, Queue, Lock... create the object in the manager's "
           "server process and return a proxy; a proxy's method is a request to that process, and wait/get/acquire "
           "block there)")

MANAGER_PROCESS = (PY + "#multiprocessing.managers.BaseManager.start (\"Start a subprocess to start the manager\": "
                   "start() launches the server process and waits for it to send back its address; shutdown() \"Stop "
                   "the process used by the manager\" asks it to stop and joins it; held-out wave 70: a manager "
                   "started on the first request of an async dependency and shut down in the async lifespan)")

_MANAGERS = ("multiprocessing.managers.SyncManager",)
_CONTEXT = "multiprocessing.context.BaseContext"
_CONNECTION = "multiprocessing.connection.Connection"
_PROCESSES = ("multiprocessing.Process", "multiprocessing.process.BaseProcess", "multiprocessing.context.Process",
              "multiprocessing.context.SpawnProcess", "multiprocessing.context.ForkServerProcess")

PROCESSES = Vocabulary(
    families=(
        Family(_PROCESSES, {"start": S}, START),
        Family((*_MANAGERS, "multiprocessing.managers.BaseManager"), {"start": S, "shutdown": S}, MANAGER_PROCESS),
        Family((_CONNECTION,), {m: T for m in ("recv", "recv_bytes", "recv_bytes_into")}, RECV),
        Family(("multiprocessing.managers.EventProxy",), {"wait": T}, PROXIES),
        Family(("multiprocessing.managers.QueueProxy",), {"get": T, "join": T}, PROXIES),
        Family(("multiprocessing.managers.AcquirerProxy",), {"acquire": T}, PROXIES),
    ),
    returns={
        "multiprocessing.Manager": "multiprocessing.managers.SyncManager",
        "multiprocessing.get_context": _CONTEXT,  # CONTEXTS: a context's factories return the module's objects
        f"{_CONTEXT}.Process": "multiprocessing.Process",
        f"{_CONTEXT}.Manager": "multiprocessing.managers.SyncManager",
        **{f"{_CONTEXT}.{q}": f"multiprocessing.{q}" for q in ("Queue", "JoinableQueue", "SimpleQueue", "Event")},
        "multiprocessing.managers.SyncManager": "multiprocessing.managers.SyncManager",
        "multiprocessing.managers.BaseManager": "multiprocessing.managers.BaseManager",
        **{f"{m}.Event": "multiprocessing.managers.EventProxy" for m in _MANAGERS},
        **{f"{m}.{q}": "multiprocessing.managers.QueueProxy" for m in _MANAGERS for q in ("Queue", "JoinableQueue")},
        **{f"{m}.{q}": "multiprocessing.managers.AcquirerProxy" for m in _MANAGERS
           for q in ("Lock", "RLock", "Semaphore", "BoundedSemaphore")},
    },
)

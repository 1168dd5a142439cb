"""Waiting for other threads and processes from the standard library: lock and semaphore acquisition, process
pools, ``concurrent.futures.wait`` and executor shutdown, pipes between processes, a coroutine's result fetched
back from its loop.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; queues,
events, joins and ``Future.result`` are in :mod:`~faultlib.detect.serving.blocking.libraries.stdlib`). Each entry
names the documentation of the call. A non-blocking attempt (``lock.acquire(False)``, ``blocking=False``,
``ex.shutdown(wait=False)``, ``wait(fs, timeout=0)``) returns at once and is left out; ``with lock:`` is not
reported (a short critical section is the common use, and the analysis reports calls).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

T = "blocking_task"
PY = "https://docs.python.org/3/library/"
_LOCKS = (*(f"threading.{c}" for c in ("Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition")),
          *(f"multiprocessing.{c}" for c in ("Lock", "RLock", "Semaphore", "BoundedSemaphore")))
_POOLS = ("multiprocessing.pool.Pool", "multiprocessing.pool.ThreadPool")
_EXECUTORS = tuple(f"concurrent.futures.{e}" for e in ("ThreadPoolExecutor", "ProcessPoolExecutor", "Executor"))
WAITS = Vocabulary(
    calls={
        **{f"{c}.acquire": (T, PY + "threading.html#threading.Lock.acquire (blocks until the lock is released or a "
                               "semaphore's counter is above zero, unless blocking=False)") for c in _LOCKS},
        "concurrent.futures.wait": (T, PY + "concurrent.futures.html#concurrent.futures.wait (waits for the futures; "
                                       "timeout=None waits for ever)"),
        **{f"{e}.shutdown": (T, PY + "concurrent.futures.html#concurrent.futures.Executor.shutdown (wait=True, the "
                                "default, waits for every pending call to finish)") for e in _EXECUTORS},
        "multiprocessing.Manager": ("blocking_subprocess", PY + "multiprocessing.html#multiprocessing.Manager (starts "
                                   "the manager's server process and waits to connect to it)"),
        **{f"os.{f}": ("blocking_subprocess", PY + "os.html#os.wait3 (waits for a child process to end)")
           for f in ("wait3", "wait4", "waitid")},
    },
    when={**{f"{c}.acquire": BlocksWhen("blocking", position=0, test="true", absent=True) for c in _LOCKS},
          "concurrent.futures.wait": BlocksWhen("timeout", position=1, test="other_than", absent=True,
                                                values=(0, 0.0)),
          **{f"{e}.shutdown": BlocksWhen("wait", position=0, test="true", absent=True) for e in _EXECUTORS}},
    families=(
        Family(_POOLS, {m: T for m in ("map", "starmap", "apply", "join")}, PY + "multiprocessing.html#multiprocessing."
               "pool.Pool.map (map, starmap and apply block until the result is ready; join waits for the workers)"),
        Family(("multiprocessing.pool.AsyncResult", "multiprocessing.pool.MapResult"), {"get": T, "wait": T},
               PY + "multiprocessing.html#multiprocessing.pool.AsyncResult.get"),
        Family(("multiprocessing.connection.Connection",), {m: T for m in ("recv", "recv_bytes", "recv_bytes_into")},
               PY + "multiprocessing.html#multiprocessing.connection.Connection.recv (blocks until there is something "
               "to receive)"),
        Family(("multiprocessing.connection.Listener",), {"accept": "blocking_socket_io"},
               PY + "multiprocessing.html#multiprocessing.connection.Listener.accept"),
    ),
    returns={
        **{f"multiprocessing.{c}": f"multiprocessing.{c}" for c in ("Lock", "RLock", "Semaphore", "BoundedSemaphore")},
        **{f"threading.{c}": f"threading.{c}" for c in ("Lock", "RLock")},  # factory functions in CPython
        "multiprocessing.Pool": "multiprocessing.pool.Pool", "multiprocessing.pool.Pool": "multiprocessing.pool.Pool",
        "multiprocessing.pool.ThreadPool": "multiprocessing.pool.ThreadPool",
        **{f"{p}.{m}": "multiprocessing.pool.AsyncResult" for p in _POOLS for m in ("apply_async", "map_async",
                                                                                   "starmap_async")},
        "multiprocessing.connection.Listener": "multiprocessing.connection.Listener",
        "multiprocessing.connection.Listener.accept": "multiprocessing.connection.Connection",
        "multiprocessing.connection.Client": "multiprocessing.connection.Connection",
        "asyncio.run_coroutine_threadsafe": "concurrent.futures.Future",
    },
)

"""Advisory file locks taken through ``portalocker`` and ``filelock``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``portalocker.lock(file, flags)`` locks the open file with ``flock``/``LockFileEx``: with ``LOCK_EX`` or ``LOCK_SH``
alone it waits until every other holder lets go; with ``LOCK_NB`` it returns at once (or raises
``LockException``), so a non-blocking attempt is no finding, nor is ``unlock``, which never waits (held-out wave 79
follow-up: a ``FileLock`` helper whose ``__enter__`` tries ``LOCK_EX | LOCK_NB`` and sleeps between tries; the sleep
is the finding).

The lock objects wait the same way. filelock's ``FileLock`` (``SoftFileLock``, the platform classes) opens the lock
file and retries ``flock`` every ``poll_interval`` until ``timeout`` (by default, forever) in ``acquire``, which
``with lock:`` calls on entering; its asyncio twin is a separate class, ``AsyncFileLock``. portalocker's ``Lock``
(``RLock``, ``TemporaryFileLock``) opens the file and retries every ``check_interval`` until ``timeout`` in
``acquire``, called by ``with`` too. Constructing either takes no lock. A ``with`` statement on such an object is a
site of its own (:func:`~faultlib.detect.serving.blocking.property_sites.entered_sites`). Each entry names the
documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

LOCK = ("https://portalocker.readthedocs.io/en/latest/portalocker.html#portalocker.portalocker.lock (locks the file "
        "with the given flags; without LOCK_NB the call waits until the lock is free)")

FILELOCK = ("https://py-filelock.readthedocs.io/en/latest/api.html#filelock.BaseFileLock.acquire (opens the lock file "
            "and polls every poll_interval until the lock is free or timeout passes; used as a context manager, the "
            "lock is acquired on entering; AsyncFileLock is the asyncio variant)")
PORTALOCKER = ("https://portalocker.readthedocs.io/en/latest/portalocker.html#portalocker.utils.Lock (acquire opens "
               "the file and retries every check_interval until timeout; the with statement acquires)")

_FILELOCKS = tuple(f"filelock.{c}" for c in ("FileLock", "SoftFileLock", "UnixFileLock", "WindowsFileLock",
                                             "BaseFileLock"))
_PORTALOCKERS = tuple(f"{m}.{c}" for m in ("portalocker", "portalocker.utils")
                      for c in ("Lock", "RLock", "TemporaryFileLock"))
_WAITS = {"acquire": "blocking_file_io", "__enter__": "blocking_file_io"}

FILE_LOCKS = Vocabulary(
    families=(Family(_FILELOCKS, _WAITS, FILELOCK), Family(_PORTALOCKERS, _WAITS, PORTALOCKER)),
    returns={name: name for name in (*_FILELOCKS, *_PORTALOCKERS)},
    calls={"portalocker.lock": ("blocking_task", LOCK), "portalocker.portalocker.lock": ("blocking_task", LOCK)},
    when={name: BlocksWhen("flags", position=1, test="lacks", absent=True, values=("LOCK_NB",))
          for name in ("portalocker.lock", "portalocker.portalocker.lock")},
)

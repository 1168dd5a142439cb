"""Advisory file locks taken through ``portalocker``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``portalocker.lock(file, flags)`` locks the open file with ``flock``/``LockFileEx``: with ``LOCK_EX`` or ``LOCK_SH``
alone it waits until every other holder lets go; with ``LOCK_NB`` it returns at once (or raises
``LockException``), so a non-blocking attempt is no finding, nor is ``unlock``, which never waits (held-out wave 79
follow-up: a ``FileLock`` helper whose ``__enter__`` tries ``LOCK_EX | LOCK_NB`` and sleeps between tries; the sleep
is the finding). Each entry names the documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

LOCK = ("https://portalocker.readthedocs.io/en/latest/portalocker.html#portalocker.portalocker.lock (locks the file "
        "with the given flags; without LOCK_NB the call waits until the lock is free)")

FILE_LOCKS = Vocabulary(
    calls={"portalocker.lock": ("blocking_task", LOCK), "portalocker.portalocker.lock": ("blocking_task", LOCK)},
    when={name: BlocksWhen("flags", position=1, test="lacks", absent=True, values=("LOCK_NB",))
          for name in ("portalocker.lock", "portalocker.portalocker.lock")},
)

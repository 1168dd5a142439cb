"""The flight recorder's signal dumps: ``SIGUSR1`` dumps; ``SIGTERM``/``SIGINT`` dump, then take their previous action.

A Python signal handler runs only when the main thread returns to the interpreter, never while it waits inside
a collective (a hung rank: exactly when a dump matters). So the C-level handler's wakeup fd
(``signal.set_wakeup_fd``) is read by the recorder's thread, which dumps at once; when the fd is taken (an
asyncio loop), the dump stays in the Python handler.

Stop signals (torchrun stops its workers with ``SIGTERM``; a user's Ctrl-C is ``SIGINT``) are chained, never
swallowed: after the dump comes the signal's previous action. A Python handler (Python's own SIGINT handler,
which raises ``KeyboardInterrupt``) is called by our handler in the main thread, when it runs. Under the
default action the process ends by that signal, so its exit status is the one it would have had (torchrun
reads ``-15``): from the main thread with ``signal.signal(SIG_DFL)`` + ``os.kill``; from the thread, while
the main thread may be blocked in a collective, with libc's ``signal()`` (Python's ``signal.signal`` is
main-thread only) + ``os.kill``. Both paths dump before: whichever ends the process, a complete dump
(temp file + ``os.replace``) is on disk. A signal whose disposition is ``SIG_IGN``, or was set outside Python,
is left alone.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import socket
import sys
from typing import Any, Callable


def _say(what: str, exc: Exception) -> None:
    print(f"faultlib flight recorder: {what} failed: {exc}", file=sys.stderr, flush=True)


class DumpSignals:
    """Install (main thread only) the dump signal and the chained stop signals of one recorder.

    Args:
        dump: ``dump(reason, signum=...)``, the recorder's dump.
        signum: the signal that only dumps (``None``: none).
        stop_signals: signals that dump and then take their previous action.
        before_death: called after the dump when a stop signal's default action is about to end the process (no
            exit handler runs then): the recorder closes its fatal-signal trace there.
    """

    def __init__(self, dump: Callable[..., Any], signum: int | None, stop_signals: tuple[int, ...],
                 before_death: Callable[[], Any] | None = None):
        self._dump = dump
        self._before_death = before_death
        self.signum = signum
        self.stop_signals = stop_signals
        self._old: Any = None
        self._stop_old: dict[int, Any] = {}
        self._wake: tuple[socket.socket, socket.socket] | None = None

    @property
    def listening(self) -> bool:
        """True when the recorder's thread must :meth:`poll` the wakeup fd."""
        return self._wake is not None

    def install(self) -> "DumpSignals":
        if self.signum is not None:
            self._old = signal.signal(self.signum, self._on_dump_signal)
        for stop in self.stop_signals:
            old = signal.getsignal(stop)
            if old is not None and old is not signal.SIG_IGN and stop != self.signum:
                self._stop_old[stop] = signal.signal(stop, self._on_stop)
        if self.signum is not None or self._stop_old:
            self._listen()
        return self

    def uninstall(self) -> None:
        if self._old is not None:
            signal.signal(self.signum, self._old)
            self._old = None
        for stop, old in self._stop_old.items():
            signal.signal(stop, old)
        self._stop_old.clear()
        if self._wake is not None:
            signal.set_wakeup_fd(-1)
            for sock in self._wake:
                sock.close()
            self._wake = None

    def _listen(self) -> None:
        r, w = socket.socketpair()
        w.setblocking(False)
        r.setblocking(False)
        try:
            previous = signal.set_wakeup_fd(w.fileno(), warn_on_full_buffer=False)
        except ValueError:
            previous = None
        if previous != -1:  # taken (asyncio): put it back, dump from the handlers
            if previous is not None:
                signal.set_wakeup_fd(previous)
            r.close()
            w.close()
            return
        self._wake = (r, w)

    # -- the main thread's handlers -----------------------------------------------------------------------------
    def _on_dump_signal(self, signum: int, frame: Any) -> None:
        if self._wake is None:  # else the thread dumped already
            self._dump("signal", signum=signum)
        if callable(self._old) and self._old not in (signal.SIG_DFL, signal.SIG_IGN):
            self._old(signum, frame)

    def _on_stop(self, signum: int, frame: Any) -> None:
        try:
            self._dump("signal", signum=signum)
        except Exception as exc:
            _say("signal dump", exc)
        old = self._stop_old.get(signum, signal.SIG_DFL)
        if callable(old) and old is not signal.SIG_DFL:
            old(signum, frame)  # e.g. Python's default SIGINT handler: KeyboardInterrupt
            return
        signal.signal(signum, signal.SIG_DFL)
        self._dying()
        os.kill(os.getpid(), signum)  # the default action: the process ends by this signal, as without us

    def _dying(self) -> None:
        if self._before_death is not None:
            try:
                self._before_death()
            except Exception as exc:
                _say("cleanup before the signal", exc)

    # -- the recorder's thread -----------------------------------------------------------------------------------
    def poll(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` seconds for a signal on the wakeup fd; dump (and end the process for a stop
        signal under the default action). True when one of ours arrived."""
        if self._wake is None:
            return False
        ready, _, _ = select.select([self._wake[0]], [], [], timeout_s)
        if not ready:
            return False
        try:
            data = self._wake[0].recv(512)
        except OSError:
            return False
        for stop in self._stop_old:
            if stop in data:
                self._stop_from_thread(stop)
                return True
        if self.signum is not None and self.signum in data:
            try:
                self._dump("signal", signum=self.signum)
            except Exception as exc:
                _say("signal dump", exc)
            return True
        return False

    def _stop_from_thread(self, signum: int) -> None:
        try:
            self._dump("signal", signum=signum)
        except Exception as exc:
            _say("signal dump", exc)
        if self._stop_old.get(signum) is signal.SIG_DFL:
            sys.stderr.flush()
            ctypes.CDLL(None).signal(ctypes.c_int(signum), ctypes.c_void_p(0))  # SIG_DFL, at the C level
            self._dying()
            os.kill(os.getpid(), signum)

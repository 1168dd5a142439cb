"""Event-loop blocking at run time: how long each turn of the asyncio loop holds it, and which call did it.

An ``async def`` service answers every request from one thread. A synchronous call on that thread
(``time.sleep``, ``requests.get``, a model's forward pass) holds every other request, health checks
included, for as long as it runs: the P99 of a cheap route rises to the duration of the slowest
blocking call. :class:`LoopWatchdog` finds such calls in a running service:

* **measure** (on the loop thread): each *iteration* of the loop (one poll of the selector for I/O,
  then every callback that became ready) is timed from the selector's return to the next poll, by
  wrapping the loop's ``selector.select`` (asyncio's selector event loops, the default on Linux
  and macOS). An iteration longer than ``threshold_ms`` is a stall: every event that arrived during
  it waited that long. No timer wakes an idle loop. Loops without a selector (uvloop, Windows'
  proactor) fall back to a **heartbeat**: a callback every ``interval_ms`` records how late it ran
  (the *loop lag* of Node.js ``perf_hooks.monitorEventLoopDelay``; a blocking call of duration D shows
  as a lag between D - ``interval_ms`` and D).
* **name** (a daemon thread): wakes every ``threshold_ms - sample_after_ms`` (so at least once inside
  any stall that reaches the threshold); once the current iteration has run ``sample_after_ms``, it
  samples the loop thread's stack every ``poll_ms`` (``sys._current_frames()``) until the iteration
  ends. A stall becomes a :class:`BlockEvent` named after the innermost frame of *your* code seen most
  often in the samples: file, line, qualified function and the call it was executing
  (:mod:`faultlib.detect.serving.loop_watchdog.stacks`); shorter iterations are forgotten.

Kinds (:data:`KINDS`): ``loop_blocked`` (warning: your code, or a library it called, held the loop past
the threshold; without a usable stack sample, by code no sample caught) and ``loop_lag`` (info, heartbeat
mode only: the loop was late but idle in its selector: the process or thread was starved of CPU, no
call to blame).

Default threshold, 50 ms: the W3C Long Tasks API calls a task that holds the main thread for more than
50 ms a *long task* (https://w3c.github.io/longtasks/), the budget the RAIL model derives from answering
input within 100 ms (https://web.dev/articles/rail). asyncio's own debug mode warns about callbacks
slower than 100 ms (``loop.slow_callback_duration``), which lets a 99 ms stall pass.

Cost: two ``time.monotonic()`` calls and a Python call per loop iteration (0.35 µs measured); ~22
wake-ups a second of the watchdog thread (each takes the GIL for a few microseconds); a few stack walks
per stall. ``benchmarks/loop_watchdog.py`` measures it against the same service without it, in the same
run: on a 2-vCPU VM, 1.3 ms of CPU per second at 200 requests/s (+2.1 % of that service's CPU) and
1.9 ms/s at 800 requests/s (+1.05 %), counted directly; idle, 3.6 ms/s (0.36 % of one core). A C call
that holds the GIL (rare: I/O and torch's kernels release it) delays the samples until it returns; the
stall is still measured.
"""

from __future__ import annotations

import asyncio
import collections
import selectors
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from faultlib.detect.serving.loop_watchdog.stacks import (DETECTOR, KINDS, BlockEvent, Frame, call_text, capture, classify,
                                                  findings_from_events, frames, is_idle, is_user_file, sample_stack)
from faultlib.errors import DetectorError
from faultlib.runqueue import run_queue_wait_ms
from faultlib.findings import Finding

__all__ = ["DEFAULT_THRESHOLD_MS", "DETECTOR", "KINDS", "BlockEvent", "Frame", "LoopLagStats", "LoopWatchdog",
           "call_text", "capture", "classify", "findings_from_events", "frames", "is_idle", "is_user_file",
           "sample_stack"]

DEFAULT_THRESHOLD_MS = 50.0
"""W3C Long Tasks API's long-task threshold (see the module docstring)."""
DEFAULT_INTERVAL_MS = 10.0   # heartbeat mode only; Node.js monitorEventLoopDelay's default resolution
DEFAULT_POLL_MS = 10.0
DEFAULT_SAMPLE_AFTER_MS = 5.0
MAX_SAMPLES = 32        # samples kept per stall
MAX_EVENTS = 10_000     # events kept (later ones are counted, not kept)
MAX_LAGS = 100_000      # iteration times (or heartbeat lags) kept for percentiles, the most recent


@dataclass(frozen=True)
class LoopLagStats:
    """What the watchdog measured so far (ms).

    Attributes:
        mode: ``iteration`` (each loop iteration timed) or ``heartbeat`` (a timer's lateness).
        count: iterations (or heartbeats) measured.
        p50_ms, p99_ms, max_ms: their busy time (or lag), over the most recent :data:`MAX_LAGS`; max over all.
        blocked: ``loop_blocked`` events; lagged: ``loop_lag`` events.
    """

    mode: str
    count: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    blocked: int
    lagged: int

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "count": self.count, "p50_ms": round(self.p50_ms, 3),
                "p99_ms": round(self.p99_ms, 3), "max_ms": round(self.max_ms, 3), "blocked": self.blocked,
                "lagged": self.lagged}


class LoopWatchdog:
    """Times an asyncio loop's iterations and names the code that holds it (see the module docstring).

    Args:
        threshold_ms: an iteration (or heartbeat lag) this long is a stall, in ms (default 50: the W3C
            Long Tasks threshold).
        poll_ms: stack-sampling period during a stall, in ms (default 10).
        sample_after_ms: start sampling once an iteration has run this long, in ms (default 5: above
            what a healthy iteration takes, and far enough below the threshold that the watchdog thread,
            waking every ``threshold_ms - sample_after_ms``, needs ~22 wake-ups a second).
        mode: ``auto`` (default: ``iteration`` when the loop has a selector, else ``heartbeat``),
            ``iteration`` or ``heartbeat``.
        interval_ms: heartbeat period in heartbeat mode, in ms (default 10).
        on_block: called on the loop thread with each :class:`BlockEvent` as the loop recovers (record a
            metric or a span there); an exception from it goes to the loop's exception handler.
        on_lag: called on the loop thread with each iteration's busy time in ms (heartbeat mode: each
            heartbeat's lag): once per iteration, so keep it cheap.

    Call order: :meth:`start` (on the running loop, or with ``loop=``), then :meth:`stop`; read
    :attr:`events`, :meth:`stats` and :meth:`check` at any time after :meth:`start`. Also an async
    context manager (``async with LoopWatchdog() as watchdog:``) on the running loop.

    Raises:
        DetectorError: a non-positive threshold, interval or poll period, a ``sample_after_ms`` not
            below the threshold, an unknown mode.
    """

    name = DETECTOR

    def __init__(self, *, threshold_ms: float = DEFAULT_THRESHOLD_MS, poll_ms: float = DEFAULT_POLL_MS,
                 sample_after_ms: float | None = None, mode: str = "auto", interval_ms: float = DEFAULT_INTERVAL_MS,
                 on_block: Callable[[BlockEvent], None] | None = None, on_lag: Callable[[float], None] | None = None):
        if min(threshold_ms, interval_ms, poll_ms) <= 0:
            raise DetectorError("threshold_ms, interval_ms and poll_ms must be > 0 (milliseconds)")
        if sample_after_ms is None:
            sample_after_ms = min(DEFAULT_SAMPLE_AFTER_MS, threshold_ms / 2)
        if not 0 <= sample_after_ms < threshold_ms:
            raise DetectorError(f"sample_after_ms must be in [0, threshold_ms={threshold_ms:g}), "
                                f"got {sample_after_ms:g}")
        if mode not in ("auto", "iteration", "heartbeat"):
            raise DetectorError(f"mode must be auto, iteration or heartbeat, not {mode!r}")
        self.threshold_ms = float(threshold_ms)
        self.threshold_s = threshold_ms / 1e3
        self.interval_s = interval_ms / 1e3
        self.poll_s = poll_ms / 1e3
        self.sample_after_s = sample_after_ms / 1e3
        self.period_s = (threshold_ms - sample_after_ms) / 1e3  # a wake inside every stall past the threshold
        self.requested_mode = mode
        self.mode: str | None = None
        self.on_block = on_block
        self.on_lag = on_lag
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread_id: int | None = None
        self._label: Any = None
        self._events: list[BlockEvent] = []
        self._dropped = 0
        self._lags: collections.deque[float] = collections.deque(maxlen=MAX_LAGS)
        self._count = 0
        self._max = 0.0
        self._lock = threading.Lock()
        self._pending: list[tuple[float, tuple]] = []  # (stall tag, raw capture)
        # (stall tag, loop thread CPU s, loop thread run-queue wait ms) at a stall's first sample
        self._cpu_first: tuple[float, float | None, float | None] | None = None
        self.native_id: int | None = None  # the loop thread's kernel id (its run-queue wait in /proc)
        self._since: float | None = None  # the current stall's tag: iteration start, or heartbeat due time
        self._selector: Any = None
        self._wrapper: Callable | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._stopping = threading.Event()
        self._wake = threading.Lock()  # held while running: the watchdog thread waits on it in C (no Condition)
        self._thread: threading.Thread | None = None
        self._started = False
        self.watchdog_cpu_s: float | None = None  # CPU time of the watchdog thread, set when it stops

    # -- life cycle ----------------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> "LoopWatchdog":
        """Start watching ``loop`` (default: the running loop).

        On the loop's own thread (inside a coroutine) watching starts at once. For a loop running in
        another thread, pass it: watching starts with its next iteration. For a loop not running yet,
        call this right before running it, from the thread that will run it.

        Returns:
            self.

        Raises:
            DetectorError: already started, no loop given and none running in this thread, or mode
                ``iteration`` for a loop without a selector.
        """
        if self._started:
            raise DetectorError("LoopWatchdog.start() called twice: call stop() first, or use a new watchdog")
        if loop is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                raise DetectorError("LoopWatchdog.start() needs a loop: call it inside a coroutine on the loop "
                                    "to watch, or pass loop=") from None
        selector = getattr(loop, "_selector", None)
        has_selector = isinstance(selector, selectors.BaseSelector) and "select" not in vars(selector)
        if self.requested_mode == "iteration" and not has_selector:
            raise DetectorError(f"mode='iteration' needs a selector event loop ({type(loop).__name__} has none, or "
                                "another watchdog holds it): use mode='heartbeat'")
        self.mode = "iteration" if has_selector and self.requested_mode != "heartbeat" else "heartbeat"
        self.loop, self._started = loop, True
        self._stopping.clear()
        self._wake.acquire()
        try:
            here = asyncio.get_running_loop() is loop
        except RuntimeError:
            here = False
        if here or not loop.is_running():
            self.thread_id, self.native_id = threading.get_ident(), threading.get_native_id()
        if self.mode == "iteration":
            self._install(selector, busy_now=here)
        elif self.thread_id is not None:
            self._first_beat()
        else:
            loop.call_soon_threadsafe(self._first_beat)
        self._thread = threading.Thread(target=self._watch, name="faultlib-loop-watchdog", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop measuring and the watchdog thread; a stall still in progress past the threshold is
        recorded (``ended`` False). Safe to call twice."""
        if not self._started or self._stopping.is_set():
            return
        self._stopping.set()
        self._wake.release()
        on_loop_thread = threading.get_ident() == self.thread_id
        with self._lock:
            since, pending = self._since, self._pending
            self._pending, self._since = [], None
        if self._selector is not None:
            if vars(self._selector).get("select") is self._wrapper:
                del self._selector.select
            self._selector = None
        if since is not None and not on_loop_thread:
            busy_s = time.monotonic() - since
            if busy_s >= self.threshold_s:
                self._record(classify([s for tag, s in pending if tag == since], blocked_ms=busy_s * 1e3,
                                      threshold_ms=self.threshold_ms, started_at=time.time() - busy_s,
                                      loop_cpu_ms=None, ended=False, step=self._label,
                                      busy=self.mode == "iteration"), notify=False)
        handle = self._handle
        if handle is not None:
            if on_loop_thread:
                handle.cancel()
            elif self.loop is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(handle.cancel)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=max(1.0, 5 * self.poll_s))

    async def __aenter__(self) -> "LoopWatchdog":
        return self.start()

    async def __aexit__(self, *exc: Any) -> None:
        self.stop()

    def label(self, value: Any) -> None:
        """Tag events recorded from now on with ``value`` (a step, a request id; JSON value)."""
        self._label = value

    # -- iteration mode: the loop's selector.select, wrapped -------------------------------------------
    def _install(self, selector: Any, *, busy_now: bool) -> None:
        original, mono, watchdog = selector.select, time.monotonic, self

        def select(timeout=None):
            since = watchdog._since
            if since is not None:
                busy = mono() - since
                watchdog._measured(busy)
                if busy >= watchdog.threshold_s:
                    watchdog._stall_ended(since, busy)
                elif watchdog._pending:
                    watchdog._drop_pending(since)
            if watchdog.thread_id is None:
                watchdog.thread_id, watchdog.native_id = threading.get_ident(), threading.get_native_id()
            watchdog._since = None
            try:
                return original(timeout)
            finally:
                if not watchdog._stopping.is_set():
                    watchdog._since = mono()

        self._wrapper = select
        self._selector = selector
        if busy_now:
            self._since = mono()
        selector.select = select

    def _measured(self, busy_s: float) -> None:
        self._count += 1
        self._lags.append(busy_s)
        if busy_s > self._max:
            self._max = busy_s
        if self.on_lag is not None:
            try:
                self.on_lag(busy_s * 1e3)
            except Exception as exc:  # noqa: BLE001 - the user's callback must not break the loop
                self.loop.call_exception_handler({"message": "LoopWatchdog on_lag callback failed", "exception": exc})

    def _stall_ended(self, since: float, busy_s: float) -> None:
        """On the loop thread: a stall of ``busy_s`` that began at ``since`` (monotonic) just ended."""
        with self._lock:
            samples = [stack for tag, stack in self._pending if tag == since]
            self._pending = []
            cpu_first = self._cpu_first if self._cpu_first and self._cpu_first[0] == since else None
            self._cpu_first = None
        cpu_ms = (time.thread_time() - cpu_first[1]) * 1e3 if cpu_first and cpu_first[1] is not None else None
        waited_now = run_queue_wait_ms() if cpu_first and cpu_first[2] is not None else None
        waited_ms = waited_now - cpu_first[2] if waited_now is not None else None
        self._record(classify(samples, blocked_ms=busy_s * 1e3, threshold_ms=self.threshold_ms,
                              started_at=time.time() - busy_s, loop_cpu_ms=cpu_ms, step=self._label,
                              busy=self.mode == "iteration", run_queue_wait_ms=waited_ms), notify=True)

    # -- heartbeat mode -------------------------------------------------------------------------------
    def _first_beat(self) -> None:
        self.thread_id, self.native_id = threading.get_ident(), threading.get_native_id()
        with self._lock:
            self._since = time.monotonic() + self.interval_s
        self._schedule()

    def _schedule(self) -> None:
        if not self._stopping.is_set():
            self._handle = self.loop.call_later(self.interval_s, self._beat)

    def _beat(self) -> None:
        now = time.monotonic()
        with self._lock:
            due = self._since
            if due is None:
                return
            self._since = now + self.interval_s
        self._schedule()
        lag_s = max(now - due, 0.0)
        self._measured(lag_s)
        if lag_s >= self.threshold_s:
            self._stall_ended(due, lag_s)
        elif self._pending:
            self._drop_pending(due)

    def _drop_pending(self, since: float) -> None:
        """Forget the samples of an iteration (heartbeat) that ended below the threshold."""
        with self._lock:
            self._pending = [p for p in self._pending if p[0] != since]

    def _record(self, event: BlockEvent, *, notify: bool) -> None:
        if len(self._events) < MAX_EVENTS:
            self._events.append(event)
        else:
            self._dropped += 1
        if notify and self.on_block is not None:
            try:
                self.on_block(event)
            except Exception as exc:  # noqa: BLE001 - the user's callback must not break the loop
                self.loop.call_exception_handler({"message": "LoopWatchdog on_block callback failed", "exception": exc})

    # -- the watchdog thread ------------------------------------------------------------------------
    def _watch(self) -> None:
        try:
            self._sample_until_stopped()
        finally:
            self.watchdog_cpu_s = time.thread_time()

    def _sample_until_stopped(self) -> None:
        clock = None
        wait = self.poll_s
        while not self._wake.acquire(timeout=wait):
            since = self._since
            if since is None or self.thread_id is None:
                wait = self.period_s if self.mode == "iteration" else self.poll_s
                continue
            running = time.monotonic() - since  # how long this iteration has run (how overdue the heartbeat is)
            if running < self.sample_after_s:
                wait = self.period_s
                continue
            frame = sys._current_frames().get(self.thread_id)
            if frame is None:  # the loop's thread is gone
                return
            stack = capture(frame)
            del frame
            if clock is None and hasattr(time, "pthread_getcpuclockid"):
                try:
                    clock = time.pthread_getcpuclockid(self.thread_id)
                except OSError:
                    clock = False
            cpu = time.clock_gettime(clock) if clock else None
            first = not (self._cpu_first and self._cpu_first[0] == since)
            waited = run_queue_wait_ms(self.native_id) if first and self.native_id is not None else None
            with self._lock:
                if self._since == since and len(self._pending) < MAX_SAMPLES:
                    self._pending.append((since, stack))
                    if first and (cpu is not None or waited is not None):
                        self._cpu_first = (since, cpu, waited)
            wait = self.poll_s

    # -- results ------------------------------------------------------------------------------------
    def _require_started(self, call: str) -> None:
        if not self._started:
            raise DetectorError(f"LoopWatchdog.{call} before start(): start the watchdog on the loop first")

    @property
    def events(self) -> list[BlockEvent]:
        """Every stall at or past the threshold so far, in order (the first :data:`MAX_EVENTS`)."""
        return list(self._events)

    def lags_ms(self) -> list[float]:
        """Each iteration's busy time (heartbeat mode: each heartbeat's lag) so far, in ms (the most recent
        :data:`MAX_LAGS`)."""
        return [v * 1e3 for v in list(self._lags)]  # list() copies in one C call: safe beside the loop thread

    def stats(self) -> LoopLagStats:
        """Percentiles and event counts so far.

        Raises:
            DetectorError: called before :meth:`start`.
        """
        from faultlib.detect.serving.latency import percentile

        self._require_started("stats()")
        lags = self.lags_ms()
        blocked = sum(e.kind == "loop_blocked" for e in self._events)
        return LoopLagStats(mode=self.mode or "", count=self._count, p50_ms=percentile(lags, 50) if lags else 0.0,
                            p99_ms=percentile(lags, 99) if lags else 0.0, max_ms=self._max * 1e3, blocked=blocked,
                            lagged=len(self._events) - blocked)

    def check(self) -> list[Finding]:
        """One finding per blocking site (``loop_blocked``, warning) and one for unattributed lag
        (``loop_lag``, info), each with counts and the longest stall.

        Raises:
            DetectorError: called before :meth:`start`.
        """
        self._require_started("check()")
        return findings_from_events(self._events, self.threshold_ms)

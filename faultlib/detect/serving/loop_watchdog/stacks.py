"""Stack samples of an event loop's thread, and what they say: which call of yours held the loop.

Used by :class:`faultlib.detect.serving.loop_watchdog.LoopWatchdog`: a :class:`BlockEvent` per stall, named after
the innermost frame of *your* code seen most often in the samples (every file outside the standard
library, site-packages and faultlib itself), with the call expression that frame was executing (from
the code object's column positions: ``self.model(batch)``, ``time.sleep(0.2)``).
"""

from __future__ import annotations

import collections
import itertools
import linecache
import os
import sysconfig
from dataclasses import dataclass, field
from typing import Any

from faultlib.findings import Finding, Severity

DETECTOR = "loop_watchdog"
MAX_DEPTH = 64          # frames kept per sample (innermost first when cut)
MAX_CALL_CHARS = 160

KINDS = {
    "loop_blocked": "the asyncio event loop was blocked past the threshold by code running on it; the finding names "
                    "the innermost function of your code on the loop thread and the call it was executing",
    "loop_lag": "the event loop was late past the threshold, but every stack sample found it idle in its selector (or "
                "none could be taken): the process or thread was starved of CPU (the GIL held by another thread, an "
                "overloaded machine), no call on the loop to blame",
}


def _library_roots() -> tuple[str, ...]:
    from faultlib.package import PACKAGE_DIR

    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots.add(PACKAGE_DIR)
    return tuple(sorted(os.path.realpath(r) + os.sep for r in roots if r))


_ROOTS: tuple[str, ...] | None = None
_USER_CACHE: dict[str, bool] = {}


def is_user_file(filename: str) -> bool:
    """True when ``filename`` is the user's code: not ``<frozen ...>``, the standard library,
    site-packages or faultlib."""
    global _ROOTS
    known = _USER_CACHE.get(filename)
    if known is not None:
        return known
    if _ROOTS is None:
        _ROOTS = _library_roots()
    real = os.path.realpath(filename)
    user = not filename.startswith("<") and not real.startswith(_ROOTS) and "site-packages" not in real
    _USER_CACHE[filename] = user
    return user


@dataclass(frozen=True)
class Frame:
    """One frame of a stack sample.

    Attributes:
        file: the source file.
        line: the line being executed (1-based).
        function: qualified name (``ModelService.infer``, ``main.<locals>.handler``).
        user: the file is the user's code (:func:`is_user_file`).
    """

    file: str
    line: int
    function: str
    user: bool
    code: Any = field(default=None, compare=False, repr=False)
    lasti: int = field(default=-1, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "function": self.function, "user": self.user}


def call_text(code: Any, lasti: int, line: int) -> str | None:
    """The source of the expression instruction ``lasti`` of ``code`` executes (a call such as
    ``self.model(batch)``), from its column positions; the stripped line when they are unknown."""
    start, end, col, end_col = line, line, None, None
    if code is not None and lasti >= 0:
        pos = next(itertools.islice(code.co_positions(), lasti // 2, None), None)
        if pos is not None and pos[0] is not None:
            start, end, col, end_col = pos
    filename = code.co_filename if code is not None else ""
    lines = [linecache.getline(filename, n) for n in range(start, (end or start) + 1)]
    if not any(lines):
        return None
    if col is None or end_col is None:
        text = lines[0].strip()
    else:
        raw = [ln.encode("utf-8") for ln in lines]  # column offsets are in UTF-8 bytes
        raw[-1] = raw[-1][:end_col]
        raw[0] = raw[0][col:]
        text = " ".join(part.decode("utf-8", "replace").strip() for part in raw)
    return text[:MAX_CALL_CHARS] or None


def capture(frame: Any) -> tuple[tuple[Any, int, int], ...]:
    """The stack from ``frame`` outwards as raw ``(code, line, lasti)`` triples, innermost first (at
    most :data:`MAX_DEPTH`): what the watchdog thread takes while it holds the GIL, turned into
    :class:`Frame` records later (:func:`frames`), off the sampling path."""
    raw = []
    while frame is not None and len(raw) < MAX_DEPTH:
        raw.append((frame.f_code, frame.f_lineno, frame.f_lasti))
        frame = frame.f_back
    return tuple(raw)


def frames(raw: tuple[tuple[Any, int, int], ...]) -> tuple[Frame, ...]:
    """:class:`Frame` records, outermost first, of a :func:`capture`."""
    return tuple(Frame(code.co_filename, line or code.co_firstlineno, getattr(code, "co_qualname", code.co_name),
                       is_user_file(code.co_filename), code, lasti) for code, line, lasti in reversed(raw))


def sample_stack(frame: Any) -> tuple[Frame, ...]:
    """The stack from ``frame`` outwards as :class:`Frame` records, outermost first (at most
    :data:`MAX_DEPTH`, the innermost kept)."""
    return frames(capture(frame))


def _callback_start(stack: tuple[Frame, ...]) -> int:
    """Index of the first frame of the callback the loop is running (after asyncio's ``Handle._run``),
    so the frames that started the loop (``<module>``, ``asyncio.run``) are not taken for the callback."""
    for i in range(len(stack) - 1, -1, -1):
        f = stack[i]
        if f.function == "Handle._run" and not f.user and os.path.basename(f.file) == "events.py":
            return i + 1
    return 0


def is_idle(stack: tuple[Frame, ...]) -> bool:
    """The loop thread waits in its selector (or between callbacks): no callback of the loop runs."""
    if not stack or _callback_start(stack) > 0:
        return False
    inner = stack[-1]
    base = os.path.basename(inner.file)
    between = base == "base_events.py" and inner.function.endswith(("_run_once", "run_forever"))
    return base == "selectors.py" or between


@dataclass(frozen=True)
class BlockEvent:
    """One stall of the loop at or past the threshold.

    Attributes:
        kind: ``loop_blocked`` or ``loop_lag`` (:data:`KINDS`).
        blocked_ms: how long the loop was held, in ms: the loop iteration that ran the blocking
            callback(s), from its return from the selector to its next poll (heartbeat mode: how late
            the heartbeat ran, so the blocking lasted between ``blocked_ms`` and ``blocked_ms + interval_ms``).
        threshold_ms: the threshold it passed, in ms.
        started_at: wall-clock time (``time.time()``, s) the stall began.
        loop_cpu_ms: CPU time the loop thread used from the first stack sample to the end of the
            stall, in ms (close to the wall time for CPU work such as single-threaded inference; about
            0 for ``time.sleep``, blocking I/O or a starved thread); None when unknown.
        run_queue_wait_ms: over the same span, how long the loop thread was runnable but not running (waiting
            for a CPU another process held: the kernel's run-queue wait, :func:`faultlib.runqueue.run_queue_wait_ms`),
            in ms; close to ``blocked_ms`` for a stall the machine made, not the code; None where the kernel
            does not count it.
        samples: stack samples taken during the stall.
        site_samples: how many of them showed the named site.
        file, line, function: the innermost frame of your code seen most often (for
            ``loop_blocked`` without any user frame: the innermost frame); None for ``loop_lag``.
        call: the expression that frame was executing (``self.model(batch)``), or None.
        entry: the outermost frame of your code on the loop thread (the callback or coroutine
            the loop was running, e.g. an aiohttp handler), ``"function (file:line)"``.
        via: the qualified names of your frames from ``entry`` to ``function``.
        innermost: the innermost frame, where the thread actually was (``linear.py:125 Linear.forward``).
        stack: the sample of the site from the loop's callback inwards, outermost first (:meth:`Frame.to_json`).
        ended: False when the stall was still in progress when the watchdog stopped.
        step: the caller's step label when the event was recorded (see :meth:`LoopWatchdog.label`).
    """

    kind: str
    blocked_ms: float
    threshold_ms: float
    started_at: float
    loop_cpu_ms: float | None
    samples: int
    site_samples: int = 0
    file: str | None = None
    line: int | None = None
    function: str | None = None
    call: str | None = None
    entry: str | None = None
    via: tuple[str, ...] = ()
    innermost: str | None = None
    stack: tuple[dict[str, Any], ...] = ()
    ended: bool = True
    step: Any = None
    run_queue_wait_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "blocked_ms": round(self.blocked_ms, 3), "threshold_ms": self.threshold_ms,
                "started_at": self.started_at,
                "loop_cpu_ms": None if self.loop_cpu_ms is None else round(self.loop_cpu_ms, 3),
                "samples": self.samples, "site_samples": self.site_samples, "file": self.file, "line": self.line,
                "function": self.function, "call": self.call, "entry": self.entry, "via": list(self.via),
                "innermost": self.innermost, "stack": list(self.stack), "ended": self.ended, "step": self.step,
                "run_queue_wait_ms": None if self.run_queue_wait_ms is None else round(self.run_queue_wait_ms, 3)}


def classify(stacks: list[tuple], *, blocked_ms: float, threshold_ms: float, started_at: float,
             loop_cpu_ms: float | None, ended: bool = True, step: Any = None, busy: bool = False,
             run_queue_wait_ms: float | None = None) -> BlockEvent:
    """A :class:`BlockEvent` from the stack samples of one stall (see :class:`BlockEvent` for the fields).

    ``busy``: the loop is known to have been running callbacks throughout (iteration mode), so a stall
    without a usable sample is still ``loop_blocked`` (by code no sample caught: a C call holding the
    GIL), never ``loop_lag``.
    """
    stacks = [frames(s) if s and not isinstance(s[0], Frame) else s for s in stacks]  # raw captures too
    base = dict(blocked_ms=blocked_ms, threshold_ms=threshold_ms, started_at=started_at, loop_cpu_ms=loop_cpu_ms,
                samples=len(stacks), ended=ended, step=step, run_queue_wait_ms=run_queue_wait_ms)
    working = [s for s in stacks if s and not is_idle(s)]
    if not working:
        return BlockEvent("loop_blocked" if busy else "loop_lag", **base)
    busy = working
    sites = collections.Counter()
    for stack in busy:
        user = [f for f in stack[_callback_start(stack):] if f.user]
        site = user[-1] if user else stack[-1]
        sites[(site.file, site.line, site.function)] += 1
    (file, line, function), count = sites.most_common(1)[0]
    stack = next(s for s in busy if any((f.file, f.line, f.function) == (file, line, function) for f in s))
    index = max(i for i, f in enumerate(stack) if (f.file, f.line, f.function) == (file, line, function))
    site = stack[index]
    user = [f for f in stack[_callback_start(stack):index + 1] if f.user] or [site]
    inner = stack[-1]
    return BlockEvent("loop_blocked", **base, site_samples=count, file=file, line=line, function=function,
                      call=call_text(site.code, site.lasti, site.line),
                      entry=f"{user[0].function} ({user[0].file}:{user[0].line})",
                      via=tuple(f.function for f in user),
                      innermost=f"{os.path.basename(inner.file)}:{inner.line} {inner.function}",
                      stack=tuple(f.to_json() for f in stack[_callback_start(stack):]))


def findings_from_events(events: list[BlockEvent], threshold_ms: float) -> list[Finding]:
    """Group :class:`BlockEvent` records into findings: one per (file, line, function) for
    ``loop_blocked``, one in all for ``loop_lag`` (see :meth:`LoopWatchdog.check`)."""
    groups: dict[tuple, list[BlockEvent]] = {}
    for e in events:
        groups.setdefault((e.kind, e.file, e.line, e.function), []).append(e)
    findings = []
    for (kind, file, line, function), group in groups.items():
        worst = max(group, key=lambda e: e.blocked_ms)
        first = group[0]
        evidence = {"blocks": len(group), "max_blocked_ms": round(worst.blocked_ms, 3),
                    "total_blocked_ms": round(sum(e.blocked_ms for e in group), 3), "threshold_ms": threshold_ms,
                    "first_step": first.step, "samples": sum(e.samples for e in group)}
        if kind == "loop_blocked" and function is None:
            findings.append(Finding(DETECTOR, Severity.WARNING,
                                    f"the event loop was held {len(group)} time(s), up to {worst.blocked_ms:.0f} ms "
                                    f"(threshold {threshold_ms:g} ms), by code no stack sample caught (a C call "
                                    "that holds the GIL throughout): profile the callbacks of that moment", {},
                                    evidence, kind=kind))
            continue
        if kind == "loop_lag":
            findings.append(Finding(DETECTOR, Severity.INFO,
                                    f"the event loop ran {len(group)} time(s) up to {worst.blocked_ms:.0f} ms late "
                                    f"(threshold {threshold_ms:g} ms) while idle in its selector: the process or "
                                    "thread was starved of CPU (another thread holding the GIL, an overloaded "
                                    "machine), not blocked by a call on the loop", {}, evidence, kind=kind))
            continue
        cpu = [e.loop_cpu_ms for e in group if e.loop_cpu_ms is not None]
        waited = [e.run_queue_wait_ms for e in group if e.run_queue_wait_ms is not None]
        evidence.update(call=first.call, entry=first.entry, via=list(first.via), innermost=worst.innermost,
                        site_samples=sum(e.site_samples for e in group),
                        loop_cpu_ms=round(sum(cpu), 3) if cpu else None, stack=list(worst.stack),
                        run_queue_wait_ms=round(sum(waited), 3) if waited else None)
        call = f": `{first.call}`" if first.call else ""
        via = " -> ".join(first.via)
        findings.append(Finding(
            DETECTOR, Severity.WARNING,
            f"{function} blocked the event loop {len(group)} time(s), up to {worst.blocked_ms:.0f} ms "
            f"(threshold {threshold_ms:g} ms), at {os.path.basename(file or '?')}:{line}{call}"
            + (f" (called on the loop via {via})" if len(first.via) > 1 else "")
            + ": move it off the loop (asyncio.to_thread, loop.run_in_executor) or make it async",
            {"file": file, "line": line, "function": function}, evidence, kind=kind))
    return findings

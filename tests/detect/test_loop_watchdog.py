"""faultlib.detect.serving.loop_watchdog on real asyncio loops: what blocks them is named; healthy loops stay silent."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import threading
import time

import pytest

from faultlib.detect import LoopWatchdog
from faultlib.detect.serving.loop_watchdog import (KINDS, BlockEvent, classify, findings_from_events, is_idle, sample_stack)
from faultlib.errors import DetectorError
from faultlib.findings import Severity
from faultlib.runqueue import run_queue_wait_ms

SOURCE = open(__file__).read().splitlines()


def line_of(snippet: str) -> int:
    return next(i for i, line in enumerate(SOURCE, 1) if snippet in line and "line_of" not in line)


def load_config():
    time.sleep(0.15)  # the blocking call
    return {}


async def handler(i: int) -> None:
    if i == 2:
        load_config()
    await asyncio.sleep(0.01)


@pytest.mark.parametrize("mode", ["iteration", "heartbeat"])
def test_names_time_sleep_in_a_sync_helper_with_its_call_and_route(mode):
    async def main():
        async with LoopWatchdog(mode=mode) as watchdog:
            for i in range(5):
                await handler(i)
        return watchdog

    watchdog = asyncio.run(main())
    # exactly one stall in load_config; a busy machine may add stalls of its own elsewhere (descheduled loop)
    (event,) = [e for e in watchdog.events if e.function == "load_config" or e.line == line_of("time.sleep(0.15)")]
    assert event.kind == "loop_blocked" and event.ended
    assert (event.file, event.line, event.function) == (__file__, line_of("time.sleep(0.15)"), "load_config")
    assert event.call == "time.sleep(0.15)"
    assert event.via == ("test_names_time_sleep_in_a_sync_helper_with_its_call_and_route.<locals>.main", "handler",
                         "load_config")
    assert watchdog.mode == mode and event.samples >= 1 and event.site_samples == event.samples
    assert (150 if mode == "iteration" else 140) <= event.blocked_ms <= 400  # heartbeat: up to 10 ms short
    assert event.loop_cpu_ms < 0.5 * event.blocked_ms  # sleeping, not computing
    (finding,) = [f for f in watchdog.check() if f.kind == "loop_blocked" and f.location.get("line") == event.line]
    assert finding.severity is Severity.WARNING
    assert finding.location == {"file": __file__, "line": event.line, "function": "load_config"}
    assert finding.evidence["blocks"] == 1 and finding.evidence["call"] == "time.sleep(0.15)"
    assert "load_config" in finding.message and "time.sleep(0.15)" in finding.message
    assert set(KINDS) == {"loop_blocked", "loop_lag"}


def test_names_model_inference_on_the_loop():
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).eval()
    batch = torch.randn(1024, 64)

    def infer(until: float):
        with torch.inference_mode():
            while time.perf_counter() < until:
                logits = model(batch)  # inference on the loop
        return logits

    async def predict():
        infer(time.perf_counter() + 0.15)

    async def main():
        async with LoopWatchdog() as watchdog:
            await asyncio.sleep(0.03)
            await predict()
            await asyncio.sleep(0.03)
        return watchdog

    watchdog = asyncio.run(main())
    (event,) = watchdog.events
    assert event.function == "test_names_model_inference_on_the_loop.<locals>.infer"
    assert event.line == line_of("logits = model(batch)") and event.call == "model(batch)"
    assert event.via[-2:] == ("test_names_model_inference_on_the_loop.<locals>.predict",
                              "test_names_model_inference_on_the_loop.<locals>.infer")
    innermost = event.stack[-1]  # where the thread really was: inside torch's forward
    assert not innermost["user"] and "torch" in innermost["file"] and event.innermost.endswith(innermost["function"])
    assert event.loop_cpu_ms > 0  # part of it: torch's intra-op threads share the work


@pytest.fixture
def own_heap():
    """This worker's heap (every earlier test's objects) frozen out of the collector's way: a full collection of it
    paused the loop thread for 53 ms in a weakref callback on a busy machine (a real block, but of the test
    process's history, not of the loop under test). ``gc.freeze`` moves today's objects to the permanent generation
    (Python docs, "gc.freeze"); those the test makes are still collected."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


def test_a_healthy_loop_and_work_in_an_executor_stay_silent(own_heap):
    async def main():
        async with LoopWatchdog() as watchdog:
            loop = asyncio.get_running_loop()
            await asyncio.gather(asyncio.to_thread(time.sleep, 0.2),
                                 loop.run_in_executor(None, time.sleep, 0.1),
                                 *(asyncio.sleep(0.001 * i) for i in range(200)))
            for _ in range(20):
                await asyncio.sleep(0.01)
        return watchdog

    watchdog = asyncio.run(main())
    # a busy runner can starve the loop thread of a CPU (load 15: an 86 ms stall); such a stall is the machine's,
    # shown by the thread's run-queue wait, and never blamed on the healthy code or the executor's work
    starved = [e for e in watchdog.events
               if e.run_queue_wait_ms is not None and e.run_queue_wait_ms >= 0.25 * e.blocked_ms]
    assert [e for e in watchdog.events if e not in starved] == []
    assert not any("sleep" in (e.call or "") for e in watchdog.events)
    stats = watchdog.stats()
    assert stats.mode == "iteration" and stats.count >= 20 and stats.blocked + stats.lagged == len(starved)
    assert starved or (stats.p99_ms < 50 and watchdog.check() == [])


def test_callbacks_labels_and_the_first_callback_of_a_loop_not_yet_running():
    seen, lags = [], []

    async def main(watchdog):
        watchdog.label("warm-up")
        time.sleep(0.1)  # blocks the very first callback of the loop
        await asyncio.sleep(0.05)
        watchdog.label(7)
        time.sleep(0.1)
        await asyncio.sleep(0.05)

    loop = asyncio.new_event_loop()
    try:
        watchdog = LoopWatchdog(threshold_ms=40,
                                on_block=lambda e: seen.append((e, threading.get_ident())), on_lag=lags.append)
        watchdog.start(loop)  # right before this thread runs the loop
        loop.run_until_complete(main(watchdog))
        watchdog.stop()
    finally:
        loop.close()
    assert [e.step for e in watchdog.events] == ["warm-up", 7]
    assert [e for e, _ in seen] == watchdog.events and {t for _, t in seen} == {threading.get_ident()}
    assert len(lags) == watchdog.stats().count and max(lags) >= 100
    assert all(e.call == "time.sleep(0.1)" for e in watchdog.events)


def test_a_stall_still_in_progress_is_recorded_when_stopped_from_another_thread():
    watchdog = LoopWatchdog()
    started = threading.Event()

    async def stuck():
        started.set()
        await asyncio.sleep(0.02)
        time.sleep(0.4)

    def run():
        asyncio.run(_watched(watchdog, stuck()))

    thread = threading.Thread(target=run)
    thread.start()
    started.wait(5)
    time.sleep(0.25)
    watchdog.stop()
    thread.join(5)
    (event,) = watchdog.events
    assert event.ended is False and event.blocked_ms >= 50 and event.function.endswith("stuck")


async def _watched(watchdog, coro):
    watchdog.start()
    await coro


def test_lag_while_idle_in_the_selector_is_not_blamed_on_a_call():
    ready = threading.Event()
    holder = {}

    async def idle():
        holder["thread"] = threading.get_ident()
        ready.set()
        await asyncio.sleep(0.3)

    thread = threading.Thread(target=lambda: asyncio.run(idle()))
    thread.start()
    ready.wait(5)
    time.sleep(0.1)
    stack = sample_stack(sys._current_frames()[holder["thread"]])
    thread.join(5)
    assert is_idle(stack)
    event = classify([stack, stack], blocked_ms=80.0, threshold_ms=50.0, started_at=time.time(), loop_cpu_ms=0.1)
    assert event.kind == "loop_lag" and event.function is None and event.samples == 2
    assert classify([], blocked_ms=80.0, threshold_ms=50.0, started_at=0.0, loop_cpu_ms=None).kind == "loop_lag"
    # timing iterations, the loop is known to be busy: no sample means code that held the GIL throughout
    held = classify([], blocked_ms=80.0, threshold_ms=50.0, started_at=0.0, loop_cpu_ms=None, busy=True)
    assert held.kind == "loop_blocked" and held.function is None
    (unknown,) = findings_from_events([held], 50.0)
    assert unknown.location == {} and "no stack sample caught" in unknown.message
    (finding,) = findings_from_events([event, event], 50.0)
    assert finding.kind == "loop_lag" and finding.severity is Severity.INFO and finding.location == {}
    assert finding.evidence["blocks"] == 2 and "starved" in finding.message


def test_events_round_trip_through_json():
    event = BlockEvent("loop_blocked", 75.0, 50.0, 1.0, 70.0, 3, 3, "/x.py", 3, "f", "g()", "main (/x.py:9)",
                       ("main", "f"), "x.py:3 f", ({"file": "/x.py", "line": 3, "function": "f", "user": True},))
    data = event.to_json()
    again = BlockEvent(**{**data, "via": tuple(data["via"]), "stack": tuple(data["stack"])})
    assert again == event


def test_misuse_raises_with_the_right_order():
    watchdog = LoopWatchdog()
    with pytest.raises(DetectorError, match="before start"):
        watchdog.check()
    with pytest.raises(DetectorError, match="needs a loop"):
        watchdog.start()
    with pytest.raises(DetectorError, match="milliseconds"):
        LoopWatchdog(threshold_ms=0)
    with pytest.raises(DetectorError, match="sample_after_ms"):
        LoopWatchdog(threshold_ms=50, sample_after_ms=50)

    async def twice():
        async with LoopWatchdog() as w:
            with pytest.raises(DetectorError, match="twice"):
                w.start()

    asyncio.run(twice())


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or run_queue_wait_ms() is None,
                    reason="needs Linux schedstats (/proc/thread-self/schedstat) and sched_setaffinity")
def test_a_stall_the_machine_made_carries_the_loop_threads_run_queue_wait():
    """A loop thread sharing its one CPU with a busy process is runnable but not running for much of its stall:
    the event says how long (the kernel's run-queue wait); a loop thread that sleeps waits for no CPU."""
    async def stall(work):
        async with LoopWatchdog() as watchdog:
            await asyncio.sleep(0.02)
            work()
            await asyncio.sleep(0.02)
        return watchdog

    events = asyncio.run(stall(lambda: time.sleep(0.2))).events
    matching = [e for e in events if (e.function or "").endswith("<lambda>")]
    assert len(matching) == 1, events
    (event,) = matching
    assert event.run_queue_wait_ms is not None and event.run_queue_wait_ms < 0.5 * event.blocked_ms

    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    rival = subprocess.Popen([sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"])
    try:
        time.sleep(0.3)  # the rival is spinning on that CPU
        os.sched_setaffinity(0, {cpu})  # this thread (the loop's) on the same CPU
        try:
            watchdog = asyncio.run(stall(lambda: _spin(0.3)))
        finally:
            os.sched_setaffinity(0, before)
    finally:
        rival.kill()
        rival.wait()
    (event,) = [e for e in watchdog.events if e.function == "_spin"]
    assert event.run_queue_wait_ms is not None and event.run_queue_wait_ms >= 0.25 * event.blocked_ms, event
    assert event.to_json()["run_queue_wait_ms"] == round(event.run_queue_wait_ms, 3)
    (finding,) = [f for f in findings_from_events([event], event.threshold_ms) if f.kind == "loop_blocked"]
    assert finding.evidence["run_queue_wait_ms"] == round(event.run_queue_wait_ms, 3)

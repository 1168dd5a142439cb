"""DeadlineSLO on request latencies measured from a real asyncio server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time

import pytest

from faultlib.detect import DeadlineSLO
from faultlib.detect.serving.latency import percentile
from faultlib.errors import DetectorError
from faultlib.findings import Severity


async def measure(delays_ms: list[float], deadline_ms: float) -> list[tuple[float, bool]]:
    """Serve each request after its delay, answering 'timeout' at the deadline; return (latency, timed out)."""

    async def handle(reader, writer):
        delay = float((await reader.readline()).decode())
        try:
            await asyncio.wait_for(asyncio.sleep(delay / 1e3), timeout=deadline_ms / 1e3)
            writer.write(b"ok\n")
        except asyncio.TimeoutError:
            writer.write(b"timeout\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    out = []
    async with server:
        for delay in delays_ms:  # bounded, sequential, loopback only
            started = time.perf_counter()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"{delay}\n".encode())
            answer = (await reader.readline()).strip()
            writer.close()
            out.append(((time.perf_counter() - started) * 1e3, answer == b"timeout"))
    return out


def test_quiet_on_fast_answers_and_reports_timeouts_and_p99_on_slow_ones():
    # wide gaps (1 ms answers, a 200 ms deadline, 1 s of work cut at it, a 300 ms margin) so that a busy runner's
    # scheduling delays cannot move an answer from one side of a threshold to the other
    answers = asyncio.run(measure([1.0] * 20 + [1000.0] * 5, deadline_ms=200))
    slo = DeadlineSLO(deadline_ms=200, p99_objective_ms=100, margin_ms=300)
    late = [slo.observe(ms, timed_out=t, step=i) for i, (ms, t) in enumerate(answers)]
    assert late == [None] * 25, "the server enforced its deadline: no late answer"
    stats = slo.stats()
    assert stats.count == 25 and stats.timeouts == 5 and stats.late == 0
    assert stats.p50_ms < 100 <= 200 <= stats.p99_ms <= stats.max_ms
    findings = slo.check()
    assert [f.severity for f in findings] == [Severity.WARNING, Severity.WARNING]
    assert findings[0].location == {"step": 20} and findings[0].evidence["timeouts"] == 5
    assert "5 of 25 requests (20%)" in findings[0].message
    assert "P99 latency" in findings[1].message

    fast = DeadlineSLO(deadline_ms=200, p99_objective_ms=100)
    for ms, t in answers[:20]:
        fast.observe(ms, timed_out=t)
    assert fast.check() == []


def test_an_answer_past_the_deadline_is_an_error_at_once():
    slo = DeadlineSLO(deadline_ms=100, p99_objective_ms=50, margin_ms=20)
    assert slo.observe(119.0, timed_out=True, step=3) is None
    finding = slo.observe(121.0, timed_out=False, step=4)
    assert finding.severity is Severity.ERROR and finding.location == {"step": 4}
    assert "did not enforce its deadline" in finding.message and slo.stats().late == 1


def test_timeout_budget_and_percentiles():
    slo = DeadlineSLO(deadline_ms=100, p99_objective_ms=1000, max_timeout_ratio=0.5)
    for i in range(4):
        slo.observe(10.0, timed_out=i == 0)
    assert slo.check() == []                                  # 25 % timeouts, 50 % budget
    assert percentile([1, 2, 3, 4, 5], 50) == 3.0
    assert percentile(list(range(1, 101)), 99) == pytest.approx(99.01)
    assert percentile([7.0], 99) == 7.0


def test_misuse_says_what_to_do():
    with pytest.raises(DetectorError, match="call observe"):
        DeadlineSLO(deadline_ms=10, p99_objective_ms=10).check()
    with pytest.raises(DetectorError, match="must be > 0"):
        DeadlineSLO(deadline_ms=0, p99_objective_ms=10)
    with pytest.raises(DetectorError, match="max_timeout_ratio"):
        DeadlineSLO(deadline_ms=10, p99_objective_ms=10, max_timeout_ratio=2)
    with pytest.raises(DetectorError, match="observe at least one"):
        percentile([], 50)

"""event_loop_blocking: model inference on the asyncio event loop stalls every other request.

Parts, all in this process, on 127.0.0.1:

* the **model service** (aiohttp, the main thread's event loop): ``GET /health`` answers at once;
  ``POST /predict {"rows": [...]}`` scores a batch of digits rows with a torch MLP (64-1024-1024-10,
  trained here for a few epochs on scikit-learn's digits). Inference goes through
  ``loop.run_in_executor(self.executor, self.infer, rows)``: a one-thread executor keeps it off the
  loop (torch releases the GIL in its kernels, so the loop keeps answering).
* a :class:`~faultlib.detect.LoopWatchdog` on the service's loop: how long each loop iteration held
  it, and the function that held it whenever an iteration ran 50 ms or more.
* a **load generator** (its own thread and event loop, so the service's stalls do not stall it):
  per round, ``predicts`` concurrent predict requests and, open loop, one ``/health`` probe every
  ``probe_interval_ms`` for ``round_ms`` (latency measured from each probe's scheduled send time, as
  wrk2 does, so a stalled server cannot hide its stall by delaying the probes: no coordinated omission).

Each round's span lists its probes' latencies (``health_ms``) and, for each, how long it waited for a CPU
(``health_run_queue_wait_ms``: the larger of the run-queue waits of the service's loop thread and of the
load generator's thread while the probe was in flight, :func:`faultlib.runqueue.run_queue_wait_ms`), so a
probe a loaded machine delayed is told from one the service delayed. Each ``loop.blocked`` span holds the
loop thread's run-queue wait during that stall (``run_queue_wait_ms``: from the load generator's last
reading of it before the stall to the loop thread's own as it recovers, so up to two probe intervals
more than the stall; where the load generator read none just before, the watchdog's own reading from the
stall's first stack sample to its end, :attr:`BlockEvent.run_queue_wait_ms`), so a stall the scheduler made
(the loop thread runnable, not run) is told from one the code made.

Faulted phase: the ``inline_executor`` shim swaps the service's executor for one that runs the work
inline, on the loop, for rounds ``start_step`` .. ``start_step + steps - 1`` (a service that lost its
executor); before and after the window the real executor is in place: after the window is the
mitigation. Control: the executor from the start to the end.
"""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import aiohttp
import torch
from aiohttp import web
from opentelemetry import propagate, trace
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn

from faultlib import repro
from faultlib.detect import LoopWatchdog
from faultlib.detect.serving.latency import percentile
from faultlib.inject.loop import InlineExecutor
from faultlib.runqueue import run_queue_wait_ms

START_TIMEOUT_S = 10.0


def train_model(seed: int, hidden: int, epochs: int) -> tuple[nn.Module, torch.Tensor, torch.Tensor, float]:
    """A 64-hidden-hidden-10 MLP trained with Adam on digits' training split (80 %).

    Returns:
        ``(model in eval mode, test features (float32, 0..1), test labels, test accuracy)``.
    """
    data = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(data.data / 16.0, data.target, test_size=0.2,
                                                        random_state=seed, stratify=data.target)
    x_train, x_test = torch.tensor(x_train, dtype=torch.float32), torch.tensor(x_test, dtype=torch.float32)
    y_train, y_test = torch.tensor(y_train), torch.tensor(y_test)
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for idx in torch.randperm(len(x_train), generator=generator).split(128):
            optimizer.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(model(x_train[idx]), y_train[idx]).backward()
            optimizer.step()
    model.eval()
    with torch.inference_mode():
        accuracy = float((model(x_test).argmax(1) == y_test).float().mean())
    return model, x_test, y_test, accuracy


class ModelService:
    """``GET /health`` and ``POST /predict {"rows": [int, ...]}`` -> ``{"labels": [...], ...}``.

    Args:
        ctx: the repro context (tracer, metrics).
        model: the trained torch model (eval mode).
        features: the rows the service can score, float32 ``(N, 64)``.
    """

    def __init__(self, ctx, model: nn.Module, features: torch.Tensor):
        self.model = model
        self.features = features
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inference")
        self.tracer = ctx.evidence.tracer
        self.inference_ms = ctx.evidence.histogram("faultlib_inference_duration_ms", "model inference per predict "
                                                   "request, by where it ran (loop or executor)", "ms")
        self.loop_thread: int | None = None
        self.loop_native_id: int | None = None   # the loop thread's kernel id, to read its run-queue wait
        #: (time.monotonic(), the loop thread's run-queue wait so far in ms), read by the load generator per probe
        self.loop_waits: collections.deque[tuple[float, float]] = collections.deque(maxlen=20_000)
        self._runner: web.AppRunner | None = None

    async def start(self) -> tuple[str, int]:
        self.loop_thread = threading.get_ident()
        self.loop_native_id = threading.get_native_id()
        app = web.Application()
        app.add_routes([web.get("/health", self.health), web.post("/predict", self.predict)])
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        return tuple(self._runner.addresses[0][:2])

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        # shutdown(wait=True) joins the pool's threads: off the loop, like the inference itself
        await asyncio.to_thread(self.executor.shutdown, wait=True)

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    def infer(self, rows: list[int]) -> tuple[list[int], float, float, bool]:
        """Score ``rows``; returns (labels, inference ms, CPU ms of the thread that ran it, whether it ran
        on the loop's thread). CPU / wall is the share of a core a busy thread gets on this machine now."""
        batch = self.features[torch.tensor(rows) % len(self.features)]
        started, cpu_started = time.perf_counter(), time.thread_time()
        with torch.inference_mode():
            logits = self.model(batch)
        cpu_ms = (time.thread_time() - cpu_started) * 1e3
        on_loop = threading.get_ident() == self.loop_thread
        return logits.argmax(1).tolist(), (time.perf_counter() - started) * 1e3, cpu_ms, on_loop

    async def predict(self, request: web.Request) -> web.Response:
        with self.tracer.start_as_current_span("model_service.predict", context=propagate.extract(request.headers),
                                               kind=trace.SpanKind.SERVER) as span:
            try:
                rows = [int(r) for r in (await request.json())["rows"]]
            except (ValueError, KeyError, TypeError):
                span.set_attributes({"status": "bad_request", "http.status_code": 400})
                return web.json_response({"status": "bad_request", "error": 'body must be {"rows": [int]}'}, status=400)
            loop = asyncio.get_running_loop()
            labels, inference_ms, cpu_ms, on_loop = await loop.run_in_executor(self.executor, self.infer, rows)
            placement = "loop" if on_loop else "executor"
            self.inference_ms.record(inference_ms, placement=placement)
            span.set_attributes({"status": "ok", "http.status_code": 200, "rows": len(rows), "placement": placement,
                                 "inference_ms": inference_ms, "inference_cpu_ms": cpu_ms})
            return web.json_response({"status": "ok", "labels": labels, "inference_ms": round(inference_ms, 3),
                                      "inference_cpu_ms": round(cpu_ms, 3), "placement": placement})


class LoadGenerator:
    """Rounds of concurrent predicts with open-loop ``/health`` probes, on its own thread and loop."""

    def __init__(self, ctx, url: str, watchdog: LoopWatchdog, batch_rows: int, expected: list[int],
                 service: ModelService):
        p = ctx.params
        self.ctx, self.url, self.watchdog, self.service = ctx, url, watchdog, service
        self.mitigation = bool(p.get("apply_mitigation", True))
        self.rounds, self.predicts = int(p["rounds"]), int(p["predicts"])
        self.round_s, self.interval_s = p["round_ms"] / 1e3, p["probe_interval_ms"] / 1e3
        self.rows = list(range(batch_rows))
        self.expected = expected
        self.health_ms = ctx.evidence.histogram("faultlib_route_latency_ms", "client-side latency per route", "ms")
        self.answers = ctx.evidence.counter("faultlib_route_requests_total", "answers per route and status code")
        self.latencies: dict[str, list[float]] = {}
        self.errors = 0
        self.wrong_labels = 0

    def run(self) -> None:
        asyncio.run(self._main())

    def _waits(self) -> tuple[float | None, float | None]:
        """Run-queue waits so far (ms) of this thread and of the service's loop thread (kept, timed, for the
        stalls: ModelService.loop_waits)."""
        now, loop_wait = time.monotonic(), run_queue_wait_ms(self.service.loop_native_id)
        if loop_wait is not None:
            self.service.loop_waits.append((now, loop_wait))
        return run_queue_wait_ms(), loop_wait

    async def _get(self, client: aiohttp.ClientSession, intended: float) -> tuple[float, float | None] | None:
        """One /health probe: (latency from its intended send time in ms, how long it waited for a CPU: the larger
        of this thread's and the loop thread's run-queue waits meanwhile, None where not measured), or None
        when it got no 200."""
        waits_before = self._waits()
        try:
            async with client.get(f"{self.url}/health") as resp:
                await resp.read()
                code = resp.status
        except (aiohttp.ClientError, asyncio.TimeoutError):
            code = 0
        self.answers.add(1, route="/health", code=str(code))
        if code != 200:
            self.errors += 1
            return None
        latency_ms = (time.perf_counter() - intended) * 1e3
        deltas = [after - before for before, after in zip(waits_before, self._waits())
                  if before is not None and after is not None]
        return latency_ms, max(deltas) if len(deltas) == 2 else None

    async def _predict(self, client: aiohttp.ClientSession) -> dict:
        headers: dict[str, str] = {}
        propagate.inject(headers)
        started = time.perf_counter()
        try:
            async with client.post(f"{self.url}/predict", json={"rows": self.rows}, headers=headers) as resp:
                body, code = await resp.json(content_type=None), resp.status
        except (aiohttp.ClientError, asyncio.TimeoutError):
            body, code = {}, 0
        self.answers.add(1, route="/predict", code=str(code))
        latency = (time.perf_counter() - started) * 1e3
        self.health_ms.record(latency, route="/predict")
        if code != 200:
            self.errors += 1
        elif body["labels"] != self.expected:
            self.wrong_labels += 1
        return {**body, "latency_ms": latency, "code": code}

    async def _main(self) -> None:
        timeout = aiohttp.ClientTimeout(total=30)
        async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=64)) as client:
            for _ in range(3):  # connections and first-call costs, not measured
                await self._get(client, time.perf_counter())
            await self._predict(client)
            for step in range(self.rounds):
                with self.ctx.step(step, total=self.rounds, name="load.round") as span:
                    self.watchdog.label(step)
                    await self._round(client, step, span)

    async def _round(self, client: aiohttp.ClientSession, step: int, span) -> None:
        window = self.ctx.faults.window(step)
        if window == "after" and not self.mitigation:  # the switch off: the executor is never given back
            self.service.executor = InlineExecutor()
        blocks_before = len(self.watchdog.events)
        predicts = [asyncio.ensure_future(self._predict(client)) for _ in range(self.predicts)]
        probes, start = [], time.perf_counter()
        for k in range(int(self.round_s / self.interval_s)):
            intended = start + k * self.interval_s
            await asyncio.sleep(max(0.0, intended - time.perf_counter()))
            probes.append(asyncio.ensure_future(self._get(client, intended)))
        answered = [v for v in await asyncio.gather(*probes) if v is not None]
        health = [latency for latency, _ in answered]
        waited = [w for _, w in answered]
        answers = await asyncio.gather(*predicts)
        for value in health:
            self.health_ms.record(value, route="/health")
        self.latencies.setdefault(window, []).extend(health)
        placements = sorted({a.get("placement", "none") for a in answers})
        span.set(**{"health_probes": len(health), "health_p50_ms": percentile(health, 50) if health else None,
                    "health_p99_ms": percentile(health, 99) if health else None,
                    "health_max_ms": max(health, default=None), "placement": ",".join(placements),
                    "health_ms": health,
                    "health_run_queue_wait_ms": waited if None not in waited else None,
                    "inference_ms": max((a.get("inference_ms") or 0.0) for a in answers),
                    "inference_total_ms": sum((a.get("inference_ms") or 0.0) for a in answers),
                    "inference_cpu_ms": sum((a.get("inference_cpu_ms") or 0.0) for a in answers),
                    "predict_ms": max(a["latency_ms"] for a in answers),
                    "predict_codes": ",".join(str(a["code"]) for a in answers),
                    "loop_blocks": len(self.watchdog.events) - blocks_before})


async def run(ctx, model: nn.Module, features: torch.Tensor, accuracy: float, expected: list[int]) -> None:
    p = ctx.params
    service = ModelService(ctx, model, features)
    ctx.attach(service)
    batch_rows = int(p["batch_rows"])

    iteration_ms = ctx.evidence.histogram("faultlib_loop_iteration_ms", "how long each iteration of the service's "
                                          "event loop held it (the wait of an event arriving during it)", "ms")
    blocked_ms = ctx.evidence.histogram("faultlib_loop_blocked_ms", "loop stalls past the watchdog threshold", "ms")
    stalls = ctx.evidence.counter("faultlib_loop_stalls_total", "loop stalls past the threshold, by kind and function")

    def waited_since(started: float) -> float | None:
        """The loop thread's run-queue wait (ms) from the load generator's last reading of it before ``started``
        (time.monotonic(), at most two probe intervals before) to now, read on the loop thread; None without
        such a reading (between rounds no probe reads it)."""
        before = [(t, w) for t, w in list(service.loop_waits) if t <= started]
        now = run_queue_wait_ms()
        if not before or now is None or started - before[-1][0] > 2 * p["probe_interval_ms"] / 1e3:
            return None
        return now - before[-1][1]

    def on_block(event) -> None:  # on the service's loop thread, as the loop recovers
        waited = waited_since(time.monotonic() - event.blocked_ms / 1e3)
        if waited is None:  # no probe read it just before: the watchdog's reading from its first sample on
            waited = event.run_queue_wait_ms
        blocked_ms.record(event.blocked_ms, function=event.function or "none")
        stalls.add(1, kind=event.kind, function=event.function or "none")
        end_ns = time.time_ns()
        attributes = {"kind": event.kind, "blocked_ms": event.blocked_ms, "function": event.function or "",
                      "file": event.file or "", "line": event.line or 0, "call": event.call or "",
                      "samples": event.samples, "faultlib.step": -1 if event.step is None else event.step}
        if waited is not None:
            attributes["run_queue_wait_ms"] = waited
        span = ctx.evidence.tracer.start_span("loop.blocked", start_time=end_ns - int(event.blocked_ms * 1e6),
                                              attributes=attributes)
        span.end(end_time=end_ns)

    watchdog = LoopWatchdog(threshold_ms=float(p["threshold_ms"]), on_block=on_block,
                            on_lag=lambda ms: iteration_ms.record(ms))
    host, port = await service.start()
    stalls.add(0, kind="loop_blocked", function="none")  # the series exists in a silent run too
    load = LoadGenerator(ctx, f"http://{host}:{port}", watchdog, batch_rows, expected, service)
    try:
        async with watchdog:
            await asyncio.wait_for(asyncio.to_thread(load.run), timeout=p["load_timeout_s"])
    finally:
        await service.stop()

    for finding in watchdog.check():
        ctx.report(finding)
    stats = watchdog.stats()
    every = [v for values in load.latencies.values() for v in values]
    by_window = {f"health_{q}_{w}_ms": percentile(v, n) for w, v in load.latencies.items() if v
                 for q, n in (("p50", 50), ("p99", 99))}
    print(f"health p50={percentile(every, 50):.1f}ms p99={percentile(every, 99):.1f}ms; loop iteration "
          f"p99={stats.p99_ms:.1f}ms max={stats.max_ms:.1f}ms; blocked={stats.blocked} lagged={stats.lagged}; "
          + " ".join(f"{k}={v:.1f}" for k, v in sorted(by_window.items())))
    ctx.summary(model_accuracy=accuracy, health_probes=len(every), health_p50_ms=percentile(every, 50),
                health_p99_ms=percentile(every, 99), loop_iteration_p99_ms=stats.p99_ms,
                loop_iteration_max_ms=stats.max_ms,
                loop_blocked=stats.blocked, loop_lagged=stats.lagged, errors=load.errors,
                wrong_labels=load.wrong_labels, threshold_ms=watchdog.threshold_ms, **by_window)


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.set_num_threads(1)  # one core for inference, the other for the loop and the load generator
        # training and the reference answers happen before the event loop starts: nothing to block yet
        model, features, _, accuracy = train_model(ctx.seed, int(p["hidden"]), int(p["epochs"]))
        with torch.inference_mode():
            expected = model(features[torch.arange(int(p["batch_rows"])) % len(features)]).argmax(1).tolist()
        asyncio.run(run(ctx, model, features, accuracy, expected))


if __name__ == "__main__":
    main()

"""downstream_timeout: a model service whose downstream feature service becomes slow.

Three real processes' worth of parts, all on 127.0.0.1:

* the **feature service** (``feature_service.py``, its own process): the breast_cancer feature table;
* the **model service** (this process, aiohttp): ``POST /predict {"id": N}`` fetches the row's
  features from the feature service over TCP, then scores them with a scikit-learn model
  (StandardScaler + LogisticRegression) trained here on the same data set's training split;
* a **client** (this process): a bounded, sequential loop of requests, one ``serve.request``
  span each, comparing every answer with the model called directly.

Each request's span also holds how long the processes on its path waited for a CPU while it was
served (the kernel's run-queue wait, :func:`faultlib.runqueue.run_queue_wait_ms`): this process's main
thread, whose event loop runs the client and the model service, as ``run_queue_wait_ms``; the feature
service's serving thread as ``downstream_run_queue_wait_ms`` (it reports it in its answer; the model
service passes it on). Not the shim proxy's thread, nor threads serving no request (exporters, BLAS
workers spinning between calls). On a loaded machine a request can take 80 ms for want of a core; the
assertion suite tells that from the service (faultlib.evidence.timing, ``waits``).

The model service has a per-request deadline (``deadline_ms``). Contract, documented in
case.yaml: it answers ``200 {"status": "ok", "label", "proba", ...}`` in time, and when the
downstream call cannot finish in time, ``504 {"status": "timeout", "deadline_ms", "elapsed_ms",
"downstream": "feature_service"}`` at the deadline: never a hang, never a 500. (A downstream
that fails outright gives ``502 {"status": "downstream_error"}``.)

The faulted phase's ``tcp_latency`` shim puts a delaying proxy between the model service and
the feature service for a window of requests (``ctx.endpoint`` returns the proxy's address).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import aiohttp
from aiohttp import web
from opentelemetry import propagate, trace
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from faultlib import repro
from faultlib.detect import DeadlineSLO
from faultlib.detect.serving.latency import percentile
from faultlib.runqueue import run_queue_wait_ms

HERE = Path(__file__).resolve().parent
INFERENCE_RESERVE_MS = 10.0   # of the deadline, kept for scoring and answering after the downstream call
START_TIMEOUT_S = 20.0


def train_model(seed: int):
    """StandardScaler + LogisticRegression on breast_cancer; returns (model, features, labels, test row ids)."""
    data = load_breast_cancer()
    ids = list(range(len(data.target)))
    train_ids, test_ids = train_test_split(ids, test_size=0.25, random_state=seed, stratify=data.target)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    model.fit(data.data[train_ids], data.target[train_ids])
    return model, data.data, data.target, test_ids


class ModelService:
    """The model service: ``POST /predict {"id": N}`` under a per-request deadline.

    Args:
        ctx: the repro context (tracer, metrics).
        model: a fitted scikit-learn classifier.
        feature_address: (host, port) to reach the feature service (possibly a proxy).
        deadline_ms: per-request deadline in ms.
        enforce: whether the service enforces its deadline on the downstream call (the case's
            mitigation; ``repro.params.apply_mitigation: false`` turns it off: the service then waits for the
            feature service however long it takes, as a service without a timeout does).
    """

    def __init__(self, ctx, model, feature_address: tuple[str, int], deadline_ms: float, enforce: bool = True):
        self.ctx = ctx
        self.model = model
        self.feature_url = f"http://{feature_address[0]}:{feature_address[1]}"
        self.feature_address = feature_address
        self.deadline_ms = deadline_ms
        self.enforce = enforce
        self.tracer = ctx.evidence.tracer
        self.downstream_ms = ctx.evidence.histogram("faultlib_downstream_duration_ms",
                                                    "model service's wait on the feature service", "ms")
        self.downstream_timeouts = ctx.evidence.counter("faultlib_downstream_timeouts_total",
                                                        "downstream calls abandoned at the request deadline")
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> tuple[str, int]:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        app = web.Application()
        app.add_routes([web.post("/predict", self.predict)])
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        return tuple(self._runner.addresses[0][:2])

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def predict(self, request: web.Request) -> web.Response:
        loop = asyncio.get_running_loop()
        started = loop.time()
        parent = propagate.extract(request.headers)
        with self.tracer.start_as_current_span("model_service.predict", context=parent,
                                               kind=trace.SpanKind.SERVER) as span:
            try:
                item_id = int((await request.json())["id"])
            except (ValueError, KeyError, TypeError):
                span.set_attribute("status", "bad_request")
                return web.json_response({"status": "bad_request", "error": 'body must be {"id": int}'}, status=400)
            budget_s = (self.deadline_ms - INFERENCE_RESERVE_MS) / 1e3 - (loop.time() - started)
            fetch_started = loop.time()
            try:
                fetched = await asyncio.wait_for(self.fetch_features(item_id),
                                                  timeout=max(budget_s, 0.0) if self.enforce else None)
            except asyncio.TimeoutError:
                waited_ms = (loop.time() - fetch_started) * 1e3
                self.downstream_ms.record(waited_ms, outcome="timeout")
                self.downstream_timeouts.add(1)
                elapsed_ms = (loop.time() - started) * 1e3
                span.set_attributes({"status": "timeout", "downstream_ms": waited_ms, "http.status_code": 504})
                return web.json_response({"status": "timeout", "id": item_id, "deadline_ms": self.deadline_ms,
                                          "elapsed_ms": round(elapsed_ms, 3), "downstream": "feature_service",
                                          "downstream_ms": round(waited_ms, 3)}, status=504)
            except (aiohttp.ClientError, OSError) as exc:
                span.set_attributes({"status": "downstream_error", "http.status_code": 502})
                return web.json_response({"status": "downstream_error", "id": item_id, "downstream": "feature_service",
                                          "error": type(exc).__name__}, status=502)
            waited_ms = (loop.time() - fetch_started) * 1e3
            self.downstream_ms.record(waited_ms, outcome="ok")
            self.downstream_timeouts.add(0)  # the series exists from the first request on
            if fetched is None:
                span.set_attributes({"status": "not_found", "http.status_code": 404})
                return web.json_response({"status": "not_found", "id": item_id}, status=404)
            features, downstream_waited = fetched
            probabilities = self.model.predict_proba([features])[0]
            label = int(self.model.classes_[probabilities.argmax()])
            proba = float(probabilities[1])
            span.set_attributes({"status": "ok", "downstream_ms": waited_ms, "http.status_code": 200})
            return web.json_response({"status": "ok", "id": item_id, "label": label, "proba": proba,
                                      "downstream_ms": round(waited_ms, 3),
                                      "downstream_run_queue_wait_ms": downstream_waited})

    async def fetch_features(self, item_id: int) -> tuple[list[float], float | None] | None:
        """GET the row's features from the feature service: (features, the feature service's wait for a CPU
        in ms, None when not measured); None for an unknown id."""
        host, port = self.feature_address
        with self.tracer.start_as_current_span("feature_service.fetch", kind=trace.SpanKind.CLIENT,
                                               attributes={"server.address": host, "server.port": port}):
            async with self._session.get(f"{self.feature_url}/features/{item_id}") as resp:
                if resp.status == 404:
                    return None
                resp.raise_for_status()
                body = await resp.json()
                return body["features"], body.get("run_queue_wait_ms")


async def start_feature_service() -> tuple[asyncio.subprocess.Process | None, tuple[str, int]]:
    """Start feature_service.py on a free port (or use ``FEATURE_SERVICE_ADDR=host:port`` when set)."""
    given = os.environ.get("FEATURE_SERVICE_ADDR")
    if given:
        host, _, port = given.rpartition(":")
        return None, (host, int(port))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(HERE / "feature_service.py"), "--host", "127.0.0.1", "--port", "0",
        stdout=asyncio.subprocess.PIPE)
    line = (await asyncio.wait_for(proc.stdout.readline(), START_TIMEOUT_S)).decode().strip()
    if not line.startswith("listening "):
        proc.kill()
        raise RuntimeError(f"feature service did not start: {line!r}")
    host, _, port = line.removeprefix("listening ").rpartition(":")
    return proc, (host, int(port))


async def stop_process(proc: asyncio.subprocess.Process | None) -> None:
    if proc is None or proc.returncode is not None:
        return
    proc.terminate()
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()


async def run(ctx) -> None:
    p = ctx.params
    deadline_ms = float(p.get("deadline_ms", 250))
    requests = int(p.get("requests", 60))
    slo = DeadlineSLO(deadline_ms=deadline_ms, p99_objective_ms=float(p.get("p99_objective_ms", 100)),
                      margin_ms=float(p.get("margin_ms", 50)))
    model, features, labels, test_ids = train_model(ctx.seed)
    ctx.attach(model)
    request_ms = ctx.evidence.histogram("faultlib_request_duration_ms", "client-side request latency", "ms")
    answers = ctx.evidence.counter("faultlib_requests_total", "answers by status and HTTP code")
    answers.add(0, status="timeout", code="504")  # the timeout series exists from the start: 0, not "no data"

    proc, real_address = await start_feature_service()
    feature_address = ctx.endpoint("feature_service", *real_address)
    service = ModelService(ctx, model, feature_address, deadline_ms, enforce=bool(p.get("apply_mitigation", True)))
    latencies: dict[str, list[float]] = {}
    try:
        host, port = await service.start()
        url = f"http://{host}:{port}/predict"
        ctx.log.info("model service on %s:%d, feature service on %s:%d (connecting to %s:%d)",
                     host, port, *real_address, *feature_address)
        client_timeout = aiohttp.ClientTimeout(total=max(2.0, 8 * deadline_ms / 1e3))
        async with aiohttp.ClientSession(timeout=client_timeout) as client:
            async with client.post(url, json={"id": int(test_ids[0])}) as warmup:   # connection set-up, not measured
                await warmup.read()
            for i in range(requests):
                item_id = int(test_ids[i % len(test_ids)])
                expected = int(model.predict(features[item_id:item_id + 1])[0])   # the model called directly
                with ctx.step(i, total=requests, name="serve.request") as span:
                    headers: dict[str, str] = {}
                    propagate.inject(headers)
                    waited_before = run_queue_wait_ms()
                    started = time.perf_counter()
                    try:
                        async with client.post(url, json={"id": item_id}, headers=headers) as resp:
                            code, body = resp.status, await resp.json(content_type=None)
                        status = body.get("status", "invalid")
                    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                        code, body, status = 0, {}, "client_error"
                        span.event("client_error", error=type(exc).__name__)
                    latency_ms = (time.perf_counter() - started) * 1e3
                    waited_after = run_queue_wait_ms()
                    late = slo.observe(latency_ms, timed_out=status == "timeout", step=i)
                    if late is not None:
                        ctx.report(late)
                    request_ms.record(latency_ms, status=status)
                    answers.add(1, status=status, code=str(code))
                    latencies.setdefault(ctx.faults.window(i), []).append(latency_ms)
                    span.set(**{"http.status_code": code, "status": status, "latency_ms": latency_ms,
                                "deadline_ms": deadline_ms, "downstream_ms": body.get("downstream_ms"),
                                "service_elapsed_ms": body.get("elapsed_ms"),   # a timeout's, on the service's clock
                                "item_id": item_id, "label": body.get("label"), "proba": body.get("proba"),
                                "run_queue_wait_ms": None if waited_before is None or waited_after is None
                                else waited_after - waited_before,
                                "downstream_run_queue_wait_ms": body.get("downstream_run_queue_wait_ms"),
                                "expected_label": expected, "true_label": int(labels[item_id])})
    finally:
        await service.stop()
        await stop_process(proc)

    for finding in slo.check():
        ctx.report(finding)
    stats = slo.stats()
    by_window = {f"p99_{w}_ms": percentile(v, 99) for w, v in latencies.items() if w != "none"}
    print(f"requests={stats.count} timeouts={stats.timeouts} late={stats.late} "
          f"p50={stats.p50_ms:.1f}ms p99={stats.p99_ms:.1f}ms max={stats.max_ms:.1f}ms")
    ctx.summary(requests=stats.count, timeouts=stats.timeouts, late_answers=stats.late, p50_ms=stats.p50_ms,
                p99_ms=stats.p99_ms, max_ms=stats.max_ms, deadline_ms=deadline_ms,
                feature_port_real=real_address[1], feature_port_used=feature_address[1], **by_window)


def main() -> None:
    with repro.context() as ctx:
        asyncio.run(run(ctx))


if __name__ == "__main__":
    main()

"""Network faults: a TCP proxy on loopback that delays what passes through it.

The local twin of Chaos Mesh's NetworkChaos ``delay`` action (netem) and of toxiproxy's
``latency`` toxic. The workload asks its repro context for the address of a downstream
endpoint (``ctx.endpoint("feature_service", host, port)``); in the faulted phase the
``tcp_latency`` shim answers with the address of a :class:`LatencyProxy` in front of the
real one, so the workload's own client, connection pool and timeouts are exercised
unchanged over a real TCP connection.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from typing import Any, Callable

from faultlib.errors import InjectionError
from faultlib.inject.base import Address, FaultTarget, Injector

CHUNK_BYTES = 65536
START_TIMEOUT_S = 5.0


class LatencyProxy:
    """A TCP proxy on 127.0.0.1 that holds each chunk of data for a delay before forwarding it.

    Every chunk read from one side is stamped on arrival and forwarded ``delay_ms()``
    milliseconds after its arrival, in order (a chunk never overtakes the one before it),
    which is how toxiproxy's latency toxic behaves. End of stream travels like data: when one
    side closes or resets, the data already read is delivered (after its delay), then the other
    side gets EOF; the connection pair is closed once both directions have ended.

    The proxy runs its own asyncio event loop in a daemon thread, so it works the same for a
    synchronous or an asynchronous workload and is never slowed by the workload's own loop.

    Args:
        upstream: the real ``(host, port)``.
        delay_ms: called once per chunk, on arrival; returns the delay in ms (0 = none).
            Called from the proxy's thread.
        direction: ``downstream`` (server -> client, toxiproxy's default), ``upstream``
            (client -> server) or ``both``.

    Call order: :meth:`start` (returns the proxy's address), then :meth:`stop`.
    """

    def __init__(self, upstream: Address, delay_ms: Callable[[], float], *, direction: str = "downstream"):
        if direction not in ("downstream", "upstream", "both"):
            raise InjectionError(f"direction must be downstream, upstream or both, not {direction!r}")
        self.upstream = upstream
        self.delay_ms = delay_ms
        self.direction = direction
        self.connections = 0
        self.delayed_chunks = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task] = set()

    def start(self) -> Address:
        """Listen on 127.0.0.1 (a free port) and return that address.

        Raises:
            InjectionError: already started, or the listener did not come up within 5 s.
        """
        if self._thread is not None:
            raise InjectionError("LatencyProxy.start() called twice: call stop() first")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="faultlib-latency-proxy", daemon=True)
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._listen(), self._loop)
        try:
            return future.result(timeout=START_TIMEOUT_S)
        except Exception as exc:
            self.stop()
            upstream = f"{self.upstream[0]}:{self.upstream[1]}"
            raise InjectionError(f"latency proxy for {upstream} did not start: {exc}") from exc

    def stop(self) -> None:
        """Close the listener and every proxied connection, stop the thread. Safe to call twice."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(self._close(), loop).result(timeout=START_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - closing best effort; the thread is stopped below either way
                pass
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=START_TIMEOUT_S)
        loop.close()
        self._loop = self._thread = None

    async def _listen(self) -> Address:
        self._server = await asyncio.start_server(self._accept, host="127.0.0.1", port=0)
        host, port = self._server.sockets[0].getsockname()[:2]
        return host, port

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._tasks.add(task)
        self.connections += 1
        server_writer = None
        try:
            try:
                server_reader, server_writer = await asyncio.open_connection(*self.upstream)
            except OSError:
                return  # the client sees the connection close, as it would without the proxy
            up = self.direction in ("upstream", "both")
            down = self.direction in ("downstream", "both")
            pipes = [asyncio.ensure_future(self._pipe(client_reader, server_writer, up)),
                     asyncio.ensure_future(self._pipe(server_reader, client_writer, down))]
            try:
                await asyncio.wait(pipes)
            finally:
                for pipe in pipes:
                    pipe.cancel()
                await asyncio.gather(*pipes, return_exceptions=True)
        except asyncio.CancelledError:
            pass  # _close cancelled this connection: ending quietly, or asyncio logs the cancellation as an error
        finally:
            for writer in (client_writer, server_writer):
                if writer is not None:
                    writer.close()
            self._tasks.discard(task)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delayed: bool) -> None:
        """Copy ``reader`` to ``writer``; with ``delayed``, hold each chunk ``delay_ms()`` after its arrival."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def read() -> None:
            try:
                while chunk := await reader.read(CHUNK_BYTES):
                    delay = self.delay_ms() if delayed else 0.0
                    if delay > 0:
                        self.delayed_chunks += 1
                    await queue.put((time.monotonic() + delay / 1e3, chunk))
            except OSError:
                pass
            await queue.put((0.0, b""))  # end of stream, delivered after the chunks before it

        reading = asyncio.ensure_future(read())
        try:
            while True:
                release_at, chunk = await queue.get()
                if not chunk:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                wait_s = release_at - time.monotonic()
                if wait_s > 0:
                    await asyncio.sleep(wait_s)
                writer.write(chunk)
                await writer.drain()
        except OSError:
            return
        finally:
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)


class TcpLatency(Injector):
    """Delay the TCP traffic of one downstream endpoint by ``latency_ms`` (± ``jitter_ms``).

    In :meth:`apply` the shim reroutes the endpoint named ``endpoint``: when the workload
    resolves it with ``ctx.endpoint(endpoint, host, port)``, a :class:`LatencyProxy` starts on
    127.0.0.1 and its address is returned. Each chunk of data in ``direction`` arriving while the
    fault is active is held ``latency_ms + U(-jitter_ms, +jitter_ms)`` ms (at least 0) before it
    is forwarded; toxiproxy draws its jitter the same way. Draws come from a ``random.Random(seed)``.

    Params:
        endpoint (str): the endpoint name the repro resolves, e.g. ``feature_service``.
        latency_ms (number): added delay in milliseconds, >= 0.
        jitter_ms (number): half-width of the uniform jitter in milliseconds, default 0.
        direction (str): ``downstream`` (responses, default), ``upstream`` (requests) or ``both``.
        start_step (int): first step (``ctx.step`` index) with the delay, default 0.
        steps (int): number of steps with the delay; default: every step from ``start_step`` on.
        seed (int): seed of the jitter draws, default 0.

    Chunks arriving outside a step (``target.step`` is None) are delayed only when no window
    was given. Cost: one extra hop over loopback (tens of microseconds per chunk) when inactive.
    """

    name = "tcp_latency"
    summary = "TCP proxy on loopback that delays one downstream endpoint's traffic (latency + jitter)"
    params_schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["endpoint", "latency_ms"],
        "properties": {
            "endpoint": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
            "latency_ms": {"type": "number", "minimum": 0, "maximum": 600000},
            "jitter_ms": {"type": "number", "minimum": 0, "maximum": 600000, "default": 0},
            "direction": {"enum": ["downstream", "upstream", "both"], "default": "downstream"},
            "start_step": {"type": "integer", "minimum": 0, "default": 0},
            "steps": {"type": "integer", "minimum": 1},
            "seed": {"type": "integer", "default": 0},
        },
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.endpoint: str = params["endpoint"]
        self.latency_ms = float(params["latency_ms"])
        self.jitter_ms = float(params.get("jitter_ms", 0))
        self.direction: str = params.get("direction", "downstream")
        self.start_step = int(params.get("start_step", 0))
        self.stop_step = self.start_step + int(params["steps"]) if "steps" in params else None
        self._windowed = "start_step" in params or "steps" in params
        self._random = random.Random(int(params.get("seed", 0)))
        self._target: FaultTarget | None = None
        self.proxies: list[LatencyProxy] = []

    def active_at(self, step: int | None) -> bool:
        if step is None:
            return not self._windowed
        return step >= self.start_step and (self.stop_step is None or step < self.stop_step)

    def delay_ms(self) -> float:
        """The delay for a chunk arriving now, in ms (0 outside the fault window)."""
        if self._target is None or not self.active_at(self._target.step):
            return 0.0
        jitter = self._random.uniform(-self.jitter_ms, self.jitter_ms) if self.jitter_ms else 0.0
        return max(0.0, self.latency_ms + jitter)

    def apply(self, target: FaultTarget) -> None:
        self._target = target
        target.reroute(self.endpoint, self._open_proxy)

    def _open_proxy(self, upstream: Address) -> Address:
        proxy = LatencyProxy(upstream, self.delay_ms, direction=self.direction)
        address = proxy.start()
        self.proxies.append(proxy)
        return address

    def revert(self) -> None:
        while self.proxies:
            self.proxies.pop().stop()
        self._target = None

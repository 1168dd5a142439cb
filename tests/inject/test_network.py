"""The tcp_latency shim and its LatencyProxy over real TCP on 127.0.0.1, and ctx.endpoint routing."""

from __future__ import annotations

import socket
import socketserver
import threading
import time

import pytest

from faultlib.errors import InjectionError
from faultlib.inject import InjectorSet, build
from faultlib.inject.network import LatencyProxy


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        while data := self.request.recv(65536):
            self.request.sendall(data)


@pytest.fixture
def echo_server():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Echo)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address
    server.shutdown()
    server.server_close()


class Target:
    """A FaultTarget with the routing table a repro context keeps."""

    def __init__(self):
        self.model = None
        self.step = None
        self.attempt = 1
        self.routes = {}

    def reroute(self, endpoint, resolver):
        self.routes[endpoint] = resolver

    def subscribe(self, point, callback):
        raise AssertionError("tcp_latency subscribes to no fault point")

    def record_fault(self, injector, **attributes):
        pass


def round_trip_ms(address, payload=b"ping") -> tuple[float, bytes]:
    with socket.create_connection(address, timeout=5) as sock:
        started = time.perf_counter()
        sock.sendall(payload)
        data = b""
        while len(data) < len(payload):
            data += sock.recv(65536)
        return (time.perf_counter() - started) * 1e3, data


def test_proxy_delays_each_chunk_and_keeps_the_bytes(echo_server):
    proxy = LatencyProxy(echo_server, lambda: 150.0, direction="downstream")
    address = proxy.start()
    try:
        assert address[0] == "127.0.0.1" and address[1] != echo_server[1]
        direct_ms, _ = round_trip_ms(echo_server)
        delayed_ms, data = round_trip_ms(address, b"x" * 200_000)
        assert data == b"x" * 200_000
        assert delayed_ms >= 150 and direct_ms < 100
        assert proxy.connections == 1 and proxy.delayed_chunks >= 1
    finally:
        proxy.stop()
    with pytest.raises(OSError):
        socket.create_connection(address, timeout=2).close()
    proxy.stop()  # twice is fine


def test_upstream_direction_delays_requests_not_responses(echo_server):
    proxy = LatencyProxy(echo_server, lambda: 120.0, direction="upstream")
    address = proxy.start()
    try:
        delayed_ms, data = round_trip_ms(address)
        assert data == b"ping" and delayed_ms >= 120
    finally:
        proxy.stop()
    with pytest.raises(InjectionError, match="direction must be"):
        LatencyProxy(echo_server, lambda: 0.0, direction="sideways")


def test_shim_reroutes_only_its_endpoint_and_only_inside_its_window(echo_server):
    shim = build("tcp_latency", {"endpoint": "echo", "latency_ms": 200, "jitter_ms": 20,
                                 "start_step": 2, "steps": 2, "seed": 7})
    faults, target = InjectorSet([shim]), Target()
    faults.apply(target)
    try:
        assert set(target.routes) == {"echo"}
        proxied = target.routes["echo"](echo_server)
        assert proxied != echo_server
        timings = {}
        for step in range(5):
            target.step = step
            timings[step], data = round_trip_ms(proxied)
            assert data == b"ping"
        assert all(timings[s] >= 180 for s in (2, 3)), timings
        assert all(timings[s] < 100 for s in (0, 1, 4)), timings
        assert [faults.window(s) for s in range(5)] == ["before", "before", "during", "during", "after"]
        target.step = None
        assert shim.delay_ms() == 0.0  # outside any step, a windowed shim is inactive
    finally:
        faults.revert()
    assert shim.proxies == []


def test_jitter_stays_in_range_and_is_seeded():
    def draws(seed):
        shim = build("tcp_latency", {"endpoint": "x", "latency_ms": 100, "jitter_ms": 30, "seed": seed})
        shim._target = Target()
        return [shim.delay_ms() for _ in range(200)]

    first = draws(1)
    assert all(70 <= d <= 130 for d in first) and max(first) - min(first) > 30
    assert first == draws(1) and first != draws(2)


def test_params_are_validated():
    with pytest.raises(InjectionError, match="latency_ms"):
        build("tcp_latency", {"endpoint": "x"})
    with pytest.raises(InjectionError, match="-5"):
        build("tcp_latency", {"endpoint": "x", "latency_ms": -5})
    with pytest.raises(InjectionError, match="'sideways' is not one of"):
        build("tcp_latency", {"endpoint": "x", "latency_ms": 5, "direction": "sideways"})


def test_repro_context_routes_endpoints_and_checks_the_order(tmp_path, echo_server):
    from faultlib.repro import ReproContext

    faults = InjectorSet([build("tcp_latency", {"endpoint": "echo", "latency_ms": 50})])
    ctx = ReproContext(run_dir=tmp_path, run_id="r", case_id="c", phase="faulted", seed=0, params={}, faults=faults)
    try:
        with pytest.raises(InjectionError, match=r"call ctx.attach\(model\) first"):
            ctx.endpoint("echo", *echo_server)
        ctx.attach(None)
        assert ctx.endpoint("other", "127.0.0.1", 9) == ("127.0.0.1", 9)
        routed = ctx.endpoint("echo", *echo_server)
        assert routed != echo_server
        assert round_trip_ms(routed)[0] >= 50
    finally:
        faults.revert()
        ctx.evidence.close()
    control = ReproContext(run_dir=tmp_path, run_id="r", case_id="c", phase="control", seed=0, params={},
                           faults=InjectorSet([]))
    assert control.endpoint("echo", *echo_server) == echo_server  # no attach needed without faults
    control.evidence.close()

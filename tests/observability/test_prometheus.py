"""A real Prometheus (Debian's 2.42): promtool backfill of an OpenMetrics file made by prometheus_client's
encoder, a server on a free loopback port, range queries through the HTTP API, errors as entries, the
server stopped by PID (also when the block raises, and after a port clash), and the install command named
when a binary is missing."""

from __future__ import annotations

import math
import os
import socket
import time
from pathlib import Path

import pytest

from faultlib.processes import tree as processes
from faultlib.errors import PrometheusUnavailable
from faultlib.observability import prometheus as prom
from faultlib.observability.prometheus import INSTALL_HINT, PrometheusServer, backfill, missing_binaries

MISSING = missing_binaries()
needs_prometheus = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
T0 = int(time.time()) - 600  # ten minutes ago, whole seconds


def write_om(path: Path) -> Path:
    """A counter that rises by 2 a second from T0 for 10 s, a gauge, both with a phase label (real encoder)."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
    from prometheus_client.openmetrics.exposition import generate_latest

    class Collector:
        def collect(self):
            counter = CounterMetricFamily("faultlib_unit_steps", "steps", labels=["phase"])
            gauge = GaugeMetricFamily("faultlib_unit_scale", "scale", labels=["phase"])
            for i in range(11):
                counter.add_metric(["faulted"], 2.0 * i, timestamp=T0 + i)
                counter.add_metric(["control"], 0.0, timestamp=T0 + i)
            for i in range(11):
                gauge.add_metric(["faulted"], 65536.0 / 2 ** i, timestamp=T0 + i + 0.5)
            yield counter
            yield gauge

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector())
    path.write_bytes(generate_latest(registry))
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server over the backfilled file, for the query tests (module scope: started before them)."""
    if MISSING:
        pytest.skip(MISSING)
    root = tmp_path_factory.mktemp("prom")
    backfill(write_om(root / "metrics.om"), root / "data")
    with PrometheusServer(root / "data") as srv:
        yield srv


@needs_prometheus
def test_backfilled_samples_answer_range_queries(server):
    result = server.query_range('faultlib_unit_steps_total{phase="faulted"}', T0, T0 + 10, 1.0)
    assert result.error is None and len(result.series) == 1
    series = result.series[0]
    assert series["labels"] == {"__name__": "faultlib_unit_steps_total", "phase": "faulted"}
    assert series["values"] == [(float(T0 + i), 2.0 * i) for i in range(11)]
    rate = server.query_range("sum by (phase) (rate(faultlib_unit_steps_total[5m]))", T0 + 5, T0 + 10, 0.25)
    by_phase = {s["labels"]["phase"]: [v for _, v in s["values"]] for s in rate.series}
    assert len(by_phase["faulted"]) == 21 and all(v > 0 for v in by_phase["faulted"])
    assert set(by_phase["control"]) == {0.0}


@needs_prometheus
def test_a_float_step_and_nan_values_come_back_as_floats(server):
    ratio = server.query_range("faultlib_unit_steps_total / faultlib_unit_steps_total", T0 + 0.5, T0 + 1.5, 0.1)
    assert ratio.error is None
    values = {s["labels"]["phase"]: [v for _, v in s["values"]] for s in ratio.series}
    assert len(values["control"]) == 11 and all(math.isnan(v) for v in values["control"])  # 0 / 0
    assert values["faulted"][-1] == 1.0
    assert server.version().startswith("2.")


@needs_prometheus
def test_a_bad_query_is_an_error_entry_not_an_exception(server):
    result = server.query_range("rate(faultlib_unit_steps_total[5m]", T0, T0 + 10, 1.0)
    assert result.series == [] and result.error.startswith("bad_data:") and "parse error" in result.error
    unknown = server.query_range("no_such_function(faultlib_unit_steps_total)", T0, T0 + 10, 1.0)
    assert "no_such_function" in unknown.error


@needs_prometheus
def test_the_server_is_stopped_by_pid_and_its_files_removed(tmp_path):
    with PrometheusServer() as srv:
        pid, started = srv.pid, processes.start_time(srv.pid)
        work = Path(srv._tmp.name)
        assert srv.query_range("vector(1)", T0, T0 + 1, 1.0).series[0]["values"] == [(T0, 1.0), (T0 + 1, 1.0)]
    assert not processes.is_alive(pid, started)
    assert not work.exists()


@needs_prometheus
def test_the_server_is_stopped_when_the_block_raises(tmp_path):
    with pytest.raises(RuntimeError, match="boom"):
        with PrometheusServer(tmp_path / "data") as srv:
            pid, started = srv.pid, processes.start_time(srv.pid)
            raise RuntimeError("boom")
    assert not processes.is_alive(pid, started)
    with pytest.raises(PrometheusUnavailable, match="not running"):
        srv.query_range("vector(1)", T0, T0 + 1, 1.0)


@needs_prometheus
def test_a_taken_port_is_retried_on_another(tmp_path, monkeypatch):
    taken = socket.socket()
    taken.bind((prom.HOST, 0))
    taken.listen()
    ports = [taken.getsockname()[1]]
    real = prom._free_port
    monkeypatch.setattr(prom, "_free_port", lambda: ports.pop() if ports else real())
    try:
        with PrometheusServer(tmp_path / "data") as srv:
            assert not srv.url.endswith(f":{taken.getsockname()[1]}")
            assert srv.query_range("vector(2)", T0, T0, 1.0).series[0]["values"] == [(T0, 2.0)]
    finally:
        taken.close()


@needs_prometheus
def test_a_backfill_that_fails_quotes_promtool(tmp_path):
    bad = tmp_path / "metrics.om"
    bad.write_text("# TYPE x counter\nx_total 1 1700000000\n")  # no "# EOF"
    with pytest.raises(PrometheusUnavailable, match=r"create-blocks-from openmetrics metrics.om exited with 1: .*EOF"):
        backfill(bad, tmp_path / "data")


@needs_prometheus
def test_a_backfill_does_not_follow_a_symlink(tmp_path):
    write_om(tmp_path / "real.om")
    os.symlink(tmp_path / "real.om", tmp_path / "metrics.om")
    with pytest.raises(PrometheusUnavailable, match="symbolic link"):
        backfill(tmp_path / "metrics.om", tmp_path / "data")


def test_a_missing_binary_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # neither promtool nor prometheus there
    reason = missing_binaries()
    assert reason == f"promtool and prometheus not found on PATH: install Prometheus ({INSTALL_HINT})"
    with pytest.raises(PrometheusUnavailable, match="apt-get install -y --no-install-recommends prometheus"):
        backfill(tmp_path / "metrics.om", tmp_path / "data")
    with pytest.raises(PrometheusUnavailable, match="prometheus not found on PATH"):
        with PrometheusServer(tmp_path / "data"):
            pass

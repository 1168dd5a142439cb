"""The s3:// archive against a real S3 server (SeaweedFS on 127.0.0.1): upload, list, get, spool, flush,
outages and wrong keys. No mocks: the store is killed and restarted for real."""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from faultlib.archive import S3Archive, StoredRun, open_archive
from faultlib.archive.manifest import verify
from faultlib.evidence.seal import artifacts, write_manifest
from faultlib.cases import load_case
from faultlib.errors import ArchiveError, ArchiveUnavailable, MissingDependency
from faultlib.record import Verdict
from faultlib.runner import Runner, RunNotArchived, new_run_id
from tests.conftest import cli, run_json

BUCKET = "faultlib-runs"
NO_WAIT = (0.0, 0.0)  # retry delays for in-process archives: 3 attempts, no sleeping


def _flat(text: str) -> str:
    """``text`` with every run of whitespace made one space (the console wraps long lines)."""
    return " ".join(text.split())


def _files_under(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _assert_nowhere(needles: list[str], *texts: str, root: Path) -> None:
    """None of ``needles`` (secrets, endpoint) in ``texts`` or in any file under ``root``."""
    for needle in needles:
        for text in texts:
            assert needle not in text
        for path, data in _files_under(root).items():
            assert needle.encode() not in data, f"{needle!r} leaked into {path}"


def _objects(server, prefix: str) -> dict[str, object]:
    """key -> last_modified of every object under ``prefix``, read with a plain client (none when no test
    of this module has created the bucket yet: xdist may run a test first on its worker's server)."""
    client = server.client()
    if not client.bucket_exists(BUCKET):
        return {}
    return {o.object_name: o.last_modified for o in client.list_objects(BUCKET, prefix=prefix, recursive=True)}


def _spooled_run(archive: S3Archive, case_id: str = "made_case") -> tuple[str, Path]:
    """A small finished run written straight into the archive's spool (manifest last)."""
    run_id = new_run_id()
    run_dir = archive.staging_dir(case_id, run_id)
    (run_dir / "run.json").write_text(json.dumps({"started_at": "2026-11-30T00:00:00+00:00", "verdict": "failed"}))
    (run_dir / "traces.jsonl").write_text('{"resourceSpans": []}\n' * 50)
    (run_dir / "dumps").mkdir()
    (run_dir / "dumps" / "state.bin").write_bytes(os.urandom(3000))
    write_manifest(run_dir, run_id=run_id, case_id=case_id)
    return run_id, run_dir


def test_runner_publishes_manifest_last_then_list_and_get_round_trip(s3, tiny_case, tmp_path):
    uploaded: list[str] = []
    archive = S3Archive(f"s3://{BUCKET}/roundtrip", retry_delays_s=NO_WAIT, on_uploaded=uploaded.append)
    record = Runner(archive).run(load_case(tiny_case()))
    assert record.verdict is Verdict.PASSED, record.error
    assert record.archive_uri == f"s3://{BUCKET}/roundtrip/tiny_case/{record.run_id}"

    names = sorted(a.name for a in record.artifacts) + ["run.json"]
    assert uploaded[-1] == "manifest.json" and sorted(uploaded[:-1]) == sorted(names)
    assert set(_objects(s3, "roundtrip/")) == {f"roundtrip/tiny_case/{record.run_id}/{n}" for n in uploaded}
    assert not (tmp_path / "spool" / BUCKET / "roundtrip" / "tiny_case" / record.run_id).exists(), \
        "a published run leaves the spool"

    assert archive.list_runs() == [StoredRun("tiny_case", record.run_id, True, record.started_at, "passed")]
    run_dir = archive.get("tiny_case", record.run_id, tmp_path / "fetched")
    assert run_dir == tmp_path / "fetched" / "tiny_case" / record.run_id
    assert verify(run_dir) == []
    assert json.loads((run_dir / "run.json").read_text()) == record.to_json()
    assert {a.name: a.sha256 for a in artifacts(run_dir, exclude=("run.json",))} == \
        {a.name: a.sha256 for a in record.artifacts}


def test_cli_run_to_s3_then_ls_and_get_and_no_secret_anywhere(s3, tiny_case, tmp_path):
    uri = f"s3://{BUCKET}/nightly"
    proc = cli("run", str(tiny_case()), "--archive", uri, "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = run_json(proc)
    assert record["verdict"] == "passed" and record["archive_uri"] == f"{uri}/tiny_case/{record['run_id']}"

    listed = cli("archive", "ls", uri, "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    mine = [r for r in run_json(listed)["runs"] if r["run_id"] == record["run_id"]]
    assert mine == [{"case": "tiny_case", "run_id": record["run_id"], "complete": True,
                     "started_at": record["started_at"], "verdict": "passed", "note": None}]

    fetched = cli("archive", "get", uri, "tiny_case", record["run_id"], "--out", str(tmp_path / "got"), cwd=tmp_path)
    assert fetched.returncode == 0, fetched.stderr
    run_dir = tmp_path / "got" / "tiny_case" / record["run_id"]
    assert "files verified" in fetched.stdout and verify(run_dir) == []
    assert json.loads((run_dir / "run.json").read_text()) == record

    host_port = s3.endpoint.removeprefix("http://")
    _assert_nowhere([s3.secret_key, s3.access_key, host_port], proc.stdout, proc.stderr, listed.stdout,
                    fetched.stdout, root=tmp_path)


def test_get_names_the_file_whose_stored_bytes_changed(s3, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/tamper", retry_delays_s=NO_WAIT)
    run_id, run_dir = _spooled_run(archive)
    archive.publish(run_dir, "made_case", run_id)
    original = archive.get("made_case", run_id, tmp_path / "first")
    assert verify(original) == []

    other = b"x" * len((original / "dumps" / "state.bin").read_bytes())  # same size, other bytes
    s3.client().put_object(BUCKET, f"tamper/made_case/{run_id}/dumps/state.bin", io.BytesIO(other), len(other))
    with pytest.raises(ArchiveError, match=r"dumps/state\.bin: sha256 differs from the manifest"):
        archive.get("made_case", run_id, tmp_path / "second")
    assert _files_under(tmp_path / "second") == {}, "a download that fails verification leaves nothing behind"

    proc = cli("archive", "get", f"s3://{BUCKET}/tamper", "made_case", run_id, "--out", str(tmp_path / "cli"),
               cwd=tmp_path)
    assert proc.returncode == 2 and "dumps/state.bin: sha256 differs" in _flat(proc.stderr)
    assert "Traceback" not in proc.stderr

    with pytest.raises(ArchiveError, match="has no manifest.json: the run is incomplete or does not exist"):
        archive.get("made_case", "20261130T000000Z-000000", tmp_path / "third")


def _run_and_kill_the_store(s3, spool: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``faultlib run ARGS`` in a subprocess; the store is killed as soon as the run directory appears in
    ``spool`` (the run passed its archive preflight, so the store goes down during the run)."""
    before = set(spool.glob("*/*"))
    proc = subprocess.Popen([sys.executable, "-m", "faultlib", "run", *args], cwd=cwd, text=True,
                            env={**os.environ, "COLUMNS": "200"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not set(spool.glob("*/*")) - before and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    s3.kill()
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_store_down_spools_the_run_exit_3_then_flush_sends_it_once(s3, tiny_case, tmp_path, monkeypatch):
    monkeypatch.delenv("FAULTLIB_SPOOL")  # the default spool: .faultlib/spool under the working directory
    uri = f"s3://{BUCKET}/outage"
    spool_root = tmp_path / ".faultlib" / "spool" / BUCKET / "outage"

    # the store answers the preflight, then dies during the run (a store down before the run: see
    # test_archive_preflight.py, the run is refused with exit 3 before it starts)
    passed = _run_and_kill_the_store(s3, spool_root, str(tiny_case()), "--archive", uri, cwd=tmp_path)
    assert passed.returncode == 3, passed.stderr
    assert "verdict: PASSED" in passed.stdout
    spool = tmp_path / ".faultlib" / "spool" / BUCKET / "outage" / "tiny_case"
    [waiting] = list(spool.iterdir())
    assert f"evidence: {waiting}" in passed.stdout
    message = _flat(passed.stderr)
    assert f"The evidence waits in {waiting}" in message
    assert f"`faultlib archive flush {uri}`" in message and "cannot connect" in message

    s3.restart()
    failed = _run_and_kill_the_store(s3, spool_root, str(tiny_case("failing_case", fail_assertion=True)),
                                     "--archive", uri, "--json", cwd=tmp_path)
    assert failed.returncode == 1, failed.stderr
    assert run_json(failed)["verdict"] == "failed"  # stdout is still exactly one JSON object: the record
    assert "was not archived" in failed.stderr

    spooled = sorted((tmp_path / ".faultlib" / "spool" / BUCKET / "outage").glob("*/*"))
    assert len(spooled) == 2 and all(verify(d) == [] for d in spooled), "nothing lost while the store was down"

    s3.restart()
    keep = {d: tmp_path / "copy" / d.name for d in spooled}
    for src, dst in keep.items():
        shutil.copytree(src, dst)
    files = sum(len(list(p for p in d.rglob("*") if p.is_file())) for d in spooled)
    first = cli("archive", "flush", uri, "--json", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    report = run_json(first)
    assert report["uploaded_files"] == files and len(report["flushed"]) == 2
    assert not any(d.exists() for d in spooled), "flushed runs leave the spool"
    runs = {r["case"]: r for r in run_json(cli("archive", "ls", uri, "--json", cwd=tmp_path))["runs"]}
    assert {c: (r["complete"], r["verdict"]) for c, r in runs.items()} == {
        "tiny_case": (True, "passed"), "failing_case": (True, "failed")}
    assert verify(S3Archive(uri).get("tiny_case", waiting.name, tmp_path / "got")) == []

    # a crash after uploading but before clearing the spool: flushing again sends nothing
    stored = _objects(s3, "outage/")
    for src, dst in keep.items():
        shutil.copytree(dst, src)
    time.sleep(1.1)  # Last-Modified has 1 s resolution: a re-upload now would show
    second = run_json(cli("archive", "flush", uri, "--json", cwd=tmp_path))
    assert second["uploaded_files"] == 0
    assert sum(r["already_stored"] for r in second["flushed"]) == files
    assert _objects(s3, "outage/") == stored
    assert run_json(cli("archive", "flush", uri, "--json", cwd=tmp_path))["flushed"] == []


def test_store_killed_mid_upload_never_shows_a_complete_run_and_flush_finishes_it(s3, tiny_case, tmp_path):
    uri = f"s3://{BUCKET}/midway"
    sent: list[str] = []

    def kill_after_three(name: str) -> None:
        sent.append(name)
        if len(sent) == 3:
            s3.kill()

    archive = S3Archive(uri, retry_delays_s=NO_WAIT, on_uploaded=kill_after_three)
    with pytest.raises(RunNotArchived) as info:
        Runner(archive).run(load_case(tiny_case()))
    record, run_dir = info.value.record, info.value.run_dir
    assert info.value.exit_code == 3 and isinstance(info.value.__cause__, ArchiveUnavailable)
    assert record.verdict is Verdict.PASSED and "manifest.json" not in sent
    assert f"faultlib archive flush {uri}" in str(info.value) and str(run_dir) in str(info.value)
    assert verify(run_dir) == [], "the spooled run is intact"
    down = archive.flush()  # the run is reported as failed (exit 3), not raised: other runs would go on
    assert down.flushed == [] and down.exit_code == 3
    assert [(f.run_id, f.exit_code) for f in down.failed] == [(record.run_id, 3)]
    assert "cannot connect" in down.failed[0].reason
    assert verify(run_dir) == []

    s3.restart()
    assert [(r.case, r.run_id, r.complete) for r in archive.list_runs()] == [("tiny_case", record.run_id, False)]
    before = len(sent)
    report = archive.flush()
    assert [(r.run_id, r.already_stored) for r in report.flushed] == [(record.run_id, 3)]
    assert sent[before:][-1] == "manifest.json" and not set(sent[before:]) & set(sent[:3])
    assert archive.list_runs() == [StoredRun("tiny_case", record.run_id, True, record.started_at, "passed")]
    assert not run_dir.exists()
    assert verify(archive.get("tiny_case", record.run_id, tmp_path / "got")) == []


def test_wrong_keys_give_a_clear_error_and_leak_no_secret(s3, tiny_case, tmp_path, monkeypatch):
    wrong_secret = "wrong-secret-" + os.urandom(8).hex()
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", wrong_secret)
    uri = f"s3://{BUCKET}/denied"
    proc = cli("run", str(tiny_case()), "--archive", uri, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr  # the archive preflight refuses the run before it starts
    assert "access denied: check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY" in _flat(proc.stderr)
    assert "verdict" not in proc.stdout and "Traceback" not in proc.stderr
    assert not (tmp_path / "spool").exists(), "nothing is written for a run the archive cannot take"

    listed = cli("archive", "ls", uri, cwd=tmp_path)
    assert listed.returncode == 2 and "access denied: check AWS_ACCESS_KEY_ID" in _flat(listed.stderr)
    run_id, waiting = _spooled_run(S3Archive(uri))  # a run spooled earlier (while the store was down)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "NOSUCHKEY")
    unknown = cli("archive", "flush", uri, "--json", cwd=tmp_path)
    assert unknown.returncode == 2, unknown.stderr
    [refused] = json.loads(unknown.stdout)["failed"]
    assert refused["run_id"] == run_id and "access denied" in refused["reason"] and verify(waiting) == []
    _assert_nowhere([wrong_secret, s3.secret_key, s3.endpoint.removeprefix("http://")], proc.stdout, proc.stderr,
                    listed.stdout, listed.stderr, unknown.stdout, unknown.stderr, root=tmp_path)


def test_flush_leaves_a_damaged_spooled_run_alone_and_names_it(s3, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/damaged", retry_delays_s=NO_WAIT)
    _, run_dir = _spooled_run(archive)
    (run_dir / "traces.jsonl").write_text("changed after the manifest was written\n")
    incomplete = archive.staging_dir("made_case", new_run_id())
    (incomplete / "stdout.txt").write_text("killed before its manifest\n")
    proc = cli("archive", "flush", archive.uri, "--json", cwd=tmp_path)
    assert proc.returncode == 2
    report = run_json(proc)
    assert report["flushed"] == [] and [r["path"] for r in report["incomplete"]] == [str(incomplete)]
    assert "no run.lock" in report["incomplete"][0]["reason"]
    assert report["damaged"][0]["path"] == str(run_dir) and "traces.jsonl: differs" in report["damaged"][0]["problem"]
    assert run_dir.is_dir() and incomplete.is_dir() and _objects(s3, "damaged/") == {}


def test_unreachable_store_backs_off_then_says_exit_3_without_the_endpoint(tmp_path, monkeypatch):
    pytest.importorskip("minio", reason="the minio client is not installed: pip install 'faultlib-ml[s3]'")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once the socket is closed
    monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-never-shown")
    slept: list[float] = []
    archive = S3Archive(f"s3://{BUCKET}/x", spool_root=tmp_path, sleep=slept.append)
    with pytest.raises(ArchiveUnavailable, match="failed 5 times while listing") as info:
        archive.list_runs()
    assert info.value.exit_code == 3
    assert slept == [0.2, 0.4, 0.8, 1.6], "bounded exponential back-off: 3 s in all"
    assert str(port) not in str(info.value) and "secret-never-shown" not in str(info.value)


@pytest.mark.parametrize("uri, message", [
    ("s3://", "has no bucket"),
    ("s3:///prefix", "has no bucket"),
    ("s3://Faultlib_Runs/x", "invalid bucket name 'Faultlib_Runs'"),
    ("s3://ab/x", "invalid bucket name 'ab'"),
    ("s3://192.168.1.10/x", "not an IP address"),
    ("s3://runs..old/x", "no '..'"),
    ("s3://faultlib-runs/a/../b", "may not contain '.' or '..'"),
])
def test_bad_s3_uris_are_refused_with_the_rule(uri, message):
    with pytest.raises(ArchiveError, match=message):
        open_archive(uri)


def test_endpoint_and_keys_come_from_the_environment_and_are_never_echoed(monkeypatch):
    pytest.importorskip("minio", reason="the minio client is not installed: pip install 'faultlib-ml[s3]'")
    monkeypatch.delenv("FAULTLIB_S3_ENDPOINT", raising=False)
    with pytest.raises(ArchiveError, match="s3:// archives need FAULTLIB_S3_ENDPOINT"):
        open_archive(f"s3://{BUCKET}/x")
    for bad in ("127.0.0.1:8333", "http://user:pw-secret@127.0.0.1:8333", "https://h:8333/some/path",
                "ftp://h:21", "http://h:notaport"):
        monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", bad)
        with pytest.raises(ArchiveError, match="must be http://HOST") as info:
            open_archive(f"s3://{BUCKET}/x")
        assert bad not in str(info.value) and "pw-secret" not in str(info.value)
    monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", "https://s3.example.com")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    with pytest.raises(ArchiveError, match="need AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"):
        open_archive(f"s3://{BUCKET}/x")


def test_bad_archive_uri_fails_before_the_run_starts(tiny_case, tmp_path):
    proc = cli("run", str(tiny_case()), "--archive", "s3://Bad_Bucket/x", cwd=tmp_path)
    assert proc.returncode == 2 and "invalid bucket name 'Bad_Bucket'" in _flat(proc.stderr)
    assert "control" not in proc.stderr and not (tmp_path / ".faultlib").exists()


def test_minio_loads_lazily_and_its_absence_names_the_extra(tmp_path):
    probe = ("import sys; import faultlib.cli.app, faultlib.archive, faultlib.runner; "
             "print(sorted(m for m in ('minio', 'urllib3', 'certifi') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    missing = ("import sys; sys.modules['minio'] = None\n"
               "from faultlib.archive import open_archive\n"
               "try:\n    open_archive('s3://faultlib-runs/x')\n"
               "except Exception as exc:\n    print(type(exc).__name__, exc)")
    out = subprocess.run([sys.executable, "-c", missing], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"{MissingDependency.__name__} minio is not installed: pip install 'faultlib-ml[s3]'"

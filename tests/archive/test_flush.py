"""`archive flush` run by run against the real SeaweedFS server: one bad spooled run never blocks the
others, every run is reported (human table and --json), the exit code comes at the end (2 damaged or
refused, else 3 unreachable), and two flushes at once share the spool without colliding."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time

from faultlib.archive import S3Archive
from faultlib.archive.manifest import verify
from faultlib.evidence import layout
from faultlib.evidence.seal import write_manifest
from tests.conftest import cli, run_json

BUCKET = "faultlib-runs"


def _spool(archive: S3Archive, case: str, run_id: str, *, size: int = 3000) -> object:
    """A finished run in the archive's spool (manifest last)."""
    run = archive.staging_dir(case, run_id)
    (run / layout.RUN).write_text(json.dumps({"verdict": "passed", "started_at": "2026-11-30T00:00:00+00:00"}))
    (run / layout.TRACES).write_text('{"resourceSpans": []}\n' * 20)
    (run / "dumps").mkdir()
    (run / "dumps" / "state.bin").write_bytes(os.urandom(size))
    write_manifest(run, run_id=run_id, case_id=case)
    return run


def _rid(n: int) -> str:
    return f"20261130T0000{n:02d}Z-{n:06x}"


def _stored_runs(s3, prefix: str) -> set[tuple[str, str]]:
    keys = [o.object_name for o in s3.client().list_objects(BUCKET, prefix=f"{prefix}/", recursive=True)]
    return {tuple(k.split("/")[1:3]) for k in keys if k.endswith("/manifest.json")}


def test_one_bad_run_does_not_block_the_others(s3, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/mixed", retry_delays_s=(0.0,))
    first = _spool(archive, "a_case", _rid(1))
    changed = _spool(archive, "b_case", _rid(2))
    (changed / layout.TRACES).write_text("changed after the manifest\n")
    malformed = _spool(archive, "c_case", _rid(3))
    (malformed / layout.MANIFEST).write_text("{}")
    wrong_type = _spool(archive, "c_case", _rid(4))
    body = json.loads((wrong_type / layout.MANIFEST).read_text())
    body["files"][0]["bytes"] = -1
    (wrong_type / layout.MANIFEST).write_text(json.dumps(body))
    last = _spool(archive, "d_case", _rid(5))
    killed = archive.staging_dir("e_case", _rid(6))
    (killed / layout.STDOUT).write_text("no manifest, no run.lock\n")

    proc = cli("archive", "flush", archive.uri, "--json", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr  # a run was damaged, reported once every run was tried
    report = run_json(proc)
    assert [(r["case"], r["run_id"]) for r in report["flushed"]] == [("a_case", _rid(1)), ("d_case", _rid(5))]
    damaged = {r["run_id"]: r["problem"] for r in report["damaged"]}
    assert "traces.jsonl: differs from the manifest" in damaged[_rid(2)]
    assert "manifest.json: manifest_version: missing" in damaged[_rid(3)]
    assert f"c_case/{_rid(4)}: manifest.json: files[0].bytes: must be a non-negative integer" == damaged[_rid(4)]
    assert [r["run_id"] for r in report["incomplete"]] == [_rid(6)] and report["failed"] == []
    assert _stored_runs(s3, "mixed") == {("a_case", _rid(1)), ("d_case", _rid(5))}
    assert not first.exists() and not last.exists() and changed.is_dir() and malformed.is_dir() and killed.is_dir()

    again = _spool(archive, "f_case", _rid(7))
    human = cli("archive", "flush", archive.uri, cwd=tmp_path)
    assert human.returncode == 2 and "Traceback" not in human.stderr
    rows = {line.split()[0]: line for line in human.stdout.splitlines() if "_case/" in line}
    assert "flushed" in rows[f"f_case/{_rid(7)}"] and "damaged" in rows[f"b_case/{_rid(2)}"]
    assert "damaged" in rows[f"c_case/{_rid(3)}"] and "incomplete" in rows[f"e_case/{_rid(6)}"]
    assert "error: 3 run(s) not flushed" in human.stderr and not again.exists()


def test_an_unexpected_error_while_uploading_one_run_is_reported_for_that_run(s3, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/unexpected", retry_delays_s=(0.0,))
    runs = [_spool(archive, "x_case", _rid(n)) for n in (1, 2, 3)]
    real_put = archive.client.put_file

    def put_file(key, *args, **kwargs):
        if _rid(2) in key:
            raise RuntimeError("disk controller on fire")
        return real_put(key, *args, **kwargs)

    archive.client.put_file = put_file
    report = archive.flush()
    assert [r.run_id for r in report.flushed] == [_rid(1), _rid(3)]
    [failed] = report.failed
    assert failed.run_id == _rid(2) and failed.reason.startswith("unexpected RuntimeError while uploading")
    assert report.exit_code == 2 and runs[1].is_dir() and verify(runs[1]) == []


def test_an_unreachable_store_fails_each_run_quickly_and_exits_3_at_the_end(s3, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/down", retry_delays_s=(0.0,))
    runs = [_spool(archive, "x_case", _rid(n)) for n in (1, 2, 3)]
    s3.kill()
    started = time.monotonic()
    proc = cli("archive", "flush", archive.uri, "--json", cwd=tmp_path)
    elapsed = time.monotonic() - started
    assert proc.returncode == 3, proc.stderr
    report = run_json(proc)
    assert [r["run_id"] for r in report["failed"]] == [_rid(1), _rid(2), _rid(3)]
    assert "cannot connect" in report["failed"][0]["reason"] and report["failed"][0]["exit_code"] == 3
    assert all(r["reason"] == "not sent: the store is still unreachable" for r in report["failed"][1:])
    assert elapsed < 15, "one retry cycle for the first run, one quick probe for each other"
    assert all(verify(r) == [] for r in runs)

    damaged = _spool(archive, "y_case", _rid(4))
    (damaged / layout.TRACES).write_text("changed\n")
    mixed = cli("archive", "flush", archive.uri, "--json", cwd=tmp_path)
    assert mixed.returncode == 2, "a damaged run needs a person: 2 wins over 3"
    assert [r["run_id"] for r in run_json(mixed)["damaged"]] == [_rid(4)]


def test_a_run_another_process_holds_is_skipped_and_flushed_later(s3, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/held", retry_delays_s=(0.0,))
    held, free = _spool(archive, "x_case", _rid(1)), _spool(archive, "x_case", _rid(2))
    fd = os.open(held, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a flush in another process would
        proc = cli("archive", "flush", archive.uri, "--json", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        report = run_json(proc)
        assert [r["run_id"] for r in report["flushed"]] == [_rid(2)]
        assert report["skipped"] == [{"case": "x_case", "run_id": _rid(1), "path": str(held),
                                      "reason": "being flushed by another process"}]
        human = cli("archive", "flush", archive.uri, cwd=tmp_path)
        assert "being flushed by another process" in human.stdout and human.returncode == 0
    finally:
        os.close(fd)
    assert held.is_dir() and not free.exists()
    assert [r["run_id"] for r in run_json(cli("archive", "flush", archive.uri, "--json", cwd=tmp_path))["flushed"]] \
        == [_rid(1)]


def test_two_concurrent_flushes_share_the_spool_without_colliding(s3, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/concurrent", retry_delays_s=(0.0,))
    expected = {("x_case", _rid(n)) for n in range(1, 9)}
    for case, run_id in sorted(expected):
        _spool(archive, case, run_id, size=400_000)
    env = {**os.environ, "COLUMNS": "200"}
    argv = [sys.executable, "-m", "faultlib", "archive", "flush", archive.uri, "--json"]
    procs = [subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    reports = [json.loads(out) for out, _ in outputs]
    flushed = [{(r["case"], r["run_id"]) for r in rep["flushed"]} for rep in reports]
    assert not flushed[0] & flushed[1], "no run is sent by both"
    assert flushed[0] | flushed[1] == expected
    for rep in reports:
        assert rep["failed"] == [] and rep["damaged"] == []
        assert all(s["reason"] == "being flushed by another process" for s in rep["skipped"])
    assert _stored_runs(s3, "concurrent") == expected
    assert list(archive.spool.runs()) == []
    for case, run_id in expected:
        assert verify(archive.get(case, run_id, tmp_path / "got")) == []


def test_a_multipart_upload_streams_from_the_checked_file(s3, tmp_path):
    archive = S3Archive(f"s3://{BUCKET}/large", retry_delays_s=(0.0,))
    run = _spool(archive, "x_case", _rid(1), size=12 * 1024 * 1024)  # above the client's 5 MiB part size
    kept = (run / "dumps" / "state.bin").read_bytes()
    report = archive.flush()
    assert [r.run_id for r in report.flushed] == [_rid(1)] and report.exit_code == 0, report
    got = archive.get("x_case", _rid(1), tmp_path / "got")
    assert verify(got) == [] and (got / "dumps" / "state.bin").read_bytes() == kept

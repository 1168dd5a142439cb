"""manifest.json: written last, lists every file, detects tampering and loss."""

from __future__ import annotations

import hashlib
import json

from faultlib.archive import open_archive
from faultlib.archive.manifest import verify
from faultlib.evidence.seal import write_manifest
from faultlib.evidence import layout


def _run_dir(tmp_path):
    run = tmp_path / "case_a" / "20261130T000000Z-abcdef"
    (run / "dumps").mkdir(parents=True)
    (run / layout.TRACES).write_text('{"a": 1}\n')
    (run / "dumps" / "state.pt").write_bytes(b"\x00" * 1000)
    return run


def test_manifest_lists_every_file_with_size_and_sha256(tmp_path):
    run = _run_dir(tmp_path)
    files = write_manifest(run, run_id=run.name, case_id="case_a")
    body = json.loads((run / layout.MANIFEST).read_text())
    assert [f["name"] for f in body["files"]] == ["dumps/state.pt", "traces.jsonl"] == [a.name for a in files]
    entry = body["files"][0]
    assert entry["bytes"] == 1000 and entry["sha256"] == hashlib.sha256(b"\x00" * 1000).hexdigest()
    assert verify(run) == []
    assert not (run / "manifest.json.tmp").exists()


def test_verify_catches_changed_missing_and_incomplete(tmp_path):
    run = _run_dir(tmp_path)
    assert verify(run) == ["no manifest.json: the run is incomplete"]
    write_manifest(run, run_id=run.name, case_id="case_a")
    (run / layout.TRACES).write_text('{"a": 2}\n')  # same size, other content
    (run / "dumps" / "state.pt").unlink()
    problems = verify(run)
    assert "traces.jsonl: sha256 differs from the manifest" in problems
    assert "dumps/state.pt: listed in the manifest but missing" in problems


def test_file_archive_lists_complete_and_incomplete_runs(tmp_path):
    done = _run_dir(tmp_path)
    (done / layout.RUN).write_text(json.dumps({"started_at": "2026-11-30T00:00:00+00:00", "verdict": "passed"}))
    write_manifest(done, run_id=done.name, case_id="case_a")
    killed = tmp_path / "case_a" / "20261130T000001Z-123456"
    killed.mkdir()
    (killed / layout.TRACES).write_text("")
    runs = open_archive(f"file://{tmp_path}").list_runs()
    assert [(r.run_id, r.complete, r.verdict) for r in runs] == [
        (done.name, True, "passed"), (killed.name, False, None)]


def test_file_archive_get_verifies_before_copying(tmp_path):
    import pytest

    from faultlib.errors import ArchiveError

    run = _run_dir(tmp_path / "store")
    write_manifest(run, run_id=run.name, case_id="case_a")
    archive = open_archive(f"file://{tmp_path / 'store'}")
    copy = archive.get("case_a", run.name, tmp_path / "out")
    assert verify(copy) == [] and (copy / "dumps" / "state.pt").stat().st_size == 1000
    (run / layout.TRACES).write_text('{"a": 9}\n')
    with pytest.raises(ArchiveError, match="traces.jsonl: sha256 differs"):
        archive.get("case_a", run.name, tmp_path / "out2")
    assert not (tmp_path / "out2").exists()
    with pytest.raises(ArchiveError, match="no run case_a/nope"):
        archive.get("case_a", "nope", tmp_path / "out3")

"""Runs whose runner was killed (kill -9): `faultlib archive repair` finishes them (verdict `interrupted`),
`faultlib archive flush` repairs spooled ones first and uploads them, and a run whose runner is alive is
left alone ("still running"). Real runners, really killed; file:// and s3:// (real SeaweedFS)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from faultlib.archive import FileArchive, S3Archive
from faultlib.archive.manifest import verify
from faultlib.evidence import layout
from tests.conftest import cli, run_json

BUCKET = "faultlib-runs"


def _start_hanging_run(case_dir: Path, archive: str, runs: Path, cwd: Path) -> tuple[subprocess.Popen, Path]:
    """`faultlib run` of a case whose faulted phase hangs; returns once that phase runs (its run directory
    under ``runs/<case>/`` holds the faulted phase's output)."""
    proc = subprocess.Popen([sys.executable, "-m", "faultlib", "run", str(case_dir), "--archive", archive],
                            cwd=cwd, env={**os.environ, "COLUMNS": "200"}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for run_dir in runs.glob("*/*"):
            out = run_dir / layout.STDOUT
            if out.is_file() and "phase=faulted" in out.read_text(errors="replace"):
                return proc, run_dir
        assert proc.poll() is None, "the runner ended before its faulted phase"
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    pytest.fail("the faulted phase did not start within 120 s")


def _kill_runner(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def test_repair_leaves_a_live_run_alone_then_finishes_it_once_its_runner_is_killed(tiny_case, tmp_path):
    runs = tmp_path / "runs"
    proc, run_dir = _start_hanging_run(tiny_case(mode="hang"), f"file://{runs}", runs, tmp_path)
    try:
        alive = cli("archive", "repair", f"file://{runs}", "--json", cwd=tmp_path)
        assert alive.returncode == 0, alive.stderr
        report = run_json(alive)
        assert report["repaired"] == [] and [r["run_id"] for r in report["running"]] == [run_dir.name]
        assert "still running" in report["running"][0]["reason"]
        assert not (run_dir / layout.MANIFEST).exists(), "a live run is never touched"
    finally:
        _kill_runner(proc)

    listed = run_json(cli("archive", "ls", f"file://{runs}", "--json", cwd=tmp_path))["runs"]
    assert [(r["run_id"], r["complete"]) for r in listed] == [(run_dir.name, False)]
    repaired = cli("archive", "repair", f"file://{runs}", cwd=tmp_path)
    assert repaired.returncode == 0, repaired.stderr
    assert f"tiny_case/{run_dir.name}" in repaired.stdout and "verdict interrupted" in repaired.stdout
    assert verify(run_dir) == [] and not (run_dir / "run.lock").exists()
    record = json.loads((run_dir / layout.RUN).read_text())
    assert record["verdict"] == "interrupted"
    [row] = run_json(cli("archive", "ls", f"file://{runs}", "--json", cwd=tmp_path))["runs"]
    assert row["complete"] is True and row["verdict"] == "interrupted"
    assert FileArchive(runs).get("tiny_case", run_dir.name, tmp_path / "got").is_dir()
    again = run_json(cli("archive", "repair", f"file://{runs}", "--json", cwd=tmp_path))
    assert again == {"repaired": [], "running": [], "incomplete": [], "failed": [], "skipped": []}


def test_flush_repairs_a_killed_spooled_run_then_uploads_it(s3, tiny_case, tmp_path):
    uri = f"s3://{BUCKET}/killed"
    spool = tmp_path / "spool" / BUCKET / "killed"
    proc, run_dir = _start_hanging_run(tiny_case(mode="hang"), uri, spool, tmp_path)
    running = run_json(cli("archive", "flush", uri, "--json", cwd=tmp_path))
    assert running["flushed"] == [] and "still running" in running["incomplete"][0]["reason"]
    _kill_runner(proc)

    flushed = cli("archive", "flush", uri, "--json", cwd=tmp_path)  # was "nothing to flush" before
    assert flushed.returncode == 0, flushed.stderr
    report = run_json(flushed)
    assert [(r["run_id"], r["verdict"]) for r in report["repaired"]] == [(run_dir.name, "interrupted")]
    assert [r["run_id"] for r in report["flushed"]] == [run_dir.name] and not run_dir.exists()
    [row] = run_json(cli("archive", "ls", uri, "--json", cwd=tmp_path))["runs"]
    assert (row["run_id"], row["complete"], row["verdict"]) == (run_dir.name, True, "interrupted")
    assert verify(S3Archive(uri).get("tiny_case", run_dir.name, tmp_path / "got")) == []


def test_repair_of_s3_spool_and_of_a_missing_archive(s3, tmp_path):
    empty = cli("archive", "repair", f"s3://{BUCKET}/nothing", cwd=tmp_path)
    assert empty.returncode == 0 and "nothing to repair" in empty.stdout
    missing = cli("archive", "repair", f"file://{tmp_path / 'nope'}", cwd=tmp_path)
    assert missing.returncode == 2 and "no archive at" in missing.stderr
    default = cli("archive", "repair", cwd=tmp_path)  # the default archive, .faultlib/runs, does not exist here
    assert default.returncode == 2 and ".faultlib/runs" in default.stderr


def test_a_run_without_lock_is_reported_not_repaired(tmp_path):
    run = tmp_path / "runs" / "old_case" / "20261130T000000Z-000000"
    run.mkdir(parents=True)
    (run / layout.STDOUT).write_text("written by a runner without run.lock\n")
    report = FileArchive(tmp_path / "runs").repair()
    assert report.repaired == [] and "no run.lock" in report.incomplete[0].reason and report.exit_code == 0
    assert sorted(p.name for p in run.iterdir()) == [layout.STDOUT], "nothing written"

"""End to end: `faultlib run cases/preempted_training --json`: real torch training SIGKILLed twice
(mid-step, mid-checkpoint-write) and restarted by the runner; evidence verified by sha256."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import PROMETHEUS, REPO, assert_passes_without_control, cli, run_json

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")


def test_preempted_training_case_passes_with_verifiable_evidence(tmp_path):
    archive = tmp_path / "runs"
    proc = cli("run", str(REPO / "cases" / "preempted_training"), *PROMETHEUS, "--archive", f"file://{archive}",
               "--json", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    record = run_json(proc)
    assert record["verdict"] == "passed", f'{record["assertions"]}'
    assert record["control"]["findings"] == []
    assert [a["signal"] for a in record["control"]["attempts"]] == [None]
    assert [(a["exit_code"], a["signal"]) for a in record["faulted"]["attempts"]] == [
        (-9, "SIGKILL"), (-9, "SIGKILL"), (0, None)]
    detectors = sorted(f["detector"] for f in record["faulted"]["findings"])
    assert detectors == ["checkpoint_partial_write", "training_resume", "training_resume"]
    run_dir = Path(record["archive_uri"].removeprefix("file://"))
    manifest = json.loads((run_dir / "manifest.json").read_text())
    names = {f["name"] for f in manifest["files"]}
    assert "dumps/faulted/checkpoints/ckpt-000300.pt" in names
    for entry in manifest["files"]:
        data = (run_dir / entry["name"]).read_bytes()
        assert len(data) == entry["bytes"] and hashlib.sha256(data).hexdigest() == entry["sha256"], entry["name"]
    final = {phase: torch.load(run_dir / f"dumps/{phase}/checkpoints/ckpt-000300.pt", weights_only=True)
             for phase in ("control", "faulted")}
    for key, tensor in final["control"]["model"].items():  # two preemptions later, the very same weights
        assert torch.equal(tensor, final["faulted"]["model"][key]), key
    assert_passes_without_control(REPO / "cases" / "preempted_training", record, tmp_path)

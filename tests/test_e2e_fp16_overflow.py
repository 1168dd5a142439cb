"""End to end: `faultlib run cases/fp16_overflow --json` on real AMP training, evidence verified by sha256."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import PROMETHEUS, REPO, assert_passes_without_control, cli, run_json

pytest.importorskip("torch")
pytest.importorskip("sklearn")


def test_fp16_overflow_case_passes_with_verifiable_evidence(tmp_path):
    archive = tmp_path / "runs"
    proc = cli("run", str(REPO / "cases" / "fp16_overflow"), *PROMETHEUS, "--archive", f"file://{archive}", "--json",
               cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    record = run_json(proc)
    assert record["verdict"] == "passed", record["assertions"]
    assert record["control"]["findings"] == []
    detectors = [f["detector"] for f in record["faulted"]["findings"]]
    assert detectors[0] == "fp16_overflow" and "amp_circuit_breaker" in detectors
    assert record["faulted"]["findings"][0]["location"]["step"] == 120
    run_dir = Path(record["archive_uri"].removeprefix("file://"))
    manifest = json.loads((run_dir / "manifest.json").read_text())
    names = {f["name"] for f in manifest["files"]}
    assert {"run.json", "traces.jsonl", "metrics.jsonl", "metrics.prom", "logs.jsonl", "stdout.txt",
            "stderr.txt", "junit.xml"} <= names
    for entry in manifest["files"]:
        data = (run_dir / entry["name"]).read_bytes()
        assert len(data) == entry["bytes"] and hashlib.sha256(data).hexdigest() == entry["sha256"], entry["name"]
    prom = (run_dir / "metrics.prom").read_text()
    run = f'run_id="{record["run_id"]}"'
    assert f'faultlib_overflow_steps_total{{case="fp16_overflow",phase="faulted",{run},window="during"}} 5.0' in prom
    assert f'faultlib_overflow_steps_total{{case="fp16_overflow",phase="control",{run},window="none"}} 0.0' in prom
    assert_passes_without_control(REPO / "cases" / "fp16_overflow", record, tmp_path)

"""End to end: `faultlib run cases/fp16_overflow --json` on real AMP training, evidence verified by sha256;
with Prometheus installed, the case's own overflow_rate query says what the fault did (0 before the fault,
> 0 during it, 0 in the control) and the run's summary draws it (one run serves both: it is the same
`faultlib run --prometheus` either way)."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest

from tests.conftest import PROMETHEUS, REPO, assert_passes_without_control, run_json

pytest.importorskip("torch")
pytest.importorskip("sklearn")

CASE = REPO / "cases" / "fp16_overflow"


def test_fp16_overflow_case_passes_with_verifiable_evidence(catalog_run, tmp_path):
    proc = catalog_run("fp16_overflow")  # shared with tests/observability/test_validate_observability.py
    assert proc.returncode == 0, proc.stdout + proc.stderr
    record = run_json(proc)
    assert record["verdict"] == "passed", f'{record["assertions"]}'
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
    if PROMETHEUS:
        assert_the_overflow_rate_is_zero_before_positive_during_and_zero_in_the_control(record, run_dir)
    assert_passes_without_control(CASE, record, tmp_path)


def assert_the_overflow_rate_is_zero_before_positive_during_and_zero_in_the_control(record: dict, run_dir: Path):
    """The run's metrics backfilled into a real Prometheus (``--prometheus``): promql.json holds every query
    the case declares, without errors, and the summary ``faultlib run`` prints (without ``--json``) draws them."""
    from rich.console import Console

    from faultlib import schemas
    from faultlib.cli.progress import print_summary
    from faultlib.evidence import layout, read_run
    from faultlib.readers import load_yaml_file
    from faultlib.record import RunRecord

    document = json.loads((run_dir / layout.PROMQL).read_text())
    assert list(schemas.validator("promql").iter_errors(document)) == []
    declared = [q["id"] for q in load_yaml_file(CASE / "case.yaml").data["observability"]["promql"]]
    assert list(dict.fromkeys(q["id"] for q in document["queries"])) == declared
    assert all(q["error"] is None for q in document["queries"])

    evidence = read_run(run_dir)
    rate = "overflow_rate"  # the case's own query: rate(overflows[5m]) / rate(steps[5m]) by phase
    assert evidence.promql(rate, phase="faulted", window="before").max() == 0
    assert evidence.promql(rate, phase="faulted", window="during").max() > 0
    assert evidence.promql(rate, phase="control").max() == 0
    during = evidence.promql(rate, phase="faulted", window="during")
    assert during.result.end - during.result.start < 1.0, "8 steps of about a millisecond each, not the whole run"

    console = Console(record=True, width=200, file=io.StringIO())  # what `faultlib run` prints (faultlib/cli/run.py), here from --json's record
    print_summary(console, RunRecord.from_json(record), record["archive_uri"])
    lines = console.export_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("promql (Prometheus 2."))
    first, second = lines[header + 1].split(), lines[header + 2].split()
    assert first[:2] == ["overflow_rate", "control"] and first[-4:] == ["min", "0", "max", "0"]
    assert second[0] == "faulted" and second[1].count("|") == 2 and second[-4:-1] == ["min", "0", "max"]
    assert float(second[-1]) > 0

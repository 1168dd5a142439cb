"""`faultlib run cases/fp16_overflow --prometheus`: real AMP training, its metrics backfilled into a real
Prometheus, and the case's own overflow_rate query says what the fault did: 0 before the fault, > 0 during
it, 0 in the control; the summary draws it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from faultlib import schemas
from faultlib.evidence import layout, read_run
from faultlib.observability.prometheus import missing_binaries
from faultlib.readers import load_yaml_file
from tests.conftest import REPO, cli

pytest.importorskip("torch")
pytest.importorskip("sklearn")
MISSING = missing_binaries()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

CASE = REPO / "cases" / "fp16_overflow"


def test_the_overflow_rate_is_zero_before_positive_during_and_zero_in_the_control(tmp_path):
    proc = cli("run", str(CASE), "--prometheus", "--archive", f"file://{tmp_path / 'runs'}", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run_dir = Path(re.search(r"^evidence: file://(\S+)$", proc.stdout, re.M).group(1))
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

    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("promql (Prometheus 2."))
    first, second = lines[header + 1].split(), lines[header + 2].split()
    assert first[:2] == ["overflow_rate", "control"] and first[-4:] == ["min", "0", "max", "0"]
    assert second[0] == "faulted" and second[1].count("|") == 2 and second[-4:-1] == ["min", "0", "max"]
    assert float(second[-1]) > 0

"""End to end: every catalog case without its own tests/test_e2e_<id>.py passes `faultlib run --json`
with a silent control run and a verifiable manifest, and would pass `--no-control` on the same faulted
evidence (:func:`tests.conftest.assert_passes_without_control`; the cases with their own test check it there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faultlib.archive.manifest import verify
from faultlib.cases import discover
from tests.conftest import PROMETHEUS, REPO, assert_passes_without_control, cli, run_json

pytest.importorskip("torch")
pytest.importorskip("sklearn")

OWN_TEST = {p.stem.removeprefix("test_e2e_") for p in Path(__file__).parent.glob("test_e2e_*.py")}
CASES = [c for c in discover(REPO / "cases") if c.name not in OWN_TEST]


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_case_passes_with_silent_control(case_dir, tmp_path):
    proc = cli("run", str(case_dir), *PROMETHEUS, "--archive", f"file://{tmp_path / 'runs'}", "--json", cwd=tmp_path,
               timeout=600)
    record = run_json(proc)
    assert proc.returncode == 0 and record["verdict"] == "passed", (record["assertions"], record["error"])
    assert record["control"]["findings"] == [] and record["faulted"]["findings"]
    run_dir = Path(record["archive_uri"].removeprefix("file://"))
    assert verify(run_dir) == []
    if PROMETHEUS:  # every PromQL query of the case evaluates in a real Prometheus
        assert [q["error"] for q in json.loads((run_dir / "promql.json").read_text())["queries"] if q["error"]] == []
    assert_passes_without_control(case_dir, record, tmp_path)

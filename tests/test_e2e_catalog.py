"""End to end: every catalog case without its own tests/test_e2e_<id>.py passes `faultlib run --json`
with a silent control run (or one whose findings the case's own control check reported inconclusive, as the
machine's doing) and a verifiable manifest, and would pass `--no-control` on the same faulted
evidence (:func:`tests.conftest.assert_passes_without_control`; the cases with their own test check it there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faultlib.archive.manifest import verify
from faultlib.cases import discover, load_case
from tests.conftest import PROMETHEUS, REPO, assert_passes_without_control, cli, inconclusive_assertions, run_json

pytest.importorskip("torch")
pytest.importorskip("sklearn")

OWN_TEST = {p.stem.removeprefix("test_e2e_") for p in Path(__file__).parent.glob("test_e2e_*.py")}
CASES = [c for c in discover(REPO / "cases") if c.name not in OWN_TEST]


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_case_passes_with_silent_control(case_dir, tmp_path):
    proc = cli("run", str(case_dir), *PROMETHEUS, "--archive", f"file://{tmp_path / 'runs'}", "--json", cwd=tmp_path,
               timeout=600)
    record = run_json(proc)
    assert proc.returncode == 0 and record["verdict"] == "passed", f'{record["assertions"]}; {record["error"]}'
    assert record["faulted"]["findings"]
    run_dir = Path(record["archive_uri"].removeprefix("file://"))
    if record["control"]["findings"]:  # excused only by the case itself: its control check said the machine's noise
        said = inconclusive_assertions(run_dir)  # (straggler_rank: a verdict on a rank the scheduler starved)
        before = {a.id for a in load_case(case_dir).assertions if a.when == "before"}
        assert before & set(said), f'{record["control"]["findings"]}; {said}'
    assert verify(run_dir) == []
    if PROMETHEUS:  # every PromQL query of the case evaluates in a real Prometheus
        assert [q["error"] for q in json.loads((run_dir / "promql.json").read_text())["queries"] if q["error"]] == []
    assert_passes_without_control(case_dir, record, tmp_path)

"""`faultlib run CASE --no-control` passes on every case of the catalog: the assertions that need the
control (when: before, or any that read evidence.control) are skipped, the verdict is decided on
the rest, and the record says the control was skipped."""

from __future__ import annotations

import pytest

from faultlib.cases import discover, load_case
from faultlib.runner import _cuda_usable
from tests.conftest import PROMETHEUS, REPO, cli, run_json

pytest.importorskip("torch")
pytest.importorskip("sklearn")

CASES = discover(REPO / "cases")


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_case_passes_without_its_control(case_dir, tmp_path):
    case = load_case(case_dir)
    devices = case.requires.get("devices") or []
    if "cuda" in devices and "cpu" not in devices and not _cuda_usable():
        pytest.skip(f"{case.id} needs a CUDA device (requires.devices: {devices})")
    proc = cli("run", str(case_dir), "--no-control", *PROMETHEUS, "--archive", f"file://{tmp_path / 'runs'}", "--json",
               cwd=tmp_path, timeout=600)
    record = run_json(proc)
    assert proc.returncode == 0 and record["verdict"] == "passed", (record["assertions"], record["error"])
    assert record["control"]["status"] == "skipped" and record["control"]["findings"] == []
    before = {a.id for a in case.assertions if a.when == "before"}
    assert before <= set(record["assertions"]["skipped"])
    assert record["assertions"]["passed"], "a case must keep at least one assertion without its control"

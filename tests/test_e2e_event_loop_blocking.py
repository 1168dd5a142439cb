"""End to end: `faultlib run cases/event_loop_blocking --json` (instead of test_e2e_catalog's generic run):
on a loaded machine the loop watchdog's absolute 50 ms threshold can catch the scheduler holding the
loop in the control; the case then says its control check is inconclusive (faultlib.evidence.timing),
and that is all such a finding may be."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.archive.manifest import verify
from tests.conftest import PROMETHEUS, REPO, assert_passes_without_control, cli, run_json

pytest.importorskip("torch")
pytest.importorskip("aiohttp")


def test_event_loop_blocking_passes_and_its_control_is_silent_or_said_inconclusive(tmp_path):
    proc = cli("run", str(REPO / "cases" / "event_loop_blocking"), *PROMETHEUS, "--archive",
               f"file://{tmp_path / 'runs'}", "--json", cwd=tmp_path, timeout=600)
    record = run_json(proc)
    assert proc.returncode == 0 and record["verdict"] == "passed", f'{record["assertions"]}; {record["error"]}'
    control = record["control"]["findings"]
    if control:  # only the scheduler's stalls, outside the inference, and the case said so
        assert "control_silent" in record["assertions"]["skipped"], control
        assert all(f["kind"] == "loop_blocked" and f["location"].get("function") != "ModelService.infer"
                   for f in control), control
    infer = [f for f in record["faulted"]["findings"] if f["location"].get("function") == "ModelService.infer"]
    assert len(infer) == 1 and infer[0]["kind"] == "loop_blocked"
    assert verify(Path(record["archive_uri"].removeprefix("file://"))) == []
    assert_passes_without_control(REPO / "cases" / "event_loop_blocking", record, tmp_path)

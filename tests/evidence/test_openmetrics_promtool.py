"""A real run of a tiny torch-free case with an 80 ms fault window (the label_order shim): the runner
writes metrics.om before the assertion suite, seals and lists it, a repro cannot forge it, and the
real promtool backfills it into TSDB blocks whose samples are the run's snapshots."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess

import pytest

from faultlib.archive import FileArchive
from faultlib.archive.manifest import verify
from faultlib.cases import load_case
from faultlib.evidence import layout
from faultlib.runner import Runner
from tests.conftest import tiny_case_data, write_case
from tests.evidence.omtext import samples

STEPS, START, FAULTED, STEP_S = 12, 4, 4, 0.02  # the fault window: 4 steps of 20 ms

REPRO = f'''
import os, time
from pathlib import Path
from faultlib import repro


class Service:
    class_names = ["zero", "one", "two"]


with repro.context() as ctx:
    ctx.attach(Service())
    steps = ctx.evidence.counter("faultlib_tiny_steps_total", "steps run")
    latency = ctx.evidence.histogram("faultlib_tiny_latency_ms", "step latency")
    for step in range({STEPS}):
        with ctx.step(step, total={STEPS}, name="serve.request"):
            steps.add(1)
            latency.record(5.0 if ctx.faults.window(step) != "during" else 300.0)
            time.sleep({STEP_S})
    forge = ctx.params.get("forge")
    if forge and ctx.phase == "faulted":
        run = Path(os.environ["FAULTLIB_RUN_DIR"])
        if forge == "symlink":
            (run / "metrics.om").symlink_to(ctx.params["secret"])
        else:
            (run / "metrics.om").write_text('faultlib_tiny_steps_total{{window="during"}} 1e9 1\\n# EOF\\n')
    ctx.summary(done=True)
'''

# the suite runs after the runner wrote metrics.om: it reads it, as a case's test may
TEST = '''
import os
from pathlib import Path

def test_metrics_om_is_there(evidence):
    text = (Path(os.environ["FAULTLIB_EVIDENCE_DIR"]) / "metrics.om").read_text()
    assert text.endswith("# EOF\\n") and 'window="during"' in text and "1e9" not in text
'''


def _run(root, **params):
    data = tiny_case_data("om_case")
    data["inject"]["local"] = [{"shim": "label_order", "params": {"order": "reversed", "start_step": START,
                                                                   "steps": FAULTED}}]
    data["observability"]["metrics"] = ["faultlib_tiny_steps_total"]
    data["observability"]["spans"] = ["serve.request"]
    data["repro"]["params"] = params
    data["assertions"] = [{"id": "om", "when": "after", "test": "test_metrics_om_is_there", "description": "d"}]
    case = load_case(write_case(root / "cases", data, repro=REPRO, test=TEST))
    archive = FileArchive(root / "runs")
    record = Runner(archive).run(case)
    return record, archive.root / case.id / record.run_id


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("om_run"))


def test_the_runner_writes_seals_and_lists_metrics_om_before_the_suite(clean_run):
    record, run_dir = clean_run
    assert record.verdict.value == "passed", f"{record.error}; {[f.message for f in record.findings]}"
    assert record.assertions["passed"] == ["om"]
    listed = {a["name"]: a for a in json.loads((run_dir / layout.MANIFEST).read_text())["files"]}
    om = (run_dir / layout.METRICS_OM).read_bytes()
    assert listed[layout.METRICS_OM]["sha256"] == hashlib.sha256(om).hexdigest()
    assert verify(run_dir) == []
    phases = {(s.labels["phase"], s.labels["window"]) for s in samples(om.decode())}
    assert phases == {("control", "none"), ("faulted", "before"), ("faulted", "during"), ("faulted", "after")}


def _dump(data_dir, metric):
    (data_dir / "wal").mkdir(exist_ok=True)  # promtool tsdb dump opens the TSDB as Prometheus would
    out = subprocess.run(["promtool", "tsdb", "dump", f"--match={{__name__=\"{metric}\"}}", str(data_dir)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    series: dict[str, list[tuple[int, float]]] = {}
    for line in out.splitlines():
        labels, value, ms = line.rsplit(" ", 2)
        window = re.search(r'window="(\w+)"', labels).group(1)
        phase = re.search(r'phase="(\w+)"', labels).group(1)
        series.setdefault(f"{phase}/{window}", []).append((int(ms), float(value)))
    return series


@pytest.mark.skipif(shutil.which("promtool") is None,
                    reason="promtool not installed: apt-get install -y --no-install-recommends prometheus")
def test_promtool_backfills_metrics_om_into_blocks(clean_run, tmp_path):
    record, run_dir = clean_run
    data_dir = tmp_path / "tsdb"
    proc = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", str(run_dir / layout.METRICS_OM),
                           str(data_dir)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    blocks = [line.split() for line in proc.stdout.splitlines() if re.match(r"^[0-9A-Z]{26}\s", line)]
    assert blocks and sum(int(b[4]) for b in blocks) > 0, proc.stdout  # NUM SAMPLES
    steps = _dump(data_dir, "faultlib_tiny_steps_total")
    during = steps["faulted/during"]
    assert during[0][1] == 0, "the zero sample at the series' start: rate() sees the whole increase"
    assert max(v for _, v in during) == FAULTED
    assert steps["faulted/before"][-1][1] == START and steps["faulted/after"][-1][1] == STEPS - START - FAULTED
    assert steps["control/none"][-1][1] == STEPS
    for points in steps.values():  # exact milliseconds, increasing
        assert [ms for ms, _ in points] == sorted({ms for ms, _ in points})
    # the boundary snapshot: the during series reached its total within the fault window, not a period later
    ends = min(ms for ms, v in during if v == FAULTED)
    assert ends - during[0][0] < 1000 * (FAULTED * STEP_S + 0.5)
    buckets = _dump(data_dir, "faultlib_tiny_latency_ms_count")
    assert buckets["faulted/during"][-1][1] == FAULTED


@pytest.mark.parametrize("forge, kind", [("symlink", "symbolic link"), ("file", "regular file")])
def test_a_repro_cannot_forge_metrics_om(tmp_path, forge, kind):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"never archived\n")
    record, run_dir = _run(tmp_path, forge=forge, secret=str(secret))
    assert record.assertions["passed"] == ["om"], "the suite read the runner's metrics.om"
    moved = [f for f in record.findings if f.kind == "moved_aside" and f.location["file"] == layout.METRICS_OM]
    assert len(moved) == 1 and kind in moved[0].message, f"{[f.message for f in record.findings]}"
    assert record.verdict.value == "error"
    assert (run_dir / layout.METRICS_OM).is_file() and not (run_dir / layout.METRICS_OM).is_symlink()
    assert secret.read_bytes() == b"never archived\n"
    listed = json.loads((run_dir / layout.MANIFEST).read_text())["files"]
    assert hashlib.sha256(b"never archived\n").hexdigest() not in {a["sha256"] for a in listed}
    assert verify(run_dir) == []

"""Shared fixtures: small real case directories (torch-free, fast) and a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"  # the project's shared folder beside the checkout (CI has it; a plain clone may not)
CRDS = SHARED / "chaos-mesh-crds"
needs_crds = pytest.mark.skipif(not CRDS.is_dir(), reason=f"the real Chaos Mesh CRD schemas are not at {CRDS}: "
                                "put a copy of Chaos Mesh's config/crd/bases there to run these tests")

TINY_REPRO = '''
import os, sys, time
from faultlib import repro
from faultlib.findings import Finding

with repro.context() as ctx:
    mode = ctx.params.get("mode", "ok")
    steps = ctx.params.get("steps", 5)
    counter = ctx.evidence.counter("faultlib_tiny_steps_total", "steps run")
    for step in range(steps):
        with ctx.step(step, total=steps) as span:
            span.set(value=step * 2)
            counter.add(1)
    if ctx.phase == "faulted" and ctx.params.get("report"):
        ctx.report(Finding("tiny", "warning", "tiny detector fired", {"step": steps - 1}))
    print(f"phase={ctx.phase} pid={os.getpid()}")
    if mode == "crash" and ctx.phase == "faulted":
        raise RuntimeError("tiny repro crashed on purpose")
    if mode == "hang" and ctx.phase == "faulted":
        time.sleep(600)
    ctx.summary(done=True, steps=steps)
'''

TINY_TEST = '''
def test_steps_recorded(evidence, case_params):
    for phase in (evidence.control, evidence.faulted):
        assert [s.attributes["value"] for s in phase.steps()] == [i * 2 for i in range(case_params.get("steps", 5))]

def test_control_silent(evidence):
    assert evidence.control.findings == []

def test_always_fails_when_asked(case_params):
    assert not case_params.get("fail_assertion")
'''


def tiny_case_data(case_id: str = "tiny_case") -> dict:
    return {
        "id": case_id, "version": "0.1.0", "title": "tiny torch-free case for runner tests",
        "fault_class": "infra.tiny", "severity": "warning",
        "requires": {"python": ">=3.10", "packages": {"pyyaml": ">=5"}},
        "repro": {"script": "repro.py", "seed": 3, "timeout_s": 60, "params": {"steps": 5}},
        "inject": {"local": [], "kubernetes": {"twin": None, "reason": "test case"}},
        "observability": {
            "promql": [{"id": "steps", "query": "sum(faultlib_tiny_steps_total)"}],
            "grafana": {"dashboard_uid": "faultlib-test", "panels": [{"id": 1, "title": "Steps", "query": "steps"}]},
            "spans": ["train.step"]},
        "topology": {"compose": "compose.yaml"},
        "assertions": [
            {"id": "steps_recorded", "when": "continuous", "test": "test_steps_recorded", "description": "d"},
            {"id": "control_silent", "when": "before", "test": "test_control_silent", "description": "d"},
            {"id": "asked_to_fail", "when": "after", "test": "test_always_fails_when_asked", "description": "d"}],
        "references": ["https://example.org/tiny"],
    }


def write_case(root: Path, data: dict, *, repro: str = TINY_REPRO, test: str = TINY_TEST) -> Path:
    case_dir = root / data["id"]
    case_dir.mkdir(parents=True, exist_ok=True)
    (case_dir / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (case_dir / "repro.py").write_text(textwrap.dedent(repro))
    (case_dir / "test_case.py").write_text(textwrap.dedent(test))
    (case_dir / "compose.yaml").write_text("services:\n  tiny:\n    image: python:3.11-slim\n")
    return case_dir


@pytest.fixture
def tiny_case(tmp_path):
    """Factory: ``tiny_case(**params)`` writes a tiny case with those repro params and returns its dir."""

    def make(case_id: str = "tiny_case", **params) -> Path:
        data = tiny_case_data(case_id)
        data["repro"]["params"].update(params)
        return write_case(tmp_path / "cases", data)

    return make


def cli(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python -m faultlib ARGS`` black-box in ``cwd``."""
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "faultlib", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def run_json(proc: subprocess.CompletedProcess) -> dict:
    return json.loads(proc.stdout)

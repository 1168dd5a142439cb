"""End to end: gpu_memory_fragmentation needs a CUDA device (``requires.devices: [cuda]``).

On a machine with one, `faultlib run` must pass with a silent control. Without one the run is skipped,
saying so, and the runner must refuse the case cleanly (exit 2 naming ``requires.devices``) before
writing anything; the case's offline analysis is covered in tests/detect/test_memory.py and
tests/check/test_check_memory.py. This file also keeps the case out of tests/test_e2e_catalog.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faultlib.archive.manifest import verify
from tests.conftest import PROMETHEUS, REPO, assert_passes_without_control, cli, cli_in_process, run_json

CASE = REPO / "cases" / "gpu_memory_fragmentation"


def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


NO_CUDA = "gpu_memory_fragmentation needs a CUDA device (requires.devices: [cuda]); torch.cuda.is_available() is False"


@pytest.mark.skipif(not _cuda(), reason=NO_CUDA)
def test_case_passes_with_silent_control_on_cuda(tmp_path):
    proc = cli("run", str(CASE), *PROMETHEUS, "--archive", f"file://{tmp_path / 'runs'}", "--json", cwd=tmp_path,
               timeout=900)
    record = run_json(proc)
    assert proc.returncode == 0 and record["verdict"] == "passed", f'{record["assertions"]}; {record["error"]}'
    assert record["control"]["findings"] == [] and record["faulted"]["findings"]
    assert verify(Path(record["archive_uri"].removeprefix("file://"))) == []
    assert_passes_without_control(CASE, record, tmp_path)


@pytest.mark.skipif(_cuda(), reason="a CUDA device is present: the case runs instead")
def test_without_cuda_the_runner_refuses_the_case_naming_requires_devices(tmp_path):
    archive = tmp_path / "runs"
    # in process: the refusal is the runner's, not the interpreter's (a fresh one would import torch again to ask)
    proc = cli_in_process("run", str(CASE), "--archive", f"file://{archive}", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "requires.devices" in proc.stderr and "CUDA" in proc.stderr and "Traceback" not in proc.stderr
    as_json = cli_in_process("run", str(CASE), "--archive", f"file://{archive}", "--json", cwd=tmp_path)
    assert as_json.returncode == 2
    error = json.loads(as_json.stdout)
    assert error["field"] == "requires.devices" and "CUDA" in error["message"]
    assert not (archive / "gpu_memory_fragmentation").exists()


def test_the_case_validates_and_lists_without_a_gpu(tmp_path):
    proc = cli_in_process("validate", str(CASE), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    listed = cli_in_process("list", str(REPO / "cases"), "--fault-class", "serving.gpu", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "gpu_memory_fragmentation" in listed.stdout

"""`faultlib check memory SNAPSHOT.pickle [--png OUT.png]` in a temp directory, on snapshots written by the case's
example script: exit codes 0/1/2, JSON fields, the heatmap, and files that are not what they claim. The human output
is checked black-box (its own process); the rest calls the same entry in this process
(:func:`tests.conftest.cli_in_process`: a fresh interpreter per call imported the readers and the plotting again)."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import pytest

from tests.conftest import REPO, cli, cli_in_process

MAKE = REPO / "cases" / "gpu_memory_fragmentation" / "examples" / "make_snapshot.py"
FIELDS = {"detector", "ok", "findings", "snapshot", "device", "state", "timeline", "peak", "events",
          "unusable_free_memory", "ooms", "cache_flush", "thresholds", "png"}


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory):
    root = tmp_path_factory.mktemp("snapshots")
    for name, extra in (("fragmented", []), ("healthy", ["--healthy"])):
        proc = subprocess.run([sys.executable, str(MAKE), str(root / f"{name}.pickle"), *extra], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
    return root


def check(*args, cwd):
    return cli_in_process("check", "memory", *args, cwd=cwd)


def test_a_fragmented_snapshot_exits_1_with_its_heatmap(snapshots, tmp_path):
    proc = check(str(snapshots / "fragmented.pickle"), "--png", "heat.png", "--json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == FIELDS and out["ok"] is False and out["png"] == "heat.png"
    assert {f["kind"] for f in out["findings"]} == {"fragmented_memory", "unusable_free_memory", "cuda_oom",
                                                    "cache_flush"}
    assert out["state"]["fragmentation"] >= out["thresholds"]["fragmentation"] == 0.15
    assert out["snapshot"]["trace_entries"] > 4000 and out["snapshot"]["devices"] == [0]
    assert len(out["timeline"]) == 240 and out["unusable_free_memory"]["count"] > 0
    assert (tmp_path / "heat.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heat.png"]
    human = cli("check", "memory", str(snapshots / "fragmented.pickle"), cwd=tmp_path, timeout=120)
    assert human.returncode == 1 and "unusable_free_memory" in human.stdout and "fragmentation:" in human.stdout


def test_a_healthy_snapshot_exits_0(snapshots, tmp_path):
    proc = check(str(snapshots / "healthy.pickle"), "--json", "--fail-on", "info", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is True and out["findings"] == [] and out["png"] is None
    assert out["state"]["fragmentation"] < 0.05


def test_thresholds_and_fail_on(snapshots, tmp_path):
    proc = check(str(snapshots / "fragmented.pickle"), "--json", "--threshold", "0.9", "--fail-on", "critical",
                 cwd=tmp_path)
    out = json.loads(proc.stdout)
    assert "fragmented_memory" not in {f["kind"] for f in out["findings"]}
    assert proc.returncode == 1  # the OOMs are critical
    assert check(str(snapshots / "fragmented.pickle"), "--threshold", "0", cwd=tmp_path).returncode == 2


class _Opens:
    """Unpickling this calls open(path, "w"): what an unsafe loader would run."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_an_unsafe_pickle_exits_2_naming_the_global_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    (tmp_path / "evil.pickle").write_bytes(pickle.dumps({"segments": [_Opens(str(marker))], "device_traces": []}))
    proc = check("evil.pickle", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "unsafe pickle" in proc.stderr and "io.open" in proc.stderr and "Traceback" not in proc.stderr
    assert not marker.exists()
    as_json = check("evil.pickle", "--json", cwd=tmp_path)
    assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"] == "InputError"


def test_truncated_trailing_and_foreign_files_exit_2(snapshots, tmp_path):
    data = (snapshots / "fragmented.pickle").read_bytes()
    (tmp_path / "cut.pickle").write_bytes(data[: len(data) // 3])
    (tmp_path / "tail.pickle").write_bytes(data + b"PK\x03\x04")
    (tmp_path / "list.pickle").write_bytes(pickle.dumps([{"address": 0}]))
    (tmp_path / "text.pickle").write_text("segments: []\n")
    for name, phrase in (("cut.pickle", "truncated"), ("tail.pickle", "4 bytes after the end of the pickle"),
                         ("list.pickle", "not a memory snapshot"), ("text.pickle", "not a readable pickle"),
                         ("missing.pickle", "file not found")):
        proc = check(name, cwd=tmp_path)
        assert proc.returncode == 2, f"{name}; {proc.stdout}"
        assert f"{name}:" in proc.stderr and phrase in proc.stderr, f"{name}; {proc.stderr}"
        assert "Traceback" not in proc.stderr


def test_bad_png_paths_and_devices_exit_2_before_writing(snapshots, tmp_path):
    snap = str(snapshots / "fragmented.pickle")
    for png, phrase in (("nowhere/heat.png", "does not exist"), ("heat.svg", "ending in .png")):
        proc = check(snap, "--png", png, cwd=tmp_path)
        assert proc.returncode == 2 and phrase in proc.stderr, proc.stderr
    proc = check(snap, "--device", "3", cwd=tmp_path)
    assert proc.returncode == 2 and "device 3" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_kinds_are_listed():
    proc = cli_in_process("check", "--list-kinds", "--json", cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert {"fragmented_memory", "unusable_free_memory", "cuda_oom", "cache_flush",
            "incomplete_trace"} == set(json.loads(proc.stdout)["memory"])

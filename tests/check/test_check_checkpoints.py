"""`faultlib check checkpoints` black-box: a run directory with complete, cut-off and foreign files; exit codes
0/1/2, the JSON fields, where to resume; files with unsafe globals are named, never unpickled."""

from __future__ import annotations

import argparse
import json
import pickle

import pytest

from tests.conftest import cli

torch = pytest.importorskip("torch")
nn = torch.nn

FIELDS = {"detector", "ok", "findings", "files", "order", "newest", "newest_loadable"}
FILE_FIELDS = {"file", "loads", "format", "bytes", "kind", "message", "unsafe_globals", "step", "saved_step"}


class Boom:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """``run/``: checkpoints of steps 100, 200 (complete) and 300 (cut off mid-write); ``bad/``: foreign files."""
    root = tmp_path_factory.mktemp("checkpoints_check")
    run, bad, good = root / "run", root / "bad", root / "good"
    for directory in (run, bad, good):
        directory.mkdir()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 8), nn.ReLU(), nn.Linear(8, 10))
    for step in (100, 200, 300):
        torch.save({"model": model.state_dict(), "step": step}, run / f"ckpt-{step:06d}.pt")
        torch.save({"model": model.state_dict(), "step": step}, good / f"ckpt-{step:06d}.pt")
    newest = run / "ckpt-000300.pt"
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    (bad / "empty.pt").write_bytes(b"")
    torch.save({"model": model.state_dict(), "args": argparse.Namespace(lr=0.1)}, bad / "namespace.pt")
    (bad / "evil.pkl").write_bytes(pickle.dumps(Boom(root / "EXECUTED")))
    return root


def check(cwd, *args):
    proc = cli("check", "checkpoints", *args, cwd=cwd, timeout=180)
    return proc, (json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None)


def test_a_run_with_a_cut_off_newest_checkpoint_exits_1_and_names_where_to_resume(run_dir):
    proc, out = check(run_dir, "run", "--json")
    assert proc.returncode == 1, proc.stderr
    assert set(out) == FIELDS and all(set(f) == FILE_FIELDS for f in out["files"])
    assert out["order"] == "step" and out["newest"] == "run/ckpt-000300.pt"
    assert out["newest_loadable"] == {"file": "run/ckpt-000200.pt", "step": 200, "saved_step": 200}
    assert [(f["file"], f["loads"], f["kind"]) for f in out["files"]] == [
        ("run/ckpt-000300.pt", False, "truncated"), ("run/ckpt-000200.pt", True, None),
        ("run/ckpt-000100.pt", True, None)]
    assert [f["kind"] for f in out["findings"]] == ["truncated", "newest_not_loadable"]
    assert out["findings"][0]["location"] == {"file": "run/ckpt-000300.pt"}
    human = check(run_dir, "run")[0]
    assert human.returncode == 1 and "resume from: run/ckpt-000200.pt (step 200)" in human.stdout
    assert "2 of 3 load" in human.stdout


def test_every_file_loads_exits_0_and_foreign_files_are_named(run_dir, capsys):
    from faultlib.cli.app import main

    def in_process(*args):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exited:
            main(["check", "checkpoints", *args])
        captured = capsys.readouterr()
        return exited.value.code, captured.out, captured.err

    code, out, _ = in_process(str(run_dir / "good"), "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["findings"] == []
    assert report["newest_loadable"]["step"] == 300
    code, out, _ = in_process(str(run_dir / "bad" / "empty.pt"), str(run_dir / "bad" / "namespace.pt"),
                              str(run_dir / "bad" / "evil.pkl"), "--json")
    report = json.loads(out)
    assert code == 1 and report["newest_loadable"] is None
    kinds = {f["file"].rsplit("/", 1)[1]: f["kind"] for f in report["files"]}
    assert kinds == {"empty.pt": "empty_file", "namespace.pt": "unsafe_globals", "evil.pkl": "unsafe_globals"}
    namespace = next(f for f in report["files"] if f["file"].endswith("namespace.pt"))
    assert namespace["unsafe_globals"] == ["argparse.Namespace"] and namespace["format"] == "torch_zip"
    assert report["findings"][-1]["kind"] == "no_loadable_checkpoint"
    assert report["findings"][-1]["severity"] == "critical"
    assert not (run_dir / "EXECUTED").exists(), "a pickle was unpickled"
    code, out, _ = in_process(str(run_dir / "run"), "--json", "--fail-on", "critical")
    assert code == 0 and json.loads(out)["ok"] is True
    code, _, err = in_process(str(run_dir / "nope"))
    assert code == 2 and "nope: file not found" in err
    (run_dir / "empty_dir").mkdir(exist_ok=True)
    code, _, err = in_process(str(run_dir / "empty_dir"))
    assert code == 2 and "holds no checkpoint files" in err
    code, _, err = in_process()
    assert code == 2 and "Missing argument" in err

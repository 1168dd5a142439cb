"""torchrun's command line is split without importing torch, exactly as torch's own parser splits it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from faultlib.trace import torchrun_args
from tests.conftest import REPO

COMMANDS = [
    ["train.py"],
    ["--nproc-per-node", "2", "train.py", "--lr", "0.1"],
    ["--nproc_per_node=4", "--nnodes", "1", "--master-port", "29511", "train.py", "-m", "x"],
    ["--standalone", "--nnodes=1:2", "--nproc-per-node", "auto", "--rdzv-conf", "a=1", "train.py"],
    ["-t3", "-r", "1", "--log-dir", "logs", "--max-restarts", "2", "--monitor-interval", "0.5", "train.py", "a", "--"],
    ["--nproc-per-node", "2", "--", "train.py", "--nproc-per-node", "8"],
    ["-m", "pkg.train"],
    ["--no-python", "--run-path", "train.py"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_the_split_agrees_with_torchruns_own_parser(argv, monkeypatch):
    pytest.importorskip("torch")
    from torch.distributed.run import get_args_parser

    for name in ("PET_NPROC_PER_NODE", "PET_NNODES", "PET_MODULE", "PET_NO_PYTHON", "PET_RUN_PATH"):
        monkeypatch.delenv(name, raising=False)
    quick = torchrun_args.split(argv)
    theirs = get_args_parser().parse_args(argv)
    assert quick is not None
    assert (quick.script, quick.script_args) == (theirs.training_script, theirs.training_script_args)
    assert (quick.nproc_per_node, quick.nnodes) == (str(theirs.nproc_per_node), str(theirs.nnodes))
    assert quick.refused == [n for n in ("module", "no_python", "run_path") if getattr(theirs, n)]
    assert "--" not in quick.options and quick.options == argv[:len(quick.options)]


def test_what_the_table_cannot_take_exactly_goes_to_torchs_parser(monkeypatch):
    for argv in (["--nproc", "2", "train.py"], ["--some-new-option", "1", "train.py"], ["--max-restarts", "x", "t.py"],
                 ["--nproc-per-node"], [], ["train.py", "--", "x"]):
        assert torchrun_args.split(argv) is None, argv
    monkeypatch.setenv("PET_MODULE", "1")
    assert torchrun_args.split(["train.py"]) is None
    monkeypatch.delenv("PET_MODULE")
    monkeypatch.setenv("PET_NPROC_PER_NODE", "3")
    assert torchrun_args.split(["train.py"]).nproc_per_node == "3"


def test_resolving_a_torchrun_command_does_not_import_torch(tmp_path):
    (tmp_path / "train.py").write_text("print('hi')\n")
    code = ("import sys; from faultlib.trace.world import resolve_world; "
            "print(resolve_world(['torchrun', '--nproc-per-node', '2', 'train.py', '--x'])[1:]); "
            "print('torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["(['--nproc-per-node', '2'], PosixPath('train.py'), ['--x'])", "False"]

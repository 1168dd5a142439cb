"""`faultlib check batching`: real digits sequences saved as NPY, exit codes 0/1/2, JSON fields. The first test
runs the command black-box (its own process: the user's print lands on stderr, --json stays one object); the
others call the same entry in this process (:func:`tests.conftest.cli_in_process`: each fresh interpreter would
import torch again, about 2.5 s of CPU)."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from tests.conftest import cli, cli_in_process

pytest.importorskip("torch")
pytest.importorskip("sklearn")

DATASET = '''
import numpy as np
import torch
from pathlib import Path
from torch.utils.data import Dataset

HERE = Path(__file__).parent
print("loading digits columns")          # user output must not break --json


class DigitColumns(Dataset):
    def __init__(self):
        data = np.load(HERE / "digits.npz")
        self.images, self.labels = data["images"], data["labels"]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        columns = self.images[i].T
        ink = np.nonzero(columns.sum(1) > 0)[0]
        return torch.from_numpy(np.ascontiguousarray(columns[ink[0]:ink[-1] + 1])), int(self.labels[i])


def make_fixed():
    ds = DigitColumns()
    ds.__class__ = type("Fixed", (DigitColumns,), {"__getitem__": lambda self, i: (
        torch.from_numpy(self.images[i]), int(self.labels[i]))})
    return ds


def pad(batch):
    from faultlib.remedies import pad_collate
    return pad_collate(batch)


def empty():
    return []


def broken():
    raise RuntimeError("cannot reach the bucket")


def loader():
    from torch.utils.data import DataLoader
    return DataLoader(DigitColumns(), batch_size=4)


NOT_CALLABLE = 3
'''


@pytest.fixture
def project(tmp_path):
    from sklearn.datasets import load_digits

    digits = load_digits()
    np.savez(tmp_path / "digits.npz", images=(digits.images[:300] / 16).astype(np.float32),
             labels=digits.target[:300])
    (tmp_path / "data.py").write_text(textwrap.dedent(DATASET))
    return tmp_path


def _json(proc):
    return json.loads(proc.stdout)


def test_default_collate_fails_where_the_loader_would(project):
    proc = cli("check", "batching", "data.py:DigitColumns", "--batch-size", "16", "--shuffle-seed", "0", "--json",
               cwd=project)
    assert proc.returncode == 1, proc.stderr
    out = _json(proc)
    assert out["detector"] == "batching" and out["ok"] is False
    assert {"failing_batches", "first_mismatch", "varying_dim", "padding_waste", "lengths"} <= set(out)
    first = out["first_mismatch"]
    assert set(first) >= {"dataset_index", "entry_in_batch", "shape", "reference_shape", "batch"}
    assert out["varying_dim"] == 0 and out["failing_batches"][0] == first["batch"]
    [finding] = out["findings"]
    assert finding["kind"] == "unstackable_batch" and finding["location"]["file"] == "data.py"
    assert finding["location"]["function"] == "DigitColumns" and finding["location"]["index"] == first["dataset_index"]
    waste = out["padding_waste"]
    assert waste["bucketed"]["fraction"] < waste["pad_to_batch_max"]["fraction"]
    assert "loading digits columns" in proc.stderr


def test_pad_collate_passes_and_fixed_shapes_pass(project):
    proc = cli_in_process("check", "batching", "data.py:DigitColumns", "--batch-size", "16", "--collate", "data.py:pad",
               cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "padding waste" in proc.stdout and "batching: ok" in proc.stdout
    proc = cli_in_process("check", "batching", "data.py:make_fixed", "--batch-size", "32", "--json", cwd=project)
    assert proc.returncode == 0 and _json(proc)["varying_dim"] is None


def test_fail_on_and_max_batches(project):
    proc = cli_in_process("check", "batching", "data.py:DigitColumns", "--batch-size", "16", "--max-batches", "2",
               "--fail-on", "critical", "--json", cwd=project)
    out = _json(proc)
    assert proc.returncode == 0 and out["ok"] is True and out["batches_checked"] == 2 and out["findings"]


@pytest.mark.parametrize("target,extra,message", [
    ("data.txt:DigitColumns", [], "not a Python file"),
    ("missing.py:DigitColumns", [], "file not found"),
    ("data.py:Nope", [], "defines no 'Nope'"),
    ("data.py:NOT_CALLABLE", [], "NAME must be a Dataset class"),
    ("data.py:broken", [], "broken() raised RuntimeError: cannot reach the bucket"),
    ("data.py:empty", [], "no samples"),
    ("data.py:loader", [], "returned a DataLoader"),
    ("data.py", [], "FILE.py:NAME"),
    ("data.py:DigitColumns", ["--collate", "data.py:nothing"], "defines no 'nothing'"),
])
def test_bad_input_exits_2_naming_the_file(project, target, extra, message):
    (project / "data.txt").write_text("not python")
    proc = cli_in_process("check", "batching", target, "--batch-size", "4", *extra, cwd=project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert target.split(":")[0].split("/")[-1] in proc.stderr or "FILE.py" in proc.stderr


def test_syntax_and_import_errors_name_the_line(project):
    (project / "bad.py").write_text("import os\n\ndef f(:\n    pass\n")
    proc = cli_in_process("check", "batching", "bad.py:f", "--batch-size", "4", "--json", cwd=project)
    assert proc.returncode == 2
    error = _json(proc)
    assert error["file"].endswith("bad.py") and error["line"] == 3 and "invalid Python" in error["message"]
    (project / "boom.py").write_text("x = 1\nraise ImportError('no module named secretsauce')\n")
    proc = cli_in_process("check", "batching", "boom.py:x", "--batch-size", "4", cwd=project)
    assert proc.returncode == 2 and "boom.py:2" in proc.stderr and "secretsauce" in proc.stderr


def test_bad_usage_exits_2(project):
    proc = cli_in_process("check", "batching", "data.py:DigitColumns", cwd=project)
    assert proc.returncode == 2 and "--batch-size" in proc.stderr
    proc = cli_in_process("check", "batching", "data.py:DigitColumns", "--batch-size", "0", cwd=project)
    assert proc.returncode == 2


def test_kinds_are_listed(project):
    proc = cli_in_process("check", "--list-kinds", "--json", cwd=project)
    assert proc.returncode == 0
    kinds = _json(proc)
    assert set(kinds["batching"]) == {"unstackable_batch", "collate_error", "sample_error", "mixed_dtypes"}
    assert "dst_local_time" in kinds["align"]

"""`faultlib trace` names the samples of a NaN already in a DataLoader's batch: the batch rows that hold it, their
indices in the dataset, and the worker process that loaded them (None for a loader without workers)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli

pytest.importorskip("torch")

READINGS = '''
import sys
import torch
from torch import nn


class Readings(torch.utils.data.Dataset):
    """Sensor readings; reading 29 came back from the device as NaN."""

    def __len__(self):
        return 48

    def __getitem__(self, i):
        x = torch.full((6,), float(i % 7) / 7)
        if i == 29:
            x = x / 0.0 * 0.0
        return x, torch.tensor([float(i % 2)])


torch.manual_seed(5)
loader = torch.utils.data.DataLoader(Readings(), batch_size=8, shuffle=True, num_workers=int(sys.argv[1]))
net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
for x, y in loader:  # SGD by hand: torch.optim's first use imports torch._dynamo (about 1.5 s of CPU a process)
    net.zero_grad()
    nn.functional.mse_loss(net(x), y).backward()
    with torch.no_grad():
        for p in net.parameters():
            p -= 0.05 * p.grad
'''


@pytest.mark.parametrize("workers", [2, 0])
def test_a_nan_in_a_loaded_batch_names_its_rows_dataset_indices_and_worker(tmp_path, workers):
    (tmp_path / "readings.py").write_text(READINGS)
    proc = cli("trace", "--out", "report.json", "--quiet-replay", "--", "python", "readings.py", str(workers),
               cwd=tmp_path)  # one run, both reports: JSON to the file, the table on stdout
    assert proc.returncode == 1, proc.stderr
    first = json.loads((tmp_path / "report.json").read_text())["first_nonfinite"]
    assert (first["source"], first["input"]) == ("input", "args[0] of Sequential.forward"), first
    samples = first["samples"]
    assert samples["dataset_indices"] == [29] and len(samples["rows"]) == 1, samples
    assert samples["worker"] in ((0, 1) if workers else (None,)), samples
    assert first["tensor"]["nan"] == 6  # the one reading's six values
    said = " ".join(proc.stdout.split())  # the table, whatever its width
    where = f"DataLoader worker {samples['worker']}" if workers else "loaded in the main process"
    assert f"= dataset index(es) 29, {where}" in said, proc.stdout

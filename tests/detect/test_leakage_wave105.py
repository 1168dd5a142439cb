"""Kinds of issue 17's held-out wave 105 (intrusion detection, malware and log anomaly projects), both directions.
Every example is a small project written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from tests.detect.test_leakage_crossmodule import _alarms, _write


def _levels(root: Path, entry: str) -> set[tuple[str, str, int, str]]:
    report, _ = analyze_file(str(root / entry))
    return {(f.kind, Path(f.location.get("file", "")).name, f.location.get("line"), f.severity.name.lower())
            for f in report.findings if f.kind != "analysis_incomplete"}


# --- A: a scaler refitted on the test file, scored by a PyTorch network trained in a hand-written loop --------------

SENSOR_PREP = """\
import numpy as np
from sklearn.preprocessing import MinMaxScaler


def read(path):
    return np.loadtxt(path, delimiter=",")


def rescale(block):
    block = block.astype(float)
    return MinMaxScaler().fit_transform(block)
"""

SENSOR_NET = """\
import torch.nn as nn


class Detector(nn.Module):
    def __init__(self, width, classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, 32), nn.ReLU(), nn.Linear(32, classes))

    def forward(self, batch):
        return self.body(batch)
"""

SENSOR_MAIN = """\
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from sklearn.metrics import f1_score
import prep
from net import Detector

train_part = prep.read(sys.argv[1])
test_part = prep.read(sys.argv[2])
train_x, train_y = train_part[:, :-1], train_part[:, -1]
test_x, test_y = test_part[:, :-1], test_part[:, -1]
train_x = prep.rescale(train_x)
test_x = prep.rescale(test_x)
xs = torch.from_numpy(train_x).float()
ys = torch.from_numpy(train_y).long()
xh = torch.from_numpy(test_x).float()
det = Detector(xs.shape[1], 2).to("cpu")
step = optim.SGD(det.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
for rnd in range(20):
    step.zero_grad()
    crit(det(xs), ys).backward()
    step.step()
det.eval()
guess = det(xh).detach().numpy().argmax(axis=1)
print(f1_score(test_y, guess))
"""


def test_scaler_refitted_on_test_file_before_a_torch_network_is_a_warning(tmp_path):
    _write(tmp_path, {"prep.py": SENSOR_PREP, "net.py": SENSOR_NET, "main.py": SENSOR_MAIN})
    assert ("fit_on_test", "prep.py", 11) in _alarms(tmp_path, "main.py")


def test_torch_network_fed_rows_scaled_by_the_training_fit_is_silent(tmp_path):
    healthy = SENSOR_MAIN.replace("train_x = prep.rescale(train_x)\ntest_x = prep.rescale(test_x)\n",
                                  "from sklearn.preprocessing import MinMaxScaler\nmm = MinMaxScaler().fit(train_x)\n"
                                  "train_x = mm.transform(train_x)\ntest_x = mm.transform(test_x)\n")
    _write(tmp_path, {"prep.py": SENSOR_PREP, "net.py": SENSOR_NET, "main.py": healthy})
    assert not _alarms(tmp_path, "main.py")


def test_untrained_torch_module_on_rescaled_test_rows_stays_info(tmp_path):
    # nobody hands the network's parameters to an optimizer: a frozen projection drawn for a plot, no model scored
    frozen = SENSOR_MAIN.split("step = optim")[0] + "import matplotlib.pyplot as plt\nplt.plot(det(xh).detach().numpy())\n"
    _write(tmp_path, {"prep.py": SENSOR_PREP, "net.py": SENSOR_NET, "main.py": frozen})
    assert ("fit_on_test", "prep.py", 11, "info") in _levels(tmp_path, "main.py")

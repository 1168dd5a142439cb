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


def test_torch_network_scoring_through_a_method_of_its_own_class_is_a_warning(tmp_path):
    # det.classify(x) runs forward inside the project's own method: the rows still reach the trained network
    net = SENSOR_NET + """
    def classify(self, batch):
        return self.forward(batch).argmax(dim=1)
"""
    main = SENSOR_MAIN.replace('Detector(xs.shape[1], 2).to("cpu")', "Detector(xs.shape[1], 2)").replace(
        "guess = det(xh).detach().numpy().argmax(axis=1)", "guess = det.classify(xh).numpy()")
    _write(tmp_path, {"prep.py": SENSOR_PREP, "net.py": net, "main.py": main})
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


# --- C: a novelty detector fitted on one class, scored on every row of its table, in a program that holds nothing out

FLOW_DETECTOR = """\
import pandas as pd
from sklearn.ensemble import IsolationForest
from sklearn.metrics import recall_score

flows = pd.read_csv("flows.csv")
flows["label"] = (flows["verdict"] != "benign").astype(int)
benign = flows[flows["label"] == 0]
features = benign.drop(columns=["verdict", "label"])
every_flow = flows.drop(columns=["verdict", "label"])
y_flows = flows["label"]
iso = IsolationForest(n_estimators=50, random_state=0)
iso.fit(features)
flagged = iso.predict(every_flow)
flagged = [1 if v == -1 else 0 for v in flagged]
print(recall_score(y_flows, flagged))
"""


def test_detector_fitted_on_one_class_scored_on_every_row_is_trained_on_test(tmp_path):
    _write(tmp_path, {"detect.py": FLOW_DETECTOR})
    assert ("trained_on_test", "detect.py", 12) in _alarms(tmp_path, "detect.py")


def test_detector_fitted_on_one_class_scored_on_a_held_out_split_is_silent(tmp_path):
    held = FLOW_DETECTOR.replace(
        'benign = flows[flows["label"] == 0]\n',
        'from sklearn.model_selection import train_test_split\n'
        'flows, flows_test = train_test_split(flows, test_size=0.3, random_state=0)\n'
        'benign = flows[flows["label"] == 0]\n').replace(
        'every_flow = flows.drop(columns=["verdict", "label"])',
        'every_flow = flows_test.drop(columns=["verdict", "label"])').replace(
        'y_flows = flows["label"]', 'y_flows = flows_test["label"]')
    _write(tmp_path, {"detect.py": held})
    assert not _alarms(tmp_path, "detect.py")


def test_detector_fitted_and_scored_on_every_row_without_labels_is_silent(tmp_path):
    # the transductive protocol of outlier detection: no label chose the rows it was fitted on
    whole = FLOW_DETECTOR.replace("iso.fit(features)", "iso.fit(every_flow)")
    _write(tmp_path, {"detect.py": whole})
    assert not _alarms(tmp_path, "detect.py")


# --- F + D: an oversampler and a label-driven selection on the training part, cross-validated by the next script ---

BALANCE = """\
import pandas as pd
from imblearn.over_sampling import SMOTE
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split


def strongest(X_part, y_part, keep=8):
    X_few, _, y_few, _ = train_test_split(X_part, y_part, train_size=3000, stratify=y_part)
    ranker = RandomForestClassifier(n_estimators=40)
    ranker.fit(X_few, y_few)
    weights = pd.DataFrame({"col": X_part.columns.tolist(), "w": ranker.feature_importances_})
    top = weights.sort_values("w", ascending=False).head(keep)["col"].tolist()
    return X_part[top], top


def build():
    packets = pd.read_csv("packets.csv")
    X = packets.drop(columns=["attack"])
    y = packets["attack"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y)
    X_even, y_even = SMOTE(k_neighbors=3).fit_resample(X_train, y_train)
    X_top, top = strongest(X_even, y_even)
    pd.concat([X_top, y_even], axis=1).to_parquet("fit_rows.parquet")
    pd.concat([X_test[top], y_test], axis=1).to_parquet("test_rows.parquet")


build()
"""

SEARCH = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import RandomizedSearchCV

rows = pd.read_parquet("fit_rows.parquet").sample(n=20000, random_state=1)
X = rows.drop(columns=["attack"])
y = rows["attack"]
tuner = RandomizedSearchCV(GradientBoostingClassifier(), {"max_depth": [2, 3, 4]}, n_iter=3, cv=4)
tuner.fit(X, y)
print(tuner.best_score_)
"""

SCORE_ONCE = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import f1_score

fit_rows = pd.read_parquet("fit_rows.parquet")
test_rows = pd.read_parquet("test_rows.parquet")
model = GradientBoostingClassifier().fit(fit_rows.drop(columns=["attack"]), fit_rows["attack"])
print(f1_score(test_rows["attack"], model.predict(test_rows.drop(columns=["attack"]))))
"""


def test_oversampler_and_importance_pick_before_a_search_in_the_next_script_are_fit_outside_cv(tmp_path):
    _write(tmp_path, {"README.md": "ids\n", "balance.py": BALANCE, "search.py": SEARCH})
    found = _alarms(tmp_path, "balance.py")
    assert ("fit_outside_cv", "balance.py", 21) in found  # SMOTE
    assert ("fit_outside_cv", "balance.py", 10) in found  # the importance forest on a draw of those rows
    assert ("fit_before_split", "balance.py", 21) not in found


def test_subsample_draw_after_the_oversampler_is_no_split_when_the_test_part_is_scored_once(tmp_path):
    # the draw's second parts are thrown away: nothing is held out there, the test part stays untouched
    _write(tmp_path, {"README.md": "ids\n", "balance.py": BALANCE, "score.py": SCORE_ONCE})
    assert not _alarms(tmp_path, "balance.py")

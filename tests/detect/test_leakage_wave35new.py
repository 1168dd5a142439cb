"""The static leakage analysis on the kinds wave 35new of public code showed (issue 17, stop 35), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.renamed import renamed_module
from faultlib.detect.data.leakage.session import session_members
from faultlib.findings import Severity

# a helper module of a book chapter: it reads a series and cuts the last windows off as the test set
HELPER = """\
import numpy as np
import pandas as pd

HORIZON = 4

def load_series():
    return pd.read_csv("load.csv")["kw"].values.reshape(-1, 1)

def windows(series, width, last):
    xs, ys = [], []
    for i in range(width, len(series)):
        xs.append(series[i - width:i, 0])
        ys.append(series[i, 0])
    return xs[:-last], xs[-last:], ys[:-last], ys[-last:]
"""

# the chapter's script, written when the book's code lived in a package named ``unit5``
SCRIPT = """\
import numpy as np
from sklearn.preprocessing import MinMaxScaler
from sklearn.linear_model import Ridge
from {module} import load_series, windows

series = load_series()
{fit}
a, b, ya, yb = windows(scaled, 6, 50)
{after}
model = Ridge().fit(a, ya)
print(model.score(b, yb))
"""

LEAKY_FIT = "mm = MinMaxScaler()\nscaled = mm.fit_transform(series)"


def _book(tmp_path: Path, module: str, script_dir: str, helper_rel: str, fit: str, after: str = "") -> Path:
    helper = tmp_path / helper_rel
    helper.parent.mkdir(parents=True, exist_ok=True)
    helper.write_text(HELPER)
    script = tmp_path / script_dir / "lesson.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(textwrap.dedent(SCRIPT.format(module=module, fit=fit, after=after)))
    return script


def _alarms(path: Path) -> list[tuple[str, str, int]]:
    report, _ = analyze_file(str(path))
    return [(f.kind, Path(f.location.get("file", "")).name, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING]


def test_scaler_over_the_series_split_in_a_helper_imported_under_the_old_package_name(tmp_path):
    script = _book(tmp_path, "unit5.seq_helpers", "Unit 05", "Unit 05/seq_helpers.py", LEAKY_FIT)
    assert ("fit_before_split", "lesson.py", 8) in _alarms(script)


def test_a_deeper_renamed_package_resolves_to_the_folder_above(tmp_path):
    script = _book(tmp_path, "unit5.tuning.seq_helpers", "Unit 05/tuning", "Unit 05/tuning/seq_helpers.py",
                   LEAKY_FIT)
    assert session_members(script)[0] == tmp_path / "Unit 05/tuning/seq_helpers.py"
    assert ("fit_before_split", "lesson.py", 8) in _alarms(script)


def test_scaler_fitted_on_the_training_windows_after_the_split_is_silent(tmp_path):
    script = _book(tmp_path, "unit5.seq_helpers", "Unit 05", "Unit 05/seq_helpers.py", "scaled = series",
                   after="mm = MinMaxScaler().fit(a)")
    assert session_members(script)[0].name == "seq_helpers.py"  # joined, and still nothing to report
    assert _alarms(script) == []


def test_a_library_import_is_not_taken_for_a_sibling_of_the_same_last_name(tmp_path):
    (tmp_path / "preprocessing.py").write_text("def tidy(frame):\n    return frame.dropna()\n")
    script = tmp_path / "run.py"
    script.write_text("from sklearn.preprocessing import StandardScaler\nStandardScaler()\n")
    assert session_members(script) == [script]


def test_renamed_module_needs_every_imported_name_defined_there(tmp_path):
    (tmp_path / "prep.py").write_text("LIMIT = 3\n\ndef cut(rows):\n    return rows[:LIMIT]\n\nclass Box:\n    pass\n")
    node = ast.parse("from old.prep import cut, LIMIT, Box").body[0]
    assert renamed_module(node, tmp_path, lambda p: ast.parse(p.read_text())) == tmp_path / "prep.py"
    for text in ("from old.prep import cut, missing", "from old.prep import *", "from prep import cut",
                 "from .prep import cut"):
        assert renamed_module(ast.parse(text).body[0], tmp_path, lambda p: ast.parse(p.read_text())) is None


# sliding windows cut by a comprehension over positions, then the last windows held out by slicing the list
WINDOWS = """\
import pandas as pd
from sklearn.preprocessing import MinMaxScaler
from sklearn.linear_model import Ridge
flow = pd.read_csv("river.csv")["m3s"].values.reshape(-1, 1)
{fit}
past = [{src}[i - 8:i, 0] for i in range(8, len({src}))]
nxt = [{src}[i, 0] for i in range(8, len({src}))]
fit_x, hold_x, fit_y, hold_y = past[:-30], past[-30:], nxt[:-30], nxt[-30:]
{after}
print(Ridge().fit({a}, fit_y).score({b}, hold_y))
"""


def test_series_scaled_then_windowed_by_a_comprehension_and_the_last_windows_held_out(tmp_path):
    script = tmp_path / "river.py"
    script.write_text(WINDOWS.format(fit="flow_s = MinMaxScaler().fit_transform(flow)", src="flow_s", after="",
                                     a="fit_x", b="hold_x"))
    assert ("fit_before_split", "river.py", 5) in _alarms(script)


def test_windows_by_a_comprehension_scaled_on_the_training_windows_only_is_silent(tmp_path):
    script = tmp_path / "river.py"
    script.write_text(WINDOWS.format(fit="", src="flow", after="mm = MinMaxScaler().fit(fit_x)",
                                     a="mm.transform(fit_x)", b="mm.transform(hold_x)"))
    assert _alarms(script) == []


# genes kept by a selector fitted on the training part, then a cross-validation over every sample
SELECTED = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import SelectKBest
from sklearn.model_selection import train_test_split, cross_val_score
expr = pd.read_csv("expression.csv")
stage = expr.pop("stage")
e_fit, e_out, s_fit, s_out = train_test_split(expr, stage, test_size=0.25, random_state=3)
kb = SelectKBest(k=40).fit(e_fit, s_fit)
genes = expr.columns[kb.get_support()]
{last}
"""


def test_selector_fitted_on_the_training_part_then_every_sample_cross_validated(tmp_path):
    script = tmp_path / "genes.py"
    script.write_text(SELECTED.format(last="print(cross_val_score(RandomForestClassifier(), expr[genes], stage))"))
    assert ("fit_outside_cv", "genes.py", 8) in _alarms(script)


def test_selector_fitted_on_the_training_part_then_only_the_held_out_part_scored_is_silent(tmp_path):
    script = tmp_path / "genes.py"
    script.write_text(SELECTED.format(last="rf = RandomForestClassifier().fit(e_fit[genes], s_fit)\n"
                                           "print(rf.score(e_out[genes], s_out))\n"
                                           "print(cross_val_score(RandomForestClassifier(), e_out[genes], s_out))"))
    assert _alarms(script) == []


# a tuning-service trial: hyperparameters from the tuner, one score reported back
TRIAL = """\
import nni
import torch
import pandas as pd
from sklearn.model_selection import train_test_split
cfg = nni.get_next_parameter()
meter = pd.read_csv("meter.csv")
a_x, b_x, a_y, b_y = train_test_split(meter[["t", "h"]].values, meter["kwh"].values, shuffle=False)
a_x, v_x, a_y, v_y = train_test_split(a_x, a_y, shuffle=False)
net = torch.nn.Linear(2, cfg["width"])
crit = torch.nn.MSELoss()
held_score = crit(net(torch.Tensor(b_x)), torch.tensor(b_y)).item()
check_score = crit(net(torch.Tensor(v_x)), torch.tensor(v_y)).item()
nni.report_final_result({reported})
"""


def test_trial_reporting_the_score_of_the_held_out_part_to_the_tuner(tmp_path):
    script = tmp_path / "trial.py"
    script.write_text(TRIAL.format(reported="held_score"))
    assert ("tuned_on_test", "trial.py", 13) in _alarms(script)


def test_trial_reporting_the_validation_score_to_the_tuner_is_silent(tmp_path):
    script = tmp_path / "trial.py"
    script.write_text(TRIAL.format(reported="check_score"))
    assert _alarms(script) == []

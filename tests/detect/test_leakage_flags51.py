"""Module flags set once to a literal (issue 17, stop 51; :mod:`faultlib.detect.data.leakage.moduleflags`): a fit
whose leak needs a branch the flag switches off is a note at ``info`` naming the flag, never an alarm; the same
code with the flag on, rebound, or read from the command line stays an alarm. Every example is written for this
test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.moduleflags import module_flags, module_switches
from faultlib.findings import Severity
from tests.detect.leakage_source import alarms

# a scaler fitted on every row, cross-validated only under the switch ({flag} on line 6, the fit on line 10)
SWITCHED = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.preprocessing import StandardScaler

{flag}
loans = pd.read_csv("loans.csv")
X = loans.drop(columns=["defaulted"])
y = loans["defaulted"]
X_scaled = StandardScaler().fit_transform(X)
{later}
if {test}:
    print(cross_val_score(LogisticRegression(), X_scaled, y, cv=5).mean())
"""

FIT = ("fit_outside_cv", 10)


def _notes(tmp_path: Path, text: str, name: str = "script.py") -> list:
    script = tmp_path / name
    script.write_text(text)
    report, _ = analyze_file(str(script), alone=True)
    return [f for f in report.findings if f.severity == Severity.INFO and "switched_off" in f.evidence]


@pytest.mark.parametrize("flag,test", [("run_cv = False", "run_cv"), ("skip_cv = True", "not skip_cv"),
                                       ("RUN_CV = 0", "RUN_CV"), ("run_cv = False", "run_cv and len(X) > 10"),
                                       ("run_cv: bool = False", "run_cv")])
def test_switched_off_branch_makes_a_note_naming_the_flag(tmp_path, flag, test):
    text = SWITCHED.format(flag=flag, later="", test=test)
    assert FIT not in alarms(tmp_path, text)
    notes = _notes(tmp_path, text)
    assert [(n.kind, n.location["line"]) for n in notes] == [FIT]
    name = flag.split()[0].rstrip(":")
    assert f"runs only when {name}" in notes[0].message and "at line 6" in notes[0].message
    assert notes[0].evidence["switched_off"][0]["flag"] == name


@pytest.mark.parametrize("flag,test", [("MODE = 1", "MODE == 2"), ("MODE = None", "MODE is not None")])
def test_flag_compared_with_a_constant_was_already_decided(tmp_path, flag, test):
    # the interpreter already follows only the branch of `x == literal` / `x is None` on a known constant: silent
    # before and after, so no note either
    text = SWITCHED.format(flag=flag, later="", test=test)
    assert FIT not in alarms(tmp_path, text)


def test_note_says_which_value_runs_the_branch(tmp_path):
    notes = _notes(tmp_path, SWITCHED.format(flag="run_cv = False", later="", test="run_cv"))
    assert "runs only when run_cv is set True at line 6, where it is False" in notes[0].message


@pytest.mark.parametrize("flag,later,test", [
    ("run_cv = True", "", "run_cv"),  # the flag on: the branch runs
    ("skip_cv = False", "", "not skip_cv"),
    ("run_cv = False", "run_cv = len(X) > 100", "run_cv"),  # rebound later
    ("run_cv = False", "import sys\nif '--cv' in sys.argv:\n    run_cv = True", "run_cv"),  # from the command line
    ("import os\nrun_cv = os.environ.get('RUN_CV') == '1'", "", "run_cv"),  # from the environment
    ("run_cv = False", "globals()['run_cv'] = True", "run_cv"),  # written through globals()
    ("run_cv = False", "from settings import *", "run_cv"),  # a star import after it may rebind it
    ("run_cv = False", "", "run_cv or len(X) > 10"),  # the flag does not settle the test
])
def test_flag_that_may_be_on_keeps_the_alarm(tmp_path, flag, later, test):
    text = SWITCHED.format(flag=flag, later=later, test=test)
    line = FIT[1] + flag.count("\n")
    assert (FIT[0], line) in alarms(tmp_path, text)
    assert not _notes(tmp_path, text)


def test_flag_passed_as_a_parameter_is_no_module_flag(tmp_path):
    text = SWITCHED.format(flag="run_cv = False", later="def report(run_cv=True):\n    return run_cv",
                           test="run_cv")
    assert FIT in alarms(tmp_path, text)


# a cache switch: the branch not taken writes the features an earlier run saved, and the read feeds the model
CACHE = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

REBUILD = False
sales = pd.read_csv("sales.csv")
if REBUILD:
    scaled = MinMaxScaler().fit_transform(sales.drop(columns=["units"]))
    pd.DataFrame(scaled).to_csv("features.csv", index=False)
features = pd.read_csv("features.csv") if not REBUILD else pd.DataFrame(scaled)
X_train, X_test, y_train, y_test = train_test_split(features, sales["units"], random_state=1)
print(Ridge().fit(X_train, y_train).score(X_test, y_test))
"""


def test_branch_not_taken_that_saves_is_not_switched_off():
    import ast

    tree = ast.parse(CACHE)
    assert "REBUILD" in module_flags(tree)
    assert not module_switches(tree)


def test_flag_tested_before_it_is_set_is_not_decided():
    import ast

    tree = ast.parse("if late:\n    x = 1\nlate = False\n")
    assert not module_switches(tree)
    inside = ast.parse("def f():\n    if late:\n        return 1\nlate = False\n")
    assert len(module_switches(inside)) == 1


def _notebook(path: Path, cells: list[str]) -> Path:
    doc = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                      "source": c} for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(doc))
    return path


NOTEBOOK = ["fit_clusters = {value}\n",
            ("import pandas as pd\nfrom sklearn.cluster import KMeans\nfrom sklearn.model_selection import KFold\n"
             "from sklearn.preprocessing import RobustScaler\n"
             "shots = pd.read_csv('shots.csv')\nX = shots.drop(columns=['goal']).values\n"),
            "X_scaled = RobustScaler().fit_transform(X)\n",
            ("if fit_clusters:\n    for a, b in KFold(4).split(X_scaled):\n"
             "        km = KMeans(3).fit(X_scaled[a])\n        print(km.score(X_scaled[b]))\n")]


@pytest.mark.parametrize("value,alarm", [("False", False), ("True", True)])
def test_notebook_flag_set_in_one_cell_tested_in_a_later_one(tmp_path, value, alarm):
    nb = _notebook(tmp_path / "clusters.ipynb", [NOTEBOOK[0].format(value=value), *NOTEBOOK[1:]])
    report, _ = analyze_file(str(nb), alone=True)
    found = [(f.severity >= Severity.WARNING, f.location.get("index"), f.location.get("line"),
              "switched_off" in f.evidence) for f in report.findings if f.kind == "fit_outside_cv"]
    assert found == [(alarm, 3, 1, not alarm)]
    if not alarm:
        note = next(f for f in report.findings if f.kind == "fit_outside_cv")
        assert "runs only when fit_clusters is set True at cell 1 line 1" in note.message


# a cache switch: the branch that runs reads the table an earlier run with the flag off computed (and the other
# branch reads nothing): not decided, so the statistic over train + test still counts
CACHED = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

use_cache = True
homes = pd.read_csv("train.csv")
later = pd.read_csv("test.csv")
y = homes.pop("sold")
if use_cache:
    homes = pd.read_parquet("homes_ranked.parquet")
    later = pd.read_parquet("later_ranked.parquet")
else:
    both = pd.concat([homes, later])
    homes = homes / both.max()
    later = later / both.max()
model = LogisticRegression().fit(homes, y)
print(model.predict(later))
"""

# the same shape, both branches reading (a debug run on fewer rows): decided, only the branch that runs
DEBUG_ROWS = """\
import pandas as pd

DEBUG = False
if DEBUG:
    homes = pd.read_csv("train.csv", nrows=1000)
else:
    homes = pd.read_csv("train.csv")
"""


def test_cache_switch_whose_running_branch_reads_a_file_is_not_decided():
    import ast

    assert not module_switches(ast.parse(CACHED))
    assert len(module_switches(ast.parse(DEBUG_ROWS))) == 1

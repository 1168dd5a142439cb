"""The static leakage analysis on the held-out wave 49 of public code (book, course, NLP and time-series scripts),
in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity


def _alarms(path: Path) -> set[tuple[str, str, int]]:
    """``(kind, file name, line)`` of the warning-or-worse findings of the script at ``path`` and the scripts it
    imports from its folder (a session)."""
    report, _ = analyze_file(str(path))
    return {(f.kind, Path(f.location.get("file") or path).name, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


def _held_out_watch(table: str, held: str, indent: str) -> str:
    """Lines that cut ``table`` into features and target, split them, wrap both parts (the held-out part named
    ``X_<held>``/``d<held>``) and list them under the name ``watch``."""
    lines = [f"X = {table}.iloc[:, 1:]", f"Y = {table}.iloc[:, 0]",
             f"X_train, X_{held}, y_train, y_{held} = train_test_split(X, Y, test_size=0.25, random_state=7)",
             "dtrain = xgb.DMatrix(X_train, y_train)", f"d{held} = xgb.DMatrix(X_{held}, y_{held})",
             f"watch = [(dtrain, 'fit'), (d{held}, 'check')]"]
    return "".join(f"{indent}{line}\n" for line in lines)


# a helper script: early stopping on the held-out part of its own split, named for testing, metric printed
RANKING_HELPER = """\
import xgboost as xgb
from sklearn.model_selection import train_test_split


def rank_columns(table, settings):
""" + _held_out_watch("table", "test", "    ") + """\
    booster = xgb.train(settings, dtrain, 400, evals=watch,
                        early_stopping_rounds=25, verbose_eval=True)
    return booster.get_score()
"""
RANKING_HELPER_STOP = ("tuned_on_test", "ranking.py", 12)

# the main script imports it; its own booster stops on a validation part of the early period, and the late period
# (a time cut) is only predicted. The same name ``watch`` is bound in both scripts.
FORECAST_MAIN = """\
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split
from ranking import *

readings = pd.read_csv("meter.csv", index_col=0, parse_dates=True)
print(rank_columns(readings, {"max_depth": 4}))
early = readings[:"2021-06-30"]
late = readings["2021-07-01":]
""" + _held_out_watch("early", "val", "") + """\
booster = xgb.train({"max_depth": 4}, dtrain, 400, evals=watch, early_stopping_rounds=25)
forecast = booster.predict(xgb.DMatrix(late.iloc[:, 1:]))
"""
FORECAST_MAIN_STOP_LINE = 16


def _session(tmp_path: Path, main: str) -> set[tuple[str, str, int]]:
    (tmp_path / "ranking.py").write_text(RANKING_HELPER)
    (tmp_path / "forecast.py").write_text(main)
    return _alarms(tmp_path / "forecast.py")


def test_stopping_on_a_validation_wrapper_is_silent_when_a_joined_helper_binds_the_same_name_to_a_test_wrapper(
        tmp_path: Path) -> None:
    found = _session(tmp_path, FORECAST_MAIN)
    assert ("tuned_on_test", "forecast.py", FORECAST_MAIN_STOP_LINE) not in found, found


def test_the_helper_still_reports_its_stopping_on_its_test_part(tmp_path: Path) -> None:
    (tmp_path / "ranking.py").write_text(RANKING_HELPER)
    assert RANKING_HELPER_STOP in _alarms(tmp_path / "ranking.py")


def test_the_main_script_still_reports_stopping_on_a_test_wrapper(tmp_path: Path) -> None:
    leaky = FORECAST_MAIN.replace("X_val", "X_test").replace("y_val", "y_test").replace("dval", "dtest")
    found = _session(tmp_path, leaky)
    assert ("tuned_on_test", "forecast.py", FORECAST_MAIN_STOP_LINE) in found, found


# OpenCV's models (cv2.ml): a neighbour count tried per pass, each scored on the test part, the best kept
OPENCV_SWEEP = """\
import numpy as np
import cv2
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split
from sklearn.metrics import accuracy_score

wine = load_wine()
X_train, X_test, y_train, y_test = train_test_split(wine.data.astype(np.float32), wine.target, random_state=5)
best_acc, best_k = 0.0, 1
for k in range(1, 15):
    nn = cv2.ml.KNearest_create()
    nn.setDefaultK(k)
    nn.train(X_train, cv2.ml.ROW_SAMPLE, y_train)
    _, guess = nn.predict(X_test)
    acc = accuracy_score(y_test, guess)
    if acc > best_acc:
        best_acc = acc
        best_k = k
print(best_acc, best_k)
"""
OPENCV_SWEEP_AT = ("tuned_on_test", "sweep.py", 14)


def _script(tmp_path: Path, text: str) -> set[tuple[str, str, int]]:
    (tmp_path / "sweep.py").write_text(text)
    return _alarms(tmp_path / "sweep.py")


def test_an_opencv_model_tuned_on_the_test_part_is_found(tmp_path: Path) -> None:
    assert OPENCV_SWEEP_AT in _script(tmp_path, OPENCV_SWEEP)


def test_an_opencv_model_found_by_find_nearest_and_a_setter_of_its_own_is_found(tmp_path: Path) -> None:
    text = OPENCV_SWEEP.replace("    _, guess = nn.predict(X_test)\n", "    _, guess, _, _ = nn.findNearest(X_test, k)\n")
    assert OPENCV_SWEEP_AT in _script(tmp_path, text)


def test_an_opencv_model_tuned_on_a_validation_part_is_silent(tmp_path: Path) -> None:
    text = OPENCV_SWEEP.replace(
        "best_acc, best_k = 0.0, 1\n",
        "X_fit, X_valid, y_fit, y_valid = train_test_split(X_train, y_train, random_state=5)\nbest_acc, best_k = 0.0, 1\n",
    ).replace("nn.train(X_train, cv2.ml.ROW_SAMPLE, y_train)", "nn.train(X_fit, cv2.ml.ROW_SAMPLE, y_fit)").replace(
        "nn.predict(X_test)", "nn.predict(X_valid)").replace("accuracy_score(y_test, guess)", "accuracy_score(y_valid, guess)")
    assert not {a for a in _script(tmp_path, text) if a[0] == "tuned_on_test"}


def test_opencv_scores_printed_per_candidate_without_keeping_one_are_silent(tmp_path: Path) -> None:
    text = OPENCV_SWEEP.replace("    if acc > best_acc:\n        best_acc = acc\n        best_k = k\n",
                                "    print(k, acc)\n")
    assert not {a for a in _script(tmp_path, text) if a[0] == "tuned_on_test"}


def test_a_setter_of_an_object_that_is_no_opencv_model_does_not_make_candidates(tmp_path: Path) -> None:
    text = OPENCV_SWEEP.replace("    nn.setDefaultK(k)\n", "    log.setLevel(k)\n").replace(
        "import cv2\n", "import cv2\nimport logging\nlog = logging.getLogger('sweep')\n")
    assert not {a for a in _script(tmp_path, text) if a[0] == "tuned_on_test"}


# one script, one scope: the name of the sets rebound from the validation part to the test part before a second
# stopped training; the rows passed are followed by value, so the second training is still reported
REBOUND = """\
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split

readings = pd.read_csv("meter.csv")
""" + _held_out_watch("readings", "test", "") + """\
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.25, random_state=7)
dfit = xgb.DMatrix(X_fit, y_fit)
dval = xgb.DMatrix(X_val, y_val)
watch = [(dfit, 'fit'), (dval, 'check')]
first = xgb.train({"max_depth": 4}, dfit, 400, evals=watch, early_stopping_rounds=25)
watch = [(dtrain, 'fit'), (dtest, 'check')]
second = xgb.train({"max_depth": 4}, dtrain, 400, evals=watch, early_stopping_rounds=25)
print(second.predict(dtest))
"""


def test_a_name_rebound_in_the_same_scope_to_the_test_wrapper_is_still_reported(tmp_path: Path) -> None:
    (tmp_path / "rebound.py").write_text(REBOUND)
    found = _alarms(tmp_path / "rebound.py")
    assert ("tuned_on_test", "rebound.py", 18) in found, found
    assert ("tuned_on_test", "rebound.py", 16) not in found, found

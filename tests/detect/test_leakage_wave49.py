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


# a helper script: early stopping on the held-out part of its own split, named for testing, metric printed
RANKING_HELPER = """\
import xgboost as xgb
from sklearn.model_selection import train_test_split


def rank_columns(table, settings):
    X = table.iloc[:, 1:]
    Y = table.iloc[:, 0]
    X_train, X_test, y_train, y_test = train_test_split(X, Y, test_size=0.25, random_state=7)
    dtrain = xgb.DMatrix(X_train, y_train)
    dtest = xgb.DMatrix(X_test, y_test)
    watch = [(dtrain, 'fit'), (dtest, 'check')]
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
X = early.iloc[:, 1:]
Y = early.iloc[:, 0]
X_train, X_val, y_train, y_val = train_test_split(X, Y, test_size=0.25, random_state=7)
dtrain = xgb.DMatrix(X_train, y_train)
dval = xgb.DMatrix(X_val, y_val)
watch = [(dtrain, 'fit'), (dval, 'check')]
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

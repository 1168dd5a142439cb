"""A hand-written statistic's message names its method even when the receiver is long (a cut at 40 characters
once turned ``.median()`` into ``me``)."""

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file

SOURCE = """
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

rides = pd.read_csv("rides.csv")
rides["wait"] = rides["wait"].fillna({receiver}.median())
X_train, X_test, y_train, y_test = train_test_split(rides[["wait"]], rides["late"])
LogisticRegression().fit(X_train, y_train).score(X_test, y_test)
"""


def _message(tmp_path: Path, receiver: str) -> str:
    path = tmp_path / "rides.py"
    path.write_text(SOURCE.format(receiver=receiver))
    report, _ = analyze_file(str(path))
    (finding,) = [f for f in report.findings if f.kind == "fit_before_split"]
    return finding.message


def test_long_receiver_keeps_the_method_name(tmp_path):
    message = _message(tmp_path, 'rides.loc[rides["zone"] == 3, "waiting_minutes_at_the_pickup_point"]')
    assert "median on line 7" in message
    assert "(`..." in message and "median()`" in message  # shortened at its start, not at the method


def test_short_statistic_is_shown_whole(tmp_path):
    message = _message(tmp_path, 'rides["wait"]')
    assert "`rides['wait'].median()`" in message
    assert "median on line 7" in message

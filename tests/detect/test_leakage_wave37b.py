"""The static leakage analysis on the kinds held-out wave 37b of public code showed (courses, book
companions, student capstones), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity


def _alarms(tmp_path: Path, text: str, name: str = "shop.py") -> set[tuple[str, int]]:
    script = tmp_path / name
    script.write_text(text)
    report, _ = analyze_file(str(script), alone=True)
    return {(f.kind, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


# a LabelBinarizer one-hot encodes a feature column of every row, then the rows are split
BINARIZED_FEATURE = """\
import pandas as pd
from sklearn.preprocessing import LabelBinarizer, MultiLabelBinarizer
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

shops = pd.read_csv("shops.csv")
lb = LabelBinarizer()
region = lb.fit_transform(shops["region"])
tags = MultiLabelBinarizer().fit_transform(shops["tags"])
X = pd.concat([pd.DataFrame(region), pd.DataFrame(tags)], axis=1)
a, b, ya, yb = train_test_split(X, shops["closed"])
print(LogisticRegression().fit(a, ya).score(b, yb))
"""

# the same binarizer on the target only (its documented use), and a multi-label one with its classes written out
BINARIZED_TARGET = """\
import pandas as pd
from sklearn.preprocessing import LabelBinarizer, MultiLabelBinarizer
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

shops = pd.read_csv("shops.csv")
y = LabelBinarizer().fit_transform(shops["closed"])
tags = MultiLabelBinarizer(classes=["food", "toys", "books"]).fit_transform(shops["tags"])
a, b, ya, yb = train_test_split(pd.DataFrame(tags), y)
print(LogisticRegression().fit(a, ya).score(b, yb))
"""


def test_label_binarizers_on_feature_columns_before_the_split_are_fits(tmp_path: Path) -> None:
    alarms = _alarms(tmp_path, BINARIZED_FEATURE)
    assert ("fit_before_split", 8) in alarms and ("fit_before_split", 9) in alarms


def test_a_binarized_target_and_written_out_classes_stay_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, BINARIZED_TARGET) == set()

"""Kinds of issue 17's held-out wave 100 (manufacturing and materials: wafer yield, battery life, well logs), both
directions. Every example is a small script written for this test (no public code)."""

from __future__ import annotations

from tests.detect.test_leakage_crossmodule import _alarms, _write

# --- D1: a development part beside a lockbox is the training side ---------------------------------------------

LOCKBOX_PIPELINE = """\
import numpy as np
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler


def tune(x_dev, y_dev):
    scores = []
    for tr, va in StratifiedKFold(n_splits=4).split(x_dev, y_dev):
        imp = SimpleImputer().fit(x_dev[tr])
        clf = LogisticRegression().fit(imp.transform(x_dev[tr]), y_dev[tr])
        scores.append(clf.score(imp.transform(x_dev[va]), y_dev[va]))
    return np.mean(scores)


def final(x_dev_raw, y_dev, x_lock_raw, y_lock):
    imputer = SimpleImputer()
    x_dev_imp = imputer.fit_transform(x_dev_raw)
    scaler = StandardScaler()
    x_dev_sc = scaler.fit_transform(x_dev_imp)
    clf = LogisticRegression().fit(x_dev_sc, y_dev)
    return clf.score(scaler.transform(imputer.transform(x_lock_raw)), y_lock)


def run(table, labels):
    cut = int(0.85 * len(table))
    x_dev, y_dev = table[:cut], labels[:cut]
    x_lock, y_lock = table[cut:], labels[cut:]
    print(tune(x_dev, y_dev))
    print(final(x_dev, y_dev, x_lock, y_lock))
"""

#: Ng's train/dev/test: the dev part is a validation part, and a scaler fitted on it is a fit on held-out rows
DEV_IS_VALIDATION = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

wafers = pd.read_csv("wafers.csv")
X, y = wafers.drop(columns="fail"), wafers["fail"]
X_train, X_rest, y_train, y_rest = train_test_split(X, y, test_size=0.3)
X_dev, X_test, y_dev, y_test = train_test_split(X_rest, y_rest, test_size=0.5)
scaler = StandardScaler().fit(X_dev)
clf = LogisticRegression().fit(scaler.transform(X_train), y_train)
print(clf.score(scaler.transform(X_test), y_test))
"""


def test_fits_on_a_development_part_beside_a_lockbox_are_not_fits_on_held_out_rows(tmp_path):
    _write(tmp_path, {"lockbox.py": LOCKBOX_PIPELINE})
    assert not {a for a in _alarms(tmp_path, "lockbox.py") if a[0] == "fit_on_test"}


def test_a_dev_part_of_train_dev_test_stays_held_out(tmp_path):
    _write(tmp_path, {"devsplit.py": DEV_IS_VALIDATION})
    assert ("fit_on_test", "devsplit.py", 10) in _alarms(tmp_path, "devsplit.py")

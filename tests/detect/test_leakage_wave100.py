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


# --- H1: a competition's hidden test part ----------------------------------------------------------------------

HIDDEN_WELLS = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score

train = pd.read_csv("logs_train.csv")
raw_hidden = pd.read_csv("logs_blind.csv")
logs = ["GR", "RHOB", "NPHI"]
X_train = train[logs].apply(lambda col: col.fillna(col.median()))
X_hidden = raw_hidden[logs].apply(lambda col: col.fillna(col.median()))
clf = RandomForestClassifier().fit(X_train, train["facies"])
print(accuracy_score(raw_hidden["facies"], clf.predict(X_hidden)))
"""

#: a network's hidden width and a DAE's hidden features are no held-out rows
HIDDEN_NETWORK = """\
import pandas as pd
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

train = pd.read_csv("logs_train.csv")
hidden_size = 16
hidden_features = PCA(n_components=hidden_size).fit_transform(train[["GR", "RHOB", "NPHI"]])
print(cross_val_score(LogisticRegression(), hidden_features[:100], train["facies"][:100]).mean())
hidden_state = train[["GR"]].mean()
"""


def test_hidden_test_wells_filled_with_their_own_medians_are_fit_on_test(tmp_path):
    _write(tmp_path, {"blind.py": HIDDEN_WELLS})
    assert ("fit_on_test", "blind.py", 9) in _alarms(tmp_path, "blind.py")
    assert not {a for a in _alarms(tmp_path, "blind.py") if a[2] == 8}  # the training wells' own medians


def test_hidden_sizes_and_hidden_features_are_not_held_out_rows(tmp_path):
    from faultlib.detect.data.leakage.vocab import looks_like_test

    assert [looks_like_test(n) for n in ("hidden_size", "hidden_features", "hidden_state", "n_hidden", "hidden")] \
        == [False] * 5
    assert all(looks_like_test(n) for n in ("X_hidden", "raw_hidden", "hiddendata", "hidden_df"))
    _write(tmp_path, {"dae.py": HIDDEN_NETWORK})
    assert not {a for a in _alarms(tmp_path, "dae.py") if a[0] == "fit_on_test"}


# --- H2: the rows a filter kept, filled with their own statistic, then named for testing ------------------------

FILTERED_TEST = """\
import pandas as pd
from xgboost import XGBRegressor
from sklearn.metrics import mean_squared_error

train = pd.read_csv("train_logs.csv")
opened = pd.read_csv("open_logs.csv")
known = train[train.DTS.notna()]
X_fit = known.drop(columns=["DTS"]).apply(lambda c: c.fillna(c.median()))
rows = opened[opened.DTS.notna()]
X_dts = rows.drop(columns=["DTS"])
X_dts_test = X_dts.apply(lambda c: c.fillna(c.median()))
model = XGBRegressor().fit(X_fit, known["DTS"])
print(mean_squared_error(rows["DTS"], model.predict(X_dts_test)))
"""

#: a statistic of a whole table whose filtered part is later named for testing is a fit before that selection
FILTERED_LATER = """\
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

logs = pd.read_csv("all_logs.csv")
filled = logs.apply(lambda c: c.fillna(c.median()))
X_train = filled[filled.WELL != "W7"]
X_test = filled[filled.WELL == "W7"]
model = LinearRegression().fit(X_train.drop(columns=["DTS", "WELL"]), X_train["DTS"])
print(r2_score(X_test["DTS"], model.predict(X_test.drop(columns=["DTS", "WELL"]))))
"""


def test_filtered_open_test_rows_filled_with_their_own_median_are_fit_on_test(tmp_path):
    _write(tmp_path, {"dts.py": FILTERED_TEST})
    alarms = _alarms(tmp_path, "dts.py")
    assert ("fit_on_test", "dts.py", 11) in alarms
    assert not {a for a in alarms if a[0] == "fit_before_split" and a[2] == 11}


def test_a_statistic_before_a_row_selection_stays_a_fit_before_the_split(tmp_path):
    _write(tmp_path, {"well7.py": FILTERED_LATER})
    assert {a[0] for a in _alarms(tmp_path, "well7.py") if a[2] == 6} == {"fit_before_split"}


# --- B1: a feature table built row by row from a list takes the rows of the first column set on it -------------

ALLOY_FEATURES = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split

alloys = pd.read_csv("alloys.csv")
described = []
for _, row in alloys.iterrows():
    described.append([row["al"] * 3 + row["ni"] * 10, row["radius"] / 1.4])
X = pd.DataFrame(described, columns=["vec", "size_mismatch"])
X["grain"] = SimpleImputer(strategy="median").fit_transform(alloys[["grain"]])
X_train, X_test, y_train, y_test = train_test_split(X, alloys["yield"], test_size=0.15)
print(GradientBoostingRegressor().fit(X_train, y_train).score(X_test, y_test))
"""

#: the same table built for each side of a split, the imputer fitted on the training side only
ALLOY_FEATURES_SPLIT_FIRST = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split


def describe(part):
    rows = []
    for _, row in part.iterrows():
        rows.append([row["al"] * 3 + row["ni"] * 10, row["radius"] / 1.4])
    return pd.DataFrame(rows, columns=["vec", "size_mismatch"])


alloys = pd.read_csv("alloys.csv")
train, test = train_test_split(alloys, test_size=0.15)
imputer = SimpleImputer(strategy="median").fit(train[["grain"]])
X_train, X_test = describe(train), describe(test)
X_train["grain"] = imputer.transform(train[["grain"]])
X_test["grain"] = imputer.transform(test[["grain"]])
print(GradientBoostingRegressor().fit(X_train, train["yield"]).score(X_test, test["yield"]))
"""


def test_an_imputed_column_set_on_a_built_feature_table_is_a_fit_before_the_split(tmp_path):
    _write(tmp_path, {"alloys.py": ALLOY_FEATURES})
    assert ("fit_before_split", "alloys.py", 11) in _alarms(tmp_path, "alloys.py")


def test_a_built_feature_table_per_split_side_fitted_on_training_rows_is_silent(tmp_path):
    _write(tmp_path, {"alloys2.py": ALLOY_FEATURES_SPLIT_FIRST})
    assert not _alarms(tmp_path, "alloys2.py")

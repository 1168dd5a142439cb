"""Kinds of issue 17's held-out wave 103 (education and people analytics: course dropout, staff attrition), both
directions. Every example is a small script written for this test (no public code)."""

from __future__ import annotations

from tests.detect.test_leakage_wave102 import _lines

# --- F1: a resampling helper's branch on `flag is True/False` that the call's literal never takes ---------------

#: a helper that grows or shrinks the classes by a bool parameter, called once with a literal (or a name bound to
#: one); only the branch of that value runs before the cross-validation
REBALANCE = """\
import pandas as pd
from sklearn.utils import resample
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_validate

pupils = pd.read_csv("pupils.csv")
marks = pd.read_csv("marks.csv")


def rebalance(grow, X, y):
    rows = pd.concat([X, y], axis=1)
    stay = rows[rows.label == 0]
    gone = rows[rows.label == 1]
    if grow is True:
        picked = resample(gone, replace=True, n_samples=len(stay), random_state=1)
        picked = pd.concat([stay, picked])
    elif grow is False:
        picked = resample(stay, replace=False, n_samples=len(gone), random_state=1)
        picked = pd.concat([picked, gone])
    return picked.drop("label", axis=1), picked.label


{call}
print(cross_validate(LogisticRegression(), X_fit, y_fit, cv=KFold(5)))
"""


def test_resampling_branch_the_literal_call_never_takes_is_silent(tmp_path):
    body = REBALANCE.format(call="X_fit, y_fit = rebalance(False, pupils, marks.label)")
    assert _lines(tmp_path, "shrink.py", body, ("fit_outside_cv",)) == {18}


def test_resampling_branch_chosen_through_a_name_bound_to_a_literal(tmp_path):
    body = REBALANCE.format(call="grow = True\nX_fit, y_fit = rebalance(grow, pupils, marks.label)")
    assert _lines(tmp_path, "grow.py", body, ("fit_outside_cv",)) == {15}


def test_resampling_branches_both_reported_when_the_call_value_is_unknown(tmp_path):
    body = REBALANCE.format(call="import sys\nX_fit, y_fit = rebalance(sys.argv[1] == 'up', pupils, marks.label)")
    assert _lines(tmp_path, "either.py", body, ("fit_outside_cv",)) == {15, 18}

# --- F3: a helper's sweep on the labels it is given, handed the test labels: one leak, at the call ---------------

#: the helper's labels are a parameter named for evaluation; its only call hands it the test part
CUTOFF_HELPER = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

staff = pd.read_csv("staff.csv")
X, y = staff.drop(columns="quit"), staff["quit"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=3)
forest = RandomForestClassifier().fit(X_train, y_train)


def best_cut(model, X_eval, y_eval):
    proba = model.predict_proba(X_eval)[:, 1]
    best, best_f1 = 0.5, -1.0
    for cut in np.linspace(0.05, 0.95, 91):
        f1 = f1_score(y_eval, (proba >= cut).astype(int))
        if f1 > best_f1:
            best, best_f1 = cut, f1
    return best, best_f1


cut, score = best_cut(forest, X_test, y_test)
print("F1 at the chosen cut", score)
"""


def test_helper_sweep_handed_the_test_labels_is_one_finding_at_the_call(tmp_path):
    assert _lines(tmp_path, "cut.py", CUTOFF_HELPER, ("tuned_on_test",)) == {23}

# --- F2: a fill in the loader branch an `and` test on the call's default rules out --------------------------------

#: a loader that fills from the CSV's own columns but reads a database table when no CSV path is given
LOADER = """\
import sqlite3

import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split


def from_csv(path):
    frame = pd.read_csv(path)
    frame["tenure"] = frame["tenure"].fillna(frame["tenure"].median())
    return frame


def from_db():
    return pd.read_sql("SELECT * FROM staff_clean", sqlite3.connect("hr.db"))


def load(path=None):
    if path is not None and path.endswith(".csv"):
        return from_csv(path)
    else:
        return from_db()


staff = load({arg})
X, y = staff[["tenure", "grade"]], staff["quit"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
model = LogisticRegression().fit(X_train, y_train)
print(accuracy_score(y_test, model.predict(X_test)))
"""


def test_fill_in_the_loader_branch_the_default_rules_out_is_silent(tmp_path):
    assert _lines(tmp_path, "fromdb.py", LOADER.format(arg=""), ("fit_before_split",)) == set()


def test_fill_in_the_loader_branch_the_csv_call_takes_is_reported(tmp_path):
    assert _lines(tmp_path, "fromcsv.py", LOADER.format(arg='"staff.csv"'), ("fit_before_split",)) == {11}

# --- M3: a sweep that keeps the best F1 among the cut-offs passing a precision bar (`if p >= bar and f1 > best`) ---

#: a helper keeping the best F1 among the cut-offs whose precision passes a bar, handed labels by its caller
BARRED_SWEEP = """\
import joblib
import numpy as np
import pandas as pd
from sklearn.metrics import classification_report, f1_score, precision_score


def barred_cut(model, X_part, y_part, bar=0.6):
    proba = model.predict_proba(X_part)[:, 1]
    chosen, top = 0.5, -1.0
    for cut in np.arange(0.05, 0.95, 0.05):
        guess = (proba >= cut).astype(int)
        prec = precision_score(y_part, guess, zero_division=0)
        f1 = f1_score(y_part, guess, zero_division=0)
        if prec >= bar and f1 > top:
            top, chosen = f1, cut
    return chosen


def main():
    model = joblib.load("model.pkl")
    X_{part} = pd.read_csv("X_{part}.csv")
    y_{part} = pd.read_csv("y_{part}.csv").squeeze("columns")
    cut = barred_cut(model, X_{part}, y_{part})
    print(classification_report(y_{part}, (model.predict_proba(X_{part})[:, 1] >= cut).astype(int)))


main()
"""


def test_barred_best_cut_handed_the_test_labels_is_reported_at_the_call(tmp_path):
    assert _lines(tmp_path, "barred.py", BARRED_SWEEP.format(part="test"), ("tuned_on_test",)) == {23}


def test_barred_best_cut_handed_validation_labels_is_silent(tmp_path):
    assert _lines(tmp_path, "barredval.py", BARRED_SWEEP.format(part="val"), ("tuned_on_test",)) == set()

# --- M3: cut-offs scored on the test rows into a table, the best row meeting targets picked by sort + iloc[0] -----

#: every cut-off's test precision/recall/F1 collected into a table; the top row by F1 among those meeting the
#: targets is printed as the result (or the table is only plotted)
TARGET_TABLE = """\
import joblib
import numpy as np
import pandas as pd
from sklearn.metrics import f1_score, precision_score, recall_score

model = joblib.load("model.pkl")
X_test = pd.read_csv("X_test.csv")
y_test = pd.read_csv("y_test.csv").squeeze("columns")
proba = model.predict_proba(X_test)[:, 1]
rows = []
for cut in np.arange(0.05, 0.95, 0.05):
    guess = (proba >= cut).astype(int)
    rows.append({{"cut": cut, "p": precision_score(y_test, guess), "r": recall_score(y_test, guess),
                 "f1": f1_score(y_test, guess)}})
table = pd.DataFrame(rows)
meeting = table[(table["p"] >= 0.6) & (table["r"] >= 0.6)]
{tail}
"""


def test_best_row_of_a_sorted_test_score_table_is_reported_at_the_pick(tmp_path):
    body = TARGET_TABLE.format(tail='top = meeting.sort_values(by="f1", ascending=False).iloc[0]\nprint(top["f1"])')
    assert _lines(tmp_path, "targets.py", body, ("tuned_on_test",)) == {17}


def test_sorted_test_score_table_only_printed_is_silent(tmp_path):
    body = TARGET_TABLE.format(tail='print(meeting.sort_values(by="cut"))')
    assert _lines(tmp_path, "shown.py", body, ("tuned_on_test",)) == set()

# --- M4: a cut-off set from the test labels' positive rate, predictions cut at it scored on those labels ---------

#: a network's softmax cut moved to the share of positives among the labels of the rows then scored
RATE_CUT = """\
from collections import Counter

import numpy as np
from sklearn import metrics


def report(model, X_test, y_test, y_fit):
    proba = model.predict(X_test)
    y_labels = y_test.argmax(axis=1)
    cut = Counter({rated})[1] / len({rated})
    final = []
    for p in proba:
        if p[1] > cut:
            final.append(1)
        else:
            final.append(0)
    print(metrics.confusion_matrix(y_labels, final))
"""


def test_cut_at_the_test_labels_positive_rate_is_reported_at_the_rate(tmp_path):
    assert _lines(tmp_path, "rate.py", RATE_CUT.format(rated="y_labels"), ("tuned_on_test",)) == {10}


def test_cut_at_the_training_labels_positive_rate_is_silent(tmp_path):
    assert _lines(tmp_path, "fitrate.py", RATE_CUT.format(rated="y_fit"), ("tuned_on_test",)) == set()

"""A decision threshold read off the test rows' own ROC or precision-recall curve, then scored on those rows, is
``tuned_on_test``; chosen on a validation part, or only drawn, it is not. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str) -> set[tuple[str, int]]:
    return alarms(tmp_path, text, "triage.py")


HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, precision_recall_curve, recall_score, roc_curve
from sklearn.model_selection import train_test_split

cases = pd.read_csv("cases.csv")
X, y = cases.drop(columns=["sepsis"]), cases["sepsis"]
X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.2, stratify=y)
X_train, X_val, y_train, y_val = train_test_split(X_fit, y_fit, test_size=0.25, stratify=y_fit)
model = LogisticRegression(max_iter=500).fit(X_train, y_train)
"""

# Youden's J on the test rows' ROC curve, then recall at it on the same rows (inside a helper nobody calls, after
# an early return)
YOUDEN_ON_TEST = HEAD + """

def report(model, X_test, y_test):
    proba = model.predict_proba(X_test)[:, 1]
    if len(np.unique(y_test)) < 2:
        return None
    fpr, tpr, cuts = roc_curve(y_test, proba)
    best = np.argmax(tpr - fpr)
    cut = cuts[best]
    flagged = (proba >= cut).astype(int)
    return recall_score(y_test, flagged)
"""

# the best F1 over the test precision-recall curve, its predictions kept in a table of variants scored in a loop
F1_ON_TEST = HEAD + """
proba = model.predict_proba(X_test)[:, 1]
prec, rec, cuts = precision_recall_curve(y_test, proba)
f1s = [2 * p * r / (p + r + 1e-9) for p, r in zip(prec[:-1], rec[:-1])]
top = np.argmax(f1s)
cut = cuts[top]
variants = {"default": model.predict(X_test)}
variants["tuned"] = (proba >= cut).astype(int)
for name, pred in variants.items():
    print(name, f1_score(y_test, pred))
"""

# look-alikes: the threshold chosen on the validation part, then scored once on the test part; a threshold read off
# the test curve only to be printed; the test curve drawn
SILENT = HEAD + """
val_proba = model.predict_proba(X_val)[:, 1]
fpr, tpr, cuts = roc_curve(y_val, val_proba)
cut = cuts[np.argmax(tpr - fpr)]
test_proba = model.predict_proba(X_test)[:, 1]
print(recall_score(y_test, (test_proba >= cut).astype(int)))
t_fpr, t_tpr, t_cuts = roc_curve(y_test, test_proba)
print("Youden cut on the test rows:", t_cuts[np.argmax(t_tpr - t_fpr)])
print(recall_score(y_test, (test_proba >= 0.5).astype(int)))
"""


def test_youden_threshold_on_the_test_curve_then_scored_there(tmp_path):
    assert ("tuned_on_test", 19) in _alarms(tmp_path, YOUDEN_ON_TEST)


def test_best_f1_threshold_on_the_test_curve_scored_in_a_loop_of_variants(tmp_path):
    assert ("tuned_on_test", 16) in _alarms(tmp_path, F1_ON_TEST)


def test_threshold_chosen_on_validation_or_only_printed_stays_silent(tmp_path):
    assert {a for a in _alarms(tmp_path, SILENT) if a[0] == "tuned_on_test"} == set()


# blending weights tried in a loop, each blend scored on the test labels, the best kept (no model in the loop)
BLEND = HEAD + """
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score

forest = RandomForestClassifier().fit(X_train, y_train)
p_lin = model.predict_proba({part})[:, 1]
p_tree = forest.predict_proba({part})[:, 1]
best, weight = 0.0, None
for a in np.linspace(0, 1, 11):
    blend = a * p_lin + (1 - a) * p_tree
    auc = roc_auc_score({labels}, blend)
    if auc > best:
        best, weight = auc, a
print(best, weight)
"""

# every blend scored and printed, none kept; a bar that the loop never raises filters, it does not choose
BLEND_PRINTED = HEAD + """
from sklearn.metrics import roc_auc_score

p_lin = model.predict_proba(X_test)[:, 1]
for a in np.linspace(0, 1, 11):
    blend = a * p_lin + (1 - a) * 0.5
    auc = roc_auc_score(y_test, blend)
    if auc > 0.8:
        print("good blend", a, auc)
"""


def test_blending_weights_chosen_by_the_test_score(tmp_path):
    assert ("tuned_on_test", 22) in _alarms(tmp_path, BLEND.format(part="X_test", labels="y_test"))


def test_blending_weights_chosen_on_validation_or_only_printed_stay_silent(tmp_path):
    on_validation = _alarms(tmp_path, BLEND.format(part="X_val", labels="y_val"))
    assert {a for a in on_validation if a[0] == "tuned_on_test"} == set()
    assert {a for a in _alarms(tmp_path, BLEND_PRINTED) if a[0] == "tuned_on_test"} == set()

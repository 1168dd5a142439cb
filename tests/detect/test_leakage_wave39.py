"""Kinds of mistake (and of misreading) the held-out wave 39 showed, each in both directions: the leak found at its
line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity

HEADER = """\
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler, OrdinalEncoder, MinMaxScaler
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression, LinearRegression
from sklearn.metrics import roc_auc_score, accuracy_score
from sklearn.model_selection import train_test_split, KFold, cross_val_score
visits = pd.read_csv("visits.csv")
X, y = visits.drop(columns=["label"]), visits["label"]
"""
H = HEADER.count("\n")


def alarms(tmp_path, body, name="job.py"):
    """(kind, line in the snippet) of every finding at warning or above."""
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    report, _ = analyze_file(str(path))
    assert report.complete, report.stopped
    return [(f.kind, f.location["line"] - H) for f in report.findings if f.severity >= Severity.WARNING]


# -- 1. a docstring's doctest example is text: its closing quotes are not "doctest output"

DOCSTRING = '''
def scale_then_split(frame, labels):
    """Scale the columns, then hold a fifth of the rows out.

    Example:
        >>> a, b, c, d = scale_then_split(
        ...     frame, labels)
        >>> print(len(a))
    """
    scaled = StandardScaler().fit_transform(frame)
    return train_test_split(scaled, labels, test_size=0.2)

a, b, c, d = scale_then_split(X, y)
print(LogisticRegression().fit(a, c).score(b, d))
'''


def test_a_docstring_example_with_prompts_is_read_as_text(tmp_path):
    assert alarms(tmp_path, DOCSTRING) == [("fit_before_split", 10)]


def test_a_docstring_example_in_a_healthy_script_is_silent(tmp_path):
    healthy = DOCSTRING.replace("scaled = StandardScaler().fit_transform(frame)\n    return train_test_split(scaled,",
                                "return train_test_split(frame,")
    assert alarms(tmp_path, healthy) == []


def test_doctest_prompts_outside_strings_are_still_code(tmp_path):
    body = ">>> Z = MinMaxScaler().fit_transform(X)\n>>> a, b, c, d = train_test_split(Z, y)\n" \
           ">>> LogisticRegression().fit(a, c).score(b, d)\n0.5\n"
    assert alarms(tmp_path, body) == [("fit_before_split", 1)]


# -- 2. a mean/std over a list filled only with metric results summarises scores, not test rows

FOLD_SCORES = """\
fold_scores = []
for tr, te in KFold(5, shuffle=True).split(X):
    model = LogisticRegression().fit(X.values[tr], y.values[tr])
    guess = model.predict(X.values[te])
    fold_scores.append(np.array([accuracy_score(y.values[te], guess), roc_auc_score(y.values[te], guess)]))
middle = np.average(np.vstack([fold_scores]), axis=0)
spread = np.std(np.vstack([fold_scores]), axis=0)
pd.DataFrame(np.hstack([middle, spread]).reshape(1, -1)).to_csv("scores.csv")
"""


def test_mean_and_spread_of_per_fold_metric_results_is_silent(tmp_path):
    assert alarms(tmp_path, FOLD_SCORES) == []


def test_a_statistic_over_collected_test_fold_rows_is_still_reported(tmp_path):
    body = FOLD_SCORES.replace("fold_scores.append(np.array([accuracy_score(y.values[te], guess), "
                               "roc_auc_score(y.values[te], guess)]))", "fold_scores.append(X.values[te])")
    assert alarms(tmp_path, body) == [("fit_on_test", 6), ("fit_on_test", 7)]


# -- 9. optbinning's binners choose their bins with the target: a supervised encoding

BINNED = """\
import optbinning
from sklearn.model_selection import StratifiedKFold
cols = list(X.columns)
binner = optbinning.BinningProcess(variable_names=cols)
binner.fit(X[cols], y.to_numpy())
woe = binner.transform(X[cols], metric="woe")
for tr, te in StratifiedKFold(5).split(woe, y):
    clf = LogisticRegression().fit(woe.iloc[tr], y.iloc[tr])
    print(roc_auc_score(y.iloc[te], clf.predict_proba(woe.iloc[te])[:, 1]))
"""


def test_a_binning_process_fitted_with_the_target_before_cv_is_reported(tmp_path):
    assert alarms(tmp_path, BINNED) == [("fit_outside_cv", 5)]


def test_a_binning_process_fitted_inside_each_fold_is_silent(tmp_path):
    body = BINNED.replace("binner.fit(X[cols], y.to_numpy())\nwoe = binner.transform(X[cols], metric=\"woe\")\n",
                          "woe = X[cols]\n").replace(
        "    clf = LogisticRegression().fit(woe.iloc[tr], y.iloc[tr])\n",
        "    binner.fit(woe.iloc[tr], y.iloc[tr])\n"
        "    clf = LogisticRegression().fit(binner.transform(woe.iloc[tr]), y.iloc[tr])\n").replace(
        "clf.predict_proba(woe.iloc[te])", "clf.predict_proba(binner.transform(woe.iloc[te]))")
    assert alarms(tmp_path, body) == []


# -- 4. xgboost's native API: early stopping on a DMatrix of the test rows, whatever the wrapper is called

NATIVE = """\
import xgboost as xgb
features = [c for c in X.columns if c != "id"]
table = X.loc[:, features]
n = table.shape[0]
halves = train_test_split(range(n), test_size=0.2)
fit_X, fit_y = table.iloc[halves[0], :], y.values[halves[0]]
test_X, test_y = table.iloc[halves[1], :], y.values[halves[1]]
dfit = xgb.DMatrix(fit_X, label=fit_y)
dval = xgb.DMatrix(test_X, label=test_y)
booster = xgb.train({"eta": 0.05}, dfit, 2000, evals=[(dfit, "fit"), (dval, "val")], early_stopping_rounds=50)
print(roc_auc_score(test_y, booster.predict(dval)))
"""


def test_early_stopping_on_a_wrapper_of_the_test_rows_is_reported(tmp_path):
    assert alarms(tmp_path, NATIVE) == [("tuned_on_test", 10)]


def test_early_stopping_on_a_wrapper_of_validation_rows_is_silent(tmp_path):
    body = NATIVE.replace("booster = ", "part_X, val_X, part_y, val_y = train_test_split(fit_X, fit_y, test_size=0.2)\n"
                          "dpart = xgb.DMatrix(part_X, label=part_y)\ndval = xgb.DMatrix(val_X, label=val_y)\n"
                          "booster = ").replace("dfit, 2000", "dpart, 2000").replace(
        "booster.predict(dval)", "booster.predict(xgb.DMatrix(test_X))")
    assert alarms(tmp_path, body) == []


# -- 7. a transformer refitted on the test file's rows after the training rows: the last fit is the one used

REFIT = """\
from sklearn.feature_extraction import DictVectorizer
from sklearn.ensemble import RandomForestRegressor
shop = pd.read_csv("train.csv")
board = pd.read_csv("test.csv")
kinds = shop.select_dtypes(include=["object"]).columns
shop_records = shop.loc[:, kinds].T.to_dict().values()
board_records = board.loc[:, kinds].T.to_dict().values()
coder = DictVectorizer(sparse=False)
coder.fit(shop_records)
coder.fit(board_records)
forest = RandomForestRegressor().fit(coder.transform(shop_records), shop["price"])
pd.DataFrame({"price": forest.predict(coder.transform(board_records))}).to_csv("submission.csv")
"""


def test_a_refit_on_the_test_file_after_the_training_rows_is_reported(tmp_path):
    assert alarms(tmp_path, REFIT) == [("fit_on_test", 10)]


def test_one_fit_on_the_training_records_is_silent(tmp_path):
    assert alarms(tmp_path, REFIT.replace("coder.fit(board_records)\n", "")) == []


# -- 8. dummy data built in an `except FileNotFoundError:` branch is a table, not a dict: the file's table survives

FALLBACK = """\
try:
    homes = pd.read_csv("homes.csv")
except FileNotFoundError:
    homes = pd.DataFrame(np.random.rand(500, 4), columns=["a", "b", "c", "price"])
    homes["town"] = np.random.choice(["x", "y"], 500)
towns = ["town"]
coder = OrdinalEncoder()
homes[towns] = coder.fit_transform(homes[towns])
for tr, te in KFold(5, shuffle=True).split(homes):
    reg = LinearRegression().fit(homes.iloc[tr].drop(columns="price"), homes["price"].iloc[tr])
    print(reg.score(homes.iloc[te].drop(columns="price"), homes["price"].iloc[te]))
"""


def test_an_encoder_before_cv_after_a_dummy_data_fallback_is_reported(tmp_path):
    assert alarms(tmp_path, FALLBACK) == [("fit_outside_cv", 8)]


def test_the_same_without_the_encoder_is_silent(tmp_path):
    assert alarms(tmp_path, FALLBACK.replace("homes[towns] = coder.fit_transform(homes[towns])\n", "")) == []


# -- 6. a fit on two tables stacked, then a split of positions (range(n)) of one of them

STACKED = """\
from rows_source import load_parts
known_X, known_y, board_X = load_parts()
both = np.vstack((board_X, known_X))
axis = PCA(n_components=1).fit(both)
known_X["axis"] = axis.transform(known_X)
fit_rows, held_rows = train_test_split(range(known_X.shape[0]), test_size=0.1)
reg = LinearRegression().fit(known_X.iloc[fit_rows, :], known_y[fit_rows])
print(reg.score(known_X.iloc[held_rows, :], known_y[held_rows]))
"""


def test_a_fit_on_a_stack_before_a_split_of_row_positions_is_reported(tmp_path):
    assert alarms(tmp_path, STACKED) == [("fit_before_split", 4)]


def test_a_fit_on_the_stack_after_the_split_of_positions_is_silent(tmp_path):
    body = STACKED.replace("both = np.vstack((board_X, known_X))\n", "").replace(
        "axis = PCA(n_components=1).fit(both)\nknown_X[\"axis\"] = axis.transform(known_X)\n", "").replace(
        "reg = ", "axis = PCA(n_components=1).fit(np.vstack((board_X, known_X.iloc[fit_rows, :])))\nreg = ")
    assert alarms(tmp_path, body) == []


def test_early_stopping_on_a_part_named_cv_is_a_validation_look_alike(tmp_path):
    # not scored again after the stopping: a score on the stopping rows themselves would be the reported result
    # (house since wave 70, tests/test_leakage_earlystop_scored.py)
    body = NATIVE.replace("test_X", "cv_X").replace("test_y", "cv_y").replace("dval", "dcv").replace('"val"', '"cv"')
    body = body.replace("print(roc_auc_score(cv_y, booster.predict(dcv)))", "booster.save_model('rounds.json')")
    assert alarms(tmp_path, body) == []


# -- 3. backward elimination by hand: a feature is dropped when the test score barely moves without it

ELIMINATE = """\
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3)
base = LogisticRegression().fit(X_train, y_train)
best = roc_auc_score(y_test, base.predict_proba(X_test)[:, 1])
dropped = []
for col in list(X.columns):
    trial = LogisticRegression().fit(X_train.drop(dropped + [col], axis=1), y_train)
    auc = roc_auc_score(y_test, trial.predict_proba(X_test.drop(dropped + [col], axis=1))[:, 1])
    if best - auc >= 0.001:
        print("keep", col)
    else:
        best = auc
        dropped.append(col)
final = LogisticRegression().fit(X_train.drop(dropped, axis=1), y_train)
print(roc_auc_score(y_test, final.predict_proba(X_test.drop(dropped, axis=1))[:, 1]))
"""


def test_backward_elimination_scored_on_the_test_part_is_reported(tmp_path):
    assert alarms(tmp_path, ELIMINATE) == [("tuned_on_test", 7)]


def test_backward_elimination_on_a_validation_part_is_silent(tmp_path):
    body = ELIMINATE.replace("X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3)\n",
                             "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3)\n"
                             "X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.25)\n")
    for old, new in (("base = LogisticRegression().fit(X_train, y_train)", "base = LogisticRegression().fit(X_fit, y_fit)"),
                     ("best = roc_auc_score(y_test, base.predict_proba(X_test)", "best = roc_auc_score(y_val, base.predict_proba(X_val)"),
                     ("fit(X_train.drop(dropped + [col], axis=1), y_train)", "fit(X_fit.drop(dropped + [col], axis=1), y_fit)"),
                     ("auc = roc_auc_score(y_test, trial.predict_proba(X_test.", "auc = roc_auc_score(y_val, trial.predict_proba(X_val.")):
        body = body.replace(old, new)
    assert alarms(tmp_path, body) == []


# -- 5. a blender fitted on one fold's held-out predictions and labels, scored on the same rows

BLEND = """\
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error
rows, target = X.values, y.values
for tr, te in KFold(5, shuffle=True).split(rows):
    soft = Ridge(alpha=1.0).fit(rows[tr], target[tr])
    hard = Ridge(alpha=50.0).fit(rows[tr], target[tr])
    level1 = np.column_stack((soft.predict(rows[te]), hard.predict(rows[te])))
    blender = LinearRegression().fit(level1, target[te])
    print(mean_squared_error(target[te], blender.predict(level1)))
"""


def test_a_blender_fitted_and_scored_on_the_same_held_out_fold_is_reported(tmp_path):
    assert alarms(tmp_path, BLEND) == [("trained_on_test", 8)]


def test_a_blender_fitted_on_the_training_part_and_scored_on_the_fold_is_silent(tmp_path):
    body = BLEND.replace(
        "    blender = LinearRegression().fit(level1, target[te])\n",
        "    inner = np.column_stack((soft.predict(rows[tr]), hard.predict(rows[tr])))\n"
        "    blender = LinearRegression().fit(inner, target[tr])\n")
    assert alarms(tmp_path, body) == []

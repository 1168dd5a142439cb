"""The static leakage analysis on the regression and known false alarms of stop 56 (issue 17), in both directions:

* quantile buckets of the held-out predictions whose rows each fit a calibrator, scored on those same rows, are a
  statistic of the scored rows inside the scored model (fitinputs.py through scoredstats.py); a lift table of the
  same buckets, only printed, stays a report;
* a list that only ever receives a model's predictions (one per seed or per training set, appended in any loop or
  none, transposed or not) averaged with ``np.average`` blends models, no statistic of the rows (predbuffers.py); a
  list that receives the held-out features is still a statistic of them;
* a scikit-learn ROC curve of the best model unpacked into ``*_best`` names, none of them read, chose no cut-off
  (sweptresults.py); a project helper's best cut-off and best score on the test labels, printed, still did;
* one pair of a splitter's folds taken by ``next`` with its training indices thrown away (``_, picked = next(...)``)
  draws a sample of whole groups, holding nothing out (keptparts.py); both parts kept are still a hold-out;
* a booster early-stopped on the folds of a train-versus-test classifier (adversarial validation: the target is a
  mark set to 1 on one table and 0 on the other) measures drift, no model of the task (origintargets.py); a model of
  the task trained on the stack cut back by the same mark and stopped on its scored fold is still tuned_on_test;
* a booster that keeps its best iteration on the test part with its training log off, whose model is then only asked
  whether it is fitted and replaced, reports no score (silentstops.py); the same fit whose best score is printed
  is still tuned_on_test.

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

from tests.detect.leakage_source import dedented_alarms as _alarms
from tests.detect.leakage_source import line_of as _line

# ---------------------------------------------------------------- buckets of the scored rows that feed a fit

_BUCKET_CALIBRATION = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss
    from sklearn.model_selection import train_test_split

    clicks = pd.read_csv("clicks.csv")
    X, y = clicks.drop(columns="clicked"), clicks["clicked"]
    X_fit, X_hold, y_fit, y_hold = train_test_split(X, y, test_size=0.25, random_state=3)
    base = LogisticRegression(max_iter=500).fit(X_fit, y_fit)
    p_hold = base.predict_proba(X_hold)[:, 1]

    table = pd.DataFrame({"score": p_hold, "label": y_hold})
    table["band"] = pd.qcut(table["score"], q=4, duplicates="drop")
    layers = {}
    for band, rows in table.groupby("band"):
        odds = np.log(rows["score"].values / (1 - rows["score"].values)).reshape(-1, 1)
        layers[band] = LogisticRegression().fit(odds, rows["label"].values)

    adjusted = np.array(p_hold)
    for band, layer in layers.items():
        inside = (table["band"] == band).values
        adjusted[inside] = layer.predict_proba(np.log(p_hold[inside] / (1 - p_hold[inside])).reshape(-1, 1))[:, 1]
    print("log loss after banding", log_loss(y_hold, adjusted))
"""

_LIFT_TABLE = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import train_test_split

    clicks = pd.read_csv("clicks.csv")
    X, y = clicks.drop(columns="clicked"), clicks["clicked"]
    X_fit, X_hold, y_fit, y_hold = train_test_split(X, y, test_size=0.25, random_state=3)
    base = LogisticRegression(max_iter=500).fit(X_fit, y_fit)
    p_hold = base.predict_proba(X_hold)[:, 1]
    print("auc", roc_auc_score(y_hold, p_hold))

    table = pd.DataFrame({"score": p_hold, "label": y_hold})
    table["band"] = pd.qcut(table["score"], q=10, labels=False, duplicates="drop")
    lift = table.groupby("band")["label"].mean() / table["label"].mean()
    print(lift)
"""


def test_buckets_of_the_scored_predictions_feeding_calibrators_are_fit_on_test(tmp_path):
    assert ("fit_on_test", _line(_BUCKET_CALIBRATION, "pd.qcut")) in _alarms(tmp_path, _BUCKET_CALIBRATION)


def test_a_lift_table_of_the_same_buckets_stays_a_report(tmp_path):
    assert not {a for a in _alarms(tmp_path, _LIFT_TABLE) if a[0] == "fit_on_test"}


# ---------------------------------------------------------------- an average of a list of predictions

_SEED_BLEND = """\
    import numpy as np
    import pandas as pd
    from catboost import CatBoostClassifier

    matches = pd.read_csv("matches.csv")
    test_matches = pd.read_csv("test.csv")
    won = matches.pop("won")
    outputs = []
    for seed in (7, 11, 13):
        booster = CatBoostClassifier(random_seed=seed, verbose=0)
        booster.fit(matches, won)
        outputs.append(booster.predict_proba(test_matches)[:, 1].T)
    last = CatBoostClassifier(depth=4, verbose=0).fit(matches, won)
    outputs.append(last.predict_proba(test_matches)[:, 1])
    blend = np.average(np.array(outputs), axis=0)
    pd.DataFrame({"won": blend}).to_csv("submission.csv", index=False)
"""

_POOLED_FEATURES = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    games = pd.read_csv("games.csv")
    X, y = games.drop(columns="won").values, games["won"].values
    X_fit, X_hold, y_fit, y_hold = train_test_split(X, y, test_size=0.2, random_state=0)
    pool = []
    pool.append(X_fit)
    pool.append(X_hold)
    centre = np.average(np.concatenate(pool), axis=0)
    model = LogisticRegression().fit(X_fit - centre, y_fit)
    print(accuracy_score(y_hold, model.predict(X_hold - centre)))
"""


def test_an_average_of_a_list_of_predictions_blends_models(tmp_path):
    assert not _alarms(tmp_path, _SEED_BLEND)


def test_an_average_of_a_list_holding_the_held_out_features_is_still_a_statistic_of_them(tmp_path):
    assert ("fit_on_test", _line(_POOLED_FEATURES, "np.average")) in _alarms(tmp_path, _POOLED_FEATURES)


# ---------------------------------------------------------------- a curve of the best model, its thresholds unused

_CURVE_OF_THE_BEST = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score, roc_curve
    from sklearn.model_selection import GridSearchCV, train_test_split

    players = pd.read_csv("players.csv")
    X, y = players.drop(columns="top"), players["top"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=5)
    search = GridSearchCV(LogisticRegression(max_iter=300), {"C": [0.1, 1, 10]}, cv=5).fit(X_train, y_train)
    best_model = search.best_estimator_
    probs_best = best_model.predict_proba(X_test)[:, 1]
    print("test auc", roc_auc_score(y_test, probs_best))
    fpr_best, tpr_best, thresholds_best = roc_curve(y_test, probs_best)
"""

_HELPER_SWEEP = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from project.cutoffs import sweep_cutoffs

    players = pd.read_csv("players.csv")
    X, y = players.drop(columns="top"), players["top"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=5)
    model = LogisticRegression(max_iter=300).fit(X_train, y_train)
    probs = model.predict_proba(X_test)[:, 1]
    best_cutoff, best_f1 = sweep_cutoffs(y_test, probs)
    print("cut-off", best_cutoff, "f1 at it", best_f1)
"""


def test_a_roc_curve_of_the_best_model_whose_thresholds_nobody_reads_chose_nothing(tmp_path):
    assert not {a for a in _alarms(tmp_path, _CURVE_OF_THE_BEST) if a[0] == "tuned_on_test"}


def test_a_helpers_best_cutoff_and_best_score_on_the_test_labels_are_still_tuned_on_test(tmp_path):
    assert ("tuned_on_test", _line(_HELPER_SWEEP, "sweep_cutoffs(y_test")) in _alarms(tmp_path, _HELPER_SWEEP)


# ---------------------------------------------------------------- a fold pair whose training indices are thrown away

_GROUP_SAMPLE = """\
    import math

    import pandas as pd
    from sklearn.model_selection import GroupShuffleSplit

    ratings = pd.read_csv("ratings.csv").sample(frac=1, random_state=2).reset_index(drop=True)
    ratings["centred"] = ratings["stars"] - ratings["stars"].mean()
    ratings.to_csv("ratings_centred.csv", index=False)

    picker = GroupShuffleSplit(n_splits=1, test_size=0.1, random_state=2)
    _, picked = next(picker.split(ratings, groups=ratings["reader"]))
    small = ratings.iloc[picked].copy()
    head = math.floor(len(small) * 0.95)
    small["centred"] = small["stars"] - small.iloc[:head]["stars"].mean()
    small.to_csv("ratings_small.csv", index=False)
"""

_GROUP_HOLDOUT = """\
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.metrics import mean_absolute_error
    from sklearn.model_selection import GroupShuffleSplit

    ratings = pd.read_csv("ratings.csv")
    ratings["age"] = ratings["age"] - ratings["age"].mean()
    picker = GroupShuffleSplit(n_splits=1, test_size=0.1, random_state=2)
    kept, held = next(picker.split(ratings, groups=ratings["reader"]))
    fit_rows, held_rows = ratings.iloc[kept], ratings.iloc[held]
    model = Ridge().fit(fit_rows[["age"]], fit_rows["stars"])
    print(mean_absolute_error(held_rows["stars"], model.predict(held_rows[["age"]])))
"""


def test_a_fold_pair_whose_training_indices_are_thrown_away_draws_a_sample(tmp_path):
    assert not _alarms(tmp_path, _GROUP_SAMPLE)


def test_a_fold_pair_with_both_parts_kept_is_still_a_hold_out(tmp_path):
    assert ("fit_before_split", _line(_GROUP_HOLDOUT, '["age"].mean()')) in _alarms(tmp_path, _GROUP_HOLDOUT)


# ---------------------------------------------------------------- adversarial validation

_DRIFT_SCAN = """\
    import lightgbm as lgb
    import numpy as np
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    past = pd.read_csv("train.csv")
    future = pd.read_csv("test.csv")
    past["from_past"] = 1
    future["from_past"] = 0
    both = pd.concat([past, future], ignore_index=True)
    columns = [c for c in future.columns if c not in ("row_id", "from_past")]
    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=1)
    for column in columns:
        guess = np.zeros(len(both))
        for fit_idx, check_idx in folds.split(both, both["from_past"]):
            fit_set = lgb.Dataset(both.iloc[fit_idx][[column]], label=both["from_past"].iloc[fit_idx])
            check_set = lgb.Dataset(both.iloc[check_idx][[column]], label=both["from_past"].iloc[check_idx])
            booster = lgb.train({"objective": "binary"}, fit_set, 500, valid_sets=[check_set],
                                callbacks=[lgb.early_stopping(50)])
            guess[check_idx] = booster.predict(both.iloc[check_idx][[column]])
        print(column, roc_auc_score(both["from_past"], guess))
"""

_TASK_MODEL_ON_THE_CUT_BACK_STACK = """\
    import lightgbm as lgb
    import numpy as np
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    past = pd.read_csv("train.csv")
    future = pd.read_csv("test.csv")
    past["from_past"] = 1
    future["from_past"] = 0
    both = pd.concat([past, future], ignore_index=True)
    labelled = both[both["from_past"] == 1].reset_index(drop=True)
    columns = [c for c in future.columns if c not in ("row_id", "from_past")]
    guess = np.zeros(len(labelled))
    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=1)
    for fit_idx, check_idx in folds.split(labelled, labelled["churned"]):
        fit_set = lgb.Dataset(labelled.iloc[fit_idx][columns], label=labelled["churned"].iloc[fit_idx])
        check_set = lgb.Dataset(labelled.iloc[check_idx][columns], label=labelled["churned"].iloc[check_idx])
        booster = lgb.train({"objective": "binary"}, fit_set, 500, valid_sets=[check_set],
                            callbacks=[lgb.early_stopping(50)])
        guess[check_idx] = booster.predict(labelled.iloc[check_idx][columns])
    print("cv auc", roc_auc_score(labelled["churned"], guess))
"""


def test_early_stopping_of_a_train_versus_test_classifier_measures_drift(tmp_path):
    assert not {a for a in _alarms(tmp_path, _DRIFT_SCAN) if a[0] == "tuned_on_test"}


def test_a_task_model_on_the_stack_cut_back_by_the_mark_is_still_tuned_on_its_scored_fold(tmp_path):
    found = _alarms(tmp_path, _TASK_MODEL_ON_THE_CUT_BACK_STACK)
    assert ("tuned_on_test", _line(_TASK_MODEL_ON_THE_CUT_BACK_STACK, "booster = lgb.train")) in found


# ---------------------------------------------------------------- a stop on the test rows that nobody sees

_QUIET_DEMO = """\
    import pandas as pd
    from catboost import CatBoostClassifier, Pool
    from sklearn.model_selection import train_test_split

    reviews = pd.read_csv("reviews.csv")
    X, y = reviews.drop(columns="liked"), reviews["liked"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=4)
    train_pool, test_pool = Pool(X_train, y_train), Pool(X_test, y_test)

    demo = CatBoostClassifier(iterations=5)
    demo.fit(train_pool, eval_set=test_pool, verbose=False)
    print("fitted:", demo.is_fitted())
    print(demo.get_params())

    demo = CatBoostClassifier(iterations=300)
    demo.fit(train_pool)
    print(demo.score(test_pool))
"""

_QUIET_FIT_SHOWN = _QUIET_DEMO.replace('print("fitted:", demo.is_fitted())', 'print("best:", demo.best_score_)')


def test_a_stop_on_the_test_rows_with_the_log_off_and_the_model_unread_reports_nothing(tmp_path):
    assert not {a for a in _alarms(tmp_path, _QUIET_DEMO) if a[0] == "tuned_on_test"}


def test_the_same_stop_whose_best_score_is_printed_is_still_tuned_on_test(tmp_path):
    assert ("tuned_on_test", _line(_QUIET_FIT_SHOWN, "verbose=False")) in _alarms(tmp_path, _QUIET_FIT_SHOWN)


STACKED_MARK_THEN_LGB_TRAIN = '''
import lightgbm as lgb
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
train["train"] = 1
test["train"] = 0
both = pd.concat([train, test])
both["f_count"] = both.groupby("f")["f"].transform("count")
train = both[both["train"] == 1].drop(columns=["train"])
X = train.drop(columns=["target"]).values
y = train["target"].values
for tr, va in KFold(5).split(X):
    dtrain = lgb.Dataset(X[tr], y[tr])
    dvalid = lgb.Dataset(X[va], y[va])
    bst = lgb.train({"objective": "binary"}, dtrain, 1000, valid_sets=dvalid, early_stopping_rounds=50)
    print(roc_auc_score(y[va], bst.predict(X[va])))
'''


def test_a_training_call_named_like_the_table_mark_still_reports_its_fold_stop(tmp_path):
    """`lgb.train` is the callee, not a read of the `train` mark column: the fold's early stopping stays reported."""
    stop = ("tuned_on_test", _line(STACKED_MARK_THEN_LGB_TRAIN, "lgb.train("))
    assert stop in _alarms(tmp_path, STACKED_MARK_THEN_LGB_TRAIN)

"""The static leakage analysis on kinds left from stop 51's waves (issue 17, fix 52), in both directions:

* a second-level fit on held-out predictions scored on the rows it was fitted on -- an isotonic or Platt calibrator
  on out-of-fold predictions, a meta-model on the test part's predictions whose coefficients weigh the blend, blend
  weights chosen in a loop by the score of the rows they are reported on -- is ``trained_on_test`` /
  ``tuned_on_test``; a calibrator or blender fitted on out-of-fold training predictions and scored on a test part,
  fixed weights, or a weight loop whose scores are only printed stay silent;
* a fill by the mode of each label class's rows is a statistic with the labels; an imputer's output passed to
  ``pd.DataFrame(data=...)`` keeps the imputer's fit;
* predictions for a test file the script has no labels for are no score in a selection loop; a labelled test file
  still is;
* a cut at a share of a stacked table (``int(len(t) * 0.8)``) splits its rows by position, not at the seam of the
  stacked files;
* a flag kept on a configuration class (``class CFG: debug = False``) decides its ``if`` like a module flag; a
  value in a papermill ``parameters`` cell is a default and decides nothing.

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "script.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, textwrap.dedent(text), name)


# ---------------------------------------------------------------- second-level fits on held-out predictions

#: two first-level models cross-validated by hand: their out-of-fold probabilities fill two buffers
OOF_HEAD = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import StratifiedKFold
    from sklearn.linear_model import LogisticRegression
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.isotonic import IsotonicRegression
    from sklearn.metrics import brier_score_loss, log_loss

    matches = pd.read_parquet("matches.parquet")
    inputs = ["rating_gap", "rest_days", "travel_km"]
    outcome = matches["home_win"].to_numpy()
    oof_trees = np.zeros(len(matches))
    oof_linear = np.zeros(len(matches))
    for fold_fit, fold_out in StratifiedKFold(4, shuffle=True, random_state=7).split(matches, outcome):
        seen, unseen = matches.iloc[fold_fit], matches.iloc[fold_out]
        trees = ExtraTreesClassifier(n_estimators=300).fit(seen[inputs], seen["home_win"])
        linear = LogisticRegression(max_iter=500).fit(seen[inputs], seen["home_win"])
        oof_trees[fold_out] = trees.predict_proba(unseen[inputs])[:, 1]
        oof_linear[fold_out] = linear.predict_proba(unseen[inputs])[:, 1]
"""


def test_isotonic_calibration_scored_on_its_own_oof_rows_is_trained_on_test(tmp_path: Path) -> None:
    found = _alarms(tmp_path, OOF_HEAD + """\
    mixed = 0.6 * oof_trees + 0.4 * oof_linear
    print("cv brier", brier_score_loss(outcome, mixed))
    calibrator = IsotonicRegression(out_of_bounds="clip")
    calibrator.fit(mixed, outcome)
    print("calibrated cv brier", brier_score_loss(outcome, calibrator.predict(mixed)))
    """)
    assert ("trained_on_test", 23) in found


def test_platt_scaling_on_an_oof_table_scored_through_a_name_is_trained_on_test(tmp_path: Path) -> None:
    found = _alarms(tmp_path, OOF_HEAD + """\
    oof_table = pd.DataFrame({"p": oof_trees, "y": outcome})
    platt = LogisticRegression(C=1e6)
    platt.fit(oof_table[["p"]], oof_table.y)
    rescaled = platt.predict_proba(oof_table[["p"]])[:, 1]
    print(f"platt {log_loss(oof_table.y, rescaled):.4f}")
    """)
    assert ("trained_on_test", 22) in found


def test_blend_weights_kept_by_their_oof_score_are_tuned_on_test(tmp_path: Path) -> None:
    found = _alarms(tmp_path, OOF_HEAD + """\
    lowest, chosen = 9.0, None
    for share in np.linspace(0.0, 1.0, 21):
        blended = share * oof_trees + (1.0 - share) * oof_linear
        loss = brier_score_loss(outcome, blended)
        if loss < lowest:
            lowest, chosen = loss, share
    print("best blend", chosen, lowest)
    """)
    assert ("tuned_on_test", 23) in found


def test_calibrator_fitted_on_oof_rows_and_scored_on_a_test_part_is_silent(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split, cross_val_predict
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.isotonic import IsotonicRegression
    from sklearn.metrics import brier_score_loss

    matches = pd.read_parquet("matches.parquet")
    X, y = matches[["rating_gap", "rest_days"]], matches["home_win"]
    X_fit, X_eval, y_fit, y_eval = train_test_split(X, y, test_size=0.25, random_state=1)
    trees = ExtraTreesClassifier(n_estimators=300)
    oof_fit = cross_val_predict(trees, X_fit, y_fit, cv=5, method="predict_proba")[:, 1]
    trees.fit(X_fit, y_fit)
    calibrator = IsotonicRegression(out_of_bounds="clip").fit(oof_fit, y_fit)
    print(brier_score_loss(y_eval, calibrator.predict(trees.predict_proba(X_eval)[:, 1])))
    """)
    assert not {a for a in found if a[0] in ("trained_on_test", "tuned_on_test")}


def test_fixed_blend_and_printed_weight_scores_are_silent(tmp_path: Path) -> None:
    found = _alarms(tmp_path, OOF_HEAD + """\
    print("even blend", brier_score_loss(outcome, 0.5 * oof_trees + 0.5 * oof_linear))
    for share in (0.25, 0.5, 0.75):
        print(share, brier_score_loss(outcome, share * oof_trees + (1 - share) * oof_linear))
    """)
    assert not {a for a in found if a[0] in ("trained_on_test", "tuned_on_test")}


def test_a_training_score_of_a_first_level_model_is_silent(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss

    rides = pd.read_csv("rides.csv")
    features, label = rides[["distance", "hour"]], rides["late"]
    model = LogisticRegression().fit(features, label)
    print("train log loss", log_loss(label, model.predict_proba(features)[:, 1]))
    """)
    assert not {a for a in found if a[0] in ("trained_on_test", "tuned_on_test")}


def test_a_weight_optimiser_fitted_on_a_fold_and_scored_there_is_tuned_on_test(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import numpy as np
    import pandas as pd
    from scipy.optimize import minimize
    from sklearn.model_selection import KFold
    from sklearn.linear_model import Ridge
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.metrics import mean_absolute_error


    class BlendSearch:
        def fit(self, y_true, columns):
            stack = np.column_stack(columns)
            loss = lambda w: mean_absolute_error(y_true, stack @ (np.abs(w) / np.abs(w).sum()))
            self.w = np.abs(minimize(loss, np.ones(stack.shape[1])).x)
            return self

        def predict(self, columns):
            return np.column_stack(columns) @ (self.w / self.w.sum())

        def fit_predict(self, y_true, columns):
            return self.fit(y_true, columns).predict(columns)


    farms = pd.read_csv("farms.csv")
    X, y = farms[["rain", "sun", "soil"]], farms["yield"]
    for tr, va in KFold(5, shuffle=True, random_state=3).split(X):
        X_tr, X_val, y_tr, y_val = X.iloc[tr], X.iloc[va], y.iloc[tr], y.iloc[va]
        fold_preds = [m.fit(X_tr, y_tr).predict(X_val) for m in (Ridge(), KNeighborsRegressor())]
        searcher = BlendSearch()
        blend = searcher.fit_predict(y_val.values, fold_preds)
        print("fold blend mae", mean_absolute_error(y_val, blend))
    """)
    assert ("tuned_on_test", 30) in found


def test_a_training_score_before_a_name_is_reused_for_test_scores_is_silent(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier
    from sklearn.metrics import accuracy_score, f1_score

    loans = pd.read_csv("loans.csv")
    X, y = loans.drop(columns="default"), loans["default"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=8)
    tree = DecisionTreeClassifier(max_depth=5)
    tree.fit(X_train, y_train)
    print("train accuracy", accuracy_score(y_train, tree.predict(X_train)))
    test_pred = tree.predict(X_test)
    x = ["tree"]
    y = [f1_score(y_test, test_pred)]
    pd.DataFrame({"model": x, "f1": y}).plot.bar(x="model")
    """)
    assert not {a for a in found if a[0] in ("trained_on_test", "tuned_on_test")}


def test_a_training_score_on_a_train_and_test_stack_cut_by_its_label_is_silent(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score

    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    everyone = pd.concat([train, test])
    everyone["cabin_known"] = everyone["cabin"].notna().astype(int)
    X = everyone[everyone["Survived"].notnull()].drop(columns=["cabin"])
    y = X.pop("Survived")
    X_fit, X_check, y_fit, y_check = train_test_split(X, y, test_size=0.3, random_state=1)
    clf = LogisticRegression()
    clf.fit(X_fit, y_fit)
    print("fit accuracy", accuracy_score(y_fit, clf.predict(X_fit)))
    print("check accuracy", accuracy_score(y_check, clf.predict(X_check)))
    """)
    assert not {a for a in found if a[0] == "trained_on_test"}


def test_an_oof_column_among_the_features_makes_no_table_of_predictions(tmp_path: Path) -> None:
    found = _alarms(tmp_path, OOF_HEAD + """\
    matches["trees_oof"] = oof_trees
    feats = inputs + ["trees_oof"]
    second = LogisticRegression(max_iter=500)
    second.fit(matches[feats], outcome)
    print("train log loss", log_loss(outcome, second.predict_proba(matches[feats])[:, 1]))
    """)
    assert not {a for a in found if a[0] in ("trained_on_test", "tuned_on_test")}


#: a split by rows whose parts carry no held-out name; two first-level models score the held part
SPLIT_HEAD = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.metrics import roc_auc_score

    shop = pd.read_csv("sessions.csv")
    cols, target = ["pages", "seconds", "returning"], shop["bought"]
    part_a, part_b, lab_a, lab_b = train_test_split(shop[cols], target, test_size=0.3, random_state=5)
    first = GaussianNB().fit(part_a, lab_a).predict_proba(part_b)[:, 1]
    second = LogisticRegression().fit(part_a, lab_a).predict_proba(part_b)[:, 1]
"""


def test_meta_model_coefficients_fitted_on_the_held_part_weigh_its_score(tmp_path: Path) -> None:
    found = _alarms(tmp_path, SPLIT_HEAD + """\
    level_two = pd.DataFrame({"nb": first, "lr": second})
    weigher = LogisticRegression(fit_intercept=False)
    weigher.fit(level_two, lab_b)
    share = weigher.coef_[0] / weigher.coef_[0].sum()
    print("stacked auc", roc_auc_score(lab_b, share[0] * first + share[1] * second))
    """)
    assert ("trained_on_test", 15) in found


def test_meta_model_fitted_on_training_predictions_is_silent(tmp_path: Path) -> None:
    found = _alarms(tmp_path, SPLIT_HEAD + """\
    nb_fit = GaussianNB().fit(part_a, lab_a).predict_proba(part_a)[:, 1]
    lr_fit = LogisticRegression().fit(part_a, lab_a).predict_proba(part_a)[:, 1]
    weigher = LogisticRegression(fit_intercept=False)
    weigher.fit(np.column_stack([nb_fit, lr_fit]), lab_a)
    share = weigher.coef_[0] / weigher.coef_[0].sum()
    print("stacked auc", roc_auc_score(lab_b, share[0] * first + share[1] * second))
    """)
    assert not {a for a in found if a[0] in ("trained_on_test", "tuned_on_test")}


# ---------------------------------------------------------------- fills that read the label, tables built by keyword


def test_mode_fill_per_label_class_before_cross_validation_is_fit_outside_cv(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.model_selection import cross_val_score
    from sklearn.ensemble import GradientBoostingClassifier

    staff = pd.read_csv("survey.csv")
    for field in ["dept", "shift"]:
        for answer in staff["Attrition"].unique():
            same_answer = staff[staff["Attrition"] == answer]
            usual = same_answer[field].mode()
            holes = (staff["Attrition"] == answer) & staff[field].isna()
            staff.loc[holes, field] = usual.iloc[0]
    y_left = staff["Attrition"]
    inputs = pd.get_dummies(staff[["dept", "shift", "tenure"]])
    print(cross_val_score(GradientBoostingClassifier(), inputs, y_left, cv=4).mean())
    """)
    assert ("fit_outside_cv", 9) in found


def test_mode_fill_per_class_of_the_training_part_only_is_silent(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.ensemble import GradientBoostingClassifier

    staff = pd.read_csv("survey.csv")
    fit_part, eval_part = train_test_split(staff, test_size=0.25, random_state=2)
    fit_part = fit_part.copy()
    for answer in fit_part["Attrition"].unique():
        same_answer = fit_part[fit_part["Attrition"] == answer]
        holes = (fit_part["Attrition"] == answer) & fit_part["dept"].isna()
        fit_part.loc[holes, "dept"] = same_answer["dept"].mode().iloc[0]
    eval_part = eval_part.fillna({"dept": fit_part["dept"].mode().iloc[0]})
    model = GradientBoostingClassifier().fit(pd.get_dummies(fit_part[["dept", "tenure"]]), fit_part["Attrition"])
    print(model.score(pd.get_dummies(eval_part[["dept", "tenure"]]), eval_part["Attrition"]))
    """)
    assert not {a for a in found if a[0] in ("fit_before_split", "fit_on_test", "fit_outside_cv")}


def test_imputer_output_passed_as_data_keyword_keeps_its_fit(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.impute import KNNImputer
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC

    cohort = pd.read_csv("cohort.csv", index_col="patient")
    neighbours = KNNImputer(n_neighbors=7).fit(cohort)
    cohort = pd.DataFrame(data=neighbours.transform(cohort), index=cohort.index, columns=cohort.columns)
    X, y = cohort.drop(columns="relapse"), cohort["relapse"]
    X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.3, random_state=4)
    print(SVC().fit(X_a, y_a).score(X_b, y_b))
    """)
    assert ("fit_before_split", 7) in found


def test_imputer_fitted_on_the_training_part_then_built_by_keyword_is_silent(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.impute import KNNImputer
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC

    cohort = pd.read_csv("cohort.csv", index_col="patient")
    X, y = cohort.drop(columns="relapse"), cohort["relapse"]
    X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.3, random_state=4)
    neighbours = KNNImputer(n_neighbors=7).fit(X_a)
    X_a = pd.DataFrame(data=neighbours.transform(X_a), index=X_a.index, columns=X_a.columns)
    X_b = pd.DataFrame(data=neighbours.transform(X_b), index=X_b.index, columns=X_b.columns)
    print(SVC().fit(X_a, y_a).score(X_b, y_b))
    """)
    assert not {a for a in found if a[0] in ("fit_before_split", "fit_on_test", "fit_outside_cv")}


# ---------------------------------------------------------------- predictions for an unlabelled test file

#: a competition layout: train.csv with the price, test.csv without it; the loop keeps the best by the folds' error
SUBMISSION_LOOP = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import KFold
    from sklearn.linear_model import Ridge
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.metrics import mean_absolute_error

    homes = pd.read_csv("train.csv")
    queries = pd.read_csv("test.csv")
    cols = ["rooms", "area", "age"]
    X_all, y_all = homes[cols], homes["price"]
    X_sub = queries[cols]
    candidates = {"ridge": Ridge(alpha=3.0), "forest": RandomForestRegressor(n_estimators=200)}
    best_name, best_err = None, np.inf
    sub_preds = {}
    for name, reg in candidates.items():
        errs = []
        for fit_rows, val_rows in KFold(5, shuffle=True, random_state=0).split(X_all):
            reg.fit(X_all.iloc[fit_rows], y_all.iloc[fit_rows])
            errs.append(mean_absolute_error(y_all.iloc[val_rows], reg.predict(X_all.iloc[val_rows])))
            sub_preds.setdefault(name, []).append(reg.predict(X_sub))
        if np.mean(errs) < best_err:
            best_name, best_err = name, np.mean(errs)
    pd.DataFrame({"id": queries["id"], "price": np.mean(sub_preds[best_name], axis=0)}).to_csv("submission.csv")
"""


def test_predicting_an_unlabelled_test_file_in_a_selection_loop_is_no_score(tmp_path: Path) -> None:
    assert not {a for a in _alarms(tmp_path, SUBMISSION_LOOP) if a[0] == "tuned_on_test"}


def test_a_test_file_with_its_labels_scored_in_a_selection_loop_is_tuned_on_test(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.metrics import mean_absolute_error

    homes = pd.read_csv("train.csv")
    holdout = pd.read_csv("test.csv")
    cols = ["rooms", "area", "age"]
    X_all, y_all = homes[cols], homes["price"]
    X_test, y_test = holdout[cols], holdout["price"]
    best_name, best_err = None, np.inf
    for name, reg in {"ridge": Ridge(alpha=3.0), "forest": RandomForestRegressor()}.items():
        reg.fit(X_all, y_all)
        err = mean_absolute_error(y_test, reg.predict(X_test))
        if err < best_err:
            best_name, best_err = name, err
    print(best_name, best_err)
    """)
    assert ("tuned_on_test", 15) in found


def test_a_helper_given_the_test_labels_still_scores_its_test_rows(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    from sklearn.linear_model import Lasso
    from sklearn.tree import DecisionTreeRegressor
    from sklearn.metrics import r2_score


    def rank_models(X_train, y_train, X_test, y_test):
        table = []
        for label, reg in (("lasso", Lasso()), ("tree", DecisionTreeRegressor(max_depth=4))):
            reg.fit(X_train, y_train)
            guess = reg.predict(X_test)
            table.append((label, r2_score(y_test, guess)))
        return max(table, key=lambda row: row[1])
    """)
    assert ("tuned_on_test", 10) in found


# ---------------------------------------------------------------- a cut at a share of a stacked table


def test_a_share_of_a_stacked_table_cut_off_is_a_positional_split(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.preprocessing import StandardScaler
    from lightgbm import LGBMRegressor

    spring = pd.read_csv("season_spring.csv")
    autumn = pd.read_csv("season_autumn.csv")
    games = pd.concat([spring, autumn])
    games[["form", "rest"]] = StandardScaler().fit_transform(games[["form", "rest"]])
    n_fit = int(games.shape[0] * 0.8)
    df_valid = games.iloc[n_fit:]
    df_fit = games.iloc[:n_fit]
    model = LGBMRegressor().fit(df_fit[["form", "rest"]], df_fit["goals"],
                                eval_set=[(df_valid[["form", "rest"]], df_valid["goals"])])
    print(model.score(df_valid[["form", "rest"]], df_valid["goals"]))
    """)
    assert ("fit_before_split", 8) in found and not {a for a in found if a[0] == "fit_on_test"}


def test_a_cut_at_the_training_file_length_still_parts_train_and_test(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.preprocessing import OrdinalEncoder
    from lightgbm import LGBMRegressor

    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    both = pd.concat([train, test]).reset_index(drop=True)
    codes = OrdinalEncoder()
    both[["venue", "league"]] = codes.fit_transform(both[["venue", "league"]])
    n_train = len(train)
    fit_rows, sub_rows = both.iloc[:n_train], both.iloc[n_train:]
    model = LGBMRegressor().fit(fit_rows[["venue", "league", "form"]], fit_rows["goals"])
    sub_rows.assign(goals=model.predict(sub_rows[["venue", "league", "form"]])).to_csv("submission.csv")
    """)
    assert ("fit_on_test", 9) in found


# ---------------------------------------------------------------- flags on a config class, papermill parameters


def test_a_config_class_flag_decides_its_branches_like_a_module_flag(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.datasets import fetch_california_housing
    from sklearn.model_selection import GridSearchCV
    from sklearn.linear_model import LogisticRegression

    class Setup:
        classify = True
        n_splits = 4

    if not Setup.classify:
        houses = fetch_california_housing()
        X, y = houses.data, houses.target
    if Setup.classify:
        riders = pd.read_csv("riders.csv")
        X = riders.drop(["returned"], axis=1)
        y = riders.returned
        X.loc[X.fare.isnull(), "fare"] = X.fare.median()
    search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=Setup.n_splits).fit(X.values, y)
    print(search.best_score_)
    """)
    assert ("fit_outside_cv", 17) in found


def test_a_config_class_attribute_set_again_is_no_flag(tmp_path: Path) -> None:
    found = _alarms(tmp_path, """\
    import pandas as pd
    from sklearn.preprocessing import StandardScaler
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC

    class Setup:
        scale_first = False

    Setup.scale_first = True
    cells = pd.read_csv("cells.csv")
    X, y = cells.drop(columns="malignant"), cells["malignant"]
    if Setup.scale_first:
        X = StandardScaler().fit_transform(X)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
    print(SVC().fit(X_tr, y_tr).score(X_te, y_te))
    """)
    assert ("fit_before_split", 13) in found


def _notebook(tmp_path: Path, cells: list[tuple[str, list[str]]]) -> set[tuple[str, object, int]]:
    import json

    from faultlib.detect.data.leakage import analyze_file
    from faultlib.findings import Severity

    path = tmp_path / "run.ipynb"
    path.write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {"tags": tags}, "outputs": [], "execution_count": None,
         "source": textwrap.dedent(text)} for text, tags in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    report, _ = analyze_file(str(path), alone=True)
    return {(f.kind, f.location.get("index"), f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING}


PAPERMILL_CELLS = [
    ("""\
    import pandas as pd
    from sklearn.preprocessing import StandardScaler
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC
    """, []),
    ("""\
    scale_first = False
    """, ["parameters"]),
    ("""\
    cells = pd.read_csv("cells.csv")
    X, y = cells.drop(columns="malignant"), cells["malignant"]
    if scale_first:
        X = StandardScaler().fit_transform(X)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
    print(SVC().fit(X_tr, y_tr).score(X_te, y_te))
    """, []),
]


def test_a_papermill_parameter_is_a_default_and_decides_nothing(tmp_path: Path) -> None:
    assert ("fit_before_split", 3, 4) in _notebook(tmp_path, PAPERMILL_CELLS)


def test_the_same_value_in_an_untagged_cell_is_a_module_flag(tmp_path: Path) -> None:
    untagged = [(text, []) for text, _ in PAPERMILL_CELLS]
    assert not {a for a in _notebook(tmp_path, untagged) if a[0] == "fit_before_split"}

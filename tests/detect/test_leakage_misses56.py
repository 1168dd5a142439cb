"""The static leakage analysis on missed-leak kinds labelled as false negatives before stop 56 (issue 17), in both
directions:

* a project's own transformer whose ``transform`` returns the rows and the labels (pairreturns.py):
  ``X, y = prep.fit_transform(X, y)`` on every row, then a split or a cross-validation, is a fit before them; the
  same class fitted on the training part after the split is silent, and so is a tuple whose first item is not the
  rows;
* early stopping handed to a search through a spread dictionary (earlystop.py): ``search.fit(X_train, y_train,
  **fit_params)`` with ``fit_params = {'eval_set': [(X_test, y_test)], 'early_stopping_rounds': 30}``, or the
  search's estimator built with an ``EarlyStopping`` callback and the evaluation set spread into ``fit``, is
  tuned on the test rows; silent on a validation part, without a stopping rule, and when xgboost stops on the
  last set and that is the training part;
* feature importances summed or averaged over the models of a cross-validation loop (foldrankings.py): the columns
  they rank first, cross-validated over the same rows, were chosen with every fold's labels (``fit_outside_cv`` at
  the fold's fit); silent when each fold ranks and scores its own columns inside the loop, and when the kept
  columns are scored on a held-out test part;
* candidates scored on the test rows one statement each into a dictionary, then its best item kept
  (spelledreports.py: ``results['svm'] = evaluate(svm, X_test, y_test)`` ... ``max(results.items(), key=...)``);
  silent when the report is only printed, when the candidates are scored on a validation part, and for one model's
  scores on the training and the test part;
* a clustering used as a classifier (clusterscores.py): k-means ids of the test rows, mapped to classes by the
  training labels and scored with ``accuracy_score(y_test, ids)`` inside an optimizer's objective, tuned the number
  of clusters on the test rows; silent when the objective scores a validation part, and when it scores the
  clusters by an internal index (silhouette) that reads no label.

Every example is written for this test."""

from __future__ import annotations

from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_misses54 import alarms, line_of

# ---------------------------------------------------------------- a transformer of the project returning (X, y)

#: a class with ``fit`` and ``transform`` that learns per-column medians and drops rows with a missing label
CLEANER = """\
    import numpy as np
    import pandas as pd
    from sklearn.base import BaseEstimator, TransformerMixin


    class GapFiller(BaseEstimator, TransformerMixin):
        def fit(self, X, y=None):
            self.medians_ = X.median()
            return self

        def transform(self, X, y=None):
            X = X.fillna(self.medians_)
            {body}

        def fit_transform(self, X, y=None, **fit_params):
            return self.fit(X, y).transform(X, y)
"""

PAIR = """if y is not None:
                keep = y.notna()
                return X[keep], y[keep]
            return X"""

SPLIT_AFTER = """\

    plots = pd.read_csv('plots.csv')
    X, y = plots.drop(columns='harvest'), plots['harvest']
    X, y = GapFiller().fit_transform(X, y)
    from sklearn.model_selection import train_test_split
    from sklearn.linear_model import Ridge
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25)
    print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))
"""

CV_AFTER = """\

    plots = pd.read_csv('plots.csv')
    filler = GapFiller()
    X, y = filler.fit_transform(plots.drop(columns='harvest'), plots['harvest'])
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.linear_model import Ridge
    print(cross_val_score(Ridge(), X, y, cv=KFold(5, shuffle=True)).mean())
"""

FIT_ON_TRAIN = """\

    plots = pd.read_csv('plots.csv')
    from sklearn.model_selection import train_test_split
    from sklearn.linear_model import Ridge
    X_tr, X_te, y_tr, y_te = train_test_split(plots.drop(columns='harvest'), plots['harvest'])
    filler = GapFiller()
    X_tr, y_tr = filler.fit_transform(X_tr, y_tr)
    X_te, y_te = filler.transform(X_te, y_te)
    print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))
"""


def _cleaner(body: str = PAIR) -> str:
    return CLEANER.replace("{body}", body)


def test_a_project_transformer_returning_rows_and_labels_fitted_before_the_split(tmp_path):
    path = write(tmp_path, "train.py", _cleaner() + SPLIT_AFTER)
    assert ("fit_before_split", line_of(path, "GapFiller().fit_transform")) in alarms(path)


def test_a_project_transformer_returning_rows_and_labels_fitted_before_the_cross_validation(tmp_path):
    path = write(tmp_path, "train.py", _cleaner() + CV_AFTER)
    assert ("fit_outside_cv", line_of(path, "filler.fit_transform")) in alarms(path)


def test_a_transform_that_always_returns_the_pair_is_read_without_labels_passed(tmp_path):
    always = "return X, y"
    code = _cleaner(always) + SPLIT_AFTER.replace("GapFiller().fit_transform(X, y)", "GapFiller().fit_transform(X)")
    path = write(tmp_path, "train.py", code)
    assert ("fit_before_split", line_of(path, "GapFiller().fit_transform")) in alarms(path)


def test_the_same_transformer_fitted_on_the_training_part_is_silent(tmp_path):
    path = write(tmp_path, "train.py", _cleaner() + FIT_ON_TRAIN)
    assert not [k for k, _ in alarms(path) if k in ("fit_before_split", "fit_on_test", "fit_outside_cv")]


def test_the_roles_of_a_returned_tuple_follow_the_method_parameters():
    import ast

    from faultlib.detect.data.leakage.pairreturns import tuple_roles
    from faultlib.pyflow.values import Func

    def roles(code: str) -> dict:
        cls = ast.parse(code).body[0]
        return tuple_roles({f.name: Func(f, f.name) for f in cls.body})

    assert roles("class A:\n def transform(self, X, y=None):\n  return X, y\n") == {
        "transform": (("x", "y"), True), "fit_transform": (("x", "y"), True)}
    assert roles("class A:\n def transform(self, X, y=None):\n  if y is None:\n   return X\n  return X, y, 3\n"
                 ) == {"transform": (("x", "y", None), False), "fit_transform": (("x", "y", None), False)}
    assert roles("class A:\n def transform(self, X, y=None):\n  return self.cols, X\n")["transform"][0] == (None, "x")
    assert roles("class A:\n def transform(self, X, y=None):\n  return y, len(y)\n") == {}  # no rows item
    assert roles("class A:\n def transform(self, X):\n  return X\n") == {}
    assert roles("class A:\n def transform(self, X, y):\n  return X, y\n def fit_transform(self, X, y):\n"
                 "  return self.fit(X).transform(X, y)\n")["fit_transform"] == (("x", "y"), True)


# ---------------------------------------------------------------- early stopping spread into a search's fit

SEARCH = """\
    import pandas as pd
    from sklearn.model_selection import GridSearchCV, train_test_split
    from sklearn.metrics import roc_auc_score
    from xgboost import XGBClassifier

    loans = pd.read_csv('loans.csv')
    X_train, X_test, y_train, y_test = train_test_split(loans.drop(columns='default'), loans['default'])
    X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.2)
    fit_params = {{'eval_set': {sets}, {stop}'verbose': False}}
    grid = GridSearchCV(XGBClassifier(n_estimators=2000), {{'max_depth': [3, 5, 7]}}, cv=5)
    grid.fit(X_fit, y_fit, **fit_params)
    print(roc_auc_score(y_test, grid.predict_proba(X_test)[:, 1]))
"""

ROUNDS = "'early_stopping_rounds': 30, "


def _search_alarms(tmp_path, sets: str, stop: str = ROUNDS) -> tuple[list[str], int]:
    path = write(tmp_path, "tune.py", SEARCH.format(sets=sets, stop=stop))
    line = line_of(path, "grid.fit(")
    return [k for k, at in alarms(path) if at == line], line


def test_early_stopping_spread_into_a_search_on_the_test_rows(tmp_path):
    kinds, _ = _search_alarms(tmp_path, "[(X_test, y_test)]")
    assert kinds == ["tuned_on_test"]


def test_early_stopping_spread_into_a_search_on_a_validation_part_is_silent(tmp_path):
    assert _search_alarms(tmp_path, "[(X_val, y_val)]")[0] == []


def test_an_evaluation_set_spread_without_a_stopping_rule_is_silent(tmp_path):
    assert _search_alarms(tmp_path, "[(X_test, y_test)]", stop="")[0] == []


def test_xgboost_stopping_on_the_last_spread_set_the_training_rows_is_silent(tmp_path):
    assert _search_alarms(tmp_path, "[(X_test, y_test), (X_fit, y_fit)]")[0] == []


CALLBACK_SEARCH = """\
    import pandas as pd
    from scipy.stats import randint
    from sklearn.model_selection import RandomizedSearchCV, train_test_split
    from sklearn.metrics import roc_auc_score
    from xgboost import XGBClassifier
    from xgboost.callback import EarlyStopping


    def tune(X_tr, y_tr, X_ho, y_ho):
        fixed = {'n_estimators': 500, 'callbacks': [EarlyStopping(rounds=5, save_best=True)]}
        watched = [(X_tr, y_tr), (X_ho, y_ho)]
        extra = {'eval_set': watched, 'verbose': False}
        search = RandomizedSearchCV(
            estimator=XGBClassifier(**fixed),
            param_distributions={'max_depth': randint(3, 9)},
            cv=5,
        ).fit(X_tr, y_tr, **extra)
        return search.best_estimator_


    loans = pd.read_csv('loans.csv')
    X_train, X_test, y_train, y_test = train_test_split(loans.drop(columns='default'), loans['default'])
    model = tune(X_train, y_train, {held})
    print(roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]))
"""


def test_a_search_whose_estimator_stops_by_callback_on_the_spread_test_rows(tmp_path):
    path = write(tmp_path, "tune.py", CALLBACK_SEARCH.replace("{held}", "X_test, y_test"))
    assert ("tuned_on_test", line_of(path, "search = RandomizedSearchCV(")) in alarms(path)


def test_a_wrapper_handing_on_its_callers_eval_set_through_a_spread_dict_is_silent(tmp_path):
    path = write(tmp_path, "wrappers.py", """\
        import xgboost as xgb


        class Booster:
            def __init__(self, **params):
                self.params = params

            def fit(self, X, y, **kwargs):
                params = dict(self.params)
                fit_params = {'verbose': False}
                if 'eval_set' in kwargs:
                    params['early_stopping_rounds'] = 50
                    fit_params['eval_set'] = kwargs['eval_set']
                self.model = xgb.XGBClassifier(**params)
                self.model.fit(X, y, **fit_params)
                return self
    """)
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]


def test_the_same_search_stopping_on_a_validation_part_is_silent(tmp_path):
    code = CALLBACK_SEARCH.replace("{held}", "X_val, y_val").replace(
        "model = tune", "X_train, X_val, y_train, y_val = train_test_split(X_train, y_train)\n    model = tune")
    path = write(tmp_path, "tune.py", code)
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]


# ---------------------------------------------------------------- importances over every fold, then the same CV

RANKING = """\
    import numpy as np
    import pandas as pd
    from sklearn.ensemble import ExtraTreesRegressor
    from sklearn.model_selection import KFold, cross_val_score, train_test_split

    fields = pd.read_csv('fields.csv')
    X, y = fields.drop(columns='tonnes'), fields['tonnes'].values
{body}
"""

SUMMED = """\
    votes = np.zeros(X.shape[1])
    for fit_idx, _ in KFold(4, shuffle=True).split(X):
        forest = ExtraTreesRegressor(n_estimators=50).fit(X.iloc[fit_idx], y[fit_idx])
        votes += forest.feature_importances_
    chosen = list(pd.Series(votes, index=X.columns).nlargest(8).index)
    print(cross_val_score(ExtraTreesRegressor(), X[chosen], y, cv=KFold(4)).mean())
"""

AVERAGED = """\
    def strongest(frame, target, n):
        per_fold = []
        for a, b in KFold(5).split(frame):
            forest = ExtraTreesRegressor().fit(frame.iloc[a], target[a])
            per_fold.append(forest.feature_importances_)
        mean_imp = np.mean(per_fold, axis=0)
        pairs = [(frame.columns[i], v) for i, v in enumerate(mean_imp)]
        ordered = sorted(pairs, key=lambda p: p[1], reverse=True)
        return [p[0] for p in ordered[:n]]


    chosen = strongest(X.reset_index(drop=True), y, 8)
    X = X[chosen]
    errors = []
    for tr, va in KFold(5, shuffle=True).split(X):
        model = ExtraTreesRegressor().fit(X.iloc[tr], y[tr])
        errors.append(np.abs(model.predict(X.iloc[va]) - y[va]).mean())
    print(np.mean(errors))
"""

INSIDE = """\
    errors = []
    for tr, va in KFold(5).split(X):
        forest = ExtraTreesRegressor().fit(X.iloc[tr], y[tr])
        top = X.columns[np.argsort(forest.feature_importances_)[::-1][:8]]
        model = ExtraTreesRegressor().fit(X.iloc[tr][top], y[tr])
        errors.append(np.abs(model.predict(X.iloc[va][top]) - y[va]).mean())
    print(np.mean(errors))
"""

HELD_OUT = """\
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25)
    votes = np.zeros(X.shape[1])
    for fit_idx, _ in KFold(4).split(X_tr):
        votes += ExtraTreesRegressor().fit(X_tr.iloc[fit_idx], y_tr[fit_idx]).feature_importances_
    chosen = list(pd.Series(votes, index=X.columns).nlargest(8).index)
    print(ExtraTreesRegressor().fit(X_tr[chosen], y_tr).score(X_te[chosen], y_te))
"""


def _ranking(tmp_path, body: str):
    import textwrap

    return write(tmp_path, "select.py", RANKING.replace("{body}", textwrap.indent(textwrap.dedent(body), "    ")))


def test_importances_summed_over_the_folds_choose_the_columns_the_same_rows_then_cross_validate(tmp_path):
    path = _ranking(tmp_path, SUMMED)
    assert ("fit_outside_cv", line_of(path, "forest = ExtraTreesRegressor(n_estimators=50)")) in alarms(path)


def test_importances_averaged_over_the_folds_in_a_helper_then_a_fold_loop_on_the_chosen_columns(tmp_path):
    path = _ranking(tmp_path, AVERAGED)
    assert ("fit_outside_cv", line_of(path, "forest = ExtraTreesRegressor().fit(frame.iloc[a]")) in alarms(path)


def test_each_fold_ranking_its_own_columns_inside_the_loop_is_silent(tmp_path):
    path = _ranking(tmp_path, INSIDE)
    assert "fit_outside_cv" not in [k for k, _ in alarms(path)]


def test_a_fold_ranking_scored_on_a_held_out_test_part_is_silent(tmp_path):
    path = _ranking(tmp_path, HELD_OUT)
    assert not [k for k, _ in alarms(path) if k in ("fit_outside_cv", "fit_before_split")]


# ---------------------------------------------------------------- a report spelled out per candidate, best kept

REPORT = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.svm import SVC
    from sklearn.model_selection import train_test_split
    from sklearn.metrics import accuracy_score, f1_score


    def measure(model, rows, labels):
        guesses = model.predict(rows)
        return {{'accuracy': accuracy_score(labels, guesses), 'f1': f1_score(labels, guesses, average='macro')}}


    def main():
        bearings = pd.read_csv('bearings.csv')
        X_train, X_test, y_train, y_test = train_test_split(bearings.drop(columns='fault'), bearings['fault'])
        X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train)
        forest = RandomForestClassifier().fit(X_fit, y_fit)
        svm = SVC().fit(X_fit, y_fit)
        results = {{}}
        results['forest'] = measure(forest, {rows})
        results['svm'] = measure(svm, {rows})
        {pick}


    main()
"""

PICK = "best = max(results.items(), key=lambda kv: kv[1]['accuracy'])\n        print('best', best[0], best[1])"


def test_candidates_scored_on_the_test_rows_one_a_statement_and_the_best_kept(tmp_path):
    path = write(tmp_path, "train.py", REPORT.format(rows="X_test, y_test", pick=PICK))
    assert ("tuned_on_test", line_of(path, "best = max(results.items()")) in alarms(path)


def test_the_same_report_written_as_one_literal_and_chosen_by_key(tmp_path):
    code = REPORT.format(rows="X_test, y_test", pick="print(max(results, key=lambda k: results[k]['f1']))").replace(
        "results['forest'] = measure(forest, X_test, y_test)\n        results['svm'] = measure(svm, X_test, y_test)",
        "results = {'forest': measure(forest, X_test, y_test), 'svm': measure(svm, X_test, y_test)}")
    path = write(tmp_path, "train.py", code)
    assert ("tuned_on_test", line_of(path, "print(max(results")) in alarms(path)


def test_a_report_only_printed_is_silent(tmp_path):
    path = write(tmp_path, "train.py", REPORT.format(rows="X_test, y_test", pick="print(results)"))
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]


def test_candidates_chosen_on_a_validation_part_are_silent(tmp_path):
    path = write(tmp_path, "train.py", REPORT.format(rows="X_val, y_val", pick=PICK))
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]


def test_one_model_scored_on_the_training_and_the_test_part_is_silent(tmp_path):
    code = REPORT.format(rows="X_test, y_test", pick=PICK).replace(
        "results['svm'] = measure(svm, X_test, y_test)", "results['svm'] = measure(forest, X_fit, y_fit)")
    path = write(tmp_path, "train.py", code)
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]


# ---------------------------------------------------------------- k-means as a classifier, tuned on the test rows

CLUSTER_OBJECTIVE = """\
    import numpy as np
    import pandas as pd
    from hyperopt import hp, fmin, tpe, STATUS_OK
    from sklearn.cluster import KMeans
    from sklearn.model_selection import train_test_split
    from sklearn.metrics import accuracy_score, silhouette_score

    flows = pd.read_csv('flows.csv')
    X_train, X_test, y_train, y_test = train_test_split(flows.drop(columns='attack').values, flows['attack'].values)
    X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train)


    def objective(params):
        k = int(params['k'])
        km = KMeans(n_clusters=k)
        seen = km.fit_predict(X_fit)
        ids = km.predict({rows})
        share = np.array([y_fit[seen == c].mean() if (seen == c).any() else 0 for c in range(k)])
        for i in range(len(ids)):
            ids[i] = int(share[ids[i]] > 0.5)
        return {{'loss': 1 - {score}, 'status': STATUS_OK}}


    best = fmin(fn=objective, space={{'k': hp.quniform('k', 2, 40, 1)}}, algo=tpe.suggest, max_evals=25)
    print(best)
"""


def _cluster_alarms(tmp_path, rows: str, score: str) -> tuple[list[tuple[str, int]], int]:
    path = write(tmp_path, "ids.py", CLUSTER_OBJECTIVE.format(rows=rows, score=score))
    return alarms(path), line_of(path, "ids = km.predict(")


def test_kmeans_mapped_to_classes_and_scored_on_the_test_rows_inside_an_objective(tmp_path):
    found, line = _cluster_alarms(tmp_path, "X_test", "accuracy_score(y_test, ids)")
    assert ("tuned_on_test", line) in found


def test_the_same_objective_on_a_validation_part_is_silent(tmp_path):
    found, _ = _cluster_alarms(tmp_path, "X_val", "accuracy_score(y_val, ids)")
    assert "tuned_on_test" not in [k for k, _ in found]


def test_clusters_chosen_by_an_internal_index_read_no_label_and_are_silent(tmp_path):
    found, _ = _cluster_alarms(tmp_path, "X_test", "silhouette_score(X_test, ids)")
    assert "tuned_on_test" not in [k for k, _ in found]

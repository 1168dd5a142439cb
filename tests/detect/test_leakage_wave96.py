"""The static leakage analysis on missed-leak kinds of held-out wave 96 (issue 17: predictive maintenance,
intrusion detection, log anomaly detection), in both directions:

* a search objective the module never calls itself runs when the optimizer calls it, also where the module-level
  names do not hold it (faultlib/pyflow/interp.py, ``_handed_on``): an objective defined inside ``main()`` over
  its own ``X_test`` and handed to hyperopt's ``fmin``, and a notebook that writes ``def objective`` once per model,
  each followed by its own ``fmin`` (the later def shadows the earlier one's name). Scored on the test rows, each
  objective is ``tuned_on_test``; scored on a validation part, each stays silent.

Every example is written for this test."""

from __future__ import annotations

from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_misses54 import alarms, line_of

# ---------------------------------------------------------------- an objective nested in main()

NESTED = """\
    import pandas as pd
    from hyperopt import STATUS_OK, fmin, hp, tpe
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.metrics import f1_score


    def main():
        fit_rows = pd.read_csv('flows_fit.csv')
        frame_{held} = pd.read_csv('flows_{held}.csv')
        X_fit, y_fit = fit_rows.drop(columns=['attack']), fit_rows['attack']
        X_{held}, y_{held} = frame_{held}.drop(columns=['attack']), frame_{held}['attack']

        def search_goal(cand):
            forest = ExtraTreesClassifier(max_depth=int(cand['depth']))
            forest.fit(X_fit, y_fit)
            guess = forest.predict(X_{held})
            return {{'loss': -f1_score(y_{held}, guess), 'status': STATUS_OK}}

        found = fmin(fn=search_goal, space={{'depth': hp.quniform('depth', 3, 40, 1)}}, algo=tpe.suggest,
                     max_evals=25)
        final = ExtraTreesClassifier(max_depth=int(found['depth'])).fit(X_fit, y_fit)
        print(f1_score(y_{held}, final.predict(X_{held})))


    if __name__ == '__main__':
        main()
"""


def test_objective_nested_in_main_scored_on_test_rows_is_tuned_on_test(tmp_path):
    path = write(tmp_path, "tune_forest.py", NESTED.format(held="test"))
    assert ("tuned_on_test", line_of(path, "guess = forest.predict(X_test)")) in alarms(path)


def test_objective_nested_in_main_scored_on_validation_rows_is_silent(tmp_path):
    path = write(tmp_path, "tune_forest.py", NESTED.format(held="valid"))
    assert not [a for a in alarms(path) if a[0] == "tuned_on_test"]


# ---------------------------------------------------------------- one name, one objective per model

SHADOWED = """\
    import pandas as pd
    from hyperopt import STATUS_OK, fmin, hp, tpe
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    sessions = pd.read_csv('sessions.csv')
    X, y = sessions.drop(columns=['anomalous']), sessions['anomalous']
    X_fit, X_{held}, y_fit, y_{held} = train_test_split(X, y, test_size=0.25, random_state=3)


    def objective(p):
        knn = KNeighborsClassifier(n_neighbors=int(p['k'])).fit(X_fit, y_fit)
        return {{'loss': -knn.score(X_{held}, y_{held}), 'status': STATUS_OK}}


    first = fmin(fn=objective, space={{'k': hp.quniform('k', 1, 30, 1)}}, algo=tpe.suggest, max_evals=15)


    def objective(p):
        tree = DecisionTreeClassifier(max_depth=int(p['depth'])).fit(X_fit, y_fit)
        return {{'loss': -tree.score(X_{held}, y_{held}), 'status': STATUS_OK}}


    second = fmin(fn=objective, space={{'depth': hp.quniform('depth', 2, 30, 1)}}, algo=tpe.suggest, max_evals=15)
"""


def test_each_objective_of_a_shadowed_name_scored_on_test_rows_is_tuned_on_test(tmp_path):
    path = write(tmp_path, "tune_two.py", SHADOWED.format(held="test"))
    found = alarms(path)
    assert ("tuned_on_test", line_of(path, "-knn.score(X_test")) in found  # the def the second one shadows
    assert ("tuned_on_test", line_of(path, "-tree.score(X_test")) in found


def test_objectives_of_a_shadowed_name_scored_on_validation_rows_are_silent(tmp_path):
    path = write(tmp_path, "tune_two.py", SHADOWED.format(held="val"))
    assert not [a for a in alarms(path) if a[0] == "tuned_on_test"]

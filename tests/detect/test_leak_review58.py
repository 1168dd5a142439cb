"""Review of the leakage rules added at stop 58 (issue 17): realistic look-alikes of the programs each new rule was
written for, in both directions. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.leakage_source import dedented_alarms, line_of


def _lines(tmp_path, text: str, kind: str) -> set[int]:
    """The lines of ``text``'s findings of ``kind``."""
    return {line for found, line in dedented_alarms(tmp_path, text) if found == kind}

# ------------------------------- labelrates.py: a share of a table that holds the labels beside other data

_RATE_CUT = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.model_selection import train_test_split

    df = pd.read_csv("churn.csv")
    X_train, X_test, y_train, y_test = train_test_split(df.drop(columns="churn"), df["churn"], random_state=0)
    clf = LogisticRegression().fit(X_train, y_train)
    proba = clf.predict_proba(X_test)[:, 1]
    {rate}
    pred = np.where(proba > cut, 1, 0)
    print(f1_score(y_test, pred))
"""




# ------------------------------------- lagnames.py: lags of the target named only to be dropped

_LAGS = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.metrics import mean_absolute_error
    from sklearn.model_selection import train_test_split

    df = pd.read_csv("player_rounds.csv")
    {features}
    X_train, X_test, y_train, y_test = train_test_split(X, df["total_points"], test_size=0.2)
    model = RandomForestRegressor().fit(X_train, y_train)
    print(mean_absolute_error(y_test, model.predict(X_test)))
"""




_LAGS_AND_STATIC = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import Ridge
    from sklearn.metrics import mean_absolute_error
    from sklearn.model_selection import TimeSeriesSplit, cross_val_score, train_test_split

    df = pd.read_csv("player_rounds.csv").sort_values("round")
    lagged = df[["minutes", "points_lag_1", "points_lag_2"]]
    print(cross_val_score(Ridge(), lagged, df["total_points"], cv=TimeSeriesSplit(4)).mean())
    static = df[{static}]
    X_train, X_test, y_train, y_test = train_test_split(static, df["total_points"], test_size=0.2)
    model = RandomForestRegressor().fit(X_train, y_train)
    print(mean_absolute_error(y_test, model.predict(X_test)))
"""




# ------------------------------ idlefits.py: a transform computing a statistic across each row's columns

_ROW_STEP = """\
    import pandas as pd
    from sklearn.base import BaseEstimator, TransformerMixin
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    MARKS = ["math", "reading", "writing"]


    class Summary(BaseEstimator, TransformerMixin):
        def fit(self, X, y=None):
            return self

        def transform(self, X):
            X = X.copy()
            {body}
            return X


    df = pd.read_csv("pupils.csv")
    features = Summary().fit_transform(df[MARKS])
    X_train, X_test, y_train, y_test = train_test_split(features, df["passed"], random_state=0)
    clf = LogisticRegression().fit(X_train, y_train)
    print(accuracy_score(y_test, clf.predict(X_test)))
"""




# ------------------------ tablepicks.py: a table of records sorted by a field that holds no test score

_BOARD = """\
    import pandas as pd
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.metrics import r2_score
    from sklearn.model_selection import cross_val_score, train_test_split

    homes = pd.read_csv("homes.csv")
    X_train, X_test, y_train, y_test = train_test_split(homes.drop(columns="price"), homes["price"])
    forest = RandomForestRegressor().fit(X_train, y_train)
    boost = GradientBoostingRegressor().fit(X_train, y_train)
    rows = []
    rows.append({{"name": "forest", "cv": cross_val_score(forest, X_train, y_train).mean(),
                 "held_out": r2_score(y_test, forest.predict(X_test))}})
    rows.append({{"name": "boost", "cv": cross_val_score(boost, X_train, y_train).mean(),
                 "held_out": r2_score(y_test, boost.predict(X_test))}})
    board = pd.DataFrame(rows).set_index("name").sort_values(by="{key}", ascending=False)
    pick = board.index[0]
    chosen = {{"forest": forest, "boost": boost}}[pick]
    print("the chosen model on the test rows", r2_score(y_test, chosen.predict(X_test)))
"""




# ------------------------------- idlefits.py: a fit walking a table's column names is no loop over its rows

_WALKING_FIT = """\
    from collections import Counter

    import pandas as pd
    from sklearn.base import BaseEstimator, TransformerMixin
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score, train_test_split


    class Step(BaseEstimator, TransformerMixin):
        def fit(self, X, y=None):
            self.kept_ = []
            {loop}
            return self

        def transform(self, X):
            return X[self.kept_] if isinstance(X, pd.DataFrame) else X


    df = pd.read_csv("applicants.csv")
    table = Step().fit_transform(df.drop(columns="hired"))
    X_train, X_test, y_train, y_test = train_test_split(table, df["hired"], random_state=0)
    print(cross_val_score(LogisticRegression(), X_train, y_train).mean())
"""


_ROW_LOOP = "counts = Counter()\n            for words in X:\n                counts.update(words)\n" \
            "            self.kept_ = [w for w, _ in counts.most_common(20)]"
_COLUMN_LOOP = "for name in X:\n                if X[name].dtype != object:\n" \
               "                    self.kept_.append(name)"

#: (template, what fills it, kind, text of the line found -- None: the kind stays silent)
_CASES = {
    "a cut at the test labels' share is found": (
        _RATE_CUT, {"rate": "cut = np.mean(y_test)"}, "tuned_on_test", "cut = "),
    "a cut at the mean probability of a table beside the labels is silent": (
        _RATE_CUT, {"rate": 'table = pd.DataFrame({"y": y_test, "p": proba})\n    cut = table["p"].mean()'},
        "tuned_on_test", None),
    "a shuffled split of rows with lags of the target is found": (
        _LAGS, {"features": 'X = df[["minutes", "points_lag_1", "points_lag_2"]]'}, "shuffled_time_split",
        "train_test_split(X"),
    "lags of the target dropped from the features are silent": (
        _LAGS, {"features": 'X = df.drop(columns=["total_points", "points_lag_1", "points_lag_2"])'},
        "shuffled_time_split", None),
    "a shuffled split of the lags beside a time-ordered fold is found": (
        _LAGS_AND_STATIC, {"static": '["goals", "points_lag_1"]'}, "shuffled_time_split", "train_test_split(static"),
    "a shuffled split of other columns beside a time-ordered fold of the lags is silent": (
        _LAGS_AND_STATIC, {"static": '["minutes", "goals", "assists"]'}, "shuffled_time_split", None),
    "a transform centring a column on its mean is a fit before the split": (
        _ROW_STEP, {"body": 'X["math"] = X["math"] - X["math"].mean()'}, "fit_before_split", "fit_transform("),
    "a transform averaging each row's marks is silent": (
        _ROW_STEP, {"body": 'X["average"] = X[MARKS].mean(axis=1)\n'
                            '            X["best"] = X[MARKS].max(axis="columns")'},
        "fit_before_split", None),
    "records sorted by their test score, the first rescored, is found": (
        _BOARD, {"key": "held_out"}, "tuned_on_test", "the chosen model"),
    "records sorted by cross-validation, the first rescored, is silent": (_BOARD, {"key": "cv"}, "tuned_on_test", None),
    "a fit counting the words of each row is a fit before the split": (
        _WALKING_FIT, {"loop": _ROW_LOOP}, "fit_before_split", "fit_transform("),
    "a fit keeping the numeric columns it walks is silent": (
        _WALKING_FIT, {"loop": _COLUMN_LOOP}, "fit_before_split", None),
}


@pytest.mark.parametrize("case", list(_CASES))
def test_review58_case(tmp_path, case):
    template, fill, kind, found_at = _CASES[case]
    text = template.format(**fill)
    lines = _lines(tmp_path, text, kind)
    assert (line_of(text, found_at) in lines) if found_at else not lines

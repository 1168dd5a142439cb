"""Review of the leakage rules added at stop 58 (issue 17): realistic look-alikes of the programs each new rule was
written for, in both directions. Every example is written for this test."""

from __future__ import annotations

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


def test_a_cut_at_the_test_labels_share_is_found(tmp_path):
    text = _RATE_CUT.format(rate="cut = np.mean(y_test)")
    assert line_of(text, "cut = ") in _lines(tmp_path, text, "tuned_on_test")


def test_a_cut_at_the_mean_predicted_probability_of_a_table_beside_the_labels_is_silent(tmp_path):
    rate = 'table = pd.DataFrame({"y": y_test, "p": proba})\n    cut = table["p"].mean()'
    text = _RATE_CUT.format(rate=rate)
    assert not _lines(tmp_path, text, "tuned_on_test")


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


def test_a_shuffled_split_of_rows_with_lag_columns_of_the_target_is_found(tmp_path):
    text = _LAGS.format(features='X = df[["minutes", "points_lag_1", "points_lag_2"]]')
    assert line_of(text, "train_test_split(X") in _lines(tmp_path, text, "shuffled_time_split")


def test_lag_columns_of_the_target_dropped_from_the_features_are_silent(tmp_path):
    text = _LAGS.format(features='X = df.drop(columns=["total_points", "points_lag_1", "points_lag_2"])')
    assert not _lines(tmp_path, text, "shuffled_time_split")


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


def test_a_shuffled_split_of_the_lag_columns_beside_a_time_ordered_fold_is_found(tmp_path):
    text = _LAGS_AND_STATIC.format(static='["goals", "points_lag_1"]')
    assert line_of(text, "train_test_split(static") in _lines(tmp_path, text, "shuffled_time_split")


def test_a_shuffled_split_of_other_columns_beside_a_time_ordered_fold_of_the_lags_is_silent(tmp_path):
    text = _LAGS_AND_STATIC.format(static='["minutes", "goals", "assists"]')
    assert not _lines(tmp_path, text, "shuffled_time_split")


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


def test_a_transform_centring_each_column_on_its_mean_is_a_fit_before_the_split(tmp_path):
    text = _ROW_STEP.format(body='X["math"] = X["math"] - X["math"].mean()')
    assert line_of(text, "fit_transform(") in _lines(tmp_path, text, "fit_before_split")


def test_a_transform_averaging_each_rows_marks_is_silent(tmp_path):
    text = _ROW_STEP.format(body='X["average"] = X[MARKS].mean(axis=1)\n            X["best"] = X[MARKS].max(axis="columns")')
    assert not _lines(tmp_path, text, "fit_before_split")


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


def test_the_first_row_of_records_sorted_by_their_test_score_rescored_is_found(tmp_path):
    text = _BOARD.format(key="held_out")
    assert line_of(text, "the chosen model") in _lines(tmp_path, text, "tuned_on_test")


def test_the_first_row_of_records_sorted_by_cross_validation_is_silent(tmp_path):
    text = _BOARD.format(key="cv")
    assert not _lines(tmp_path, text, "tuned_on_test")


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


def test_a_fit_counting_the_words_of_each_row_is_a_fit_before_the_split(tmp_path):
    loop = "counts = Counter()\n            for words in X:\n                counts.update(words)\n" \
           "            self.kept_ = [w for w, _ in counts.most_common(20)]"
    text = _WALKING_FIT.format(loop=loop)
    assert line_of(text, "fit_transform(") in _lines(tmp_path, text, "fit_before_split")


def test_a_fit_keeping_the_numeric_columns_it_walks_is_silent(tmp_path):
    loop = "for name in X:\n                if X[name].dtype != object:\n                    self.kept_.append(name)"
    text = _WALKING_FIT.format(loop=loop)
    assert not _lines(tmp_path, text, "fit_before_split")

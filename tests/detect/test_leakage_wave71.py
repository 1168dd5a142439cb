"""The static leakage analysis on the kinds a held-out wave of course homework and demand-forecasting code showed
(issue 17, wave 71: features ranked by their correlation with the label read off the last row of the matrix of
``concat([X, y], axis=1)``; a helper's input filled before a fold loop written by hand with ``array_split`` and
``pop``; a test file bound to ``X_unlabel`` filled with its own mean; a quantile or the first day of a date column
taken for a fit when it is the split point or the origin of a day count), each in both directions: the leak found
at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a cross-validation written by hand: the rows cut into folds, one held out per turn
HAND_FOLDS = """\
        def fold_accuracy(model, feats, target, num_folds=5):
            hits = 0
            for j in range(num_folds):
                parts_x = np.array_split(feats, num_folds)
                parts_y = np.array_split(target, num_folds)
                X_test = parts_x.pop(j)
                y_test = parts_y.pop(j)
                model.fit(pd.concat(parts_x), pd.concat(parts_y))
                hits += (model.predict(X_test) == y_test).sum()
            return hits / len(target)
"""

#: the label appended as the last column, the matrix's last row read as each feature's strength
RANKED = """\
        def strongest(feats, target, k):
            whole = pd.concat([feats, target], axis=1)
            strength = whole.corr().iloc[-1, :-1]
            keep = strength.abs().sort_values(ascending=False).index[:k]
            return feats[keep]
"""

#: daily counts of a bike scheme, the date column parsed
DAYS = """\
        from sklearn.ensemble import RandomForestRegressor
        rides = pd.read_csv("rides.csv")
        rides["day"] = pd.to_datetime(rides["day"])
"""

LEAKS = {
    # the label's row of the matrix chose the columns, then the hand-written folds score them
    "features_ranked_by_the_label_row_of_a_matrix_then_hand_written_folds": (HAND_FOLDS + RANKED + """\
        picked = strongest(X, y, 5)
        print(fold_accuracy(LogisticRegression(), picked, y))
""", [("fit_outside_cv", 13)]),
    # the same ranking read from the label's column, then one random split
    "features_ranked_by_the_label_column_of_a_matrix_then_split": ("""\
        both = pd.concat([X, y], axis=1)
        r = both.corr().iloc[:-1, -1]
        top = X[r.abs().nlargest(3).index]
        a, b, c, d = train_test_split(top, y, random_state=0)
        print(LogisticRegression().fit(a, c).score(b, d))
""", [("fit_before_split", 2)]),
    # a helper fills the gaps of its input with the input's means; the hand-written folds then score those rows
    "a_helper_input_mean_filled_then_hand_written_folds": (HAND_FOLDS + """\
        def filled(frame):
            return frame.fillna(frame.mean())
        print(fold_accuracy(LogisticRegression(), filled(X), y))
""", [("fit_outside_cv", 12)]),
    # the unlabelled file to predict is filled with its own means before the model predicts it
    "an_unlabelled_file_filled_with_its_own_mean_then_predicted": ("""\
        model = LogisticRegression().fit(X.fillna(0), y)
        X_unlabel = pd.read_csv("to_predict.csv")
        X_unlabel = X_unlabel.fillna(X_unlabel.mean())
        print(model.predict(X_unlabel))
""", [("fit_on_test", 3)]),
    # a quantile of a numeric column is a fence over every row, still a fit before the split
    "a_numeric_quantile_fence_before_a_split": (DAYS + """\
        rides = rides[rides["count"] <= rides["count"].quantile(0.99)]
        a, b = train_test_split(rides, random_state=0)
        model = RandomForestRegressor().fit(a[["temp"]], a["count"])
        print(model.score(b[["temp"]], b["count"]))
""", [("fit_before_split", 4)]),
}

HEALTHY = {
    # the split point of a chronological split is a quantile of the date column itself
    "a_date_quantile_that_is_the_split_point": (DAYS + """\
        cutoff = rides["day"].quantile(0.8)
        train = rides[rides["day"] <= cutoff]
        val = rides[rides["day"] > cutoff]
        model = RandomForestRegressor().fit(train[["temp"]], train["count"])
        print(model.score(val[["temp"]], val["count"]))
""", []),
    # the first day of every row is the origin of a day count: a constant shift
    "the_first_date_as_the_origin_of_a_day_count": (DAYS + """\
        rides["since"] = (rides["day"] - rides["day"].min()).dt.days
        a, b = train_test_split(rides, random_state=0)
        model = RandomForestRegressor().fit(a[["since", "temp"]], a["count"])
        print(model.score(b[["since", "temp"]], b["count"]))
""", []),
    # the matrix of features with another feature last: no label in it
    "the_last_row_of_a_matrix_of_features_only": ("""\
        extra = pd.read_csv("weather.csv")
        both = pd.concat([X, extra["rain"]], axis=1)
        r = both.corr().iloc[-1, :-1]
        top = X[r.abs().nlargest(3).index]
        a, b, c, d = train_test_split(top, y, random_state=0)
        print(LogisticRegression().fit(a, c).score(b, d))
""", []),
    # the label stacked under the features (rows, not columns): the last row is no label's
    "the_last_row_of_a_matrix_of_rows_stacked_below": ("""\
        both = pd.concat([X, y])
        r = both.corr().iloc[-1, :-1]
        top = X[r.abs().nlargest(3).index]
        a, b, c, d = train_test_split(top, y, random_state=0)
        print(LogisticRegression().fit(a, c).score(b, d))
""", []),
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wave_71_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected

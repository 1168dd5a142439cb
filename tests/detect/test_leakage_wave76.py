"""The static leakage analysis on the kinds a held-out wave of match-outcome, rental-price and hospital scripts showed
(issue 17, wave 76: a booster stopped early on the test rows whose model name a later cell rebinds to a network
that is fitted and scored; a frame rebuilt column by column from ``table.items()`` after a scaler fitted on every
row; a label correlation read as an attribute, ``df.corr().label``, choosing the columns), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a booster trained on a split's training part; ROUNDS_ON names the rows its early stopping watches
BOOSTED = """\
        import xgboost as xgb
        a, b, c, d = train_test_split(X, y, test_size=0.2)
        fit_rows = xgb.DMatrix(a, label=c)
        held = xgb.DMatrix(b, label=d)
        model = xgb.train({"max_depth": 4}, fit_rows, 200, evals=[(ROUNDS_ON, "watch")], early_stopping_rounds=10)
        print(model.predict(held))
"""

#: later, the same name is a model of another kind, fitted and scored in a fold loop
REBOUND = """\
        for tr, te in KFold(5, shuffle=True).split(X):
            model = Ridge()
            model.fit(X.iloc[tr], y.iloc[tr])
            print(model.score(X.iloc[te], y.iloc[te]))
"""

#: a helper that rebuilds a frame column by column from the table's (name, column) pairs
REBUILD = """\
        def rebuilt(frame):
            out = pd.DataFrame(index=frame.index)
            for name, values in frame.ITEMS():
                if values.dtype == object:
                    values = pd.get_dummies(values, prefix=name)
                out = out.join(values)
            return out
"""

#: a split of the rebuilt frame, scored
SPLIT_REBUILT = """\
        a, b, c, d = train_test_split(rebuilt(X), y, test_size=0.25)
        print(LogisticRegression().fit(a, c).score(b, d))
"""

#: the columns whose correlation with the label (an attribute of the matrix) is large enough, then a split
BY_LABEL_CORRELATION = """\
        scores = table.corr().LABEL
        kept = scores[scores.abs() > 0.1].index
        chosen = table[kept].drop(columns=["label"])
        a, b, c, d = train_test_split(chosen, table["label"], test_size=0.2)
        print(LogisticRegression().fit(a, c).score(b, d))
"""

LEAKS = {
    # the test part stops the booster; the later fold loop's Ridge named `model` no longer hides it
    "early_stopping_on_the_test_rows_with_the_name_rebound_later": (
        BOOSTED.replace("ROUNDS_ON", "held") + REBOUND, [("tuned_on_test", 5)]),
    # every row scaled, then the frame rebuilt from its items() and split
    "a_scaler_over_every_row_then_a_rebuild_from_items": (
        "        X[['visits']] = StandardScaler().fit_transform(X[['visits']])\n" + REBUILD.replace("ITEMS", "items")
        + SPLIT_REBUILT, [("fit_before_split", 1)]),
    # the same through pandas' older iteritems()
    "a_scaler_over_every_row_then_a_rebuild_from_iteritems": (
        "        X[['visits']] = StandardScaler().fit_transform(X[['visits']])\n"
        + REBUILD.replace("ITEMS", "iteritems") + SPLIT_REBUILT, [("fit_before_split", 1)]),
    # the label's column of the correlation matrix, read as an attribute, picks the features before the split
    "columns_chosen_by_their_correlation_with_the_label_as_an_attribute": (
        BY_LABEL_CORRELATION.replace("LABEL", "label"), [("fit_before_split", 1)]),
}

HEALTHY = {
    # the booster stops on a validation part cut from the training part; the later loop changes nothing
    "early_stopping_on_a_validation_part_with_the_name_rebound_later": (
        BOOSTED.replace("ROUNDS_ON", "xgb.DMatrix(a.iloc[:50], label=c.iloc[:50])").replace(
            "fit_rows = xgb.DMatrix(a, label=c)", "fit_rows = xgb.DMatrix(a.iloc[50:], label=c.iloc[50:])")
        .replace('"watch"', '"valid"') + REBOUND, []),
    # the rebuild from items() with the scaler fitted on the training part only
    "a_rebuild_from_items_scaled_on_the_training_part": (REBUILD.replace("ITEMS", "items") + """\
        a, b, c, d = train_test_split(rebuilt(X), y, test_size=0.25)
        scaler = StandardScaler().fit(a)
        print(LogisticRegression().fit(scaler.transform(a), c).score(scaler.transform(b), d))
""", []),
    # a dictionary's items() looped over: no table, nothing fitted
    "a_loop_over_a_dictionary_of_settings": ("""\
        settings = {"C": 1.0}
        for key, value in settings.items():
            print(key, value)
""" + SPLIT_REBUILT.replace("rebuilt(X)", "X"), []),
    # the matrix's column of a feature, not of the label: correlations between features choose nothing supervised
    "columns_chosen_by_their_correlation_with_a_feature_as_an_attribute": (
        BY_LABEL_CORRELATION.replace("LABEL", "visits"), []),
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wave_76_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected

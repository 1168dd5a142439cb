"""The static leakage analysis on the kinds a held-out wave of text and time-series code showed (issue 17, wave 60:
stock and energy forecasts, recommenders, text classifiers), each in both directions: the leak found at its line,
the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # a buffer for plotting the test forecasts, allocated like the whole scaled series, holds none of its rows:
    # the scaler fitted on the whole series before the positional cut is a fit before the split (allocations.py)
    "series_scaled_then_cut_with_a_test_named_plot_buffer": ("""\
        prices = pd.read_csv("close.csv", usecols=["close"])
        scaler = MinMaxScaler()
        scaled = scaler.fit_transform(prices)
        cut = int(len(scaled) * 0.7)
        first, last = scaled[0:cut, :], scaled[cut:len(scaled), :]
        reg = Ridge().fit(first[:-1], first[1:, 0])
        guess = reg.predict(last[:-1])
        test_plot = np.empty_like(scaled)
        test_plot[cut + 1:, :] = guess.reshape(-1, 1)
        """, [("fit_before_split", 3)]),
    # one table per symbol, standardised over all its rows, kept in a dict under the loop's key, then cut
    # by position in a second loop (keyeddicts.py)
    "per_symbol_tables_standardised_then_read_back_from_a_dict_and_cut": ("""\
        returns = pd.read_csv("returns.csv")
        feats = ["lag_1", "lag_2"]
        by_symbol = {}
        for sym in returns.columns:
            part = returns.copy()
            mu, sd = part[feats].mean(), part[feats].std()
            part[feats] = (part[feats] - mu) / sd
            by_symbol[sym] = part
        for sym in returns.columns:
            part = by_symbol[sym]
            early, late = part.iloc[:500], part.iloc[500:]
            reg = Ridge().fit(early[feats], early[sym])
            reg.predict(late[feats])
        """, [("fit_before_split", 6)]),
    # the model is trained on the test file's rows with their labels, then scored on them (testlabels.py)
    "a_model_trained_on_the_test_file_and_scored_on_it": ("""\
        known = pd.read_csv("ratings_train.csv")
        held = pd.read_csv("ratings_test.csv")
        ranker = LogisticRegression()
        ranker.fit(held[["user_mean", "item_mean"]], held["liked"])
        ranker.score(held[["user_mean", "item_mean"]], held["liked"])
        """, [("trained_on_test", 4)]),
    # the same with the train/test pair unpacked from a reader the analysis does not know
    "a_model_trained_on_unpacked_test_arrays_and_scored_on_them": ("""\
        from sklearn.datasets import load_svmlight_file
        X_fit, y_fit = load_svmlight_file("fit.txt")
        X_test, y_test = load_svmlight_file("test.txt")
        clf = LogisticRegression()
        clf.fit(X_test, y_test)
        clf.score(X_test, y_test)
        """, [("trained_on_test", 5)]),
    # columns scaled by their spread over all rows, then a model's own cross-validation picks its penalty
    "columns_scaled_over_all_rows_then_a_cross_validated_lasso": ("""\
        from sklearn.linear_model import LassoCV
        moves = table.drop(columns=["label"]).values
        moves /= moves.std(axis=0)
        LassoCV(cv=5).fit(moves, table["label"])
        """, [("fit_outside_cv", 3)]),
}

HEALTHY = {
    # the scaler learns the first 70 % only; the plot buffer shaped like the whole series holds no rows
    "series_scaled_on_its_first_part_with_a_test_named_plot_buffer": """\
        prices = pd.read_csv("close.csv", usecols=["close"])
        cut = int(len(prices) * 0.7)
        scaler = MinMaxScaler()
        first = scaler.fit_transform(prices.iloc[:cut])
        last = scaler.transform(prices.iloc[cut:])
        reg = Ridge().fit(first[:-1], first[1:, 0])
        guess = reg.predict(last[:-1])
        test_plot = np.empty_like(prices.values)
        test_plot[cut + 1:, :] = guess.reshape(-1, 1)
        """,
    # standardised with the statistics of each table's first 500 rows, the part that trains
    "per_symbol_tables_standardised_on_their_first_part_then_read_back_and_cut": """\
        returns = pd.read_csv("returns.csv")
        feats = ["lag_1", "lag_2"]
        by_symbol = {}
        for sym in returns.columns:
            part = returns.copy()
            head = part.iloc[:500]
            part[feats] = (part[feats] - head[feats].mean()) / head[feats].std()
            by_symbol[sym] = part
        for sym, part in [(s, by_symbol[s]) for s in returns.columns]:
            fitted = Ridge().fit(part.iloc[:500][feats], part.iloc[:500][sym])
            fitted.predict(part.iloc[500:][feats])
        """,
    # trained on the training file, scored on the test file
    "trained_on_the_training_file_and_scored_on_the_test_file": """\
        known = pd.read_csv("ratings_train.csv")
        held = pd.read_csv("ratings_test.csv")
        ranker = LogisticRegression()
        ranker.fit(known[["user_mean", "item_mean"]], known["liked"])
        ranker.score(held[["user_mean", "item_mean"]], held["liked"])
        """,
    # the same scaling before GraphicalLassoCV: its folds only pick the sparsity of a covariance graph, which is
    # clustered; no prediction is scored (vocab.is_search)
    "columns_scaled_over_all_rows_then_a_cross_validated_covariance_graph": """\
        from sklearn.covariance import GraphicalLassoCV
        from sklearn.cluster import affinity_propagation
        moves = table.drop(columns=["label"]).values.T
        moves /= moves.std(axis=0)
        graph = GraphicalLassoCV().fit(moves)
        _, groups = affinity_propagation(graph.covariance_)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_wave_60_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_wave_60_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []

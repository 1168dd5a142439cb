"""The static leakage analysis on the kinds a held-out wave of trading, sensor and forecasting code showed (issue
17, wave 66: a table rescaled column by column with ``apply``, a volatility model fitted on a clipped series inside
a hand-written walk-forward loop, document vectors read through gensim's old ``docvecs``), each in both directions:
the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a daily series of two made-up sensor channels, indexed by date
SERIES = """\
        from sklearn.preprocessing import minmax_scale
        readings = pd.read_csv("channels.csv", index_col="day", parse_dates=True)
"""

#: a walk-forward loop written by hand: a fixed window of past days, the next day forecast
WALK_FORWARD = """\
        errors = []
        for start, end in enumerate(range(500, len(level) - 1)):
            train_window = level.iloc[start:end]
            test_day = level.iloc[end + 1]
            fitted = arch_model(y=train_window, p=1, q=1).fit(disp="off")
            errors.append((test_day - fitted.forecast(horizon=1).mean.iloc[-1, 0]) ** 2)
        print(np.mean(errors))
"""

LEAKS = {
    # each column squeezed into [0, 1] with its own min and max over every day, then the last year held out
    "every_column_min_max_scaled_through_apply_then_cut_at_a_date": (SERIES + """\
        squeezed = readings.apply(minmax_scale)
        train_days, test_days = squeezed[:"2019"], squeezed["2020":]
        model = Ridge().fit(train_days.drop(columns=["flow"]), train_days["flow"])
        print(model.score(test_days.drop(columns=["flow"]), test_days["flow"]))
        """, [("fit_before_split", 3)]),
    # each column of a table just read winsorised at its own 2nd/98th percentile over all rows, then a random split
    "every_column_clipped_at_its_own_percentiles_through_apply_then_split": ("""\
        meters = pd.read_csv("meters.csv")
        capped = meters.apply(lambda col: col.clip(lower=col.quantile(0.02), upper=col.quantile(0.98)))
        a, b = train_test_split(capped, random_state=0)
        print(Ridge().fit(a.drop(columns=["kwh"]), a["kwh"]).score(b.drop(columns=["kwh"]), b["kwh"]))
        """, [("fit_before_split", 2)]),
    # returns winsorised with the quantiles of the whole history, then a volatility model per window
    "a_volatility_model_walked_forward_over_a_series_clipped_with_its_whole_history": ("""\
        from arch import arch_model
        raw = pd.read_csv("returns.csv", index_col=0).squeeze()
        level = raw.clip(lower=raw.quantile(0.05), upper=raw.quantile(0.95))
""" + WALK_FORWARD, [("fit_before_split", 3)]),
    # the same with statsmodels: the series is the constructor's first argument, fit() takes no rows
    "an_arima_on_the_first_part_of_a_series_standardised_over_all_of_it": ("""\
        from statsmodels.tsa.arima.model import ARIMA
        load = pd.read_csv("load.csv", index_col=0).squeeze()
        scaled = (load - load.mean()) / load.std()
        train_part, test_part = scaled.iloc[:800], scaled.iloc[800:]
        fitted = ARIMA(train_part, order=(2, 0, 1)).fit()
        print(np.mean((test_part.values - fitted.forecast(steps=len(test_part))) ** 2))
        """, [("fit_before_split", 3)]),
    # document vectors trained on every review, read back through the pre-4.0 ``docvecs`` view, then split
    "document_vectors_of_every_review_read_through_docvecs_then_split": ("""\
        from gensim.models import Doc2Vec
        from gensim.models.doc2vec import TaggedDocument
        docs = []
        for text in table.review:
            docs.append(TaggedDocument(words=text.split(), tags=[len(docs)]))
        embedder = Doc2Vec(documents=docs, vector_size=16)
        vectors = np.zeros((len(table), 16))
        for i in range(len(table)):
            vectors[i] = embedder.docvecs[i]
        a, b, c, d = train_test_split(vectors, table.stars)
        print(LogisticRegression().fit(a, c).score(b, d))
        """, [("fit_before_split", 6)]),
}

HEALTHY = {
    # the same apply on the training days only, the held-out year scaled by nothing learnt from it
    "min_max_scaling_through_apply_on_the_training_days_only": SERIES + """\
        train_days, test_days = readings[:"2019"], readings["2020":]
        train_days = train_days.apply(minmax_scale)
        model = Ridge().fit(train_days.drop(columns=["flow"]), train_days["flow"])
        print(model.score(test_days.drop(columns=["flow"]), test_days["flow"]))
        """,
    # apply over each row (axis=1): one row's own values, no statistic of the other rows
    "a_row_wise_apply_before_the_split": """\
        meters = pd.read_csv("meters.csv")
        ranged = meters.apply(lambda row: row.clip(lower=row.quantile(0.02)), axis=1)
        a, b = train_test_split(ranged, random_state=0)
        print(Ridge().fit(a.drop(columns=["kwh"]), a["kwh"]).score(b.drop(columns=["kwh"]), b["kwh"]))
        """,
    # a lambda that learns nothing from its column (a type conversion)
    "an_apply_that_only_converts_types": """\
        meters = pd.read_csv("meters.csv")
        numeric = meters.apply(lambda col: col.astype(float))
        a, b = train_test_split(numeric, random_state=0)
        print(Ridge().fit(a.drop(columns=["kwh"]), a["kwh"]).score(b.drop(columns=["kwh"]), b["kwh"]))
        """,
    # the walk-forward loop on the raw returns: each window's model sees only its past
    "a_volatility_model_walked_forward_over_the_raw_series": """\
        from arch import arch_model
        level = pd.read_csv("returns.csv", index_col=0).squeeze()
""" + WALK_FORWARD,
    # the ARIMA on the first part, standardised with that part's own mean and deviation
    "an_arima_standardised_with_its_training_part_only": """\
        from statsmodels.tsa.arima.model import ARIMA
        load = pd.read_csv("load.csv", index_col=0).squeeze()
        train_part, test_part = load.iloc[:800], load.iloc[800:]
        scaled = (train_part - train_part.mean()) / train_part.std()
        fitted = ARIMA(scaled, order=(2, 0, 1)).fit()
        print(np.mean(((test_part.values - train_part.mean()) / train_part.std() - fitted.forecast(steps=len(test_part))) ** 2))
        """,
    # vectors read through docvecs from a model trained elsewhere and loaded from a file
    "document_vectors_read_through_docvecs_from_a_loaded_model": """\
        from gensim.models import Doc2Vec
        embedder = Doc2Vec.load("reviews.d2v")
        vectors = np.zeros((len(table), 16))
        for i in range(len(table)):
            vectors[i] = embedder.docvecs[i]
        a, b, c, d = train_test_split(vectors, table.stars)
        print(LogisticRegression().fit(a, c).score(b, d))
        """,
}


#: every example with the alarms it must raise: a leak's (kind, line), nothing for a healthy look-alike
EXPECTED = {**LEAKS, **{name: (body, []) for name, body in HEALTHY.items()}}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wave_66_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected

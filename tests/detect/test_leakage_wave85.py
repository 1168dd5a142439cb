"""The static leakage analysis on the kinds a held-out wave of time-series projects showed (issue 17, wave 85:
load, traffic, air-quality and stock forecasting, sensor anomaly detection), in both directions:

* a network written as a subclass of ``keras.Model`` is a Keras model: early stopping on the test windows is found,
  on a validation part of the training windows it is not (kerasmodels.py);
* a table kept in Streamlit's ``st.session_state`` is the table read back later: a scaler fitted on all of it before
  the time cut is found, one fitted on the training rows is not (libstores.py);
* windows gathered value by value (``[[s[i + j] for i in range(k)] for j in range(n)]``) overlap as sliced ones do:
  a shuffled split of them is found, a split in time order or windows that do not overlap are not (itemwindows.py);
* a helper whose loop keeps the best cut-off on the labels it is handed chooses on the test rows when a call hands
  it the test labels; handed validation labels it does not (helperloops.py);
* a grid search over every row before the split, whose choice (typed in, or its best estimator) then scores the
  test part, is found; a search on the training part, or a model left at its defaults, is not (searchfirst.py);
* blend weights set from each member's error on the test labels (in a helper handed them, or inline) are fitted to
  the scored rows; set from a validation part they are not (errorweights.py).

Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a sensor network written with Keras' subclassing API, and a table split in time order
SUBCLASS = """\
        import tensorflow as tf
        from tensorflow.keras.callbacks import EarlyStopping

        class Squeeze(tf.keras.Model):
            def __init__(self, width):
                super().__init__()
                self.down = tf.keras.layers.Dense(width)
                self.up = tf.keras.layers.Dense(6)

            def call(self, inputs):
                return self.up(self.down(inputs))

        early, late = train_test_split(X.values, test_size=0.25, shuffle=False)
        net = Squeeze(3)
        net.compile(optimizer="adam", loss="mse")
"""

#: a Streamlit app that keeps the uploaded quotes between runs
APP = """\
        import streamlit as st
        if st.session_state.page == "upload":
            st.session_state.quotes = pd.read_csv(st.file_uploader("quotes"))
        else:
"""

#: an hourly series and a target one step ahead of each window
SERIES = """\
        flow = table["count"].values
        horizon = 6
        target = np.array([flow[j + horizon] for j in range(len(flow) - horizon)])
"""

#: anomaly scores of a held-out stretch and a helper that sweeps cut-offs on the labels it is handed
CUTOFF = """\
        from sklearn.ensemble import IsolationForest
        from sklearn.metrics import f1_score, precision_score
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, shuffle=False)
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.3, shuffle=False)
        forest = IsolationForest(random_state=0).fit(X_fit)

        def best_cut(scores, truth):
            top, kept = -1.0, 0.0
            for c in np.quantile(scores, np.linspace(0.5, 0.99, 40)):
                score = f1_score(truth, (scores > c).astype(int))
                if score > top:
                    top, kept = score, c
            return kept

"""

#: a forest tuned by a time-series grid search
SEARCH = """\
        from sklearn.ensemble import RandomForestRegressor
        search = GridSearchCV(RandomForestRegressor(random_state=0), {"max_depth": [4, 8], "min_samples_leaf": [1, 5]},
                              cv=TimeSeriesSplit(n_splits=4))
"""

#: the last quarter held out in time order
CUT = """\
        edge = int(0.75 * len(X))
        X_train, X_test, y_train, y_test = X[:edge], X[edge:], y[:edge], y[edge:]
"""

#: two forecasters of the last weeks and an inverse-error blend helper
BLEND = """\
        from sklearn.ensemble import GradientBoostingRegressor
        from sklearn.metrics import mean_absolute_error
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, shuffle=False)
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.2, shuffle=False)
        lin = Ridge().fit(X_fit, y_fit)
        gbr = GradientBoostingRegressor().fit(X_fit, y_fit)

        def mix(truth, first, second):
            miss_a = np.abs(truth - first).mean()
            miss_b = np.abs(truth - second).mean()
            share = (1 / miss_a) / (1 / miss_a + 1 / miss_b)
            return share, share * first + (1 - share) * second

"""

LEAKS = {
    # the subclassed network stops on the held-out windows, then is scored on them
    "keras_subclass_early_stopped_on_the_test_part": (SUBCLASS + """\
        net.fit(early, early, validation_data=(late, late), epochs=50,
                callbacks=[EarlyStopping(patience=4, restore_best_weights=True)])
        print(net.evaluate(late, late))
""", [("tuned_on_test", 16)]),
    # the quotes read back from the session state by attribute, scaled on every day, then cut in time order
    "session_state_attribute_scaled_before_the_cut": (APP + """\
            quotes = st.session_state.quotes
            scaled = MinMaxScaler().fit_transform(quotes[["open", "volume"]])
            cut = int(0.8 * len(scaled))
            X_train, X_test = scaled[:cut], scaled[cut:]
            y_train, y_test = quotes["close"][:cut], quotes["close"][cut:]
            print(Ridge().fit(X_train, y_train).score(X_test, y_test))
""", [("fit_before_split", 6)]),
    # six-hour windows gathered value by value, split with shuffling
    "windows_gathered_item_by_item_split_with_shuffling": (SERIES + """\
        windows = np.array([[flow[i + j] for i in range(horizon)] for j in range(len(flow) - horizon)])
        w_tr, w_te, t_tr, t_te = train_test_split(windows, target, test_size=0.2, random_state=4)
        print(Ridge().fit(w_tr, t_tr).score(w_te, t_te))
""", [("shuffled_time_split", 5)]),
    # the helper handed the test labels: the cut-off is the best of forty on the test rows
    "cut_off_helper_handed_the_test_labels": (CUTOFF + """\
        held_scores = -forest.score_samples(X_te)
        cut = best_cut(held_scores, y_te)
        print(precision_score(y_te, (held_scores > cut).astype(int)))
""", [("tuned_on_test", 16)]),
    # the search runs over every row, then the hyperparameters it printed are typed into the scored forest
    "search_over_every_row_then_its_values_typed_in": (SEARCH + """\
        search.fit(X, y)
        print(search.best_params_)
""" + CUT + """\
        forest = RandomForestRegressor(max_depth=8, min_samples_leaf=5, random_state=0)
        forest.fit(X_train, y_train)
        print(forest.score(X_test, y_test))
""", [("trained_on_test", 4)]),
    # the search over every row, its best estimator refitted on the earlier rows and scored on the later ones
    "search_over_every_row_then_its_best_estimator": (SEARCH + """\
        search.fit(X, y)
""" + CUT + """\
        chosen = search.best_estimator_
        chosen.fit(X_train, y_train)
        print(chosen.score(X_test, y_test))
""", [("trained_on_test", 4)]),
    # the blend's weights set from the members' errors on the test weeks, the blend then scored on them
    "blend_weights_from_errors_on_the_test_labels": (BLEND + """\
        share, mixed = mix(y_te, lin.predict(X_te), gbr.predict(X_te))
        print(mean_absolute_error(y_te, mixed))
""", [("tuned_on_test", 14)]),
    # the same written inline, without a helper
    "blend_weights_from_errors_on_the_test_labels_inline": (BLEND + """\
        p_lin, p_gbr = lin.predict(X_te), gbr.predict(X_te)
        err_lin = mean_absolute_error(y_te, p_lin)
        err_gbr = mean_absolute_error(y_te, p_gbr)
        w_lin = err_gbr / (err_lin + err_gbr)
        mixed = w_lin * p_lin + (1 - w_lin) * p_gbr
        print(mean_absolute_error(y_te, mixed))
""", [("tuned_on_test", 18)]),
}

HEALTHY = {
    # the subclassed network stops on a validation part of the earlier windows; the held-out ones scored once
    "keras_subclass_early_stopped_on_a_validation_part": (SUBCLASS + """\
        fit_part, check_part = train_test_split(early, test_size=0.2, shuffle=False)
        net.fit(fit_part, fit_part, validation_data=(check_part, check_part), epochs=50,
                callbacks=[EarlyStopping(patience=4, restore_best_weights=True)])
        print(net.evaluate(late, late))
"""),
    # the quotes read back from the session state, the scaler fitted on the earlier days only
    "session_state_table_scaled_on_the_training_days": (APP + """\
            quotes = st.session_state.quotes
            cut = int(0.8 * len(quotes))
            X_train, X_test = quotes[["open", "volume"]][:cut], quotes[["open", "volume"]][cut:]
            y_train, y_test = quotes["close"][:cut], quotes["close"][cut:]
            scaler = MinMaxScaler().fit(X_train)
            model = Ridge().fit(scaler.transform(X_train), y_train)
            print(model.score(scaler.transform(X_test), y_test))
"""),
    # the same gathered windows cut in time order
    "windows_gathered_item_by_item_cut_in_time_order": (SERIES + """\
        windows = np.array([[flow[i + j] for i in range(horizon)] for j in range(len(flow) - horizon)])
        w_tr, w_te, t_tr, t_te = train_test_split(windows, target, test_size=0.2, shuffle=False)
        print(Ridge().fit(w_tr, t_tr).score(w_te, t_te))
"""),
    # blocks of six values one block apart share no value: they are rows, not overlapping windows
    "blocks_gathered_item_by_item_that_do_not_overlap": (SERIES + """\
        blocks = np.array([[flow[i + j] for i in range(horizon)] for j in range(0, len(flow) - horizon, horizon)])
        ends = np.array([flow[j + horizon] for j in range(0, len(flow) - horizon, horizon)])
        b_tr, b_te, e_tr, e_te = train_test_split(blocks, ends, test_size=0.2, random_state=4)
        print(Ridge().fit(b_tr, e_tr).score(b_te, e_te))
"""),
    # the helper handed the validation labels; the test rows scored once at the cut-off it kept
    "cut_off_helper_handed_the_validation_labels": (CUTOFF + """\
        cut = best_cut(-forest.score_samples(X_val), y_val)
        held_scores = -forest.score_samples(X_te)
        print(precision_score(y_te, (held_scores > cut).astype(int)))
"""),
    # a helper keeping its best by a conditional expression, handed the validation labels: read without failing
    "cut_off_helper_with_a_conditional_expression": (CUTOFF + """\
        def kept_cut(scores, truth):
            top = 0.0
            for c in np.quantile(scores, np.linspace(0.5, 0.99, 40)):
                score = f1_score(truth, (scores > c).astype(int))
                top = score if score > top else top
            return top

        print(kept_cut(-forest.score_samples(X_val), y_val))
"""),
    # the search runs on the earlier rows only
    "search_on_the_training_part": (SEARCH + CUT + """\
        search.fit(X_train, y_train)
        forest = RandomForestRegressor(max_depth=8, min_samples_leaf=5, random_state=0)
        forest.fit(X_train, y_train)
        print(forest.score(X_test, y_test))
"""),
    # a search over every row only printed; the scored forest keeps its defaults
    "search_over_every_row_beside_a_default_forest": (SEARCH + """\
        search.fit(X, y)
        print(search.best_params_)
""" + CUT + """\
        forest = RandomForestRegressor(random_state=0)
        forest.fit(X_train, y_train)
        print(forest.score(X_test, y_test))
"""),
    # ... or is set in a hyperparameter the grid never tried
    "search_over_every_row_beside_an_untried_setting": (SEARCH + """\
        search.fit(X, y)
""" + CUT + """\
        forest = RandomForestRegressor(n_estimators=300, random_state=0)
        forest.fit(X_train, y_train)
        print(forest.score(X_test, y_test))
"""),
    # the weights set on the validation weeks, the blend scored once on the test weeks
    "blend_weights_from_errors_on_the_validation_labels": (BLEND + """\
        share, _ = mix(y_val, lin.predict(X_val), gbr.predict(X_val))
        mixed = share * lin.predict(X_te) + (1 - share) * gbr.predict(X_te)
        print(mean_absolute_error(y_te, mixed))
"""),
    # the members' test errors only printed beside an equal-weight blend
    "member_errors_shown_beside_an_equal_blend": (BLEND + """\
        p_lin, p_gbr = lin.predict(X_te), gbr.predict(X_te)
        print(mean_absolute_error(y_te, p_lin), mean_absolute_error(y_te, p_gbr))
        mixed = 0.5 * p_lin + 0.5 * p_gbr
        print(mean_absolute_error(y_te, mixed))
"""),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_85_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_85_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []

"""The static leakage analysis on the kinds the measure-only waves 73 and 75 showed (issue 17): forecasting settings
ranked by their walk-forward error on the last window of the series; feature selectors called out of a dictionary
by a loop over its keys; the kept names read off an array of the column names (``X.columns.values``); a table read into an object's attribute
where the script names several files. Each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: two made-up feature rankers kept in a dictionary of records, and a hold-out score of the kept columns
RANKERS = """\
        from sklearn.feature_selection import SelectKBest, f_classif, RFE
        from sklearn.ensemble import RandomForestClassifier

        def by_anova(data, labels, k):
            picker = SelectKBest(f_classif, k=k).fit(data, labels)
            return data.columns[picker.get_support()]

        def by_elimination(data, labels, k):
            names = np.array(data.columns.values.tolist())
            chain = RFE(RandomForestClassifier(), n_features_to_select=k).fit(data, labels)
            return names[chain.support_]

        def holdout_accuracy(data, labels):
            a, b, c, d = train_test_split(data, labels, test_size=0.3, random_state=0)
            return RandomForestClassifier().fit(a, c).score(b, d)

        rankers = {"anova": {"run": by_anova, "history": []}, "rfe": {"run": by_elimination, "history": []}}
"""

#: a made-up study kept in one object: the table read into an attribute, the results written to a second file
STUDY = """\
        class Study:
            def __init__(self):
                self.X = self.y = None
                self.scaler = StandardScaler()

            def load(self, path="cells.csv"):
                self.cells = pd.read_csv(path)
                self.X = self.cells.drop(columns=["kind"]).values
                self.y = self.cells["kind"].values
                return True

            def save(self, path="summary.csv"):
                pd.DataFrame({"done": [1]}).to_csv(path)

"""

#: a made-up monthly series and a one-step forecaster with two settings (a window length and a damping weight)
SERIES = """\
        from math import sqrt
        sales = pd.read_csv("sales.csv")["units"].values.tolist()

        def forecast(history, setting):
            window, weight = setting
            return weight * sum(history[-window:]) / window

        def rmse(actual, guessed):
            return sqrt(sum((a - g) ** 2 for a, g in zip(actual, guessed)) / len(actual))
"""

#: walk-forward validation over the last ``n_last`` observations (the held-out window cut by a helper)
WALK_FORWARD = SERIES + """\

        def cut(series, n_last):
            return series[:-n_last], series[-n_last:]

        def walk_forward(series, n_last, setting):
            past, ahead = cut(series, n_last)
            history = list(past)
            guesses = []
            for actual in ahead:
                guesses.append(forecast(history, setting))
                history.append(actual)
            return rmse(ahead, guesses)
"""

LEAKS = {
    # every setting scored on the last 12 months, the list sorted by that error: the window chose the setting
    "settings_ranked_by_their_error_on_the_last_window": (WALK_FORWARD + """\

        def settings():
            out = []
            for window in [3, 6, 12]:
                for weight in [0.8, 0.9, 1.0]:
                    out.append((window, weight))
            return out

        def search(series, candidates, n_last):
            scored = [(str(s), walk_forward(series, n_last, s)) for s in candidates]
            scored.sort(key=lambda pair: pair[1])
            return scored

        for name, error in search(sales, settings(), 12)[:3]:
            print(name, error)
""", [("tuned_on_test", 21)]),
    # the window cut inline, each setting's mean error over repeats kept in a dict, the smallest picked by min
    "repeated_walk_forward_errors_in_a_dict_reduced_by_min": (SERIES + """\

        def evaluate(series, n_last, setting):
            ahead = series[-n_last:]
            history = list(series[:-n_last])
            guesses = [forecast(history, setting) for _ in ahead]
            error = rmse(ahead, guesses)
            return error

        def repeated(series, setting, n_last):
            runs = [evaluate(series, n_last, setting) for _ in range(5)]
            return sum(runs) / len(runs)

        errors = {}
        for setting in [(3, 1.0), (6, 0.9)]:
            errors[setting] = repeated(sales, setting, 24)
        print(min(errors, key=errors.get))
""", [("tuned_on_test", 15)]),
    # each ranker is called through the dictionary by the loop's key, fitted on every row, then held out
    "rankers_called_out_of_a_dictionary_by_its_keys": (RANKERS + """\

        for key in rankers.keys():
            kept = rankers[key]["run"](X, y, 5)
            rankers[key]["history"].append(holdout_accuracy(X[kept], y))
""", [("fit_before_split", 5), ("fit_before_split", 10)]),
    # the names kept read off an array of the column names made through `.values`, the ranking fitted on all rows
    "kept_names_read_off_the_column_values_array": ("""\
        from sklearn.ensemble import ExtraTreesClassifier
        names = np.array(X.columns.values)
        forest = ExtraTreesClassifier(random_state=0).fit(X, y)
        top = names[np.argsort(forest.feature_importances_)[-4:]]
        a, b, c, d = train_test_split(X[top], y, random_state=0)
        print(LogisticRegression().fit(a, c).score(b, d))
""", [("fit_before_split", 3)]),
    # the table read into an attribute (two file names: the reader's rows are unknown), scaled before the folds
    "a_table_read_into_an_attribute_scaled_before_cross_validation": (STUDY + """\
            def evaluate(self):
                scaled = self.scaler.fit_transform(self.X)
                print(cross_val_score(LogisticRegression(), scaled, self.y, cv=5).mean())

        study = Study()
        if study.load():
            study.evaluate()
        study.save()
""", [("fit_outside_cv", 16)]),
}

HEALTHY = {
    # the settings ranked on a window of the training part; the chosen one scored once on the test window
    "settings_ranked_on_a_validation_window_then_tested_once": (WALK_FORWARD + """\

        def search(series, candidates, n_last):
            scored = [(s, walk_forward(series, n_last, s)) for s in candidates]
            scored.sort(key=lambda pair: pair[1])
            return scored[0][0]

        history_part, final_window = cut(sales, 12)
        best = search(history_part, [(3, 1.0), (6, 0.9), (12, 0.8)], 12)
        print(walk_forward(sales, 12, best))
""", []),
    # one setting evaluated alone on the last window: nothing is chosen
    "one_setting_evaluated_alone_on_the_last_window": (WALK_FORWARD + """\

        print(walk_forward(sales, 12, (6, 0.9)))
""", []),
    # every setting's test error printed, none ranked or kept
    "every_setting_printed_and_none_ranked": (WALK_FORWARD + """\

        for setting in [(3, 1.0), (6, 0.9)]:
            print(setting, walk_forward(sales, 12, setting))
""", []),
    # the window is named for validation inside the helper, and only the training part goes to the search
    "validation_window_named_in_the_helper": (SERIES + """\

        def tune(series, n_last, setting):
            fit_part, valid_part = series[:-n_last], series[-n_last:]
            return rmse(valid_part, [forecast(list(fit_part), setting) for _ in valid_part])

        train_series = sales[:-24]
        scores = [tune(train_series, 12, s) for s in [(3, 1.0), (6, 0.9)]]
        print(sorted(scores)[0])
""", []),
    # the same dictionary, each ranker fitted on the training part only and its columns scored on the other part
    "rankers_out_of_a_dictionary_fitted_on_the_training_part": (RANKERS + """\

        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
        for key in rankers.keys():
            kept = rankers[key]["run"](X_tr, y_tr, 5)
            print(key, RandomForestClassifier().fit(X_tr[kept], y_tr).score(X_te[kept], y_te))
""", []),
    # the column values array sliced by hand (a fixed panel), no fitted ranking
    "a_fixed_panel_read_off_the_column_values_array": ("""\
        names = np.array(X.columns.values)
        top = names[:4]
        a, b, c, d = train_test_split(X[top], y, random_state=0)
        print(LogisticRegression().fit(a, c).score(b, d))
""", []),
    # the same object, the scaler inside the pipeline that is cross-validated
    "a_table_read_into_an_attribute_scaled_inside_the_folds": (STUDY + """\
            def evaluate(self):
                chain = make_pipeline(self.scaler, LogisticRegression())
                print(cross_val_score(chain, self.X, self.y, cv=5).mean())

        study = Study()
        if study.load():
            study.evaluate()
        study.save()
""", []),
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_waves_73_75_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected

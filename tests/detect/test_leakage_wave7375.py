"""The static leakage analysis on the kinds the measure-only waves 73 and 75 showed (issue 17): forecasting settings
ranked by their walk-forward error on the last window of the series, each in both directions: the leak found at its
line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

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
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_waves_73_75_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected

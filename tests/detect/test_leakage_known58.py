"""The static leakage analysis on kinds held-out waves 101-103 missed (issue 17, stop 58), in both directions:

* blend weights kept in a dictionary, one per entry of a dictionary of test predictions, set from each entry's error
  on the test labels: found where the test labels set them; set on a validation part, or the errors only printed
  beside an equal blend, they are not (errorweights.py);
* a network class of the project whose ``fit`` takes its inputs as several arrays before the labels: a per-user mean
  over the training and test tables stacked that reaches it only through its second input array is found; the same
  mean over the training table alone, or the stacked one only printed, is not (ownmodels.py);
* the first row of a sorted table of every candidate's test scores taken as the model, which is then tuned or refit
  and scored on the test rows again: found at that score; chosen on validation rows, only printed, or a fixed model
  scored again, it is not (tablepicks.py).

Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: three regressors of a time-ordered split, a validation part carved from the training rows
MEMBERS = """\
        from sklearn.ensemble import RandomForestRegressor, ExtraTreesRegressor
        from sklearn.metrics import mean_absolute_error, mean_squared_error
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, shuffle=False)
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.2, shuffle=False)
        members = {"ridge": Ridge(), "forest": RandomForestRegressor(), "extra": ExtraTreesRegressor()}
        for key, est in members.items():
            est.fit(X_fit, y_fit)
"""

#: a two-branch network written by hand (a graph fed batch by batch), and two tables of enrolments
TWO_INPUTS = """\
        from sklearn.metrics import roc_auc_score

        class TwoBranch:
            def __init__(self, epochs):
                self.epochs = epochs

            def fit(self, idx_train, val_train, y_train, idx_valid=None, val_valid=None, y_valid=None):
                for _ in range(self.epochs):
                    self.loss = self.sess.run(self.step, feed_dict={"i": idx_train, "v": val_train, "y": y_train})
                return self

            def predict(self, idx, val):
                return self.sess.run(self.out, feed_dict={"i": idx, "v": val})

        train = pd.read_csv("enrol_train.csv", index_col=0)
        test = pd.read_csv("enrol_test.csv", index_col=0)
        profile_train = np.asarray(pd.read_csv("profile_train.csv", index_col=0), dtype=int)
        profile_test = np.asarray(pd.read_csv("profile_test.csv", index_col=0), dtype=int)
"""

#: a helper that scores a model on the rows it is handed, and one that sorts the records into a table
COMPARE = """\
        from sklearn.ensemble import RandomForestRegressor, ExtraTreesRegressor
        from sklearn.metrics import mean_squared_error
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=1)
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.2, random_state=1)
        makers = {"forest": RandomForestRegressor, "extra": ExtraTreesRegressor}

        def rate(est, rows, truth, tag):
            return {"model": tag, "rmse": mean_squared_error(truth, est.predict(rows)) ** 0.5}

        def rank(records):
            board = pd.DataFrame(records).set_index("model")
            return board.sort_values("rmse")

        forest = RandomForestRegressor().fit(X_tr, y_tr)
        extra = ExtraTreesRegressor().fit(X_tr, y_tr)
"""

LEAKS = {
    # inverse test errors as weights, a comprehension per dictionary, the blend scored on the same rows
    "dict_blend_weights_from_test_errors": (MEMBERS + """\
        outputs = {key: est.predict(X_te) for key, est in members.items()}
        misses = {key: mean_absolute_error(y_te, out) for key, out in outputs.items()}
        inverse = {key: 1.0 / misses[key] for key in misses}
        norm = sum(inverse.values())
        share = {key: inverse[key] / norm for key in inverse}
        mixed = sum(outputs[key] * share[key] for key in outputs)
        print(mean_absolute_error(y_te, mixed))
""", [("tuned_on_test", 9)]),
    # the same errors stored by a loop, the entries read by key
    "dict_blend_weights_from_test_errors_in_a_loop": (MEMBERS + """\
        outputs = {key: est.predict(X_te) for key, est in members.items()}
        misses = {}
        for key in outputs:
            misses[key] = mean_squared_error(y_te, outputs[key])
        total = sum(1 / m for m in misses.values())
        mixed = sum(outputs[k] * (1 / misses[k]) / total for k in outputs)
        print(mean_squared_error(y_te, mixed))
""", [("tuned_on_test", 11)]),
    # per-user means over both tables stacked, reaching the network only as its second input array
    "stack_statistic_reaching_a_handwritten_networks_second_input": (TWO_INPUTS + """\
        def augment(first, second):
            both = pd.concat([first, second])
            per_user = both.groupby("username")[["clicks"]].mean()
            per_user.columns = ["clicks_user"]
            both = pd.merge(both, per_user, left_on="username", right_index=True)
            return both.loc[first.index], both.loc[second.index]

        train, test = augment(train, test)
        net = TwoBranch(5)
        net.fit(profile_train, np.asarray(train[["clicks_user"]]), np.asarray(train["truth"]))
        print(roc_auc_score(test["truth"], net.predict(profile_test, np.asarray(test[["clicks_user"]]))))
""", [("fit_on_test", 21)]),
    # the helper's sorted table of test RMSEs: its first row is tuned, then scored on the test rows again
    "first_row_of_sorted_test_scores_tuned_and_rescored": (COMPARE + """\
        records = []
        records.append(rate(forest, X_te, y_te, "forest"))
        records.append(rate(extra, X_te, y_te, "extra"))
        board = rank(records)
        winner = board.index[0]
        search = GridSearchCV(makers[winner](), {"max_depth": [4, 8, None]}, cv=3).fit(X_tr, y_tr)
        print(rate(search.best_estimator_, X_te, y_te, "tuned " + winner))
""", [("tuned_on_test", 22)]),
    # the records of a loop over the candidates, ranked by the helper, the winner refit and predicted on the test rows
    "first_row_of_ranked_test_scores_refit": (COMPARE + """\
        records = []
        for tag, est in [("forest", forest), ("extra", extra)]:
            records.append(rate(est, X_te, y_te, tag))
        table = rank(records)
        top = table.iloc[0].name
        final = makers[top](n_estimators=500).fit(X_tr, y_tr)
        print(mean_squared_error(y_te, final.predict(X_te)))
""", [("tuned_on_test", 22)]),
}

HEALTHY = {
    # the weights set from errors on the validation rows, the blend scored once on the test rows
    "dict_blend_weights_from_validation_errors": MEMBERS + """\
        checks = {key: est.predict(X_val) for key, est in members.items()}
        misses = {key: mean_absolute_error(y_val, out) for key, out in checks.items()}
        inverse = {key: 1.0 / misses[key] for key in misses}
        share = {key: inverse[key] / sum(inverse.values()) for key in inverse}
        outputs = {key: est.predict(X_te) for key, est in members.items()}
        mixed = sum(outputs[key] * share[key] for key in outputs)
        print(mean_absolute_error(y_te, mixed))
""",
    # each member's test error shown beside an equal blend
    "dict_test_errors_printed_beside_an_equal_blend": MEMBERS + """\
        outputs = {key: est.predict(X_te) for key, est in members.items()}
        misses = {key: mean_absolute_error(y_te, out) for key, out in outputs.items()}
        print(misses)
        mixed = sum(outputs[key] * (1 / len(outputs)) for key in outputs)
        print(mean_absolute_error(y_te, mixed))
""",
    # the per-user means of the training table only, mapped onto both
    "training_statistic_reaching_a_handwritten_networks_second_input": TWO_INPUTS + """\
        per_user = train.groupby("username")["clicks"].mean()
        train["clicks_user"] = train["username"].map(per_user)
        test["clicks_user"] = test["username"].map(per_user)
        net = TwoBranch(5)
        net.fit(profile_train, np.asarray(train[["clicks_user"]]), np.asarray(train["truth"]))
        print(roc_auc_score(test["truth"], net.predict(profile_test, np.asarray(test[["clicks_user"]]))))
""",
    # the stacked means only looked at; the network reads the raw columns
    "stack_statistic_only_printed_beside_a_handwritten_network": TWO_INPUTS + """\
        both = pd.concat([train, test])
        print(both.groupby("username")[["clicks"]].mean().describe())
        net = TwoBranch(5)
        net.fit(profile_train, np.asarray(train[["clicks"]]), np.asarray(train["truth"]))
        print(roc_auc_score(test["truth"], net.predict(profile_test, np.asarray(test[["clicks"]]))))
""",
    # the table sorted by validation scores chooses; the chosen model is scored once on the test rows
    "first_row_of_sorted_validation_scores_rescored_on_test": COMPARE + """\
        forest.fit(X_fit, y_fit)
        extra.fit(X_fit, y_fit)
        records = [rate(forest, X_val, y_val, "forest"), rate(extra, X_val, y_val, "extra")]
        board = rank(records)
        winner = board.index[0]
        final = makers[winner]().fit(X_tr, y_tr)
        print(rate(final, X_te, y_te, winner))
""",
    # every candidate's test score shown in a sorted table, the leader only named
    "sorted_test_scores_leader_only_printed": COMPARE + """\
        records = [rate(forest, X_te, y_te, "forest"), rate(extra, X_te, y_te, "extra")]
        board = rank(records)
        print(board)
        print("lowest test error:", board.index[0])
""",
    # a sorted table of test scores, then a model fixed in advance scored again
    "sorted_test_scores_then_a_fixed_model_rescored": COMPARE + """\
        records = [rate(forest, X_te, y_te, "forest"), rate(extra, X_te, y_te, "extra")]
        board = rank(records)
        leader = board.index[0]
        print(leader)
        bigger = RandomForestRegressor(n_estimators=800).fit(X_tr, y_tr)
        print(rate(bigger, X_te, y_te, "forest 800"))
""",
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_known58_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_known58_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []

"""The static leakage analysis on the kinds held-out waves 76-78 showed (issue 17: end-to-end template projects,
course work, sports and clinical notebooks), in both directions: the leak found at its line, the healthy look-alike
silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # a scaler over every row, then one pair of a ShuffleSplit's folds taken by next() picks the rows by position
    "scaler_before_a_shuffle_split_pair_taken_by_next": ("""\
        from sklearn.model_selection import ShuffleSplit
        codes = MinMaxScaler().fit_transform(X)
        first, second = next(ShuffleSplit(n_splits=1, test_size=0.25).split(codes))
        knn = LogisticRegression().fit(codes[first], y.iloc[first])
        print(knn.score(codes[second], y.iloc[second]))
""", [("fit_before_split", 2)]),
    # the same through a KFold's first fold, the positions used through .iloc on a frame built from the scaled part
    "scaler_before_the_first_kfold_pair_used_through_iloc": ("""\
        scaled = pd.DataFrame(StandardScaler().fit_transform(X), columns=X.columns)
        fit_rows, held_rows = next(KFold(n_splits=4, shuffle=True).split(scaled))
        model = Ridge().fit(scaled.iloc[fit_rows], y.iloc[fit_rows])
        print(model.score(scaled.iloc[held_rows], y.iloc[held_rows]))
""", [("fit_before_split", 1)]),
    # a split of row numbers written as a range from zero
    "scaler_before_a_split_of_row_numbers_from_zero": ("""\
        ranks = pd.DataFrame(MinMaxScaler().fit_transform(X), columns=X.columns)
        keep, hold = train_test_split(np.arange(0, ranks.shape[0]), test_size=0.3)
        model = LogisticRegression().fit(ranks.iloc[keep], y.iloc[keep])
        print(model.score(ranks.iloc[hold], y.iloc[hold]))
""", [("fit_before_split", 1)]),
    # two models scored on the test rows and the better one returned by a comparison (a model-finder helper)
    "two_models_compared_by_test_error_in_a_helper": ("""\
        from sklearn.metrics import mean_squared_error
        from sklearn.ensemble import RandomForestRegressor
        def better_of_two(X_train, y_train, X_test, y_test):
            plain = Ridge().fit(X_train, y_train)
            plain_err = mean_squared_error(y_test, plain.predict(X_test))
            trees = RandomForestRegressor().fit(X_train, y_train)
            trees_err = mean_squared_error(y_test, trees.predict(X_test))
            if plain_err <= trees_err:
                return "ridge", plain
            return "forest", trees
""", [("tuned_on_test", 5)]),
    # the same at module level on attributes of a finder object, the winner assigned in the branches
    "two_models_compared_by_test_accuracy_on_attributes": ("""\
        class Finder:
            pass
        f = Finder()
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=1)
        f.logit = LogisticRegression().fit(X_train, y_train)
        f.logit_acc = f.logit.score(X_test, y_test)
        f.ridge = Ridge().fit(X_train, y_train)
        f.ridge_acc = f.ridge.score(X_test, y_test)
        if f.logit_acc > f.ridge_acc:
            chosen = f.logit
        else:
            chosen = f.ridge
        print(chosen)
""", [("tuned_on_test", 6)]),
    # a picture's statistics are still a fit on held-out rows when the "sample" is a row cut from the table
    "statistic_over_every_row_before_one_row_named_for_testing": ("""\
        top = np.max(X.values)
        X_test = (X.values[-1] / top).reshape(1, -1)
        model = LogisticRegression().fit(X.values[:-1] / top, y.values[:-1])
        print(model.predict(X_test))
""", [("fit_before_split", 1)]),
    # columns whose absolute correlation with the label over every row is small appended in a loop, then dropped
    "weakly_correlated_columns_listed_by_a_loop_before_the_split": ("""\
        weak = []
        link = table.corr()["label"]
        for k in range(len(link)):
            if abs(link[k]) < 0.05:
                weak.append(table.columns[k])
        kept = table.drop(columns=weak)
        X_train, X_test, y_train, y_test = train_test_split(kept.drop(columns=["label"]), kept["label"])
        print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))
""", [("fit_before_split", 2)]),
    # the training part split again, a search fitted on its held-aside part and scored on those same rows
    "search_fitted_and_scored_on_the_part_held_aside_by_a_second_split": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3)
        X_a, X_b, y_a, y_b = train_test_split(X_train, y_train, test_size=0.3)
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=3)
        search.fit(X_b, y_b)
        print((search.predict(X_b) == y_b).mean())
""", [("trained_on_test", 4)]),
    # the chosen names copied into a drop list that starts with a typed name
    "weakly_correlated_columns_copied_into_a_list_of_typed_names": ("""\
        weak = []
        link = table.corr()["label"]
        for k in range(len(link)):
            if abs(link[k]) < 0.05:
                weak.append(table.columns[k])
        gone = ["row_id"]
        for name in weak:
            gone.append(name)
        kept = table.drop(columns=gone)
        X_train, X_test, y_train, y_test = train_test_split(kept.drop(columns=["label"]), kept["label"])
        print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))
""", [("fit_before_split", 2)]),
}

HEALTHY = {
    # the pair taken first, the scaler fitted on its training positions only
    "scaler_fitted_after_the_shuffle_split_pair": ("""\
        from sklearn.model_selection import ShuffleSplit
        first, second = next(ShuffleSplit(n_splits=1, test_size=0.25).split(X))
        scaler = MinMaxScaler().fit(X.iloc[first])
        knn = LogisticRegression().fit(scaler.transform(X.iloc[first]), y.iloc[first])
        print(knn.score(scaler.transform(X.iloc[second]), y.iloc[second]))
"""),
    # a split of row numbers from zero, the scaler fitted on the training positions only
    "scaler_fitted_on_the_training_row_numbers": ("""\
        keep, hold = train_test_split(np.arange(0, len(X)), test_size=0.3)
        scaler = StandardScaler().fit(X.iloc[keep])
        model = Ridge().fit(scaler.transform(X.iloc[keep]), y.iloc[keep])
        print(model.score(scaler.transform(X.iloc[hold]), y.iloc[hold]))
"""),
    # the two models compared on a validation part, the winner scored once on the test part
    "two_models_compared_on_validation_rows": ("""\
        from sklearn.metrics import mean_squared_error
        from sklearn.ensemble import RandomForestRegressor
        def better_of_two(X_fit, y_fit, X_val, y_val):
            plain = Ridge().fit(X_fit, y_fit)
            plain_err = mean_squared_error(y_val, plain.predict(X_val))
            trees = RandomForestRegressor().fit(X_fit, y_fit)
            trees_err = mean_squared_error(y_val, trees.predict(X_val))
            if plain_err <= trees_err:
                return plain
            return trees
"""),
    # a training score compared with the test score of the same model: an over-fitting check, nothing chosen
    "train_and_test_score_of_one_model_compared": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=1)
        model = LogisticRegression().fit(X_train, y_train)
        fit_acc = model.score(X_train, y_train)
        held_acc = model.score(X_test, y_test)
        if fit_acc > held_acc + 0.1:
            print("over-fitted", model)
"""),
    # a new model gated against a deployed one loaded from disk: an acceptance check, not a choice of candidates
    "new_model_gated_against_a_loaded_one": ("""\
        import joblib
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=1)
        fresh = LogisticRegression().fit(X_train, y_train)
        fresh_acc = fresh.score(X_test, y_test)
        deployed = joblib.load("model.pkl")
        deployed_acc = deployed.score(X_test, y_test)
        if fresh_acc > deployed_acc:
            joblib.dump(fresh, "model.pkl")
"""),
    # one photographed digit: its contrast set from its own pixels, then shaped into one sample for the classifier
    "one_picture_normalised_by_its_own_pixels": ("""\
        from PIL import Image
        model = LogisticRegression().fit(X, y)
        picture = np.asarray(Image.open("digit.png").convert("L"), dtype=float)
        low = np.percentile(picture, 20)
        picture = np.clip(picture - low, 0, 255)
        picture = picture / np.max(picture)
        test_sample = np.array(picture).reshape(1, 784)
        print(model.predict(test_sample))
"""),
    # the same loop over the correlations of the training part only
    "weakly_correlated_columns_listed_on_the_training_part": ("""\
        train, test = train_test_split(table, random_state=0)
        weak = []
        link = train.corr()["label"]
        for k in range(len(link)):
            if abs(link[k]) < 0.05:
                weak.append(train.columns[k])
        train, test = train.drop(columns=weak), test.drop(columns=weak)
        model = LogisticRegression().fit(train.drop(columns=["label"]), train["label"])
        print(model.score(test.drop(columns=["label"]), test["label"]))
"""),
    # the search fitted on the first part of the second split and scored on its held-aside part
    "search_fitted_on_the_first_part_scored_on_the_held_aside_part": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3)
        X_a, X_b, y_a, y_b = train_test_split(X_train, y_train, test_size=0.3)
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=3)
        search.fit(X_a, y_a)
        print((search.predict(X_b) == y_b).mean())
"""),
    # a drop list of typed names only, after a correlation that was only printed
    "typed_drop_list_after_a_printed_correlation": ("""\
        print(table.corr()["label"])
        gone = ["row_id"]
        for name in ["note", "comment"]:
            gone.append(name)
        kept = table.drop(columns=gone)
        X_train, X_test, y_train, y_test = train_test_split(kept.drop(columns=["label"]), kept["label"])
        print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))
"""),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_77_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_77_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []

"""The static leakage analysis on the kinds a held-out wave of science and health code showed (issue 17, wave 58:
EEG feature selection scripts, clinical and MRI course projects, time-series notebooks), each in both directions:
the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # the script's own test part, written out and read back: still the held-out rows
    "a_test_part_written_then_read_back_and_filled_with_its_own_median": ("""\
        fit_rows, held_rows = train_test_split(table)
        held_rows.to_csv("held_rows_test.csv")
        later = pd.read_csv("held_rows_test.csv")
        later["age"] = later["age"].fillna(later["age"].median())
        Ridge().fit(fit_rows[["age"]], fit_rows["label"]).predict(later[["age"]])
        """, [("fit_on_test", 4)]),
    # a subsample kept from the scaled rows, then split again: the scaler saw the test rows of that second split
    "rows_scaled_then_subsampled_then_split": ("""\
        Z = StandardScaler().fit_transform(X)
        _, z_small, _, y_small = train_test_split(Z, y, test_size=0.5)
        a, b, c, d = train_test_split(z_small, y_small)
        LogisticRegression().fit(a, c).score(b, d)
        """, [("fit_before_split", 1)]),
    # a scaler fitted on the training rows stacked with the test file: the test rows are not a validation part
    "a_scaler_fitted_on_train_and_test_stacked": ("""\
        fit_part = pd.read_csv("train.csv")
        test_part = pd.read_csv("test.csv")
        both = pd.concat([fit_part, test_part])
        sc = StandardScaler().fit(both[["age"]])
        Ridge().fit(sc.transform(fit_part[["age"]]), fit_part["label"]).predict(sc.transform(test_part[["age"]]))
        """, [("fit_on_test", 4)]),
    # a table stacked with a copy of its own positive rows (oversampling by hand) before the split
    "rows_stacked_with_their_own_minority_before_the_split": ("""\
        arr = table[["age", "weight"]].values
        up = np.vstack((arr, arr[table["label"].values == 1]))
        a, b = train_test_split(up)
        LogisticRegression().fit(a[:, :1], a[:, 1]).score(b[:, :1], b[:, 1])
        """, [("fit_before_split", 2)]),
}

HEALTHY = {
    # the script writes its own selected columns under a name that starts with "test", then reads them back
    "own_file_named_test_for_an_experiment_read_back": """\
        from sklearn.feature_selection import SelectKBest
        def keep_columns(name="all_features.csv"):
            rows = pd.read_csv(name)
            pd.DataFrame(np.array(rows)[:, :5]).to_csv("test_sklearn_first_five.csv")
        def select_again(name="test_sklearn_first_five.csv"):
            rows = pd.read_csv(name)
            chosen = SelectKBest(k=2).fit_transform(rows, table["label"])
            pd.DataFrame(chosen).to_csv("selected.csv")
        def start():
            keep_columns()
            select_again()
        """,
    # the part train_test_split calls "test" is kept as a smaller training set; the rest is thrown away
    "a_training_subsample_kept_from_the_second_part": """\
        docs = load_rows(config["fit_file"])
        held = load_rows(config["eval_file"])
        scaler = StandardScaler()
        x_docs = scaler.fit_transform(docs[["age"]])
        x_held = scaler.transform(held[["age"]])
        _, x_small, _, y_small = train_test_split(x_docs, docs["label"], test_size=0.3)
        LogisticRegression().fit(x_small, y_small).score(x_held, held["label"])
        """,
    # the final refit on the training and validation files together, scored on the separate test file
    "final_refit_on_train_and_validation_scored_on_test": """\
        fit_part = pd.read_csv("train.csv")
        valid_part = pd.read_csv("valid.csv")
        test_part = pd.read_csv("test.csv")
        both = pd.concat([fit_part, valid_part])
        sc = StandardScaler()
        z = sc.fit_transform(both[["age"]])
        Ridge().fit(z, both["label"]).predict(sc.transform(test_part[["age"]]))
        """,
    # two columns of one table stacked by NumPy and transposed: a feature matrix, not repeated rows
    "two_columns_stacked_into_a_feature_matrix": """\
        first = np.array(table.age)
        second = np.array(table["weight"])
        Z = np.transpose(np.vstack((first, second)))
        a, b, c, d = train_test_split(Z, table["label"])
        LogisticRegression().fit(a, c).score(b, d)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_wave_58_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_wave_58_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []

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
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_77_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_77_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []

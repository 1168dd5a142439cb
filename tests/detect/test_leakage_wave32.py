"""The static leakage analysis on the kinds wave 32new of public code showed (issue 17, stop 32), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # the max over the rows' axis (0) of a stacked cube is a statistic of every row, taken before the split
    "max_over_the_rows_axis_of_a_cube_then_split": ("""\
        cube = np.stack([X.values, np.log1p(X.values)], axis=2)
        flat = cube[:, :, 0] / cube.max(0)[:, 0]
        A, B, ya, yb = train_test_split(flat, y)
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2)]),
    # a tuple of axes that includes the rows' axis still reduces over the rows
    "max_over_a_tuple_of_axes_with_the_rows_then_split": ("""\
        cube = np.stack([X.values, np.log1p(X.values)], axis=2)
        flat = X.values / cube.max(axis=(0, 2))
        A, B, ya, yb = train_test_split(flat, y)
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2)]),
    # pandas names the rows' axis 'index': a column maximum of every row
    "max_over_the_index_axis_then_split": ("""\
        Z = X / X.max(axis='index')
        A, B, ya, yb = train_test_split(Z, y)
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 1)]),
    # a strength swept over the test rows, the best kept by a score: the guard compares a score, not a counter
    "strength_swept_on_the_test_rows_best_kept": ("""\
        A, B, ya, yb = train_test_split(X, y)
        best = 0
        for i, c in enumerate([0.1, 1.0, 10.0]):
            acc = LogisticRegression(C=c).fit(A, ya).score(B, yb)
            if acc > best:
                best = acc
        print(best)
        """, [("tuned_on_test", 4)]),
    # a helper module's function (the scripts import it; it calls none of its functions) fits the encoder on the
    # fold's training and validation rows stacked and returns both parts: the caller scores the validation part
    "helper_returns_parts_encoded_on_training_and_validation_stacked": ("""\
        from sklearn.preprocessing import OneHotEncoder
        def encode(part_train, part_valid, cols):
            enc = OneHotEncoder(handle_unknown='ignore')
            enc.fit(pd.concat([part_train[cols], part_valid[cols]], axis=0))
            return enc.transform(part_train[cols]), enc.transform(part_valid[cols])
        """, [("fit_on_test", 4)]),
    # vocabulary learnt from the training and test files stacked; the matrices are written (scipy.sparse.save_npz)
    # for the script that trains and predicts
    "vocabulary_of_both_files_written_with_save_npz": ("""\
        from scipy.sparse import save_npz
        from sklearn.feature_extraction.text import TfidfVectorizer
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        words = TfidfVectorizer(max_features=300)
        words.fit(pd.concat([shop['note'], later['note']]))
        save_npz('train_words.npz', words.transform(shop['note']))
        save_npz('test_words.npz', words.transform(later['note']))
        """, [("fit_on_test", 6)]),
    # validation and test parameters stacked: the test rows shaped the scaler the helper hands back
    "helper_returns_parts_scaled_on_validation_and_test_stacked": ("""\
        def prepare(x_valid, x_test):
            sc = StandardScaler().fit(np.vstack([x_valid, x_test]))
            return sc.transform(x_valid), sc.transform(x_test)
        """, [("fit_on_test", 2)]),
}

HEALTHY = {
    # the max over a third axis of a stacked cube: one value per row and column, nothing learnt across rows
    "max_over_a_third_axis_then_split": ("""\
        cube = np.stack([X.values, np.log1p(X.values)], axis=2)
        flat = cube.max(2)
        A, B, ya, yb = train_test_split(flat, y)
        Ridge().fit(A, ya).score(B, yb)
        """),
    # the same with NumPy's function and the axis by keyword
    "numpy_mean_over_a_third_axis_then_split": ("""\
        cube = np.stack([X.values, np.log1p(X.values)], axis=2)
        flat = np.mean(cube, axis=2)
        A, B, ya, yb = train_test_split(flat, y)
        Ridge().fit(A, ya).score(B, yb)
        """),
    # every axis but the rows': each row's own spread
    "spread_over_the_other_axes_of_each_row_then_split": ("""\
        cube = np.stack([X.values, np.log1p(X.values)], axis=2)
        flat = X.values / cube.std(axis=(1, 2))[:, None]
        A, B, ya, yb = train_test_split(flat, y)
        Ridge().fit(A, ya).score(B, yb)
        """),
    # one model per label column, a fold loop inside; `if k > 0` only sums the folds' predictions of the
    # unlabelled file: nothing is chosen by a score
    "one_model_per_label_fold_predictions_summed_under_a_counter_guard": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        strengths = [0.5, 2.0]
        for j, name in enumerate(['spam', 'ham']):
            clf = LogisticRegression(C=strengths[j])
            total = 0
            for k, (tr, va) in enumerate(KFold(5).split(shop)):
                clf.fit(shop.iloc[tr], shop[name].iloc[tr])
                p = clf.predict_proba(later)[:, 1]
                if k > 0:
                    total = total + p
                else:
                    total = p
            later[name] = total / 5
        later.to_csv('out.csv')
        """),
    # the helper fits on the training part only and transforms both
    "helper_encodes_with_the_training_part_only": ("""\
        from sklearn.preprocessing import OneHotEncoder
        def encode(part_train, part_valid, cols):
            enc = OneHotEncoder(handle_unknown='ignore').fit(part_train[cols])
            return enc.transform(part_train[cols]), enc.transform(part_valid[cols])
        """),
    # a helper draws both files in one projection and returns the axes: no model input leaves it
    "helper_returns_the_axes_of_a_projection_of_both_files": ("""\
        import matplotlib.pyplot as plt
        def draw(part_train, part_test):
            pts = PCA(n_components=2).fit_transform(pd.concat([part_train, part_test]))
            fig, ax = plt.subplots()
            ax.scatter(pts[:, 0], pts[:, 1])
            return ax
        """),
    # a helper returns a summary statistic of both files (a report, not a model input)
    "helper_returns_the_mean_of_both_files": ("""\
        def summary(part_train, part_test):
            return pd.concat([part_train, part_test])['spend'].mean()
        """),
    # the file stacked with itself only, written out: no held-out rows
    "vocabulary_of_the_training_file_written_with_save_npz": ("""\
        from scipy.sparse import save_npz
        from sklearn.feature_extraction.text import TfidfVectorizer
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        words = TfidfVectorizer(max_features=300).fit(shop['note'])
        save_npz('train_words.npz', words.transform(shop['note']))
        save_npz('test_words.npz', words.transform(later['note']))
        """),
    # a helper fits a calibrator on the validation part alone and applies it to the test part: what a validation
    # part is for (Platt scaling), not a fit on held-out rows
    "helper_calibrates_on_the_validation_part": ("""\
        class Platt:
            def fit(self, labels, proba):
                self.lr = LogisticRegression().fit(proba.reshape(-1, 1), labels)
                return self
            def transform(self, proba):
                return self.lr.predict_proba(proba.reshape(-1, 1))[:, 1]
        def calibrate(y_val, proba_val, proba_test):
            platt = Platt()
            platt.fit(y_val, proba_val)
            return platt.transform(proba_test), platt
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert sorted(set(alarms(tmp_path, body))) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []

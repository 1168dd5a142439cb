"""The static leakage analysis on the kinds named after the fourth wave (issue 17, i17leak3), each in both
directions: choices made on the test rows, binning and formula levels learnt from all rows, a feature's
LabelEncoder, and the look-alikes that are not leaks (an inversion, a validation part, the target's codes,
dummies made per table). Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # a hyperparameter swept and scored on the test rows, the best kept by a comparison
    "neighbours_chosen_by_test_accuracy": ("""\
        from sklearn.neighbors import KNeighborsClassifier
        A, B, ya, yb = train_test_split(X, y)
        best, best_k = 0, None
        for k in range(1, 25):
            knn = KNeighborsClassifier(n_neighbors=k).fit(A, ya)
            acc = knn.score(B, yb)
            if acc > best:
                best, best_k = acc, k
        print(best_k, best)
        """, ("tuned_on_test", 6)),
    # an error curve over the test rows, its minimum read off and typed back in
    "elbow_read_off_a_test_error_curve": ("""\
        from sklearn.neighbors import KNeighborsClassifier
        A, B, ya, yb = train_test_split(X, y)
        errors = []
        for k in range(1, 40):
            knn = KNeighborsClassifier(n_neighbors=k)
            knn.fit(A, ya)
            errors.append(np.mean(knn.predict(B) != yb))
        knn = KNeighborsClassifier(n_neighbors=11).fit(A, ya)
        print(knn.score(B, yb))
        """, ("tuned_on_test", 7)),
    # models compared on the test rows inside a helper, the best by max()
    "model_chosen_by_test_scores_in_a_helper": ("""\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        def test_score(model):
            model.fit(A, ya)
            return model.score(B, yb)
        results = {}
        for name, model in {"tree": DecisionTreeClassifier(), "lr": LogisticRegression()}.items():
            results[name] = test_score(model)
        print(max(results, key=results.get))
        """, ("tuned_on_test", 5)),
    # columns chosen by a list built from .columns: a max per column of every row, then split
    "max_scaling_of_columns_listed_from_columns": ("""\
        predictors = list(set(table.columns) - {"label"})
        table[predictors] = table[predictors] / table[predictors].max()
        A, B, ya, yb = train_test_split(table[predictors].values, table["label"].values)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 2)),
    # a statistic of a masked subset (here: the rows of one class) fills rows the later split sends to test
    "median_of_one_class_fills_before_the_split": ("""\
        mask = table["label"] == 0
        table.loc[mask, "chol"] = table.loc[mask, "chol"].replace(0, table.loc[mask, "chol"].median())
        A, B, ya, yb = train_test_split(table.drop(columns=["label"]), y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 2)),
    # models compared on the test rows, the table sorted and its first row taken as the best
    "best_model_is_the_first_row_of_sorted_test_scores": ("""\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        rows = []
        for name, model in {"tree": DecisionTreeClassifier(), "lr": LogisticRegression()}.items():
            model.fit(A, ya)
            rows.append({"model": name, "acc": model.score(B, yb)})
        board = pd.DataFrame(rows).sort_values("acc", ascending=False)
        print(board.iloc[0]["model"])
        """, ("tuned_on_test", 6)),
    "best_model_by_idxmax_of_a_score_table": ("""\
        from sklearn.tree import DecisionTreeRegressor
        A, B, ya, yb = train_test_split(X, y)
        scores = {}
        for depth in (2, 4, 8):
            scores[depth] = DecisionTreeRegressor(max_depth=depth).fit(A, ya).score(B, yb)
        table_of_scores = pd.Series(scores)
        print(table_of_scores.idxmax())
        """, ("tuned_on_test", 5)),
    # a per-group standardisation over every row (groupby().transform with a function), then split
    "group_standardisation_of_all_rows": ("""\
        table["z"] = table.groupby("city")["pm"].transform(lambda s: (s - s.mean()) / s.std())
        A, B, ya, yb = train_test_split(table[["z"]], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 1)),
    # quartile edges learnt from every row, then split
    "quartile_bands_of_all_rows": ("""\
        table["band"] = pd.qcut(table["income"], 4, labels=False)
        A, B, ya, yb = train_test_split(table[["band", "age"]], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 1)),
    "equal_width_bins_with_their_edges": ("""\
        table["bucket"], edges = pd.cut(table["age"], 6, retbins=True, labels=False)
        A, B, ya, yb = train_test_split(table[["bucket"]], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 1)),
    # patsy learns the levels of C(...) from every row
    "patsy_levels_of_all_rows": ("""\
        import patsy
        design = patsy.dmatrix("~ C(region) + C(plan)", table)
        A, B, ya, yb = train_test_split(design, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 2)),
}

HEALTHY = {
    # an inversion (a negative image) per set: each difference between rows is kept
    "pixel_inversion_per_set": """\
        from sklearn.neighbors import KNeighborsClassifier
        A, B, ya, yb = train_test_split(X.values, y)
        A_inv = A.max() - A
        B_inv = B.max() - B
        KNeighborsClassifier().fit(A_inv, ya).score(B_inv, yb)
        """,
    "constant_inversion": """\
        A, B, ya, yb = train_test_split(X.values, y)
        LogisticRegression().fit(255 - A, ya).score(255 - B, yb)
        """,
    # the same sweep scored on a validation part carved from the training rows
    "neighbours_chosen_on_a_validation_part": """\
        from sklearn.neighbors import KNeighborsClassifier
        A, B, ya, yb = train_test_split(X, y)
        A2, X_val, ya2, y_val = train_test_split(A, ya)
        best, best_k = 0, None
        for k in range(1, 25):
            acc = KNeighborsClassifier(n_neighbors=k).fit(A2, ya2).score(X_val, y_val)
            if acc > best:
                best, best_k = acc, k
        print(KNeighborsClassifier(n_neighbors=best_k).fit(A, ya).score(B, yb))
        """,
    # models scored on the test rows in a loop and printed, nothing kept
    "models_compared_and_printed": """\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        for model in (DecisionTreeClassifier(), LogisticRegression()):
            model.fit(A, ya)
            print(type(model).__name__, model.score(B, yb))
        """,
    # the first row of an unsorted score table is not a choice
    "first_row_of_an_unsorted_table": """\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        rows = []
        for model in (DecisionTreeClassifier(), LogisticRegression()):
            rows.append(model.fit(A, ya).score(B, yb))
        print(pd.Series(rows).iloc[0])
        """,
    # the best fold of a cross-validation loop is not a choice on the test rows
    "best_fold_of_a_cv_loop": """\
        scores = []
        for tr, te in KFold(5).split(X):
            m = LogisticRegression().fit(X.iloc[tr], y.iloc[tr])
            scores.append(m.score(X.iloc[te], y.iloc[te]))
        print(max(scores))
        """,
    # bins with their edges given learn nothing from the rows
    "cut_with_given_edges": """\
        table["age_group"] = pd.cut(table["age"], [0, 18, 40, 65, 120], labels=False)
        A, B, ya, yb = train_test_split(table[["age_group"]], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    "patsy_formula_of_numbers_only": """\
        import patsy
        design = patsy.dmatrix("~ age + income", table)
        A, B, ya, yb = train_test_split(design, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # the target's codes are a relabelling, not a feature
    "label_encoder_on_the_target": """\
        from sklearn.preprocessing import LabelEncoder
        target = LabelEncoder().fit_transform(table["label"])
        A, B, ya, yb = train_test_split(X, target)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    "label_encoder_on_the_column_used_as_y": """\
        from sklearn.preprocessing import LabelEncoder
        le = LabelEncoder()
        table["outcome"] = le.fit_transform(table["outcome"])
        A, B, ya, yb = train_test_split(table.drop(columns=["outcome"]), table["outcome"])
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # a column transformer whose only part is stateless learns nothing from the rows
    "column_transformer_of_a_stateless_part": """\
        from sklearn.compose import ColumnTransformer
        from sklearn.preprocessing import FunctionTransformer
        logs = ColumnTransformer([("log", FunctionTransformer(np.log1p), ["fare"])], remainder="passthrough")
        cross_val_score(LogisticRegression(), logs.fit_transform(X), y, cv=5)
        """,
    # categories written out: the encoder learns nothing from the rows it is fitted on
    "encoder_with_its_categories_given": """\
        from sklearn.preprocessing import OrdinalEncoder
        A, B, ya, yb = train_test_split(table[["grade"]], y)
        enc = OrdinalEncoder(categories=[["low", "mid", "high"]])
        LogisticRegression().fit(enc.fit_transform(A), ya).score(enc.fit_transform(B), yb)
        """,
    # a sample and its complement: the training sample never meets the rows held out by name
    "sample_and_its_complement_with_listed_columns": """\
        train = table.sample(frac=0.8)
        test = table.loc[~table.index.isin(train.index)]
        cols = list(train.columns)
        cols.remove("label")
        model = Ridge().fit(train[cols], train["label"])
        model.predict(test[cols])
        """,
    # a statistic of a subset of the training part, applied to both parts: no test row in it
    "median_of_a_subset_of_the_training_part": """\
        A, B, ya, yb = train_test_split(table.drop(columns=["label"]), y)
        adults = A[A["age"] >= 18]
        med = adults["income"].median()
        A["income"], B["income"] = A["income"].fillna(med), B["income"].fillna(med)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # dummies made per table after the split: columns may differ (a bug), nothing is learnt across tables
    "dummies_per_table": """\
        A, B, ya, yb = train_test_split(table.drop(columns=["label"]), y)
        A, B = pd.get_dummies(A), pd.get_dummies(B)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_named_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert expected in alarms(tmp_path, body)


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_a_column_transformer_with_a_scaler_part_is_still_a_fit(tmp_path):
    body = """\
        from sklearn.compose import ColumnTransformer
        from sklearn.preprocessing import FunctionTransformer
        parts = ColumnTransformer([("log", FunctionTransformer(np.log1p), ["fare"]), ("z", StandardScaler(), ["age"])])
        cross_val_score(LogisticRegression(), parts.fit_transform(X), y, cv=5)
        """
    assert ("fit_outside_cv", 4) in alarms(tmp_path, body)


def test_scaling_by_the_test_rows_own_range_is_still_a_fit(tmp_path):
    body = """\
        A, B, ya, yb = train_test_split(X.values, y)
        LogisticRegression().fit(A / A.max(), ya).score(B / B.max(), yb)
        """
    assert ("fit_on_test", 2) in alarms(tmp_path, body)


def _findings(path):
    from faultlib.detect.data.leakage import analyze_file

    return [(f.kind, f.severity.value, f.location["line"]) for f in analyze_file(str(path))[0].findings]


@pytest.mark.parametrize("encode, expected", [
    # a feature column named while the target is named elsewhere: a note (the category set only), not a leak
    ("frame['city'] = LabelEncoder().fit_transform(frame['city'])",
     [("fit_before_split", "info", 6)]),
    # a column of the feature matrix X taken by position
    ("X[:, 2] = LabelEncoder().fit_transform(X[:, 2])", [("fit_before_split", "info", 6)]),
    # the target itself, and a column while the target is taken by position only: silent
    ("frame['label'] = LabelEncoder().fit_transform(frame['label'])", []),
])
def test_a_label_encoder_on_a_feature_is_a_note_and_on_the_target_silent(tmp_path, encode, expected):
    path = tmp_path / "enc.py"
    features = "X" if encode.startswith("X[") else "frame.drop(columns=['label'])"
    path.write_text(
        "import pandas as pd\nfrom sklearn.preprocessing import LabelEncoder\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.linear_model import LogisticRegression\n"
        "frame = pd.read_csv('t.csv'); X = frame.drop(columns=['label']).values; y = frame['label'].values\n"
        f"{encode}\nA, B, ya, yb = train_test_split({features}, y)\nLogisticRegression().fit(A, ya).score(B, yb)\n")
    assert _findings(path) == expected


def test_a_label_encoder_is_silent_when_the_target_is_taken_by_position(tmp_path):
    path = tmp_path / "flowers.py"
    path.write_text(
        "import pandas as pd\nfrom sklearn.preprocessing import LabelEncoder\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.linear_model import LogisticRegression\n"
        "frame = pd.read_csv('flowers.csv')\nframe['kind'] = LabelEncoder().fit_transform(frame['kind'])\n"
        "A, B, ya, yb = train_test_split(frame.iloc[:, :-1], frame.iloc[:, -1])\n"
        "LogisticRegression().fit(A, ya).score(B, yb)\n")
    assert _findings(path) == []

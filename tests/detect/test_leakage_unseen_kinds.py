"""The static leakage analysis on the kinds a second wave of public code showed (issue 17, i17leak2), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # a statistic of all rows passed inside a dict argument: replace({0: median})
    "median_in_a_replace_dict": ("""\
        table['bp'] = table['bp'].replace({0: table['bp'].median()})
        X2 = table.drop(columns=['label'])
        A, B, ya, yb = train_test_split(X2, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 1)),
    # a selector fitted on all rows chooses the columns by its support_, then the split
    "columns_chosen_by_rfe_support": ("""\
        from sklearn.feature_selection import RFE
        rfe = RFE(LogisticRegression(), n_features_to_select=3)
        rfe.fit(X, y)
        kept = X.columns[rfe.support_]
        A, B, ya, yb = train_test_split(X[kept], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 3)),
    "columns_chosen_by_get_support": ("""\
        from sklearn.feature_selection import SelectKBest
        skb = SelectKBest(k=4).fit(X.values, y)
        narrow = X.values[:, skb.get_support()]
        A, B, ya, yb = train_test_split(narrow, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 2)),
    # a search fitted on every row, then scored on the held-out part it already saw
    "search_fitted_on_all_rows_then_scored": ("""\
        A, B, ya, yb = train_test_split(X, y, test_size=0.2)
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=5)
        search.fit(X, y)
        print(search.score(B, yb))
        """, ("trained_on_test", 3)),
    "model_refitted_on_all_rows_then_scored": ("""\
        A, B, ya, yb = train_test_split(X, y)
        clf = LogisticRegression()
        print(cross_val_score(clf, X, y, cv=5).mean())
        clf.fit(X, y)
        print(clf.score(B, yb))
        """, ("trained_on_test", 4)),
    # hyperparameters chosen by cross-validating candidates over every row, the test part among them
    "depth_chosen_by_cross_validation_over_all_rows": ("""\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        for depth in range(1, 8):
            print(depth, cross_val_score(DecisionTreeClassifier(max_depth=depth), X, y, cv=5).mean())
        DecisionTreeClassifier(max_depth=4).fit(A, ya).score(B, yb)
        """, ("trained_on_test", 4)),
    "best_params_of_a_search_over_all_rows": ("""\
        A, B, ya, yb = train_test_split(X, y)
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=5)
        search.fit(X, y)
        LogisticRegression(C=search.best_params_["C"]).fit(A, ya).predict(B)
        """, ("trained_on_test", 3)),
    # SelectFromModel(prefit=True) selects by a forest fitted on every row that is then cross-validated
    "prefit_selector_outside_cross_validation": ("""\
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.feature_selection import SelectFromModel
        forest = RandomForestClassifier().fit(X, y)
        narrow = SelectFromModel(forest, prefit=True).transform(X)
        cross_val_score(LogisticRegression(), narrow, y, cv=5)
        """, ("fit_outside_cv", 3)),
    # a learning curve trained on random samples of every row, scored on a held-out part of those rows
    "trained_on_a_sample_of_all_rows": ("""\
        A, B, ya, yb = train_test_split(X, y)
        for frac in (0.25, 0.5, 1.0):
            part = table.sample(frac=frac)
            model = Ridge().fit(part.drop(columns=["label"]), part["label"])
            print(frac, model.score(B, yb))
        """, ("trained_on_test", 4)),
    # selection on draws of a random generator, then cross-validated: the held-out draws are other rows
    "selector_on_random_draws_then_cross_validated": ("""\
        from sklearn.feature_selection import SelectPercentile, f_regression
        rnd = np.random.RandomState(0)
        Xr = rnd.normal(size=(100, 1000))
        Xr_test = rnd.normal(size=(100, 1000))
        yr = rnd.normal(size=100)
        sel = SelectPercentile(f_regression, percentile=5).fit(Xr, yr)
        cross_val_score(Ridge(), sel.transform(Xr), yr)
        sel.transform(Xr_test)
        """, ("fit_outside_cv", 6)),
    # a subsample whose held-out part is thrown away (`_`), then the real train/test split of that sample
    "refit_on_the_test_part_of_a_subsample": ("""\
        sample = {}
        sample['X'], _, sample['y'], _ = train_test_split(X, y, train_size=0.1)
        A, B, ya, yb = train_test_split(sample['X'], sample['y'], test_size=0.2)
        scaler = MinMaxScaler()
        A1 = scaler.fit_transform(A)
        B1 = scaler.fit_transform(B)
        LogisticRegression().fit(A1, ya).score(B1, yb)
        """, ("fit_on_test", 6)),
    # estimators taken from a dict in a loop; the scaler refitted on the test part inside it
    "refit_on_test_inside_a_loop_over_a_dict_of_estimators": ("""\
        A, B, ya, yb = train_test_split(X, y)
        embedders = {'pca': PCA(n_components=2), 'scale': MinMaxScaler()}
        for name, emb in embedders.items():
            scaler = StandardScaler()
            A1 = scaler.fit_transform(A)
            B1 = scaler.fit_transform(B)
            emb.fit(A1)
            LogisticRegression().fit(emb.transform(A1), ya).score(emb.transform(B1), yb)
        """, ("fit_on_test", 6)),
    # a helper refits a scaler on whatever it is given, the test rows too
    "helper_refits_on_each_input": ("""\
        def pooled(x):
            x = MinMaxScaler().fit_transform(x)
            return x
        def conv(images):
            return np.array([np.convolve(img, [1, 0, -1]) for img in images])
        A, B, ya, yb = train_test_split(X, y)
        A_conv = conv(A)
        B_conv = conv(B)
        A_pool = pooled(A_conv)
        B_pool_test = pooled(B_conv)
        LogisticRegression().fit(A_pool, ya).score(B_pool_test, yb)
        """, ("fit_on_test", 2)),
}

HEALTHY = {
    "median_of_the_training_part_in_a_dict": """\
        A, B, ya, yb = train_test_split(X, y)
        fill = A['bp'].median()
        A = A.replace({0: fill})
        B = B.replace({0: fill})
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    "rfe_fitted_on_the_training_part": """\
        from sklearn.feature_selection import RFE
        A, B, ya, yb = train_test_split(X, y)
        rfe = RFE(LogisticRegression(), n_features_to_select=3).fit(A, ya)
        kept = A.columns[rfe.support_]
        LogisticRegression().fit(A[kept], ya).score(B[kept], yb)
        """,
    "search_fitted_on_the_training_part": """\
        A, B, ya, yb = train_test_split(X, y)
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=5).fit(A, ya)
        print(search.score(B, yb), search.score(A, ya))
        """,
    # one cross-validated score beside a split, for comparison: nothing is chosen with it
    "a_single_cross_validated_score_for_comparison": """\
        A, B, ya, yb = train_test_split(X, y)
        clf = LogisticRegression().fit(A, ya)
        print(clf.score(B, yb), cross_val_score(clf, X, y, cv=5).mean())
        """,
    "depth_chosen_on_the_training_part": """\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        for depth in range(1, 8):
            print(depth, cross_val_score(DecisionTreeClassifier(max_depth=depth), A, ya, cv=5).mean())
        DecisionTreeClassifier(max_depth=4).fit(A, ya).score(B, yb)
        """,
    "trained_on_a_sample_of_the_training_part": """\
        A, B, ya, yb = train_test_split(table, y)
        for frac in (0.25, 0.5, 1.0):
            part = A.sample(frac=frac)
            model = Ridge().fit(part.drop(columns=["label"]), part["label"])
            print(frac, model.score(B.drop(columns=["label"]), yb))
        """,
    # train and test chosen by the index of a split made on another table (a time-series tutorial)
    "parts_chosen_by_split_indices": """\
        idx_a, idx_b = train_test_split(y.index, shuffle=False)
        A, B = X.loc[idx_a, :], X.loc[idx_b, :]
        model = Ridge().fit(A, y.loc[idx_a])
        model.predict(B)
        """,
    # a count named `val` (a value, not validation rows) over a frame a median filled
    "a_count_named_val_is_a_number": """\
        table['stay'] = table['stay'].fillna(table['stay'].median())
        for lo, hi in [(0, 3), (3, 7)]:
            val = table[(table['stay'] > lo) & (table['stay'] < hi)]['stay'].count()
            print(val)
        """,
    # X_train = X[:n] beside X_test = X[n:]: a split of X_train carves validation rows, not the test set
    "validation_split_of_a_sliced_training_part": """\
        def load():
            n = 500
            X_tr, X_te = X.values[:n], X.values[n:]
            mu = X_tr.mean(axis=0)
            return X_tr - mu, X_te - mu
        X_tr, X_te = load()
        A, V, ya, yv = train_test_split(X_tr, y[:500])
        clf = LogisticRegression().fit(A, ya)
        clf.predict(V)
        clf.predict(X_te)
        """,
    # a train/validation split of the training part, the test part kept: the validation rows are not the test set
    "validation_split_of_a_kept_training_part": """\
        A, B, ya, yb = train_test_split(X, y, test_size=0.2)
        A2, V, ya2, yv = train_test_split(A, ya, test_size=0.2)
        scaler = MinMaxScaler().fit(A)
        LogisticRegression().fit(scaler.transform(A2), ya2).score(scaler.transform(V), yv)
        """,
    # recency: days since the last date of all rows is a reference point, not a learnt statistic
    "recency_from_the_latest_date": """\
        import datetime
        ref = table.visit_date.max() + datetime.timedelta(days=1)
        table['recency'] = (ref - table.visit_date).dt.days
        last = np.max(table['signup_date'])
        table['age'] = (last - table['signup_date']).dt.days
        A, B, ya, yb = train_test_split(table[['recency', 'age']], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # Kaggle layout, scaled on the training part of train.csv only (test.csv holds the unlabelled test rows). The
    # same scaler fitted on all of train.csv and scored on V is a leak since stop 30: test_leakage_file_kinds.py
    "scaler_on_the_competition_training_part": """\
        comp = pd.read_csv("../input/train.csv")
        submit_rows = pd.read_csv("../input/test.csv")
        A, V, ya, yv = train_test_split(comp.drop(columns=["label"]), comp["label"])
        scaler = StandardScaler().fit(A)
        LogisticRegression().fit(scaler.transform(A), ya).score(scaler.transform(V), yv)
        """,
    # a model and its forecast horizon from one opaque generator: named for test, not held out by a split
    "in_sample_fit_and_out_of_sample_forecast": """\
        from statsmodels.tsa.deterministic import DeterministicProcess
        dp = DeterministicProcess(index=table.index, order=1)
        Xd = dp.in_sample()
        model = Ridge().fit(Xd, y)
        X_future = dp.out_of_sample(steps=7)
        model.predict(X_future)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_the_second_wave_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert expected in alarms(tmp_path, body)


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_the_second_wave_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_a_statistic_of_a_numeric_column_is_still_a_fit_next_to_a_date(tmp_path):
    body = """\
        ref = table.visit_date.max()
        table['spend01'] = (table.spend - table.spend.min()) / (table.spend.max() - table.spend.min())
        A, B, ya, yb = train_test_split(table[['spend01']], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """
    assert ("fit_before_split", 2) in alarms(tmp_path, body)


def test_a_training_file_without_a_separate_test_file_is_still_split_into_test(tmp_path):
    body = """\
        comp = pd.read_csv("../input/train.csv")
        feats = StandardScaler().fit_transform(comp.drop(columns=["label"]))
        A, V, ya, yv = train_test_split(feats, comp["label"])
        LogisticRegression().fit(A, ya).score(V, yv)
        """
    assert ("fit_before_split", 2) in alarms(tmp_path, body)


def test_an_nbformat_3_notebook_is_read_with_its_cell_numbers(tmp_path):
    import json

    from faultlib.detect.data.leakage import analyze_file

    code = ["import pandas as pd\n", "from sklearn.preprocessing import StandardScaler\n",
            "from sklearn.model_selection import train_test_split\n", "from sklearn.svm import SVC\n",
            "frame = pd.read_csv('t.csv')\n", "y = frame.pop('label')\n"]
    leak = ["Z = StandardScaler().fit_transform(frame)\n", "A, B, ya, yb = train_test_split(Z, y)\n",
            "SVC().fit(A, ya).score(B, yb)\n"]
    doc = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "markdown", "source": ["# old notebook\n"]},
        {"cell_type": "code", "language": "python", "input": code, "outputs": []},
        {"cell_type": "code", "language": "python", "input": leak, "outputs": []}]}]}
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(doc))
    report, _ = analyze_file(str(path))
    assert [(f.kind, f.location["index"], f.location["line"]) for f in report.findings] == [
        ("fit_before_split", 3, 1)]


def test_a_python2_print_ending_in_a_semicolon_inside_a_block_is_read(tmp_path):
    from faultlib.detect.data.leakage import analyze_file

    path = tmp_path / "py2.py"
    path.write_text("import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
                    "from sklearn.model_selection import train_test_split\nfrom sklearn.svm import SVC\n"
                    "frame = pd.read_csv('t.csv')\ny = frame.pop('label')\n"
                    "try:\n    Z = StandardScaler().fit_transform(frame)\n    print 'scaled: ', Z.shape;\n"
                    "except IOError:\n    pass\n"
                    "A, B, ya, yb = train_test_split(Z, y)\nSVC().fit(A, ya).score(B, yb)\n")
    report, _ = analyze_file(str(path))
    assert [(f.kind, f.location["line"]) for f in report.findings] == [("fit_before_split", 8)]

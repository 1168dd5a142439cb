"""The static leakage analysis on the kinds a fifth fresh wave of public code showed (issue 17, i17leakwave:
Kaggle kernels, time-series windows, clustering features), each in both directions: the leak found at its line,
the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # a whole series scaled, then cut by position into windows: the later windows are the test set
    "series_scaled_then_windowed_by_position": ("""\
        scaler = MinMaxScaler()
        def windows(frame, width):
            xs = []
            for i in range(len(frame) - width):
                xs.append(frame.iloc[i:i + width].values)
            return np.array(xs)
        series = scaler.fit_transform(table[["load"]])
        cut = int(len(series) * 0.8)
        x_fit = windows(pd.DataFrame(series[:cut]), 24)
        x_test = windows(pd.DataFrame(series[cut:]), 24)
        """, [("fit_before_split", 7)]),
    # Kaggle layout: the rows read from test.csv are held out whatever the variable is called
    "a_competition_test_file_filled_with_its_own_median": ("""\
        from sklearn.ensemble import RandomForestClassifier
        training = pd.read_csv("../input/train.csv")
        testing = pd.read_csv("../input/test.csv")
        testing["age"] = testing["age"].fillna(testing["age"].median())
        forest = RandomForestClassifier().fit(training[["age"]], training["label"])
        forest.predict(testing[["age"]])
        """, [("fit_on_test", 4)]),
    # cluster ids learnt on the held-out rows become their feature
    "clusters_refitted_on_the_test_file": ("""\
        from sklearn.cluster import KMeans
        from sklearn.ensemble import RandomForestClassifier
        fit_rows = pd.read_csv("train.csv")
        held = pd.read_csv("test.csv")
        km = KMeans(n_clusters=3)
        fit_rows["grp"] = km.fit(fit_rows[["a", "b"]]).labels_
        held["grp"] = km.fit(held[["a", "b"]]).labels_
        forest = RandomForestClassifier().fit(fit_rows[["a", "b", "grp"]], fit_rows["label"])
        forest.predict(held[["a", "b", "grp"]])
        """, [("fit_on_test", 7)]),
    # cluster ids of all rows as a feature, then a split
    "cluster_ids_of_all_rows_then_split": ("""\
        from sklearn.cluster import KMeans
        table["grp"] = KMeans(n_clusters=4).fit_predict(X)
        A, B, ya, yb = train_test_split(table.drop(columns=["label"]), y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2)]),
    # a search's best estimator predicts the competition rows its own statistic filled
    "best_estimator_predicts_rows_filled_with_their_own_mean": ("""\
        comp = pd.read_csv("train.csv")
        later = pd.read_csv("test.csv")
        later["fare"] = later["fare"].fillna(later["fare"].mean())
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}).fit(comp[["fare"]], comp["label"])
        best = search.best_estimator_
        best.predict(later[["fare"]])
        """, [("fit_on_test", 3)]),
    # rows of numbers built from per-sample statistics are a matrix of their own: scaled, then split
    "matrix_of_per_sample_statistics_scaled_then_split": ("""\
        def summarise(sample):
            feats = []
            feats.append(np.mean(sample))
            feats.append(np.std(sample))
            return feats
        def matrix(samples):
            rows = []
            for sample in samples:
                rows.append(summarise(sample))
            return np.array(rows)
        M = matrix(np.split(table["signal"].values, 100))
        scaler = MinMaxScaler().fit(M)
        A, B, ya, yb = train_test_split(scaler.transform(M), np.arange(100))
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 12)]),
    # batches (not entities) grouped after a whole-table statistic: the folds of the batches hold those rows
    "statistic_then_batches_grouped_and_cut": ("""\
        table["signal"] = (table["signal"] - table["signal"].mean()) / table["signal"].std()
        batches = np.array(list(table.groupby("batch").apply(lambda b: b.values)))
        fit_b, valid_b = batches[:80], batches[80:]
        model = Ridge().fit(fit_b, np.zeros(80))
        model.predict(valid_b)
        """, [("fit_before_split", 1)]),
    # univariate scores of all rows choose the columns, then the split
    "columns_ranked_by_mutual_information_of_all_rows": ("""\
        from sklearn.feature_selection import mutual_info_classif
        names = [c for c in X.columns if c != "visit_id"]
        scores = mutual_info_classif(X[names], y)
        ranked = pd.DataFrame({"name": names, "score": scores}).sort_values("score", ascending=False)
        keep = ranked.head(5)["name"].tolist()
        A, B, ya, yb = train_test_split(X[keep], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 3)]),
    # a forest's importances on all rows choose the columns of the model scored on the test part
    "columns_ranked_by_importances_of_a_forest_on_all_rows": ("""\
        from sklearn.ensemble import RandomForestClassifier
        forest = RandomForestClassifier().fit(X, y)
        order = pd.Series(forest.feature_importances_, index=X.columns).sort_values()
        keep = list(order.index[-5:])
        A, B, ya, yb = train_test_split(X[keep], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2)]),
    # tsfresh: imputation and relevance filtering of all rows, then the split
    "tsfresh_impute_and_select_on_all_rows": ("""\
        from tsfresh import extract_features, select_features
        from tsfresh.utilities.dataframe_functions import impute
        feats = extract_features(table, column_id="visit_id")
        impute(feats)
        feats = select_features(feats, y)
        A, B, ya, yb = train_test_split(feats, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 4), ("fit_before_split", 5)]),
    # an undersample drawn from all rows trains the model that is then scored on a split of all rows
    "undersample_of_all_rows_scored_on_the_full_test_part": ("""\
        A, B, ya, yb = train_test_split(X, y, test_size=0.3)
        rare = np.array(table[table.label == 1].index)
        drawn = np.random.choice(table[table.label == 0].index, len(rare), replace=False)
        few = table.iloc[np.concatenate([rare, drawn]), :]
        A2, B2, ya2, yb2 = train_test_split(few.drop(columns=["label"]), few["label"])
        model = LogisticRegression().fit(A2, ya2)
        model.predict(B)
        """, [("trained_on_test", 6)]),
    # a vocabulary fitted on the training and the test texts joined as Python lists
    "vectorizer_fitted_on_two_lists_joined": ("""\
        from sklearn.feature_extraction.text import CountVectorizer
        A, B, ya, yb = train_test_split(table["note"].values, y)
        vec = CountVectorizer().fit(list(A) + list(B))
        LogisticRegression().fit(vec.transform(A), ya).score(vec.transform(B), yb)
        """, [("fit_on_test", 3)]),
    # the Keras Tokenizer's vocabulary learnt from every text, then the split
    "keras_tokenizer_fitted_on_every_text": ("""\
        from tensorflow.keras.preprocessing.text import Tokenizer
        tok = Tokenizer(num_words=5000)
        tok.fit_on_texts(list(table["note"]))
        seqs = tok.texts_to_sequences(list(table["note"]))
        A, B, ya, yb = train_test_split(seqs, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 3)]),
    # competition files marked with a source column, stacked, filled with a median of both
    "marked_files_stacked_then_filled": ("""\
        from sklearn.ensemble import RandomForestClassifier
        fit_rows = pd.read_csv("Train_2020.csv")
        held = pd.read_csv("Test_2020.csv")
        fit_rows["source"] = "train"
        held["source"] = "test"
        both = pd.concat([fit_rows, held], ignore_index=True)
        both["fare"].fillna(both["fare"].median(), inplace=True)
        fit_rows = both.loc[both["source"] == "train"]
        held = both.loc[both["source"] == "test"]
        forest = RandomForestClassifier().fit(fit_rows[["fare"]], fit_rows["label"])
        forest.predict(held[["fare"]])
        """, [("fit_on_test", 7)]),
    # a per-item average over train and test stacked, read back through a lambda
    "pivot_table_average_read_through_a_lambda": ("""\
        from sklearn.ensemble import RandomForestClassifier
        fit_rows = pd.read_csv("train.csv")
        held = pd.read_csv("test.csv")
        both = pd.concat([fit_rows, held], ignore_index=True)
        avg = both.pivot_table(values="weight", index="item_id")
        both["weight"] = both["item_id"].apply(lambda k: avg[k])
        both.to_csv("prepared.csv")
        """, [("fit_on_test", 5)]),
}

HEALTHY = {
    # the scaler fitted on the first part of the series only, windows cut afterwards
    "series_split_by_position_then_scaled": """\
        def windows(frame, width):
            xs = []
            for i in range(len(frame) - width):
                xs.append(frame.iloc[i:i + width].values)
            return np.array(xs)
        n = len(table)
        fit_part, test_part = table[:int(n * 0.8)], table[int(n * 0.8):]
        scaler = MinMaxScaler().fit(fit_part[["load"]])
        x_fit = windows(pd.DataFrame(scaler.transform(fit_part[["load"]])), 24)
        x_test = windows(pd.DataFrame(scaler.transform(test_part[["load"]])), 24)
        """,
    # clusters learnt on the training file, only applied to the test file
    "clusters_learnt_on_training_rows_applied_to_test_rows": """\
        from sklearn.cluster import KMeans
        from sklearn.ensemble import RandomForestClassifier
        fit_rows = pd.read_csv("train.csv")
        held = pd.read_csv("test.csv")
        km = KMeans(n_clusters=3).fit(fit_rows[["a", "b"]])
        fit_rows["grp"] = km.labels_
        held["grp"] = km.predict(held[["a", "b"]])
        forest = RandomForestClassifier().fit(fit_rows[["a", "b", "grp"]], fit_rows["label"])
        forest.predict(held[["a", "b", "grp"]])
        """,
    # a cluster column added for a plot, dropped before the features are chosen
    "cluster_column_dropped_before_modelling": """\
        from sklearn.cluster import KMeans
        shown = table.copy()
        shown["grp"] = KMeans(n_clusters=4).fit_predict(X)
        feats = pd.get_dummies(shown)
        feats.drop(["grp"], axis=1, inplace=True)
        A, B, ya, yb = train_test_split(feats.drop(columns=["label"]), y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # a grid whose step is a statistic of the targets: numbers, not a feature
    "grid_step_from_a_median": """\
        levels = np.sort(table["label"].unique())
        step = np.median(levels[1:] - levels[:-1])
        grid = np.arange(levels[0] - 10 * step, levels[-1] + 10 * step, step)
        A, B, ya, yb = train_test_split(X, y)
        snapped = grid[np.searchsorted(grid, Ridge().fit(A, ya).predict(B))]
        """,
    # one row per image from its own segments, then the images are split: no row crosses
    "per_image_aggregate_then_split_by_image": """\
        per_image = table.groupby("image_id")[["height", "width"]].mean()
        masks = table.groupby("image_id")["mask"].agg(list)
        images = masks.to_frame().join(per_image)
        for fit_idx, held_idx in KFold(5).split(images):
            Ridge().fit(images.iloc[fit_idx][["height"]], images.iloc[fit_idx]["width"])
        """,
    # train and test stacked for shared cleaning, the test rows taken out again before an encoder is fitted
    "test_rows_dropped_from_a_stack_before_fitting": """\
        from sklearn.preprocessing import OrdinalEncoder
        comp = pd.read_csv("train.csv")
        later = pd.read_csv("test.csv")
        both = pd.concat([comp, later])
        both["city"] = both["city"].str.lower()
        later = both.loc[later.index, :]
        both.drop(later.index, inplace=True)
        enc = OrdinalEncoder().fit(both[["city"]])
        model = LogisticRegression().fit(enc.transform(both[["city"]]), both["label"])
        model.predict(enc.transform(later[["city"]]))
        """,
    # the scores computed on the training part only
    "columns_ranked_on_the_training_part": """\
        from sklearn.feature_selection import mutual_info_classif
        A, B, ya, yb = train_test_split(X, y)
        scores = mutual_info_classif(A, ya)
        keep = pd.Series(scores, index=A.columns).sort_values().index[-5:]
        LogisticRegression().fit(A[keep], ya).score(B[keep], yb)
        """,
    # importances only plotted, the model uses every column
    "importances_only_plotted": """\
        from sklearn.ensemble import RandomForestClassifier
        forest = RandomForestClassifier().fit(X, y)
        pd.Series(forest.feature_importances_, index=X.columns).plot.barh()
        A, B, ya, yb = train_test_split(X, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # tsfresh features of each series alone (no imputation across rows), selected on the training part
    "tsfresh_features_selected_on_the_training_part": """\
        from tsfresh import extract_features, select_features
        feats = extract_features(table, column_id="visit_id")
        A, B, ya, yb = train_test_split(feats, y)
        A = select_features(A, ya)
        LogisticRegression().fit(A, ya).score(B[A.columns], yb)
        """,
    # the undersample split into its own parts, trained and scored there only
    "undersample_trained_and_scored_within_itself": """\
        rare = np.array(table[table.label == 1].index)
        drawn = np.random.choice(table[table.label == 0].index, len(rare), replace=False)
        few = table.iloc[np.concatenate([rare, drawn]), :]
        A2, B2, ya2, yb2 = train_test_split(few.drop(columns=["label"]), few["label"])
        LogisticRegression().fit(A2, ya2).score(B2, yb2)
        """,
    # the undersample drawn from the training part only, scored on the untouched test part
    "undersample_of_the_training_part_scored_on_the_test_part": """\
        A, B, ya, yb = train_test_split(table, y, test_size=0.3)
        drawn = np.random.choice(A[A.label == 0].index, 50, replace=False)
        few = A.loc[np.concatenate([np.array(A[A.label == 1].index), drawn])]
        model = LogisticRegression().fit(few.drop(columns=["label"]), few["label"])
        model.predict(B.drop(columns=["label"]))
        """,
    # the Tokenizer fitted on the training texts; validation rows sliced from them are not the test set
    "keras_tokenizer_on_training_texts_then_validation_slice": """\
        from tensorflow.keras.preprocessing.text import Tokenizer
        train_texts = pd.read_csv("reviews_train.csv")["text"]
        test_texts = pd.read_csv("reviews_test.csv")["text"]
        tok = Tokenizer(num_words=5000)
        tok.fit_on_texts(train_texts)
        seqs = np.array(tok.texts_to_sequences(train_texts))
        x_fit, x_val = seqs[:-500], seqs[-500:]
        model = LogisticRegression().fit(x_fit, y[:-500])
        model.score(x_val, y[-500:])
        model.score(np.array(tok.texts_to_sequences(test_texts)), y[:100])
        """,
    # the per-item average of the training file only, read back through a lambda on both files
    "pivot_table_average_of_the_training_file": """\
        from sklearn.ensemble import RandomForestClassifier
        fit_rows = pd.read_csv("train.csv")
        held = pd.read_csv("test.csv")
        avg = fit_rows.pivot_table(values="weight", index="item_id")
        fit_rows["weight"] = fit_rows["item_id"].apply(lambda k: avg[k])
        held["weight"] = held["item_id"].apply(lambda k: avg[k])
        forest = RandomForestClassifier().fit(fit_rows[["weight"]], fit_rows["label"])
        forest.predict(held[["weight"]])
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_the_fifth_wave_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_the_fifth_wave_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []

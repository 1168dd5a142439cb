"""The static leakage analysis on the kinds left after stop 28 (issue 17, leak29old), each in both directions:
word vectors trained on every text, a loop over ``[train, test]`` that fills each table from itself, a
statistic reset across an ``if``, clusters of a stacked array as a feature, and columns chosen by a per-column
count. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # word vectors trained on every document; averaged per document, then split
    "word_vectors_trained_on_every_text": ("""\
        from gensim.models import Word2Vec
        docs = [t.lower().split() for t in table["review"]]
        wv = Word2Vec(docs, vector_size=32, min_count=1)
        feats = np.array([np.mean([wv.wv[w] for w in d], axis=0) for d in docs])
        A, B, ya, yb = train_test_split(feats, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 3)),
    # the same, with the document vectors built in a helper's loops and split beside the table's labels
    "word_vectors_averaged_in_a_helper": ("""\
        from gensim.models import FastText
        ft = FastText(table["words"].values, min_count=2)
        def average(docs):
            out = []
            for doc in docs:
                total = np.zeros(100)
                for w in doc:
                    total += ft.wv.get_vector(w)
                out.append(total)
            return out
        A, B, ya, yb = train_test_split(average(table["words"].values), table["label"].values)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 2)),
    # vocabulary built and trained in two calls on every text
    "vocabulary_built_then_trained_on_every_text": ("""\
        from gensim.models import Word2Vec
        wv = Word2Vec(vector_size=16)
        wv.build_vocab(table["words"])
        wv.train(table["words"], total_examples=len(table), epochs=3)
        feats = [wv.wv[w[0]] for w in table["words"]]
        A, B, ya, yb = train_test_split(feats, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 4)),
    # the Kaggle "combine" loop: each table, the test file included, filled with its own median
    "each_table_filled_with_its_own_median": ("""\
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        for frame in [train, test]:
            frame["fare"] = frame["fare"].fillna(frame["fare"].median())
        m = LogisticRegression().fit(train[["fare"]], train["survived"])
        pd.DataFrame({"p": m.predict(test[["fare"]])}).to_csv("out.csv")
        """, ("fit_on_test", 4)),
    # ... with the guesses kept in a small array cell by cell, rounded with int()
    "guesses_per_group_from_each_table": ("""\
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        pair = [train, test]
        guess = np.zeros(3)
        for frame in pair:
            for k in range(3):
                guess[k] = int(frame[frame["cls"] == k + 1]["age"].dropna().median())
            for k in range(3):
                frame.loc[frame.age.isnull() & (frame.cls == k + 1), "age"] = guess[k]
        m = LogisticRegression().fit(train[["age"]], train["survived"])
        pd.DataFrame({"p": m.predict(test[["age"]])}).to_csv("out.csv")
        """, ("fit_on_test", 7)),
    # a median that an if without else may reset to 0: the median still fills the rows when it is a number
    "median_reset_when_missing_still_fills": ("""\
        fill = table["dose"].median()
        if pd.isna(fill):
            fill = 0
        table["dose"] = table["dose"].fillna(fill)
        A, B, ya, yb = train_test_split(table[["dose"]], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 1)),
    # clusters of every row's coordinates, stacked with np.c_ in a helper, become a feature
    "clusters_of_stacked_coordinates_as_a_feature": ("""\
        from sklearn.cluster import KMeans
        def to_xy(a, b):
            return np.c_[np.cos(a), np.sin(b)]
        km = KMeans(n_clusters=4).fit(to_xy(table["lat"].values, table["lon"].values))
        table["region"] = km.labels_
        A, B, ya, yb = train_test_split(table[["region", "depth"]], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 4)),
    # columns chosen by a per-column count of missing values, filled with their mode over every row
    "mode_of_columns_chosen_by_a_missing_count": ("""\
        gaps = table.isnull().sum()
        small = gaps[(gaps > 0) & (gaps < 10)].sort_values()
        table = table.fillna(table[small.index].mode().iloc[0])
        first, rest = table[:800], table[800:]
        m = Ridge().fit(first.drop(columns=["label"]), first["label"])
        m.predict(rest.drop(columns=["label"]))
        """, ("fit_before_split", 3)),
    # features ranked on the rows with a label, then a second matrix masked by the same condition is split
    "ranking_then_the_same_mask_written_again": ("""\
        from sklearn.feature_selection import mutual_info_regression
        names = [c for c in table.columns if c != "label"]
        F, t = table[names].fillna(0), table["label"].ffill()
        has = ~t.isna()
        F, t = F[has], t[has]
        board = pd.DataFrame({"name": names, "mi": mutual_info_regression(F, t)}).sort_values("mi")
        top = board.tail(4)["name"].tolist()
        G, u = table[top].fillna(0), table["label"].ffill()
        again = ~u.isna()
        G, u = G[again], u[again]
        A, B, ya, yb = train_test_split(G, u, shuffle=False)
        Ridge().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 6)),
    # yearly totals (one row per year) scaled by their own maximum, then split
    "yearly_totals_scaled_then_split": ("""\
        per_year = table.groupby("year")["kwh"].sum().reset_index()
        per_year["kwh"] = per_year["kwh"] / per_year["kwh"].max()
        A, B, ya, yb = train_test_split(per_year[["kwh"]], per_year["kwh"].shift(-1).fillna(0), shuffle=False)
        Ridge().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 2)),
    # a selector asked for three columns, its choice printed and typed into a list of three names, then split
    "selector_choice_typed_by_hand": ("""\
        from sklearn.feature_selection import RFE
        chooser = RFE(LogisticRegression(), n_features_to_select=3).fit(X, y)
        print(chooser.support_)
        picked = ["age", "income", "visits"]
        A, B, ya, yb = train_test_split(table[picked], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 2)),
    "best_k_typed_by_hand": ("""\
        from sklearn.feature_selection import SelectKBest
        SelectKBest(k=2).fit(X, y)
        A, B, ya, yb = train_test_split(table[["age", "income"]], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """, ("fit_before_split", 2)),
    # a depth swept by cross-validation over all rows (the test part among them), then a tree scored on the test
    "depth_swept_by_cv_over_all_rows": ("""\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        means = []
        for d in range(1, 8):
            means.append(cross_val_score(DecisionTreeClassifier(max_depth=d), X, y, cv=5).mean())
        DecisionTreeClassifier(max_depth=int(np.argmax(means)) + 1).fit(A, ya).score(B, yb)
        """, ("trained_on_test", 5)),
    # a helper that rebuilds its input with a comprehension, then refits a scaler on it: the test rows too
    "scaler_refit_on_a_rebuilt_input_in_a_helper": ("""\
        def pool(x):
            x = np.array([v[::2] for v in x])
            return MinMaxScaler().fit_transform(x)
        x_train, x_test, y_train, y_test = train_test_split(X.values, y)
        x_train_pooled = pool(StandardScaler().fit_transform(x_train))
        x_test_pooled = pool(StandardScaler().fit_transform(x_test))
        Ridge().fit(x_train_pooled, y_train).score(x_test_pooled, y_test)
        """, ("fit_on_test", 3)),
    # a depth curve on the test rows, a second curve of the same tree, then a depth typed in from the first
    "depth_typed_in_after_two_sweeps": ("""\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        first = []
        for d in range(1, 6):
            first.append(DecisionTreeClassifier(max_depth=d).fit(A, ya).score(B, yb))
        second = []
        for d in range(1, 6):
            second.append(DecisionTreeClassifier(max_depth=d, criterion="entropy").fit(A, ya).score(B, yb))
        DecisionTreeClassifier(max_depth=3).fit(A, ya).score(B, yb)
        """, ("tuned_on_test", 5)),
}

HEALTHY = {
    # after a k curve on the test rows, a model of one k is scored in a loop of fresh splits: another experiment
    "next_model_scored_over_fresh_splits": """\
        from sklearn.neighbors import KNeighborsClassifier
        A, B, ya, yb = train_test_split(X, y)
        curve = []
        for k in range(1, 15):
            curve.append(KNeighborsClassifier(n_neighbors=k).fit(A, ya).score(B, yb))
        knn = KNeighborsClassifier(n_neighbors=5)
        for share in (0.5, 0.3, 0.2):
            A, B, ya, yb = train_test_split(X, y, test_size=share)
            knn.fit(A, ya)
            print(share, knn.score(B, yb))
        """,
    # two curves, then a depth that none of them tried
    "depth_outside_both_sweeps": """\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        first = []
        for d in range(1, 6):
            first.append(DecisionTreeClassifier(max_depth=d).fit(A, ya).score(B, yb))
        second = []
        for d in range(1, 6):
            second.append(DecisionTreeClassifier(max_depth=d, criterion="entropy").fit(A, ya).score(B, yb))
        DecisionTreeClassifier(max_depth=12).fit(A, ya).score(B, yb)
        """,
    # a fixed list of models cross-validated over all rows, the scores only shown: nothing is chosen by them
    "cv_scores_of_a_model_list_only_shown": """\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        means = []
        for model in [DecisionTreeClassifier(), LogisticRegression()]:
            means.append(cross_val_score(model, X, y, cv=5).mean())
        print(pd.DataFrame({"cv": means}))
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # a list of another length than the selector kept is another choice
    "typed_list_of_another_size": """\
        from sklearn.feature_selection import RFE
        chooser = RFE(LogisticRegression(), n_features_to_select=3).fit(X, y)
        print(chooser.support_)
        A, B, ya, yb = train_test_split(table[["age", "income"]], y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # the selector fitted on the training part only
    "selector_of_the_training_part": """\
        from sklearn.feature_selection import RFE
        A, B, ya, yb = train_test_split(X, y)
        chooser = RFE(LogisticRegression(), n_features_to_select=2).fit(A, ya)
        print(chooser.support_)
        LogisticRegression().fit(A[["age", "income"]], ya).score(B[["age", "income"]], yb)
        """,
    # two masks of different conditions keep different rows: a scaler of the early rows scores the late ones
    "masks_of_different_conditions": """\
        early, late = table[table["year"] < 2015], table[table["year"] >= 2015]
        s = StandardScaler().fit(early[["x"]])
        Ridge().fit(s.transform(early[["x"]]), early["label"]).score(s.transform(late[["x"]]), late["label"])
        """,
    # a mask named "valid" (rows with a value) is not a validation set
    "a_mask_named_valid": """\
        top = table["x"].max()
        table["x"] = table["x"] / top
        valid = table["x"].notna()
        Ridge().fit(table.loc[valid, ["x"]], table.loc[valid, "label"])
        """,
    # years counted from the first year of the calendar: a reference, not a statistic of the rows' values
    "years_since_the_first_year": """\
        table["age"] = table["year"] - table["year"].min()
        A, B, ya, yb = train_test_split(table[["age"]], y, shuffle=False)
        Ridge().fit(A, ya).score(B, yb)
        """,
    # word vectors trained on the training texts only
    "word_vectors_trained_on_the_training_part": """\
        from gensim.models import Word2Vec
        A, B, ya, yb = train_test_split(table["review"], y)
        wv = Word2Vec([t.split() for t in A], vector_size=32)
        def embed(texts):
            return np.array([np.mean([wv.wv[w] for w in t.split()], axis=0) for t in texts])
        LogisticRegression().fit(embed(A), ya).score(embed(B), yb)
        """,
    # vectors loaded from a file learnt nothing from these rows
    "pretrained_vectors": """\
        from gensim.models import KeyedVectors
        kv = KeyedVectors.load_word2vec_format("wiki.bin", binary=True)
        feats = [np.mean([kv[w] for w in d], axis=0) for d in table["words"]]
        A, B, ya, yb = train_test_split(feats, y)
        LogisticRegression().fit(A, ya).score(B, yb)
        """,
    # the loop fills both tables with the training median
    "each_table_filled_with_the_training_median": """\
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        med = train["fare"].median()
        for frame in [train, test]:
            frame["fare"] = frame["fare"].fillna(med)
        m = LogisticRegression().fit(train[["fare"]], train["survived"])
        pd.DataFrame({"p": m.predict(test[["fare"]])}).to_csv("out.csv")
        """,
    # a constant set in each table by a loop learns nothing
    "a_constant_column_per_table": """\
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        for frame in [train, test]:
            frame["alone"] = 0
        m = LogisticRegression().fit(train[["alone"]], train["survived"])
        pd.DataFrame({"p": m.predict(test[["alone"]])}).to_csv("out.csv")
        """,
    # the median reset across an if, computed on the training part
    "median_of_the_training_part_reset_when_missing": """\
        A, B, ya, yb = train_test_split(table[["dose"]], y)
        fill = A["dose"].median()
        if pd.isna(fill):
            fill = 0
        LogisticRegression().fit(A.fillna(fill), ya).score(B.fillna(fill), yb)
        """,
    # clusters fitted on the training coordinates only
    "clusters_of_the_training_part": """\
        from sklearn.cluster import KMeans
        A, B, ya, yb = train_test_split(table[["lat", "lon"]], y)
        km = KMeans(n_clusters=4).fit(np.c_[A["lat"], A["lon"]])
        LogisticRegression().fit(km.predict(np.c_[A["lat"], A["lon"]]).reshape(-1, 1), ya)
        """,
    # columns chosen by a count, filled with the mode of the training slice
    "mode_of_the_training_slice": """\
        first, rest = table[:800], table[800:]
        gaps = first.isnull().sum()
        small = gaps[gaps > 0].index
        modes = first[small].mode().iloc[0]
        first, rest = first.fillna(modes), rest.fillna(modes)
        m = Ridge().fit(first.drop(columns=["label"]), first["label"])
        m.predict(rest.drop(columns=["label"]))
        """,
    # items of one cell per row (a clip's frames), averaged per id: each row summarised from itself
    "per_id_mean_of_each_rows_own_items": """\
        test = pd.read_json("test.json")
        parts = []
        for i in range(len(test)):
            part = pd.DataFrame([v for v in test.frames.iloc[i]])
            part["clip"] = test.clip.iloc[i]
            parts.append(part)
        per_clip = pd.concat(parts).groupby("clip").mean()
        per_clip.to_csv("clips.csv")
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert expected in alarms(tmp_path, body)


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_a_per_group_mean_index_is_not_read_as_columns():
    """``df.groupby(k).mean().index`` holds group keys, ``df.isnull().sum().index`` column names."""
    import ast

    from faultlib.detect.data.leakage.choices import names_columns

    def index(src: str) -> ast.expr:
        return ast.parse(src, mode="eval").body

    assert names_columns(index("c.index"), {"c": [index("df.isnull().sum()")]})
    assert names_columns(index("df.dtypes[df.dtypes == 'object'].index"), {})
    assert not names_columns(index("g.index"), {"g": [index("df.groupby('k')['v'].mean()")]})
    assert not names_columns(index("s.index"), {"s": [index("df.sum(axis=1)")]})

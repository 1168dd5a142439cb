"""The static leakage analysis on the kinds last stop left open (issue 17, stop 33: closing31's "Remaining"), each in
both directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # rows per shop counted over the orders and the held-out orders stacked, merged back as a feature: the count a
    # training row gets depends on how many held-out rows share its key (a frequency encoding of the test rows)
    "group_size_over_train_and_test_stacked": ("""\
        orders = pd.read_csv("orders_train.csv")
        later = pd.read_csv("orders_test.csv")
        both = pd.concat([orders, later])
        per_shop = both.groupby(['shop']).size().rename('shop_n').reset_index()
        both = both.merge(per_shop, on=['shop'], how='left')
        fit_part, held = both[:len(orders)], both[len(orders):]
        m = Ridge().fit(fit_part.drop(columns=['sold']), fit_part['sold'])
        m.predict(held.drop(columns=['sold']))
        """, [("fit_on_test", 4)]),
    # distinct items per shop over both files, inside a helper the script calls
    "group_nunique_in_a_helper_over_train_and_test_stacked": ("""\
        def distinct(frame, keys, col, out):
            g = frame[keys + [col]].groupby(keys)[col].nunique().reset_index().rename(columns={col: out})
            return frame.merge(g, on=keys, how='left')
        orders = pd.read_csv("orders_train.csv")
        later = pd.read_csv("orders_test.csv")
        both = pd.concat([orders, later])
        both = distinct(both, ['shop'], 'item', 'shop_items')
        fit_part, held = both[:len(orders)], both[len(orders):]
        m = Ridge().fit(fit_part.drop(columns=['sold']), fit_part['sold'])
        m.predict(held.drop(columns=['sold']))
        """, [("fit_on_test", 2)]),
    # a helper fits a scaler on whatever it is given; given the test file, the fit is on held-out rows
    "helper_fits_on_the_test_file_it_is_given": ("""\
        def prep(rows):
            return StandardScaler().fit_transform(rows)
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        Z_tr = prep(shop.drop(columns=['sold']))
        Z_test = prep(later)
        Ridge().fit(Z_tr, shop['sold']).predict(Z_test)
        """, [("fit_on_test", 2)]),
    # rows scaled on every row, then an optuna objective splits them and scores the held-out part (the name is
    # rebound afterwards: the objective ran on the scaled rows)
    "scaled_then_optuna_objective_splits": ("""\
        import optuna
        feats = StandardScaler().fit_transform(X)
        def objective(trial):
            a, b, ya, yb = train_test_split(feats, y)
            return Ridge(alpha=trial.suggest_float('alpha', 0.1, 10.0)).fit(a, ya).score(b, yb)
        study = optuna.create_study(direction='maximize')
        study.optimize(objective, n_trials=20)
        feats = X.values
        """, [("fit_before_split", 2)]),
    # candidates cross-validated over all rows (the test part among them), the table of scores sorted by the CV
    # column and its first row kept: the CV chose the model
    "candidates_sorted_by_their_cv_over_all_rows": ("""\
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        rows = []
        for name, clf in {'lr': LogisticRegression(), 'tree': DecisionTreeClassifier()}.items():
            cv = cross_val_score(clf, X, y, cv=5).mean()
            rows.append({'model': name, 'cv': cv})
        board = pd.DataFrame(rows).sort_values('cv', ascending=False)
        print(board.iloc[0])
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("trained_on_test", 5)]),
    # a count per value of a column, mapped back onto every row, before a split
    "value_counts_mapped_before_a_split": ("""\
        table['city_n'] = table['city'].map(table['city'].value_counts())
        a, b, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(a, ya).score(b, yb)
        """, [("fit_before_split", 1)]),
    # the same count through transform
    "group_transform_count_before_a_split": ("""\
        table['city_n'] = table.groupby('city')['age'].transform('count')
        a, b, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(a, ya).score(b, yb)
        """, [("fit_before_split", 1)]),
    # a helper builds a fresh table column by column from rows a scaler fitted on both files shaped; the training
    # part's table trains the model, the held-out part's is scored
    "fresh_table_filled_column_by_column_from_stacked_scaled_rows": ("""\
        orders = pd.read_csv("orders_train.csv")
        later = pd.read_csv("orders_test.csv")
        both = pd.concat([orders, later])
        both['price'] = StandardScaler().fit_transform(both[['price']])
        def derived(rows):
            out = pd.DataFrame()
            out['p2'] = np.tanh(rows['price'] * 2.0)
            out['gap'] = rows['price'] - rows['cost']
            return out
        m = Ridge().fit(derived(both[:len(orders)]), orders['sold'])
        m.predict(derived(both[len(orders):]))
        """, [("fit_on_test", 4)]),
    # the same, the fresh table written to a file for the script that trains
    "fresh_table_of_stacked_scaled_rows_saved": ("""\
        orders = pd.read_csv("orders_train.csv")
        later = pd.read_csv("orders_test.csv")
        both = pd.concat([orders, later])
        both['price'] = StandardScaler().fit_transform(both[['price']])
        feat = pd.DataFrame()
        feat['p2'] = both['price'] ** 2
        feat.to_csv('features.csv')
        """, [("fit_on_test", 4)]),
    # quartile edges of every row shown, typed back as a band by hand, the band itself dropped: the hand-made
    # band has the qcut's edges, learnt from rows the split later holds out
    "qcut_edges_of_all_rows_typed_back_then_split": ("""\
        table['age_q'] = pd.qcut(table['age'], 4)
        print(table[['age_q', 'label']].groupby('age_q').mean())
        table.loc[table['age'] <= 30, 'age_band'] = 0
        table.loc[(table['age'] > 30) & (table['age'] <= 45), 'age_band'] = 1
        table.loc[table['age'] > 45, 'age_band'] = 2
        table = table.drop(['age_q'], axis=1)
        a, b, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(a, ya).score(b, yb)
        """, [("fit_before_split", 1)]),
    # the whole training file scaled, then split: its validation part is Keras' validation_data, scored each epoch
    "keras_validation_data_of_a_training_file_scaled_whole": ("""\
        from keras.models import Sequential
        from keras.layers import Dense
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        feats = StandardScaler().fit_transform(shop.drop(columns=['sold']))
        f_tr, f_val, s_tr, s_val = train_test_split(feats, shop['sold'])
        net = Sequential([Dense(1)])
        net.compile(optimizer='sgd', loss='mse')
        net.fit(f_tr, s_tr, validation_data=(f_val, s_val), epochs=5)
        """, [("fit_before_split", 5)]),
    # overlapping windows of one series (consecutive starts), then a shuffled split: training windows hold the
    # test windows' targets
    "overlapping_windows_then_shuffled_split": ("""\
        series = pd.read_csv("meter.csv")['kwh']
        wins, nxt = [], []
        for i in range(len(series) - 24 - 1):
            wins.append(series[i:i + 24])
            nxt.append(series[i + 24 + 1])
        W, N = np.array(wins), np.array(nxt)
        a, b, ya, yb = train_test_split(W, N, test_size=0.2)
        Ridge().fit(a, ya).score(b, yb)
        """, [("shuffled_time_split", 7)]),
}

HEALTHY = {
    # cells per notebook id: each row's count comes from its own notebook's rows (an entity's size), then the
    # notebooks are split by group
    "count_per_id_then_group_split": ("""\
        table['n_cells'] = table.groupby('id')['cell'].transform('count')
        tr, te = next(GroupShuffleSplit(n_splits=1).split(table, groups=table['id']))
        Ridge().fit(table.iloc[tr][['n_cells']], table.iloc[tr]['label']).score(table.iloc[te][['n_cells']],
                                                                               table.iloc[te]['label'])
        """),
    # the objective of an optuna study splits the table and scores its held-out part; it runs at optimize(), before
    # the table is rescaled on all rows for the final model (no split comes after that refit)
    "optuna_objective_runs_before_the_final_refit": ("""\
        import optuna
        def objective(trial):
            a, b, ya, yb = train_test_split(feats, y)
            return Ridge(alpha=trial.suggest_float('alpha', 0.1, 10.0)).fit(a, ya).score(b, yb)
        feats = X.copy()
        study = optuna.create_study(direction='maximize')
        study.optimize(objective, n_trials=20)
        feats = StandardScaler().fit_transform(X)
        final = Ridge(alpha=study.best_params['alpha']).fit(feats, y)
        """),
    # the "test" features are the training words vectorized again (a copy-paste bug): every row named for training,
    # no held-out row in the fit
    "test_features_named_for_a_refit_on_the_training_words": ("""\
        from sklearn.feature_extraction.text import CountVectorizer
        def bow(words_train, words_test):
            vec = CountVectorizer(max_features=50)
            f_train = vec.fit_transform(words_train)
            f_test = vec.fit_transform(words_train)
            return f_train, f_test
        docs_train = pd.read_csv("docs_train.csv")['text']
        docs_test = pd.read_csv("docs_test.csv")['text']
        f_train, f_test = bow(docs_train, docs_test)
        print(f_train.shape, f_test.shape)
        """),
    # the same windows split in time order
    "overlapping_windows_split_in_time_order": ("""\
        series = pd.read_csv("meter.csv")['kwh']
        wins, nxt = [], []
        for i in range(len(series) - 24 - 1):
            wins.append(series[i:i + 24])
            nxt.append(series[i + 24 + 1])
        W, N = np.array(wins), np.array(nxt)
        a, b, ya, yb = train_test_split(W, N, test_size=0.2, shuffle=False)
        Ridge().fit(a, ya).score(b, yb)
        """),
    # mini-batches (a step as large as the slice) of a table, then a shuffled split: no window overlaps
    "mini_batches_then_shuffled_split": ("""\
        parts = []
        for i in range(0, len(X), 64):
            parts.append(X.values[i:i + 64] * 2.0)
        Z = np.vstack(parts)
        a, b, ya, yb = train_test_split(Z, y)
        Ridge().fit(a, ya).score(b, yb)
        """),
    # the scaler fitted on the training part only; the validation part is only transformed
    "keras_validation_data_scaled_with_the_training_part": ("""\
        from keras.models import Sequential
        from keras.layers import Dense
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        f_tr, f_val, s_tr, s_val = train_test_split(shop.drop(columns=['sold']), shop['sold'])
        sc = StandardScaler().fit(f_tr)
        net = Sequential([Dense(1)])
        net.compile(optimizer='sgd', loss='mse')
        net.fit(sc.transform(f_tr), s_tr, validation_data=(sc.transform(f_val), s_val), epochs=5)
        """),
    # edges of the training part's quartiles typed back on both parts: learnt from training rows only
    "qcut_edges_of_the_training_part_typed_back": ("""\
        tr, te = train_test_split(table)
        tr['age_q'] = pd.qcut(tr['age'], 4)
        print(tr[['age_q', 'label']].groupby('age_q').mean())
        for part in [tr, te]:
            part.loc[part['age'] <= 30, 'age_band'] = 0
            part.loc[part['age'] > 30, 'age_band'] = 1
        tr = tr.drop(['age_q'], axis=1)
        Ridge().fit(tr.drop(columns=['label']), tr['label']).score(te.drop(columns=['label']), te['label'])
        """),
    # a domain's own cut-offs typed without any binning before them: nothing learnt from the rows
    "typed_cut_offs_without_a_binning": ("""\
        table.loc[table['age'] < 18, 'minor'] = 1
        table.loc[table['age'] >= 18, 'minor'] = 0
        a, b, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(a, ya).score(b, yb)
        """),
    # a band looked at and dropped, no edge typed back: nothing of it reaches the model
    "qcut_shown_and_dropped": ("""\
        table['age_q'] = pd.qcut(table['age'], 4)
        print(table[['age_q', 'label']].groupby('age_q').mean())
        table = table.drop(['age_q'], axis=1)
        a, b, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(a, ya).score(b, yb)
        """),
    # the fresh table is filled from the training file scaled on its own rows
    "fresh_table_filled_from_training_rows_scaled_alone": ("""\
        orders = pd.read_csv("orders_train.csv")
        later = pd.read_csv("orders_test.csv")
        sc = StandardScaler().fit(orders[['price']])
        def derived(rows):
            out = pd.DataFrame()
            out['p'] = sc.transform(rows[['price']])[:, 0]
            out['gap'] = rows['price'] - rows['cost']
            return out
        m = Ridge().fit(derived(orders), orders['sold'])
        m.predict(derived(later))
        """),
    # a fresh table of results (a score per candidate) filled column by column: no rows of the data in it
    "fresh_table_of_scores": ("""\
        a, b, ya, yb = train_test_split(X, y)
        results = pd.DataFrame()
        results['alpha'] = [0.1, 1.0]
        results['score'] = [Ridge(alpha=0.1).fit(a, ya).score(b, yb), Ridge(alpha=1.0).fit(a, ya).score(b, yb)]
        print(results)
        """),
    # rows per shop counted on the training file only: the held-out rows get the training counts
    "group_size_of_the_training_rows_only": ("""\
        orders = pd.read_csv("orders_train.csv")
        later = pd.read_csv("orders_test.csv")
        per_shop = orders.groupby(['shop']).size().rename('shop_n').reset_index()
        orders = orders.merge(per_shop, on=['shop'], how='left')
        later = later.merge(per_shop, on=['shop'], how='left')
        m = Ridge().fit(orders.drop(columns=['sold']), orders['sold'])
        m.predict(later.drop(columns=['sold']))
        """),
    # counts printed and plotted: nothing reaches a model
    "value_counts_shown_only": ("""\
        print(table['city'].value_counts())
        table.groupby('city').size().plot(kind='bar')
        a, b, ya, yb = train_test_split(X, y)
        Ridge().fit(a, ya).score(b, yb)
        """),
    # the number of distinct labels sizes an output layer: a count of classes, not of rows per key
    "number_of_distinct_labels_only": ("""\
        n_classes = table['label'].nunique()
        a, b, ya, yb = train_test_split(X, y)
        LogisticRegression(max_iter=n_classes * 100).fit(a, ya).score(b, yb)
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert sorted(set(alarms(tmp_path, body))) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_cv_beside_the_score_that_chooses_is_no_choice(tmp_path):
    """The same CV shown beside a test score that the rows are sorted by: the test score chose (tuned_on_test at its
    line), the CV's mean picked nothing (no trained_on_test)."""
    body = """\
        from sklearn.metrics import f1_score
        from sklearn.tree import DecisionTreeClassifier
        A, B, ya, yb = train_test_split(X, y)
        rows = []
        for name, clf in {'lr': LogisticRegression(), 'tree': DecisionTreeClassifier()}.items():
            clf.fit(A, ya)
            f1 = f1_score(yb, clf.predict(B))
            cv = cross_val_score(clf, X, y, cv=5).mean()
            rows.append({'model': name, 'f1': f1, 'cv': cv})
        board = pd.DataFrame(rows).sort_values('f1', ascending=False)
        print(board.iloc[0])
        """
    assert sorted(set(alarms(tmp_path, body))) == [("tuned_on_test", 7)]


# ---------------------------------------------------------------------- a sibling imported as a module

FOLDS = """\
from sklearn.linear_model import Ridge

def score_fold(frame, cols, k):
    inner = frame[frame['fold_no'] != k]
    outer = frame[frame['fold_no'] == k]
    return Ridge().fit(inner[cols], inner['target']).score(outer[cols], outer['target'])
"""


def _session_warnings(tmp_path, main: str) -> list[tuple[str, str, int]]:
    from faultlib.detect.data.leakage import analyze_file
    from faultlib.findings import Severity

    (tmp_path / "foldtools.py").write_text(FOLDS)
    (tmp_path / "run.py").write_text(main)
    report, smap = analyze_file(str(tmp_path / "run.py"))
    assert smap.files is not None and [f.rsplit("/", 1)[-1] for f, _, _ in smap.files] == ["foldtools.py", "run.py"]
    return [(f.kind, f.location["file"].rsplit("/", 1)[-1], f.location["line"]) for f in report.findings
            if f.severity >= Severity.WARNING]


def test_sibling_imported_as_a_module_joins_and_its_folds_find_the_fit(tmp_path):
    main = """\
import pandas as pd
import foldtools as ft
from sklearn.decomposition import PCA
table = pd.read_csv("rows_with_folds.csv")
table['pc'] = PCA(n_components=1).fit_transform(table[['u', 'v']])[:, 0]
print([ft.score_fold(table, ['u', 'v', 'pc'], k) for k in range(5)])
"""
    assert _session_warnings(tmp_path, main) == [("fit_outside_cv", "run.py", 5)]


def test_sibling_imported_as_a_module_healthy_features_stay_silent(tmp_path):
    main = """\
import pandas as pd
import foldtools
table = pd.read_csv("rows_with_folds.csv")
table['ratio'] = table['u'] / table['v']
print([foldtools.score_fold(table, ['u', 'v', 'ratio'], k) for k in range(5)])
"""
    assert _session_warnings(tmp_path, main) == []


# ---------------------------------------------------------------------- scripts that hand data over in files

PREP_ALL_ROWS = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
visits = pd.read_csv("visits.csv")
visits[['age', 'dose']] = StandardScaler().fit_transform(visits[['age', 'dose']])
visits.to_csv('../work/visits_scaled.csv', index=False)
"""

PREP_RAW = """\
import pandas as pd
visits = pd.read_csv("visits.csv")
visits['dose_per_age'] = visits['dose'] / visits['age']
visits.to_csv('../work/visits_scaled.csv', index=False)
"""

MODEL = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
rows = pd.read_csv('../work/visits_scaled.csv')
a, b, ya, yb = train_test_split(rows[['age', 'dose']], rows['label'])
sc = StandardScaler().fit(a)
Ridge().fit(sc.transform(a), ya).score(sc.transform(b), yb)
"""


def _two_scripts(tmp_path, prep: str) -> list[tuple[str, str, int]]:
    from faultlib.detect.data.leakage import analyze_session
    from faultlib.findings import Severity

    (tmp_path / "prep.py").write_text(prep)
    (tmp_path / "model.py").write_text(MODEL)
    report, _ = analyze_session([str(tmp_path / "prep.py"), str(tmp_path / "model.py")])
    return [(f.kind, f.location["file"].rsplit("/", 1)[-1], f.location["line"]) for f in report.findings
            if f.severity >= Severity.WARNING]


def test_table_scaled_by_one_script_and_split_by_the_next_is_found(tmp_path):
    assert _two_scripts(tmp_path, PREP_ALL_ROWS) == [("fit_before_split", "prep.py", 4)]


def test_table_handed_over_raw_and_scaled_after_the_split_is_silent(tmp_path):
    assert _two_scripts(tmp_path, PREP_RAW) == []

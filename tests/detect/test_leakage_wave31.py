"""The static leakage analysis on the kinds wave 31new of public code showed (issue 17, stop 31), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file, analyze_session
from faultlib.findings import Severity
from tests.detect.test_leakage_kinds import HEADER, alarms

LEAKS = {
    # folds kept in a column and selected by hand: a PCA of every row before them saw each fold's held-out rows
    "pca_of_all_rows_then_folds_from_a_fold_column": ("""\
        table['pc'] = PCA(n_components=1).fit_transform(X)[:, 0]
        for k in range(5):
            inner = table[table['kfold'] != k]
            outer = table[table['kfold'] == k]
            Ridge().fit(inner[['pc']], inner['label']).score(outer[['pc']], outer['label'])
        """, [("fit_outside_cv", 1)]),
    # the same with the fold number a helper's parameter and the column read as an attribute
    "scaled_then_folds_in_a_helper": ("""\
        table[['a', 'b']] = StandardScaler().fit_transform(table[['a', 'b']])
        def one_fold(frame, k):
            inner = frame[frame.cv_fold != k]
            outer = frame[frame.cv_fold == k]
            return Ridge().fit(inner[['a', 'b']], inner['label']).score(outer[['a', 'b']], outer['label'])
        scores = [one_fold(table, k) for k in range(1, 6)]
        """, [("fit_outside_cv", 1)]),
    # blocks of columns collected in a list and stacked side by side: the scaled block of train + test rows
    # reaches the model through the list
    "scaled_block_of_the_stack_appended_to_a_list_then_hstacked": ("""\
        from scipy.sparse import csr_matrix, hstack
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        n = shop.shape[0]
        both = pd.concat((shop, later), axis=0)
        blocks = []
        for c in ['city', 'kind']:
            blocks.append(csr_matrix(pd.get_dummies(both[c])))
        blocks.append(csr_matrix(StandardScaler().fit_transform(both[['spend', 'visits']])))
        wide = hstack(blocks, format='csr')
        Ridge().fit(wide[:n, :], shop['label']).predict(wide[n:, :])
        """, [("fit_on_test", 8), ("fit_on_test", 9)]),  # one-hot columns over the stack too (stop 57, stackdummies.py)
    # a Keras-style model fed by a generator of batches: the rows it trains on are the generator's argument's
    "stack_scaled_then_fed_through_a_batch_generator": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        n = shop.shape[0]
        both = StandardScaler().fit_transform(pd.concat((shop, later), axis=0)[['spend', 'visits']])
        def batches(data, size):
            while True:
                yield data[:size]
        net = build_net()
        net.fit_generator(generator=batches(both[:n], 64), nb_epoch=2)
        net.predict_generator(generator=batches(both[n:], 64))
        """, [("fit_on_test", 4)]),
    # an Estimator-style model reads its rows through an input function; the min-max over every row, written over
    # three lines, is one finding where the statement starts
    "min_max_by_hand_then_rows_read_by_an_input_function": ("""\
        table.loc[:, ['a', 'b']] = (
            table[['a', 'b']] - table[['a', 'b']].min()) / (
                table[['a', 'b']].max() - table[['a', 'b']].min())
        training, testing = train_test_split(table)
        def training_rows():
            return make_dataset({c: training[c] for c in ['a', 'b']}, training['label'])
        def testing_rows():
            return make_dataset({c: testing[c] for c in ['a', 'b']}, testing['label'])
        regressor = build_regressor()
        regressor.train(input_fn=training_rows)
        regressor.evaluate(input_fn=testing_rows)
        """, [("fit_before_split", 1)]),
    # a ratio of medians over the rows that have a value fills the gaps; the rows are then shuffled and cut by
    # position: after a shuffle, the first 20 % are a random held-out part (a split), and the medians saw them
    "median_of_the_known_rows_fills_then_shuffled_and_cut": ("""\
        known = table[~table['beds'].isna()]
        mids = known[['beds', 'rooms']].median().tolist()
        gap = table['beds'].isna()
        table.loc[gap, 'beds'] = table[gap]['rooms'] * (mids[0] / mids[1])
        table = table.sample(frac=1)
        cut = int(len(table) * 0.2)
        held, kept = table[:cut], table[cut:]
        Ridge().fit(kept[['beds', 'rooms']], kept['label']).score(held[['beds', 'rooms']], held['label'])
        """, [("fit_before_split", 2)]),
    # medians of every column kept in a Series, used as cut points by a helper that a worker pool runs on chunks
    # of the rows: a 0/1 feature per column whose cut point saw the rows the split then holds out
    "medians_as_cut_points_in_a_helper_run_by_a_pool": ("""\
        from multiprocessing import Pool
        mids = table.median(axis=0)
        def widen(part):
            part = pd.DataFrame(part)
            for c in ['a', 'b']:
                part[c + '_over_median'] = (part[c].values > mids[c]).astype(int)
            return part
        def in_chunks(frame):
            workers = Pool(4)
            out = workers.map(widen, np.array_split(frame, 4))
            return pd.concat(out, axis=0)
        table = in_chunks(table)
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2)]),
    # a training file scaled whole, split into train/validation, and the validation part is the booster's
    # evaluation set: its printed score (and the early stopping) come from rows that shaped the scaler
    "training_file_scaled_then_validation_rows_as_the_evaluation_set": ("""\
        import xgboost as xgb
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        feats = pd.DataFrame(StandardScaler().fit_transform(shop.drop(columns=['label'])))
        fa, fv, la, lv = train_test_split(feats, shop['label'])
        booster = xgb.train({'eta': 0.1}, xgb.DMatrix(fa, label=la), 500,
                            [(xgb.DMatrix(fa, label=la), 'train'), (xgb.DMatrix(fv, label=lv), 'valid')],
                            early_stopping_rounds=20)
        booster.predict(xgb.DMatrix(later))
        """, [("fit_before_split", 4)]),
    # folds kept in a list and walked with enumerate: still the cross-validation folds
    "statistic_of_all_rows_then_folds_kept_in_a_list": ("""\
        from sklearn.model_selection import StratifiedKFold
        table['above'] = (table['a'] > table['a'].mean()).astype(int)
        Z, t = table[['a', 'above']].values, table['label'].values
        folds = list(StratifiedKFold(n_splits=4).split(Z, t))
        for j, (fit_idx, out_idx) in enumerate(folds):
            Z_holdout = Z[out_idx]
            Ridge().fit(Z[fit_idx], t[fit_idx]).predict(Z_holdout)
        """, [("fit_outside_cv", 2)]),
    # SciPy's Box-Cox estimates its lambda from the values it is given: train and test stacked
    "boxcox_lambda_estimated_on_train_and_test_stacked": ("""\
        from scipy.stats import boxcox
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        n = shop.shape[0]
        both = pd.concat((shop, later)).reset_index(drop=True)
        both['spend'], lam = boxcox(both['spend'] + 1)
        Ridge().fit(both[:n][['spend']], shop['label']).predict(both[n:][['spend']])
        """, [("fit_on_test", 6)]),
    # a bare 'subject' whose groups make features: the rows of one subject repeat, a row-wise split divides them
    "features_per_subject_then_a_row_wise_split": ("""\
        table['subject_mean'] = table.groupby('subject')['a'].transform(lambda s: s.rolling(3).mean())
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        """, [("entity_across_split", 2)]),
    # an id column counted per value for a chart still names an entity
    "rows_per_subject_id_plotted_then_a_row_wise_split": ("""\
        table.groupby(['subject_id'])['a'].count().plot(kind='bar')
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        """, [("entity_across_split", 2)]),
    # pandas' DataFrame.append of the test file (read, not used yet): the stack holds the test rows, and a variance
    # per group of the stack, merged back as a feature, saw them
    "group_variance_over_the_training_file_appended_with_the_test_file": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        n = len(shop)
        def add_var(df, cols, counted, name):
            gp = df[cols + [counted]].groupby(cols)[counted].var().reset_index().rename(columns={counted: name})
            return df.merge(gp, on=cols, how='left')
        both = add_var(shop.append(later), ['store', 'city'], 'hour', 'store_city_var')
        Ridge().fit(both[:n][['store_city_var']], shop['label']).predict(both[n:][['store_city_var']])
        """, [("fit_on_test", 5)]),
}

HEALTHY = {
    # the same variance per group, of the training file alone
    "group_variance_over_the_training_file_alone": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        gp = shop.groupby(['store', 'city'])['hour'].var().reset_index().rename(columns={'hour': 'v'})
        shop, later = shop.merge(gp, on=['store', 'city']), later.merge(gp, on=['store', 'city'])
        Ridge().fit(shop[['v']], shop['label']).predict(later[['v']])
        """),
    # news articles counted per subject (their topic) for a bar chart: a category's size, not an entity
    "articles_counted_per_subject_for_a_chart": ("""\
        table.groupby(['subject'])['text'].count().plot(kind='bar')
        print(table.groupby(['subject'])['text'].count())
        A, B, ya, yb = train_test_split(table['text'], table['label'])
        """),
    # the lambda estimated on the training file, then given to the transform of the test file
    "boxcox_lambda_of_the_training_file_given_to_the_test_file": ("""\
        from scipy.stats import boxcox
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        shop['spend'], lam = boxcox(shop['spend'] + 1)
        later['spend'] = boxcox(later['spend'] + 1, lmbda=lam)
        Ridge().fit(shop[['spend']], shop['label']).predict(later[['spend']])
        """),
    # the cut points of the training part only
    "training_medians_as_cut_points_in_a_helper_run_by_a_pool": ("""\
        from multiprocessing import Pool
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        mids = A.median(axis=0)
        def widen(part):
            part = pd.DataFrame(part)
            for c in ['a', 'b']:
                part[c + '_over_median'] = (part[c].values > mids[c]).astype(int)
            return part
        pool = Pool(4)
        A2 = pd.concat(pool.map(widen, np.array_split(A, 4)))
        B2 = pd.concat(pool.map(widen, np.array_split(B, 4)))
        Ridge().fit(A2, ya).score(B2, yb)
        """),
    # split first; the scaler of the training part; the validation part is the evaluation set
    "training_part_scaled_then_validation_rows_as_the_evaluation_set": ("""\
        import xgboost as xgb
        shop = pd.read_csv("shop_train.csv")
        fa, fv, la, lv = train_test_split(shop.drop(columns=['label']), shop['label'])
        scaler = StandardScaler().fit(fa)
        booster = xgb.train({'eta': 0.1}, xgb.DMatrix(scaler.transform(fa), label=la), 500,
                            [(xgb.DMatrix(scaler.transform(fv), label=lv), 'valid')], early_stopping_rounds=20)
        """),
    # the same medians, the rows cut by position without a shuffle: the first rows of one set are not shown to be
    # a held-out part (a file's own order: issue 17, slices of one set are not a split)
    "median_of_the_known_rows_fills_then_cut_in_file_order": ("""\
        known = table[~table['beds'].isna()]
        mids = known[['beds', 'rooms']].median().tolist()
        gap = table['beds'].isna()
        table.loc[gap, 'beds'] = table[gap]['rooms'] * (mids[0] / mids[1])
        first, rest = table[:1000], table[1000:]
        Ridge().fit(rest[['beds', 'rooms']], rest['label']).score(first[['beds', 'rooms']], first['label'])
        """),
    # the input functions read rows split before the min-max, which is taken from the training rows
    "min_max_of_the_training_rows_read_by_an_input_function": ("""\
        training, testing = train_test_split(table)
        low, high = training[['a', 'b']].min(), training[['a', 'b']].max()
        def training_rows():
            return make_dataset({c: (training[c] - low[c]) / (high[c] - low[c]) for c in ['a', 'b']})
        def testing_rows():
            return make_dataset({c: (testing[c] - low[c]) / (high[c] - low[c]) for c in ['a', 'b']})
        regressor = build_regressor()
        regressor.train(input_fn=training_rows)
        regressor.evaluate(input_fn=testing_rows)
        """),
    # the PCA refitted on each fold's training rows
    "pca_refitted_inside_each_fold_of_a_fold_column": ("""\
        for k in range(5):
            inner = table[table['kfold'] != k]
            outer = table[table['kfold'] == k]
            pca = PCA(n_components=1).fit(inner[['a', 'b']])
            Ridge().fit(pca.transform(inner[['a', 'b']]), inner['label']).score(
                pca.transform(outer[['a', 'b']]), outer['label'])
        """),
    # rows of one year at a time: a group, not a fold (the column is no fold column)
    "per_year_groups_after_scaling_all_rows": ("""\
        table[['a', 'b']] = StandardScaler().fit_transform(table[['a', 'b']])
        for year in range(2001, 2006):
            part = table[table['year'] == year]
            Ridge().fit(part[['a', 'b']], part['label'])
        """),
    # the scaler of the training file alone, its transform of both appended as a block
    "training_scaler_block_appended_then_hstacked": ("""\
        from scipy.sparse import csr_matrix, hstack
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        n = shop.shape[0]
        scaler = StandardScaler().fit(shop[['spend', 'visits']])
        both = pd.concat((shop, later), axis=0)
        blocks = []
        blocks.append(csr_matrix(both[['weekday']]))
        blocks.append(csr_matrix(scaler.transform(both[['spend', 'visits']])))
        wide = hstack(blocks, format='csr')
        Ridge().fit(wide[:n, :], shop['label']).predict(wide[n:, :])
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


# ---------------------------------------------------------------------- sessions: scripts that run as one program

FRAMEWORK = """\
import pandas as pd
from sklearn.linear_model import Ridge

def run_fold(frame, features, k):
    inner = frame[frame['fold_id'] != k]
    outer = frame[frame['fold_id'] == k]
    return Ridge().fit(inner[features], inner['label']).score(outer[features], outer['label'])
"""

EXPERIMENT = """\
import pandas as pd
from sklearn.decomposition import PCA
table = pd.read_csv("visits_with_folds.csv")
table['pc'] = PCA(n_components=1).fit_transform(table[['a', 'b']])[:, 0]
for k in range(1, 6):
    run_fold(table, ['a', 'b', 'pc'], k)
"""

HEALTHY_EXPERIMENT = """\
import pandas as pd
table = pd.read_csv("visits_with_folds.csv")
table['ratio'] = table['a'] / table['b']
for k in range(1, 6):
    run_fold(table, ['a', 'b', 'ratio'], k)
"""


def _warnings(report):
    return [(f.kind, f.location["file"].rsplit("/", 1)[-1], f.location["line"]) for f in report.findings
            if f.severity >= Severity.WARNING]


def test_framework_run_first_is_found_from_the_experiment_alone(tmp_path):
    (tmp_path / "framework.py").write_text(FRAMEWORK)
    (tmp_path / "experiment.py").write_text(EXPERIMENT)
    report, smap = analyze_file(str(tmp_path / "experiment.py"))
    assert _warnings(report) == [("fit_outside_cv", "experiment.py", 4)]
    assert [f.rsplit("/", 1)[-1] for f, _, _ in smap.files] == ["framework.py", "experiment.py"]
    alone, _ = analyze_file(str(tmp_path / "experiment.py"), alone=True)
    assert _warnings(alone) == []


def test_scripts_given_in_order_are_one_program(tmp_path):
    (tmp_path / "a_framework.py").write_text(FRAMEWORK)
    (tmp_path / "b_experiment.py").write_text(EXPERIMENT)
    report, _ = analyze_session([str(tmp_path / "a_framework.py"), str(tmp_path / "b_experiment.py")])
    assert _warnings(report) == [("fit_outside_cv", "b_experiment.py", 4)]


def test_a_sibling_module_imported_by_name_joins(tmp_path):
    (tmp_path / "folds.py").write_text(FRAMEWORK + "\nif __name__ == '__main__':\n    raise SystemExit(run_fold)\n")
    (tmp_path / "experiment.py").write_text("from folds import run_fold\n" + EXPERIMENT)
    report, _ = analyze_file(str(tmp_path / "experiment.py"))
    assert _warnings(report) == [("fit_outside_cv", "experiment.py", 5)]


def test_healthy_experiment_with_its_framework_is_silent(tmp_path):
    (tmp_path / "framework.py").write_text(FRAMEWORK)
    (tmp_path / "experiment.py").write_text(HEALTHY_EXPERIMENT)
    report, smap = analyze_file(str(tmp_path / "experiment.py"))
    assert len(smap.files) == 2 and _warnings(report) == []


def test_two_siblings_defining_the_same_function_are_ambiguous(tmp_path):
    (tmp_path / "framework.py").write_text(FRAMEWORK)
    (tmp_path / "framework_copy.py").write_text(FRAMEWORK)
    (tmp_path / "experiment.py").write_text(EXPERIMENT)
    report, smap = analyze_file(str(tmp_path / "experiment.py"))
    assert smap.files is None and _warnings(report) == []


def test_a_sibling_whose_function_cannot_take_the_call_is_not_joined(tmp_path):
    (tmp_path / "framework.py").write_text(FRAMEWORK.replace("(frame, features, k)", "(frame, k)"))
    (tmp_path / "experiment.py").write_text(EXPERIMENT)
    _, smap = analyze_file(str(tmp_path / "experiment.py"))
    assert smap.files is None


def test_a_script_that_needs_nothing_is_analysed_alone(tmp_path):
    (tmp_path / "framework.py").write_text(FRAMEWORK)
    path = tmp_path / "job.py"
    path.write_text(HEADER + textwrap.dedent(HEALTHY["per_year_groups_after_scaling_all_rows"]))
    _, smap = analyze_file(str(path))
    assert smap.files is None

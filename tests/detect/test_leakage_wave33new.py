"""The static leakage analysis on the kinds wave 33new of public code showed (issue 17, stop 33), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from faultlib.detect.data.leakage.py2print import rewrite_print
from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # Python 2: a print statement that continues over two lines inside the function that scales and scores; the
    # function was skipped whole ("invalid syntax"), so the scaling before the split went unseen
    "python2_print_over_two_lines_in_the_function_that_scales": ("""\
        def run(frame, target):
            Z = (frame - frame.mean()) / frame.std()
            A, B, ya, yb = train_test_split(Z, target)
            print "R2 %.3f on %d rows" % (
                Ridge().fit(A, ya).score(B, yb), len(B))
        run(X, y)
        """, [("fit_before_split", 2)]),
    # Python 2: a print over two lines ending in a comma (no newline), then the search over rows scaled beforehand
    "python2_print_with_trailing_comma_then_search_over_scaled_rows": ("""\
        import sys
        def tune(frame, target):
            print "tuning on", (
                len(frame)),
            Z = frame / frame.max()
            GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}).fit(Z, target)
        tune(X, y)
        """, [("fit_outside_cv", 5)]),
    # polars: a statistic written as an expression is evaluated on the frame it is given to (with_columns)
    "polars_median_fill_of_every_row_then_split": ("""\
        import polars as pl
        cars = pl.read_csv("cars.csv")
        cars = cars.with_columns(pl.col("km").fill_null(pl.col("km").median()).alias("km_f"))
        A, B = train_test_split(cars, test_size=0.2)
        Ridge().fit(A.select(["km_f"]).to_numpy(), A["price"].to_numpy()).score(
            B.select(["km_f"]).to_numpy(), B["price"].to_numpy())
        """, [("fit_before_split", 3)]),
    # polars: the test file filled with its own means (fill_null's "mean" strategy)
    "polars_test_file_filled_with_its_own_means": ("""\
        import polars as pl
        shop = pl.read_csv("shop_train.csv")
        later = pl.read_csv("shop_test.csv")
        later = later.fill_null(strategy="mean")
        m = Ridge().fit(shop.select(["km"]).to_numpy(), shop["price"].to_numpy())
        m.predict(later.select(["km"]).to_numpy())
        """, [("fit_on_test", 4)]),
    # polars: a target mean per maker over every training row, joined back, then cross-validated
    "polars_target_mean_per_group_then_cross_validated": ("""\
        import polars as pl
        shop = pl.read_csv("shop_train.csv")
        enc = shop.group_by("maker").agg(pl.mean("price").alias("maker_price"))
        shop = shop.join(enc, on="maker", how="left")
        cross_val_score(Ridge(), shop.select(["maker_price"]).to_numpy(), shop["price"].to_numpy(), cv=5)
        """, [("fit_outside_cv", 3)]),
    # a helper defined inside a method reads the method's `self` (a closure): its target mean per group is of every
    # training row, which the caller then cross-validates
    "helper_nested_in_a_method_reads_self": ("""\
        class Feats:
            def __init__(self, frame):
                self.frame = frame
            def make(self):
                def encode(cols):
                    for c in cols:
                        self.frame = self.frame.assign(te=self.frame.groupby(c)['label'].transform('mean'))
                encode(['shop', 'city'])
                return self.frame
        wide = Feats(table).make()
        cross_val_score(Ridge(), wide.drop(columns=['label']), wide['label'], cv=5)
        """, [("fit_outside_cv", 7)]),
    # a pair returned by a function and unpacked into the call (f(*pair)): its items are the arguments
    "pair_unpacked_into_the_cross_validation": ("""\
        def parts():
            Z = X / X.max()
            return Z, y
        cross_val_score(Ridge(), *parts(), cv=5)
        """, [("fit_outside_cv", 2)]),
    # polars: a projection fitted on the training and test files stacked, set beside the ids (hstack), joined back
    "polars_projection_of_both_files_beside_the_ids": ("""\
        import polars as pl
        from sklearn.decomposition import TruncatedSVD
        shop = pl.read_csv("shop_train.csv")
        later = pl.read_csv("shop_test.csv")
        both = pl.concat([shop.select(["id", "maker"]), later.select(["id", "maker"])]).to_dummies(["maker"])
        red = TruncatedSVD(n_components=3).fit_transform(both.drop("id").to_numpy())
        red = both.select("id").hstack(pl.DataFrame(red, schema=["s0", "s1", "s2"]))
        shop = shop.join(red, on="id", how="left")
        later = later.join(red, on="id", how="left")
        m = Ridge().fit(shop.select(["s0"]).to_numpy(), shop["price"].to_numpy())
        m.predict(later.select(["s0"]).to_numpy())
        """, [("fit_on_test", 6)]),
}

HEALTHY = {
    # Python 2 prints around a split-first scaling: still silent once the function is read
    "python2_print_over_two_lines_split_first": ("""\
        def run(frame, target):
            A, B, ya, yb = train_test_split(frame, target)
            mu, sd = A.mean(), A.std()
            print "R2 %.3f" % (
                Ridge().fit((A - mu) / sd, ya).score((B - mu) / sd, yb))
        run(X, y)
        """),
    # the statistic is taken only in the branch for the training part; the held-out part's call skips it
    "statistic_only_in_the_branch_for_the_training_part": ("""\
        stats = {}
        def prep(d, part):
            if part == 'train':
                stats['mu'] = d.mean()
            return d - stats['mu']
        A, B, ya, yb = train_test_split(X, y)
        Ridge().fit(prep(A, 'train'), ya).score(prep(B, 'test'), yb)
        """),
    # `!=` the same way: the branch that runs for the held-out part computes nothing
    "statistic_skipped_for_the_held_out_part_with_not_equal": ("""\
        stats = {}
        def prep(d, part):
            if part != 'test':
                stats['sd'] = d.std()
            return d / stats['sd']
        A, B, ya, yb = train_test_split(X, y)
        Ridge().fit(prep(A, 'train'), ya).score(prep(B, 'test'), yb)
        """),
    # polars: the median of the training part fills both parts
    "polars_median_of_the_training_part_fills_both": ("""\
        import polars as pl
        A, B = train_test_split(pl.read_csv("cars.csv"), test_size=0.2)
        med = A["km"].median()
        A = A.with_columns(pl.col("km").fill_null(med))
        B = B.with_columns(pl.col("km").fill_null(med))
        Ridge().fit(A.select(["km"]).to_numpy(), A["price"].to_numpy()).score(
            B.select(["km"]).to_numpy(), B["price"].to_numpy())
        """),
    # polars: a mean across columns of each row (mean_horizontal) and a forward fill are not statistics of the rows
    "polars_row_wise_mean_and_forward_fill_then_split": ("""\
        import polars as pl
        cars = pl.read_csv("cars.csv")
        cars = cars.with_columns(pl.mean_horizontal("km", "age").alias("both"),
                                 pl.col("km").fill_null(strategy="forward"))
        A, B = train_test_split(cars, test_size=0.2)
        Ridge().fit(A.select(["both"]).to_numpy(), A["price"].to_numpy()).score(
            B.select(["both"]).to_numpy(), B["price"].to_numpy())
        """),
    # the nested helper reads `self` too, but the statistic is of the training part only
    "helper_nested_in_a_method_fits_the_training_part": ("""\
        class Feats:
            def __init__(self, part_train, part_test):
                self.part_train, self.part_test = part_train, part_test
            def make(self):
                def scale():
                    mu = self.part_train.mean()
                    return self.part_train - mu, self.part_test - mu
                return scale()
        A, B, ya, yb = train_test_split(X, y)
        A2, B2 = Feats(A, B).make()
        Ridge().fit(A2, ya).score(B2, yb)
        """),
    # a pair unpacked into the search: nothing was fitted before it
    "pair_unpacked_into_the_search_unscaled": ("""\
        def parts():
            return X, y
        GridSearchCV(make_pipeline(StandardScaler(), Ridge()), {"ridge__alpha": [0.1, 1.0]}).fit(*parts())
        """),
    # rows with a value (dropna(subset=...)) train the model that predicts the rows without it (isna mask): two
    # selections of one table, named for training and testing, with no row in both
    "rows_with_a_value_train_rows_without_it_are_predicted": ("""\
        I_test = table[table['city'].isna()]
        y_test = I_test['label']
        I_train = table.dropna(subset=['city'])
        clf = LogisticRegression().fit(I_train.drop(columns=['label', 'city']), I_train['label'])
        print(clf.score(I_test.drop(columns=['label', 'city']), y_test))
        """),
    # columns whose range (min/max over every row) fits in 8 bits are cast to int8 to save memory: the statistic
    # picks a dtype for columns, their values do not change
    "columns_chosen_by_their_range_cast_to_a_smaller_dtype": ("""\
        lo, hi = X.min(), X.max()
        small = lo[(lo > -128) & (hi < 127)].index
        X[small] = X[small].astype(np.int8)
        A, B, ya, yb = train_test_split(X, y)
        Ridge().fit(A, ya).score(B, yb)
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert sorted(set(alarms(tmp_path, body))) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


@pytest.mark.parametrize(("lines", "start", "expected"), [
    (['print "a", b  # note'], 1, ['print("a", b)  # note']),
    (['    print x,'], 1, ['    print(x)']),
    (['print >>f, "x"'], 1, ['print("x")']),
    (['print "a %d" % (', '    n)', 'y = 1'], 1, ['print("a %d" % (', '    n))', 'y = 1']),
    (['print "a" + \\', '    b'], 1, ['print("a" + \\', '    b)']),
])
def test_python2_print_rewritten_keeping_every_line(lines, start, expected):
    assert rewrite_print(lines, start) is True
    assert lines == expected


@pytest.mark.parametrize("line", ["print(x)", "print = 3", "x = 1", "print", "print  # a comment"])
def test_python2_rewrite_leaves_other_lines(line):
    lines = [line]
    assert rewrite_print(lines, 1) is False
    assert lines == [line]


HELPER = """\
import pandas as pd
def encode(frame):
    frame = {body}
    return frame
"""
CALLER = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score
from tools.prep import encode
table = pd.read_csv("visits.csv")
X = encode(table.drop(columns=["label"]))
cross_val_score(Ridge(), X, table["label"], cv=5)
"""


@pytest.mark.parametrize(("body", "expected"), [
    ("(frame - frame.mean()) / frame.std()", [("fit_outside_cv", "prep.py", 3)]),
    ("frame.fillna(0)", []),
])
def test_module_of_a_project_package_joins_the_session(tmp_path, body, expected):
    # `from tools.prep import encode` with tools/prep.py beside the script: the statistic in the package's module
    # is seen, in its own file (and nothing when the helper does not take it)
    from faultlib.detect.data.leakage import analyze_file
    from faultlib.findings import Severity

    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "prep.py").write_text(HELPER.format(body=body))
    (tmp_path / "run.py").write_text(CALLER)
    report, _ = analyze_file(str(tmp_path / "run.py"))
    found = sorted({(f.kind, f.location["file"].rsplit("/", 1)[-1], f.location["line"]) for f in report.findings
                    if f.severity >= Severity.WARNING})
    assert found == expected


def test_model_fitted_on_the_whole_table_still_scores_a_selection_of_it(tmp_path):
    # the guard of the look-alike above: the whole table (not its dropna(subset=...) rows) trains the model that
    # then scores the rows named for testing: trained_on_test, as before
    body = """\
        I_test = table[table['city'].isna()]
        I_train = table.dropna(subset=['city'])
        clf = LogisticRegression().fit(table.drop(columns=['label']), table['label'])
        print(clf.score(I_test.drop(columns=['label']), I_test['label']))
        """
    assert sorted(set(alarms(tmp_path, body))) == [("trained_on_test", 3)]


PY2_CALLER = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score
from prep import encode
table = pd.read_csv("visits.csv")
print "rows:", len(table)
X = encode(table.drop(columns=["label"]))
cross_val_score(Ridge(), X, table["label"], cv=5)
"""


@pytest.mark.parametrize(("body", "expected"), [
    ("(frame - frame.mean()) / frame.std()", [("fit_outside_cv", "prep.py", 3)]),
    ("frame.fillna(0)", []),
])
def test_python2_script_joins_its_helper(tmp_path, body, expected):
    # a Python 2 script (a print statement) importing a sibling helper: its `from prep import encode` is still
    # replaced by the helper's own definition, so the statistic in the helper is seen
    from faultlib.detect.data.leakage import analyze_file
    from faultlib.findings import Severity

    (tmp_path / "prep.py").write_text(HELPER.format(body=body))
    (tmp_path / "run.py").write_text(PY2_CALLER)
    report, _ = analyze_file(str(tmp_path / "run.py"))
    found = sorted({(f.kind, f.location["file"].rsplit("/", 1)[-1], f.location["line"]) for f in report.findings
                    if f.severity >= Severity.WARNING})
    assert found == expected

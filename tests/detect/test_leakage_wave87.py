"""The static leakage analysis on the kinds a held-out wave of Kaggle solutions showed (issue 17, wave 87: car
prices, trading at the close, credit risk, internet-use severity), in both directions:

* rare category levels relabelled in place, ``df.loc[df[c].isin(rare), c] = "other"``, where ``rare`` was chosen by
  counts over train and test stacked, carry the counts' fit (membership.py); a set typed by hand, or levels counted
  on the training part only, stay silent;
* statistics appended to a list (or to a list kept in a dict) and read back later (``rare[-1]``, ``fences["hi"]``)
  keep their fits (statlists.py); a list of scores is still no statistic of the rows;
* a project's own saving helper (``save_data`` of the project's ``data_io.py``, whose writer is picked from a table
  by the file's extension) saves what it is given, as a library's does (savehelpers.py): a statistic of train+test
  written for the training script is reported; a helper that saves a picture, or any other function, is not;
  category codes re-based after ``df[c], _ = df[c].factorize()`` are a relabelling (codes.py), not a statistic;
* thresholds an optimiser (an ``OptimizedRounder``) learnt on a fold's held-out predictions and labels, handed through
  ``coef_``/``coefficients()`` to a scoring helper that cuts the same predictions and scores them on the same
  labels, are trained on the scored rows (learntparams.py); fitted on the training part, or a helper given fixed cuts,
  is silent;
* polars: arithmetic on expressions keeps their statistics (``pl.col('a').median() + pl.col('b').median()`` in a
  per-stock ``group_by().agg``), and folds over the distinct dates taken back with ``is_in`` (or pandas ``isin`` of
  the fold's dates) are the fold's parts (groupfolds.py; ``tqdm`` around the folds passes them on): a per-stock
  statistic of every date is fit outside the cross-validation, not fitted on a held-out table named ``valid``; the
  same statistic computed inside the loop on the fold's training rows is silent;
* columns dropped in a loop under a test on a statistic of every row (null share, number of distinct values; pandas
  and polars, whose ``df.drop(col)`` drops the column) carry that statistic's fit (guardeddrops.py); a test on the
  dtype, or a filter measured on the training part alone, is silent;
* ``mid_val`` (the middle of three prices) names a value, not validation rows (vocab.py);
* hand-cut fold masks that overlap and a test file named through a joined path: merged with the same concepts of
  the stop-53 kinds, tested in ``test_leakage_kinds53.py``.

Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file, vocab
from faultlib.findings import Severity


def alarms(tmp_path, program: str, name: str = "study.py", **others: str) -> list[tuple[str, int]]:
    """(kind, line) of every finding at warning or above in ``program`` (a whole script); ``others``: sibling
    modules of the project, by stem."""
    for stem, text in others.items():
        (tmp_path / f"{stem}.py").write_text(textwrap.dedent(text))
    path = tmp_path / name
    path.write_text(textwrap.dedent(program))
    report, _ = analyze_file(str(path))
    assert report.complete, report.stopped
    return [(f.kind, f.location["line"]) for f in report.findings if f.severity >= Severity.WARNING
            and f.location.get("file", str(path)) == str(path)]


# ---------------------------------------------------------------- rare levels, lists of statistics, saving helpers
#: used cars of a training and a test file, stacked to encode the categories once
CARS = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import cross_val_score
    from sklearn.ensemble import RandomForestRegressor
    lot = pd.read_csv("train.csv")
    ask = pd.read_csv("test.csv")
    price = lot["price"]
    both = pd.concat([lot[["maker", "trim"]], ask[["maker", "trim"]]], axis=0)
"""
CARS_FIT = """\
    forest = RandomForestRegressor().fit(both.iloc[:len(lot)], price)
    pd.Series(forest.predict(both.iloc[len(lot):])).to_csv("submission.csv")
"""

#: the project's writer module: the format picked by the file's extension
DATA_IO = """\
    import os
    import numpy as np

    def write_csv(X, y, path):
        np.savetxt(path, np.column_stack([y, X]), delimiter=",")

    def write_npz(X, y, path):
        np.savez(path, X=X, y=y)

    def save_data(X, y, path):
        writer = {".csv": write_csv, ".npz": write_npz}[os.path.splitext(path)[1]]
        writer(X, y, path)

    def save_chart(X, path):
        import matplotlib.pyplot as plt
        plt.hist(X[:, 0])
        plt.savefig(path)
"""

LEAKS = {
    # levels rare over train and test stacked relabelled in place
    "rare_levels_relabelled_in_place": (CARS + """\
    for c in ["maker", "trim"]:
        seen = both[c].value_counts()
        scarce = seen.loc[seen < 30].index
        both.loc[both[c].isin(scarce), c] = "other"
    """ + CARS_FIT, [("fit_on_test", 10)]),
    # ... the negated membership keeps the common levels; the chosen levels kept in a list, the last one read back
    "rare_levels_kept_in_a_list": (CARS + """\
    scarce = []
    for c in ["maker", "trim"]:
        seen = both[c].value_counts()
        scarce.append(seen[seen < 30].index.values)
        both.loc[~both[c].isin(scarce[-1]), c] = both[c]
        both[c] = np.where(both[c].isin(scarce[-1]), "other", both[c])
    """ + CARS_FIT, [("fit_on_test", 11)]),
    # fences kept in a dict of lists, applied before the split
    "fences_kept_in_a_dict_of_lists": ("""\
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.linear_model import Ridge
    homes = pd.read_csv("homes.csv")
    fences = {"hi": [], "lo": []}
    for c in ["area", "rooms"]:
        fences["hi"].append(homes[c].quantile(0.99))
        homes[c] = homes[c].clip(upper=fences["hi"][-1])
    a, b = train_test_split(homes, test_size=0.2, random_state=1)
    print(Ridge().fit(a[["area", "rooms"]], a["value"]).score(b[["area", "rooms"]], b["value"]))
    """, [("fit_before_split", 7)]),
}

HEALTHY = {
    # a set of levels typed by hand
    "levels_typed_by_hand_relabelled": CARS + """\
    for c in ["maker", "trim"]:
        both.loc[both[c].isin(["kit", "replica"]), c] = "other"
    """ + CARS_FIT,
    # the rare levels counted on the training file only, applied to both
    "rare_levels_counted_on_the_training_file": CARS + """\
    for c in ["maker", "trim"]:
        seen = lot[c].value_counts()
        scarce = seen.loc[seen < 30].index
        both.loc[both[c].isin(scarce), c] = "other"
    """ + CARS_FIT,
    # scores appended to a list and averaged: no statistic of the rows
    "scores_kept_in_a_list": CARS + """\
    results = []
    for depth in [3, 6]:
        results.append(cross_val_score(RandomForestRegressor(max_depth=depth), both.iloc[:len(lot)], price).mean())
    print(np.mean(results))
    """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_87_leaks_found_at_their_line(tmp_path, name):
    program, expected = LEAKS[name]
    assert alarms(tmp_path, program) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_87_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


#: a feature script of the project: a fill by the mean of train and test stacked, saved through data_io.py
def feature_script(save: str) -> str:
    return f"""\
    import pandas as pd
    from data_io import save_data, save_chart
    lot = pd.read_csv("train.csv")
    ask = pd.read_csv("test.csv")
    n_lot = lot.shape[0]
    both = pd.concat([lot, ask], axis=0)
    both["mileage"] = both["mileage"].fillna(both["mileage"].mean())
    {save}
"""


def test_wave_87_statistic_of_train_and_test_saved_through_the_project_helper(tmp_path):
    found = alarms(tmp_path, feature_script("save_data(both.values[:n_lot], lot['price'], 'feat/trn.npz')"),
                   data_io=DATA_IO)
    assert found == [("fit_on_test", 7)]


def test_wave_87_statistic_saved_as_a_chart_is_silent(tmp_path):
    assert alarms(tmp_path, feature_script("save_chart(both.values, 'mileage.png')"), data_io=DATA_IO) == []


def test_wave_87_codes_rebased_after_factorize_are_no_statistic(tmp_path):
    program = """\
    import pandas as pd
    lot = pd.read_csv("train.csv")
    ask = pd.read_csv("test.csv")
    both = pd.concat([lot, ask], axis=0)
    for c in ["maker", "trim"]:
        both[c], _ = both[c].factorize()
        both[c] -= both[c].min()
    both.iloc[:len(lot)].to_csv("trn_codes.csv")
"""
    assert alarms(tmp_path, program) == []


# ---------------------------------------------------------------- thresholds learnt on the scored fold
#: an ordinal target predicted as a number, cut into grades at thresholds fitted by Nelder-Mead
GRADES = """\
    from functools import partial
    import numpy as np
    import pandas as pd
    from scipy.optimize import minimize
    from sklearn.metrics import cohen_kappa_score, mean_squared_error
    from sklearn.model_selection import StratifiedKFold
    from sklearn.ensemble import GradientBoostingRegressor

    class Cutter:
        def __init__(self):
            self.coef_ = [0.5, 1.5, 2.5]

        def _loss(self, cuts, X, y):
            return -cohen_kappa_score(y, np.digitize(X, cuts), weights="quadratic")

        def fit(self, X, y):
            self.coef_ = minimize(partial(self._loss, X=X, y=y), [0.5, 1.5, 2.5], method="nelder-mead").x

        def predict(self, X, cuts=None):
            return np.digitize(X, self.coef_ if cuts is None else cuts)

        def coefficients(self):
            return self.coef_

    def grade(y_pred, cuts):
        return Cutter().predict(y_pred, cuts)

    def judge(y_true, y_pred, cuts=(0.5, 1.5, 2.5)):
        graded = grade(y_pred, cuts)
        return {"rmse": mean_squared_error(y_true, y_pred) ** 0.5,
                "qwk": cohen_kappa_score(y_true.astype(int), graded, weights="quadratic")}

    kids = pd.read_csv("kids.csv")
    X, y = kids.drop(columns=["grade"]), kids["grade"]
    for tr, va in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        X_tr, X_val, y_tr, y_val = X.iloc[tr], X.iloc[va], y.iloc[tr], y.iloc[va]
        reg = GradientBoostingRegressor().fit(X_tr, y_tr)
        pred = reg.predict(X_val)
"""


def test_wave_87_cuts_fitted_on_the_fold_and_scored_through_a_helper(tmp_path):
    found = alarms(tmp_path, GRADES + """\
        cutter = Cutter()
        cutter.fit(pred, y_val)
        print(judge(y_val, pred, cutter.coef_)["qwk"])
    """)
    assert found == [("trained_on_test", 40)]


def test_wave_87_cuts_read_through_a_method_and_passed_by_keyword(tmp_path):
    found = alarms(tmp_path, GRADES + """\
        cutter = Cutter()
        cutter.fit(pred, y_val)
        print(judge(y_val, pred, cuts=cutter.coefficients())["qwk"])
    """)
    assert found == [("trained_on_test", 40)]


def test_wave_87_cuts_fitted_on_the_training_part_are_silent(tmp_path):
    assert alarms(tmp_path, GRADES + """\
        cutter = Cutter()
        cutter.fit(reg.predict(X_tr), y_tr)
        print(judge(y_val, pred, cutter.coef_)["qwk"])
    """) == []


def test_wave_87_fixed_cuts_are_silent(tmp_path):
    assert alarms(tmp_path, GRADES + """\
        cutter = Cutter()
        cutter.fit(pred, y_val)
        print(cutter.coef_, judge(y_val, pred)["qwk"])
    """) == []


# ---------------------------------------------------------------- polars: per-stock statistics, folds over dates
def auction(stats_before: bool, take: str = 'book.filter(pl.col("day").is_in({part}))') -> str:
    """Per-stock statistics over every day (before the loop) or over the fold's training days (inside it); folds
    over the distinct days, each part taken back with ``take``."""
    per_stock = """\
    per_stock = {frame}.group_by("stock").agg(
        (pl.col("bid").median() + pl.col("ask").median()).alias("mid_median"),
        (pl.col("bid").max() - pl.col("bid").min()).alias("bid_range"),
    )
"""
    before = textwrap.indent(textwrap.dedent(per_stock.format(frame="book")), "    ") + \
        '    book = book.join(per_stock, on="stock")\n' if stats_before else ""
    inside = "" if stats_before else textwrap.indent(textwrap.dedent(per_stock.format(frame="train")), "        ") + \
        '        train = train.join(per_stock, on="stock")\n        valid = valid.join(per_stock, on="stock")\n'
    return f"""\
    import polars as pl
    import lightgbm as lgb
    from tqdm import tqdm
    from sklearn.model_selection import KFold
    from sklearn.metrics import mean_absolute_error
    book = pl.read_csv("book.csv")
{before}    days = book["day"].unique().sort()
    for i, (fit_days, held_days) in enumerate(tqdm(KFold(n_splits=4).split(days), total=4)):
        train = {take.format(part="fit_days")}
        valid = {take.format(part="held_days")}
{inside}        model = lgb.LGBMRegressor().fit(train.drop("move").to_pandas(), train["move"].to_pandas())
        print(i, mean_absolute_error(valid["move"].to_pandas(), model.predict(valid.drop("move").to_pandas())))
"""


def test_wave_87_per_stock_statistics_of_every_day_before_date_folds(tmp_path):
    assert alarms(tmp_path, auction(True)) == [("fit_outside_cv", 7)]


def test_wave_87_per_stock_statistics_inside_the_date_folds_are_silent(tmp_path):
    assert alarms(tmp_path, auction(False)) == []


def test_wave_87_pandas_folds_over_days_taken_back_with_isin(tmp_path):
    program = """\
    import pandas as pd
    from sklearn.model_selection import KFold
    from sklearn.linear_model import Ridge
    book = pd.read_csv("book.csv")
    book["bid_z"] = (book["bid"] - book["bid"].mean()) / book["bid"].std()
    days = book["day"].unique()
    for fit_days, held_days in KFold(4).split(days):
        train = book[book["day"].isin(days[fit_days])]
        valid = book[book["day"].isin(days[held_days])]
        model = Ridge().fit(train[["bid_z"]], train["move"])
        print(model.score(valid[["bid_z"]], valid["move"]))
"""
    assert alarms(tmp_path, program) == [("fit_outside_cv", 5)]


# ---------------------------------------------------------------- columns dropped under a test on a statistic
def pruned(frame: str, test: str, drop: str, stat: str, lib: str = "pd", split_first: bool = False) -> str:
    """A helper drops the columns whose ``stat`` passes ``test``; the loans are then cross-validated (or split first
    and the helper measured on the training part)."""
    read = f'loans = {lib}.read_csv("loans.csv")'
    to_frame = ".to_pandas()" if lib == "pl" else ""
    drop_target = 'loans.drop("target")' if lib == "pl" else 'loans.drop(columns=["target"])'
    use = f"""\
    loans = prune(loans)
    print(cross_val_score(RandomForestClassifier(), {drop_target}{to_frame}, loans["target"]{to_frame},
                          cv=StratifiedKFold(5)).mean())
""" if not split_first else """\
    part, rest = train_test_split(loans, test_size=0.25, random_state=3)
    part = prune(part)
    rest = rest[list(part.columns)]
    model = RandomForestClassifier().fit(part.drop(columns=["target"]), part["target"])
    print(model.score(rest.drop(columns=["target"]), rest["target"]))
"""
    return f"""\
    import pandas as pd
    import polars as pl
    from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split
    from sklearn.ensemble import RandomForestClassifier

    def prune({frame}):
        for col in {frame}.columns:
            if col not in ["loan_id", "target"]:
                share = {stat}
                if {test}:
                    {drop}
        return {frame}

    {read}
""" + use


@pytest.mark.parametrize("lib, stat, drop", [
    ("pd", "df[col].isnull().mean()", "df = df.drop(columns=[col])"),
    ("pd", "df[col].nunique()", "del df[col]"),
    ("pl", "df[col].is_null().mean()", "df = df.drop(col)"),
    ("pl", "df[col].n_unique()", "df = df.drop(col)"),
])
def test_wave_87_columns_dropped_by_a_statistic_of_every_row_before_cv(tmp_path, lib, stat, drop):
    test = "share > 0.9" if "null" in stat else "(share > 200) | (share == 1)"
    assert alarms(tmp_path, pruned("df", test, drop, stat, lib)) == [("fit_outside_cv", 9)]


def test_wave_87_columns_dropped_by_their_dtype_are_silent(tmp_path):
    assert alarms(tmp_path, pruned("df", 'share == "object"', "df = df.drop(columns=[col])", "df[col].dtype")) == []


def test_wave_87_columns_dropped_by_the_training_part_statistic_are_silent(tmp_path):
    assert alarms(tmp_path, pruned("df", "share > 0.9", "df = df.drop(columns=[col])", "df[col].isnull().mean()",
                                   split_first=True)) == []


def test_wave_87_value_words_before_val_name_no_validation_rows():
    assert not vocab.looks_like_test("mid_val") and not vocab.looks_like_test("mean_val")
    assert vocab.looks_like_test("X_val") and vocab.looks_like_test("val_df")


# The wave-87 purged fold masks (trained_on_test, maskfolds.py) and test files named through a joined path
# (fit_on_test, passedfiles.py) are tested with the same concepts of leakK in test_leakage_kinds53.py.

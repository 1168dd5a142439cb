"""Row selections of check leakage: polars ``DataFrame.filter`` keeps the rows its predicate holds for
(polarsrows.py), ``pl.concat(how="horizontal")`` joins columns, and the rows selected because their label is
missing are the rows to predict, none of the labelled ones (labelgaps.py). Both directions, polars and pandas; every
example is written for this test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.detect.leakage_source import dedented_alarms, line_of

# fits on every training row, then the models' K-fold; the out-of-fold board stacks the training labels with blank
# rows for the test file and is cut back by the label: the blank side is the test part, no training row
POLARS_BOARD_CUT_BY_ITS_LABEL = """\
    import polars as pl
    from lightgbm import LGBMRegressor
    from sklearn.model_selection import KFold

    train = pl.read_csv("flats_train.csv")
    test = pl.read_csv("flats_test.csv")
    train = train.filter(pl.col("built") >= test["built"].min())
    train = train.with_columns(pl.col("rooms").fill_null(pl.col("rooms").median()).alias("rooms"))
    test = test.with_columns(pl.col("rooms").fill_null(0).alias("rooms"))
    cols = [c for c in train.columns if c != "rent"]
    board = pl.concat([train["rent"].to_frame(), pl.DataFrame([None] * test.height, schema={"rent": pl.Float64})])
    for seed in [3, 7]:
        for a, b in KFold(4, shuffle=True, random_state=seed).split(train):
            model = LGBMRegressor().fit(train[a].select(cols).to_numpy(), train[a]["rent"].to_numpy())
            print(model.score(train[b].select(cols).to_numpy(), train[b]["rent"].to_numpy()))
            guess = pl.DataFrame({f"m{seed}": model.predict(pl.concat([train, test]).select(cols).to_numpy())})
            board = pl.concat([board, guess], how="horizontal")
    train = board.filter(pl.col("rent").is_not_null())
    test = board.filter(pl.col("rent").is_null()).drop("rent")
    print(test.mean(axis=1))
"""

# the same cut written with pandas: a frame of blank labels stacked under the training labels, the mask bound first
PANDAS_STACK_CUT_BY_ITS_LABEL = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold
    from sklearn.preprocessing import StandardScaler

    train = pd.read_csv("flats_train.csv")
    test = pd.read_csv("flats_test.csv")
    train = train[train["built"] >= 1950]
    cols = ["rooms", "area"]
    train[cols] = StandardScaler().fit_transform(train[cols])
    for a, b in KFold(4, shuffle=True, random_state=0).split(train):
        model = Ridge().fit(train.iloc[a][cols], train.iloc[a]["rent"])
        print(model.score(train.iloc[b][cols], train.iloc[b]["rent"]))
    blank = pd.DataFrame({"rent": [np.nan] * len(test)})
    stack = pd.concat([train[["rent"]], blank])
    label = stack["rent"]
    test = stack[label.isnull()]
    print(test.shape)
"""

# one features file holds both sides and is parted by its label: a scaler over it saw the test rows (trainrows.py)
WHOLE_FILE_PARTED_BY_ITS_LABEL = """\
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import StandardScaler

    every = pd.read_csv("features.csv")
    cols = ["rooms", "area"]
    every[cols] = StandardScaler().fit_transform(every[cols])
    train = every[every["rent"].notnull()]
    test = every[every["rent"].isnull()]
    model = Ridge().fit(train[cols], train["rent"])
    pd.DataFrame({"rent": model.predict(test[cols])}).to_csv("sub.csv")
"""

# a polars table cut by year into train and test after a median over every row: the fill saw the test years
POLARS_MEDIAN_BEFORE_A_FILTER_SPLIT = """\
    import polars as pl
    from sklearn.linear_model import Ridge

    flats = pl.read_csv("flats.csv")
    flats = flats.with_columns(pl.col("area").fill_null(pl.col("area").median()).alias("area"))
    train = flats.filter(pl.col("year") < 2020)
    test = flats.filter(pl.col("year") >= 2020)
    model = Ridge().fit(train.select(["area"]).to_numpy(), train["rent"].to_numpy())
    print(model.score(test.select(["area"]).to_numpy(), test["rent"].to_numpy()))
"""

# the same cut with the median taken on the training years only
POLARS_MEDIAN_AFTER_A_FILTER_SPLIT = """\
    import polars as pl
    from sklearn.linear_model import Ridge

    flats = pl.read_csv("flats.csv")
    train = flats.filter(pl.col("year") < 2020)
    test = flats.filter(pl.col("year") >= 2020)
    train = train.with_columns(pl.col("area").fill_null(pl.col("area").median()).alias("area"))
    test = test.with_columns(pl.col("area").fill_null(0).alias("area"))
    model = Ridge().fit(train.select(["area"]).to_numpy(), train["rent"].to_numpy())
    print(model.score(test.select(["area"]).to_numpy(), test["rent"].to_numpy()))
"""

# the predicate bound to a name first, and its negation: the same cut into two parts
POLARS_MEDIAN_BEFORE_A_NAMED_PREDICATE = """\
    import polars as pl
    from sklearn.linear_model import Ridge

    flats = pl.read_csv("flats.csv")
    flats = flats.with_columns(pl.col("area").fill_null(pl.col("area").median()).alias("area"))
    recent = pl.col("year") >= 2020
    train = flats.filter(~recent)
    test = flats.filter(recent)
    model = Ridge().fit(train.select(["area"]).to_numpy(), train["rent"].to_numpy())
    print(model.score(test.select(["area"]).to_numpy(), test["rent"].to_numpy()))
"""

# pandas' filter picks columns by name and keeps every row: the scaler still saw the rows the split holds out
PANDAS_FILTER_PICKS_COLUMNS = """\
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    flats = pd.read_csv("flats.csv")
    X = flats.filter(regex="^f_")
    X = StandardScaler().fit_transform(X)
    X_train, X_test, y_train, y_test = train_test_split(X, flats["rent"], test_size=0.2)
    print(Ridge().fit(X_train, y_train).score(X_test, y_test))
"""

# a statsmodels process's in-sample and future terms (no filter anywhere): the process stays an unknown object, not a
# table whose rows the first line fits and the second one holds out
TREND_TERMS_OF_A_PROCESS = """\
    import pandas as pd
    from sklearn.linear_model import LinearRegression, Ridge
    from statsmodels.tsa.deterministic import DeterministicProcess

    sales = pd.read_csv("sales.csv", index_col="day")
    y = sales["units"]
    proc = DeterministicProcess(index=y.index, order=1)
    X = proc.in_sample()
    X_test = proc.out_of_sample(steps=7)
    line = LinearRegression().fit(X, y)
    fitted = pd.DataFrame(line.predict(X), index=X.index)
    ahead = pd.DataFrame(line.predict(X_test), index=X_test.index)
    trend = fitted.append(ahead)
    X = X.join(trend)
    X_test = X_test.join(trend)
    model = Ridge().fit(X, y)
    pd.DataFrame({"units": model.predict(X_test)}).to_csv("sub.csv")
"""

# a feature missing, not the label: the rows kept are some of the same training rows, still a filter of them
POLARS_FEATURE_GAP_STAYS_A_FILTER = """\
    import polars as pl
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import StandardScaler

    train = pl.read_csv("flats_train.csv")
    cols = ["rooms", "area"]
    scaler = StandardScaler().fit(train.select(cols).to_numpy())
    both = pl.concat([train, train.select(cols)])
    test = both.filter(pl.col("area").is_null())
    model = Ridge().fit(scaler.transform(train.select(cols).to_numpy()), train["rent"].to_numpy())
    print(model.score(scaler.transform(test.select(cols).to_numpy()), test["rent"].to_numpy()))
"""


def test_fits_on_training_rows_before_a_polars_label_cut_are_fits_outside_the_cv(tmp_path: Path) -> None:
    found = dedented_alarms(tmp_path, POLARS_BOARD_CUT_BY_ITS_LABEL)
    assert ("fit_outside_cv", line_of(POLARS_BOARD_CUT_BY_ITS_LABEL, "pl.col(\"rooms\").median()")) in found
    assert not {kind for kind, _ in found} & {"fit_on_test", "fit_before_split"}


@pytest.mark.parametrize(("text", "kind", "needle"), [
    # a pandas stack of training labels and blank rows, cut by the label: the scaler saw the training rows only
    (PANDAS_STACK_CUT_BY_ITS_LABEL, "fit_outside_cv", "StandardScaler().fit_transform"),
    # a features file holding both sides, parted by its label: the scaler saw the test rows (trainrows.py)
    (WHOLE_FILE_PARTED_BY_ITS_LABEL, "fit_on_test", "StandardScaler().fit_transform"),
    # polars filters are row selections: the median before them saw the rows the second one holds out
    (POLARS_MEDIAN_BEFORE_A_FILTER_SPLIT, "fit_before_split", ".median()"),
    (POLARS_MEDIAN_BEFORE_A_NAMED_PREDICATE, "fit_before_split", ".median()"),
    # pandas' filter(regex=...) picks columns: every row is still there for the split
    (PANDAS_FILTER_PICKS_COLUMNS, "fit_before_split", "StandardScaler().fit_transform"),
], ids=["pandas-label-cut", "whole-file-label-cut", "polars-filter-split", "polars-named-predicate",
        "pandas-column-filter"])
def test_the_one_alarm_of_each_row_selection(tmp_path: Path, text: str, kind: str, needle: str) -> None:
    assert dedented_alarms(tmp_path, text) == {(kind, line_of(text, needle))}


def test_a_fill_on_the_polars_training_filter_only_is_silent(tmp_path: Path) -> None:
    assert dedented_alarms(tmp_path, POLARS_MEDIAN_AFTER_A_FILTER_SPLIT) == set()


def test_methods_of_an_unknown_object_other_than_filter_leave_it_unknown(tmp_path: Path) -> None:
    assert dedented_alarms(tmp_path, TREND_TERMS_OF_A_PROCESS) == set()


def test_rows_missing_a_feature_are_not_the_unlabelled_rows(tmp_path: Path) -> None:
    text = POLARS_FEATURE_GAP_STAYS_A_FILTER
    assert dedented_alarms(tmp_path, text) == {("fit_before_split", line_of(text, "StandardScaler().fit")),
                                               ("trained_on_test", line_of(text, "model = Ridge().fit"))}

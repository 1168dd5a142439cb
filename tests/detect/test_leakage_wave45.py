"""The static leakage analysis on the kinds held-out wave 45 of public code showed (price and load forecasting,
volatility competitions driven by config files, marketing and churn courses, biotech, fraud), in both directions.
Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "demo.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# both tables are read through one config object: the file names are not constants, so only the variable names say
# which rows each holds (the test table's are held out); the scaler learns the training table only, then the folds
# cross-validate it. The two reads share the config object, never their rows.
CONFIG_READS_THEN_FOLDS = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import KFold
from sklearn.linear_model import Ridge


def run(settings):
    base = settings.paths.root + "/"
    train = pd.read_parquet(base + settings.paths.train)
    test = pd.read_parquet(base + settings.paths.test)
    X = train.drop(["demand"], axis=1)
    y = train["demand"]
    X_test = test.copy()
    scaler = StandardScaler()
    X[["temp"]] = scaler.fit_transform(X[["temp"]])
    X_test[["temp"]] = scaler.transform(X_test[["temp"]])
    total = 0
    for fit_idx, hold_idx in KFold(4, shuffle=True, random_state=0).split(X):
        model = Ridge().fit(X.iloc[fit_idx], y.iloc[fit_idx])
        print(model.score(X.iloc[hold_idx], y.iloc[hold_idx]))
        total = total + model.predict(X_test) / 4
    return total
"""

# the same reads, no cross-validation: the scaler saw the training table only and the new rows are just transformed
CONFIG_READS_NO_FOLDS = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import Ridge


def run(settings):
    base = settings.paths.root + "/"
    train = pd.read_pickle(base + settings.paths.train)
    test = pd.read_pickle(base + settings.paths.test)
    X = train.drop(["demand"], axis=1)
    X_test = test.copy()
    scaler = StandardScaler()
    X[["temp"]] = scaler.fit_transform(X[["temp"]])
    X_test[["temp"]] = scaler.transform(X_test[["temp"]])
    X_test = X_test.fillna(X.mean())
    model = Ridge().fit(X, train["demand"])
    return model.predict(X_test)
"""


def test_tables_read_through_one_config_object_are_not_the_same_rows(tmp_path: Path) -> None:
    found = _alarms(tmp_path, CONFIG_READS_NO_FOLDS)
    assert not any(kind == "fit_on_test" for kind, _ in found)
    assert found == set()


def test_a_scaler_on_a_config_read_training_table_before_its_folds_is_fit_outside_cv(tmp_path: Path) -> None:
    found = _alarms(tmp_path, CONFIG_READS_THEN_FOLDS)
    assert ("fit_outside_cv", 15) in found
    assert not any(kind == "fit_on_test" for kind, _ in found)


# group means written with a NumPy function: computed over the rows to predict, they are fitted on held-out rows
NUMPY_AGG_ON_TEST = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
per_hour = test.groupby(["hour"]).agg(np.nanmean)
test = test.merge(per_hour[["wind"]].add_suffix("_hour"), left_on="hour", right_index=True)
per_hour_train = train.groupby(["hour"]).agg(np.nanmean)
train = train.merge(per_hour_train[["wind"]].add_suffix("_hour"), left_on="hour", right_index=True)
model = RandomForestRegressor().fit(train[["wind", "wind_hour"]], train["load"])
test["load"] = model.predict(test[["wind", "wind_hour"]])
"""

# the same statistic over blocks of sites inside a helper's loop, appended, stacked and merged back
NUMPY_AGG_BLOCKS_IN_A_HELPER = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor


def block_means(train, test, blocks):
    found = []
    for members in blocks:
        part = test.loc[test["site"].isin(members)]
        part = part.groupby(["hour"]).agg(np.nanmean)
        found.append(part)
    means = pd.concat(found).reset_index()
    return train, test.merge(means, on="hour", how="left", suffixes=("", "_block"))


train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
train, test = block_means(train, test, [[1, 2], [3]])
model = RandomForestRegressor().fit(train.drop("load", axis=1), train["load"])
test["load"] = model.predict(test.drop("load", axis=1, errors="ignore"))
"""



def test_a_numpy_mean_per_group_over_the_test_rows_is_fit_on_test(tmp_path: Path) -> None:
    found = _alarms(tmp_path, NUMPY_AGG_ON_TEST)
    assert ("fit_on_test", 7) in found
    assert not any(line == 9 for _, line in found)  # the training rows' own means reach no held-out row


def test_a_numpy_mean_per_group_in_a_helper_loop_reaches_the_merge(tmp_path: Path) -> None:
    assert ("fit_on_test", 10) in _alarms(tmp_path, NUMPY_AGG_BLOCKS_IN_A_HELPER)


# a NumPy median per group as a transform over every row, then a split whose test part is scored
NUMPY_TRANSFORM_BEFORE_SPLIT = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

leads = pd.read_csv("leads.csv")
leads["visits_vs_region"] = leads["visits"] - leads.groupby("region")["visits"].transform(np.median)
X_tr, X_te, y_tr, y_te = train_test_split(leads[["visits", "visits_vs_region"]], leads["bought"], random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""


# a row-wise NumPy function as the transform (a log of each value): no statistic of other rows
NUMPY_ROWWISE_TRANSFORM = NUMPY_TRANSFORM_BEFORE_SPLIT.replace("transform(np.median)", "transform(np.log1p)")


def test_a_numpy_median_transform_before_a_scored_split_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 7) in _alarms(tmp_path, NUMPY_TRANSFORM_BEFORE_SPLIT)


def test_a_row_wise_numpy_transform_is_not_a_fit(tmp_path: Path) -> None:
    assert _alarms(tmp_path, NUMPY_ROWWISE_TRANSFORM) == set()


# a scaler over a whole price series, a model trained on every lag and rolled 30 steps past the data: nothing is
# held out; the smoothing helper's running value is called ``smoothed_val`` (a value, not validation rows)
SMOOTHED_FORECAST = """\
import numpy as np
import pandas as pd
from sklearn.preprocessing import MinMaxScaler
from sklearn.linear_model import LinearRegression

prices = pd.read_csv("coin.csv")
scaler = MinMaxScaler().fit(prices[["close"]])
scaled = scaler.transform(prices[["close"]])[:, 0]


def smooth(series, weight):
    out = []
    last = series[0]
    for value in series:
        smoothed_val = last * weight + (1 - weight) * value
        out.append(smoothed_val)
        last = smoothed_val
    return out


lags = np.stack([scaled[:-1], scaled[1:]], axis=1)
model = LinearRegression().fit(lags[:, :1], lags[:, 1])
path = [scaled[-1]]
for _ in range(30):
    path.append(model.predict(np.array([[path[-1]]]))[0])
print(smooth(scaler.inverse_transform(np.array(path).reshape(-1, 1))[:, 0], 0.5))
"""

# the same scaler, the last 30 lags held out as validation rows and scored: a leak, whatever the helper names
SCALED_THEN_VALIDATED = SMOOTHED_FORECAST.replace("""model = LinearRegression().fit(lags[:, :1], lags[:, 1])
""", """X_val, y_val = lags[-30:, :1], lags[-30:, 1]
model = LinearRegression().fit(lags[:-30, :1], lags[:-30, 1])
print(model.score(X_val, y_val))
""")


def test_a_smoothing_helpers_running_value_is_not_validation_rows(tmp_path: Path) -> None:
    assert _alarms(tmp_path, SMOOTHED_FORECAST) == set()


def test_a_whole_series_scaler_before_named_validation_rows_is_still_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 7) in _alarms(tmp_path, SCALED_THEN_VALIDATED)


# ---------------------------------------------------------------- a notebook that runs another (%run prep.ipynb)

def _notebook(path: Path, *cells: str) -> Path:
    import json

    doc = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
           "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# loans"}] +
                    [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c}
                     for c in cells]}
    path.write_text(json.dumps(doc))
    return path


def _notebook_alarms(path: Path) -> set[tuple[str, str, int | None, int | None]]:
    from faultlib.detect.data.leakage import analyze_file
    from faultlib.findings import Severity

    report, _ = analyze_file(str(path))
    return {(f.kind, Path(f.location["file"]).name, f.location.get("index"), f.location.get("line"))
            for f in report.findings if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


PREP_SCALES_ALL_ROWS = (
    "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
    "from sklearn.model_selection import train_test_split\nloans = pd.read_csv('loans.csv')",
    "income_z = StandardScaler().fit_transform(loans[['income']])\nloans.insert(0, 'income_z', income_z)",
    "X_tr, X_te, y_tr, y_te = train_test_split(loans.drop('default', axis=1), loans['default'], random_state=7)",
)
PREP_SCALES_TRAINING_PART = (
    "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
    "from sklearn.model_selection import train_test_split\nloans = pd.read_csv('loans.csv')",
    "X_tr, X_te, y_tr, y_te = train_test_split(loans.drop('default', axis=1), loans['default'], random_state=7)",
    "scaler = StandardScaler().fit(X_tr[['income']])\nX_tr['income'] = scaler.transform(X_tr[['income']])\n"
    "X_te['income'] = scaler.transform(X_te[['income']])",
)
MODEL_CELLS = (
    "%run prep.ipynb",
    "from sklearn.linear_model import LogisticRegression\nclf = LogisticRegression().fit(X_tr, y_tr)",
    "print(clf.score(X_te, y_te))",
)


def test_a_scaler_in_a_notebook_run_by_the_scored_one_is_reported_in_its_own_cell(tmp_path: Path) -> None:
    _notebook(tmp_path / "prep.ipynb", *PREP_SCALES_ALL_ROWS)
    model = _notebook(tmp_path / "model.ipynb", *MODEL_CELLS)
    assert ("fit_before_split", "prep.ipynb", 3, 1) in _notebook_alarms(model)


def test_a_run_notebook_that_scales_its_training_part_only_is_clean(tmp_path: Path) -> None:
    _notebook(tmp_path / "prep.ipynb", *PREP_SCALES_TRAINING_PART)
    model = _notebook(tmp_path / "model.ipynb", *MODEL_CELLS)
    assert _notebook_alarms(model) == set()


def test_an_oversampler_before_folds_on_a_run_notebooks_split_is_reported(tmp_path: Path) -> None:
    _notebook(tmp_path / "prep.ipynb", *PREP_SCALES_TRAINING_PART)
    model = _notebook(tmp_path / "model.ipynb", "%run ./prep.ipynb",
                      "from imblearn.over_sampling import RandomOverSampler\n"
                      "from sklearn.model_selection import cross_val_score\n"
                      "from sklearn.linear_model import LogisticRegression\n"
                      "X_up, y_up = RandomOverSampler().fit_resample(X_tr, y_tr)",
                      "print(cross_val_score(LogisticRegression(), X_up, y_up, cv=5).mean())")
    assert ("fit_outside_cv", "model.ipynb", 3, 4) in _notebook_alarms(model)


def test_notebooks_that_run_each_other_are_followed_once(tmp_path: Path) -> None:
    _notebook(tmp_path / "prep.ipynb", "%run model.ipynb", *PREP_SCALES_ALL_ROWS)
    model = _notebook(tmp_path / "model.ipynb", *MODEL_CELLS)
    assert ("fit_before_split", "prep.ipynb", 4, 1) in _notebook_alarms(model)


def test_a_run_notebook_reached_through_a_symlink_or_outside_the_folder_is_not_read(tmp_path: Path) -> None:
    # hostile inputs: the run notebook is read through the readers' one hardened path (inside the folder, no link)
    project = tmp_path / "project"
    (project / "drafts").mkdir(parents=True)
    _notebook(project / "drafts" / "prep.ipynb", *PREP_SCALES_ALL_ROWS)
    (project / "prep.ipynb").symlink_to(project / "drafts" / "prep.ipynb")  # a link, even to a file inside
    linked = _notebook(project / "model.ipynb", *MODEL_CELLS)
    _notebook(tmp_path / "prep.ipynb", *PREP_SCALES_ALL_ROWS)
    escaping = _notebook(project / "escape.ipynb", "%run ../prep.ipynb", *MODEL_CELLS[1:])
    assert _notebook_alarms(linked) == set() and _notebook_alarms(escaping) == set()
    (project / "prep.ipynb").unlink()
    _notebook(project / "prep.ipynb", *PREP_SCALES_ALL_ROWS)  # the file itself: read, the leak found
    assert ("fit_before_split", "prep.ipynb", 3, 1) in _notebook_alarms(linked)


# a column inserted with DataFrame.insert is written in place: the scaled column goes with the table
INSERTED_SCALED_COLUMN = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

cards = pd.read_csv("cards.csv")
amount_z = StandardScaler().fit_transform(cards[["amount"]])
cards.drop(["amount"], axis=1, inplace=True)
cards.insert(0, "amount_z", amount_z)
X_tr, X_te, y_tr, y_te = train_test_split(cards.drop("fraud", axis=1), cards["fraud"], random_state=2)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
# the same insert of a value no fit made (the amount in cents): nothing learnt
INSERTED_PLAIN_COLUMN = INSERTED_SCALED_COLUMN.replace(
    'amount_z = StandardScaler().fit_transform(cards[["amount"]])', 'amount_z = cards["amount"] * 100')


def test_a_scaled_column_inserted_before_a_scored_split_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 7) in _alarms(tmp_path, INSERTED_SCALED_COLUMN)


def test_an_inserted_column_no_fit_made_is_clean(tmp_path: Path) -> None:
    assert _alarms(tmp_path, INSERTED_PLAIN_COLUMN) == set()

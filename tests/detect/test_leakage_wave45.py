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

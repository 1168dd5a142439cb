"""The static leakage analysis on the kinds held-out wave 43 of public code showed (a tabular benchmark, the M5
forecasting winners' code, a QSAR course), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "bench.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# a sweep of C whose test scores are only printed; the test part is subsampled when it is large (a size guard)
STRENGTHS_PRINTED_WITH_A_SIZE_GUARD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

table = pd.read_csv("table.csv")
X, y = table.drop(columns="label").values, table["label"].values
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
for c in [0.01, 0.1, 1.0, 10.0]:
    if X_te.shape[0] > 20000:
        keep = np.random.choice(X_te.shape[0], 20000, replace=False)
        X_te, y_te = X_te[keep], y_te[keep]
    clf = LogisticRegression(C=c).fit(X_tr, y_tr)
    print(c, clf.score(X_te, y_te))
"""

# repeated random hold-out: the seed reaches the model only through a nested transformer's random_state; the
# loop keeps the best seed's score for a report of the spread (a seed sweep tries no candidate model)
SEEDS_THROUGH_A_NESTED_RANDOM_STATE = """\
import numpy as np
import pandas as pd
from sklearn.compose import TransformedTargetRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import QuantileTransformer

table = pd.read_csv("table.csv")
X, y = table.drop(columns="price").values, table["price"].values
best = -np.inf
for seed in range(5):
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=seed)
    reg = TransformedTargetRegressor(regressor=LinearRegression(),
                                     transformer=QuantileTransformer(random_state=np.random.RandomState(seed)))
    reg.fit(X_tr, y_tr)
    r2 = reg.score(X_te, y_te)
    if r2 > best:
        best = r2
print(best)
"""

# the transformer's number of quantiles swept through the same nested call, the best kept by test R2
QUANTILES_THROUGH_A_NESTED_TRANSFORMER = """\
import numpy as np
import pandas as pd
from sklearn.compose import TransformedTargetRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import QuantileTransformer

table = pd.read_csv("table.csv")
X, y = table.drop(columns="price").values, table["price"].values
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
best = -np.inf
for q in [10, 100, 1000]:
    reg = TransformedTargetRegressor(regressor=LinearRegression(),
                                     transformer=QuantileTransformer(n_quantiles=q, random_state=0))
    reg.fit(X_tr, y_tr)
    r2 = reg.score(X_te, y_te)
    if r2 > best:
        best = r2
print(best)
"""


# repeated random hold-out: one split per seed, a large test part subsampled for speed, the scores averaged
SEEDS_AVERAGED_WITH_A_SIZE_GUARD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

table = pd.read_csv("table.csv")
X, y = table.drop(columns="label").values, table["label"].values
accs = []
for seed in range(5):
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=seed)
    if X_te.shape[0] > 20000:
        keep = np.random.choice(X_te.shape[0], 20000, replace=False)
        X_te, y_te = X_te[keep], y_te[keep]
    clf = LogisticRegression().fit(X_tr, y_tr)
    accs.append(clf.score(X_te, y_te))
print(np.mean(accs))
"""

# the same loop over regularisation strengths, keeping the strength with the best test accuracy
STRENGTHS_KEPT_BY_TEST_ACCURACY = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

table = pd.read_csv("table.csv")
X, y = table.drop(columns="label").values, table["label"].values
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
best, best_c = 0.0, None
for c in [0.01, 0.1, 1.0, 10.0]:
    if X_te.shape[0] > 20000:
        X_te, y_te = X_te[:20000], y_te[:20000]
    clf = LogisticRegression(C=c).fit(X_tr, y_tr)
    acc = clf.score(X_te, y_te)
    if acc > best:
        best, best_c = acc, c
print(best_c, best)
"""


def test_a_size_guard_in_a_seed_loop_is_no_choice_by_score(tmp_path: Path) -> None:
    assert _alarms(tmp_path, SEEDS_AVERAGED_WITH_A_SIZE_GUARD) == set()


def test_a_strength_kept_by_test_accuracy_beside_a_size_guard_still_counts(tmp_path: Path) -> None:
    assert ("tuned_on_test", 13) in _alarms(tmp_path, STRENGTHS_KEPT_BY_TEST_ACCURACY)


def test_a_size_guard_beside_printed_scores_is_no_choice(tmp_path: Path) -> None:
    assert _alarms(tmp_path, STRENGTHS_PRINTED_WITH_A_SIZE_GUARD) == set()


def test_a_seed_inside_a_nested_random_state_is_no_candidate(tmp_path: Path) -> None:
    assert _alarms(tmp_path, SEEDS_THROUGH_A_NESTED_RANDOM_STATE) == set()


def test_a_nested_transformer_hyperparameter_kept_by_test_r2_still_counts(tmp_path: Path) -> None:
    assert ("tuned_on_test", 16) in _alarms(tmp_path, QUANTILES_THROUGH_A_NESTED_TRANSFORMER)


# the 28 days to forecast are built by copying the last known day forward with a blank target, stacked under the
# known days; a column is then shifted by its minimum over both (a statistic over train and test rows together)
FORECAST_DAYS = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

TARGET = "units"
LAST = 700
grid = pd.read_csv("shop_days.csv")
ahead = pd.DataFrame()
for i in range(1, 29):
    day = grid[grid["day"] == LAST].copy()
    day["day"] = LAST + i
    day[TARGET] = np.nan
    ahead = pd.concat([ahead, day])
grid = pd.concat([grid, ahead])
{feature}
train = grid[grid["day"] <= LAST]
test = grid[grid["day"] > LAST]
model = Ridge().fit(train[["week", "price"]], train[TARGET])
forecast = model.predict(test[["week", "price"]])
"""

SHIFT_BY_MINIMUM = 'grid["week"] = grid["week"] - grid["week"].min()'
TARGET_MEAN_PER_SHOP = 'grid["week"] = grid.groupby("shop")[TARGET].transform("mean")'


def test_a_minimum_over_known_and_forecast_days_is_a_fit_on_test(tmp_path: Path) -> None:
    assert _alarms(tmp_path, FORECAST_DAYS.format(feature=SHIFT_BY_MINIMUM)) == {("fit_on_test", 15)}


def test_a_target_mean_over_the_stack_skips_the_blank_labels(tmp_path: Path) -> None:
    assert _alarms(tmp_path, FORECAST_DAYS.format(feature=TARGET_MEAN_PER_SHOP)) == set()


def test_a_blanked_feature_column_makes_no_rows_to_predict(tmp_path: Path) -> None:
    text = FORECAST_DAYS.format(feature=SHIFT_BY_MINIMUM).replace('day[TARGET] = np.nan', 'day["promo"] = np.nan')
    assert ("fit_on_test", 15) not in _alarms(tmp_path, text)


# category codes of the id columns re-based to start at 0 (a relabelling), before a split of the days
CODES_REBASED = """\
import pandas as pd
from sklearn.linear_model import Ridge

sales = pd.read_csv("sales.csv", dtype={"store": "category", "item": "category"})
for col in ["store", "item"]:
    sales[col] = sales[col].cat.codes.astype("int16")
    sales[col] -= sales[col].min()
train = sales[sales["day"] <= 700]
test = sales[sales["day"] > 700]
model = Ridge().fit(train[["store", "item", "price"]], train["units"])
print(model.score(test[["store", "item", "price"]], test["units"]))
"""


def test_category_codes_rebased_to_zero_are_no_statistic_of_values(tmp_path: Path) -> None:
    assert _alarms(tmp_path, CODES_REBASED) == set()


def test_a_price_rebased_to_its_minimum_before_the_split_still_counts(tmp_path: Path) -> None:
    text = CODES_REBASED.replace('for col in ["store", "item"]:', 'for col in ["price"]:').replace(
        'sales[col].cat.codes.astype("int16")', 'sales[col].astype("float32")')
    assert ("fit_before_split", 7) in _alarms(tmp_path, text)


def test_a_blanked_prediction_column_makes_no_rows_to_predict(tmp_path: Path) -> None:
    text = FORECAST_DAYS.format(feature=SHIFT_BY_MINIMUM).replace('day[TARGET] = np.nan', 'day["y_pred"] = np.nan')
    assert ("fit_on_test", 15) not in _alarms(tmp_path, text)

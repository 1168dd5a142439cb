"""Recurring false alarms of ``check leakage`` on the whole corpus (issue 17, stop 50), by kind, in both
directions: the healthy code silent, its leaking look-alike still found at its line. Every example is written for
this test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.detect.leakage_source import alarms

# one row of window features per call; the band combines two cells of the row being built ({upper})
WINDOWS = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

signal = pd.read_csv("vibration_train.csv")
later = pd.read_csv("vibration_test.csv")
target = pd.read_csv("vibration_target.csv")["hours_left"]


def describe(window_id, window, table):
    table.loc[window_id, 'level'] = window['amp'].rolling(50).mean().mean()
    table.loc[window_id, 'spread'] = window['amp'].rolling(50).std().mean()
    table.loc[window_id, 'upper'] = ({upper} + 3 * table.loc[window_id, 'spread']).mean()


train_X = pd.DataFrame(index=range(100), dtype=np.float64)
test_X = pd.DataFrame(index=range(100), dtype=np.float64)
for i in range(100):
    describe(i, signal.iloc[i * 50:(i + 1) * 50], train_X)
    describe(i, later.iloc[i * 50:(i + 1) * 50], test_X)
model = Ridge().fit(train_X, target)
print(model.predict(test_X))
"""

# a district code filled before the split ({fill})
HOMES = """\
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

homes = pd.read_csv("homes.csv")
homes['district_code'] = homes['district_code'].fillna({fill})
X = homes.drop(columns=['price'])
X_train, X_test, y_train, y_test = train_test_split(X, homes['price'], random_state=0)
model = RandomForestRegressor().fit(X_train, y_train)
print(model.score(X_test, y_test))
"""


def test_a_mean_of_single_cells_of_the_row_being_built_is_no_statistic(tmp_path: Path) -> None:
    found = alarms(tmp_path, WINDOWS.format(upper="table.loc[window_id, 'level']"))
    assert ("fit_on_test", 13) not in found


def test_a_mean_over_a_whole_column_of_the_test_table_is_still_found(tmp_path: Path) -> None:
    assert ("fit_on_test", 13) in alarms(tmp_path, WINDOWS.format(upper="table['level']"))


def test_a_cell_row_key_that_is_an_assigned_mask_is_many_rows(tmp_path: Path) -> None:
    text = WINDOWS.format(upper="table.loc[busy, 'level']").replace(
        "    table.loc[window_id, 'upper']", "    busy = table['level'] > 1\n    table.loc[window_id, 'upper']")
    assert ("fit_on_test", 14) in alarms(tmp_path, text)


def test_a_missing_value_code_past_the_maximum_is_no_fit(tmp_path: Path) -> None:
    assert alarms(tmp_path, HOMES.format(fill="homes['district_code'].max() + 1")) == set()
    assert alarms(tmp_path, HOMES.format(fill="value=homes['district_code'].min() - 1")) == set()


def test_a_fill_with_the_maximum_itself_or_a_mean_is_still_found(tmp_path: Path) -> None:
    assert alarms(tmp_path, HOMES.format(fill="homes['district_code'].max()")) == {("fit_before_split", 6)}
    assert alarms(tmp_path, HOMES.format(fill="homes['district_code'].mean() + 1")) == {("fit_before_split", 6)}
    assert alarms(tmp_path, HOMES.format(fill="homes['district_code'].min() + 1")) == {("fit_before_split", 6)}

# photo records of adoptable animals, several per animal, averaged per key ({key}) for the training and test files
PHOTOS = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("animals_train.csv")
test = pd.read_csv("animals_test.csv")
photos_train = pd.read_csv("photos_train.csv")
photos_test = pd.read_csv("photos_test.csv")
per_train = photos_train.groupby([{key}])["brightness"].mean().reset_index()
per_test = photos_test.groupby([{key}])["brightness"].mean().reset_index()
train = train.merge(per_train, on={key}, how="left")
test = test.merge(per_test, on={key}, how="left")
model = RandomForestClassifier().fit(train[["brightness", "age"]], train["adopted"])
print(model.predict(test[["brightness", "age"]]))
"""


@pytest.mark.parametrize("key", ["'PetID'", "'household_id'", "'idhogar'"])
def test_an_aggregate_per_pet_or_household_is_that_samples_own(tmp_path: Path, key: str) -> None:
    assert alarms(tmp_path, PHOTOS.format(key=key)) == set()


@pytest.mark.parametrize("key", ["'RescuerID'", "'idshelter'"])
def test_an_aggregate_per_cross_cutting_key_is_still_found(tmp_path: Path, key: str) -> None:
    assert alarms(tmp_path, PHOTOS.format(key=key)) == {("fit_on_test", 9)}

# flat prices binned by quantiles before the split ({binned}; {use}); the parts are saved for a model script
FLATS = """\
import pandas as pd
from sklearn.model_selection import train_test_split

flats = pd.read_csv("flats.csv")
{binned}
X = flats.drop(columns=["price", "target"])
X_train, X_test, y_train, y_test = train_test_split({use})
X_train.to_csv("X_train.csv")
X_test.to_csv("X_test.csv")
pd.DataFrame(y_train).to_csv("y_train.csv")
pd.DataFrame(y_test).to_csv("y_test.csv")
"""


@pytest.mark.parametrize(("binned", "use"), [
    ("price_class = pd.qcut(flats['price'], 5, labels=False)", "X, price_class, test_size=0.2"),
    ("flats['target'] = pd.qcut(flats['target'], 5).cat.codes", "X, flats['target'], test_size=0.2")])
def test_a_binning_of_the_label_that_only_makes_the_label_or_strata_is_no_fit(
        tmp_path: Path, binned: str, use: str) -> None:
    assert alarms(tmp_path, FLATS.format(binned=binned, use=use)) == set()


@pytest.mark.parametrize(("binned", "use"), [
    ("flats['area_band'] = pd.qcut(flats['area'], 5, labels=False)", "X, flats['price'] > 1000"),
    ("price_class = pd.qcut(flats['price'], 5, labels=False)\nflats['pc'] = price_class", "X, price_class")])
def test_a_binning_of_a_feature_or_a_label_kept_as_a_column_is_still_found(
        tmp_path: Path, binned: str, use: str) -> None:
    assert ("fit_before_split", 5) in alarms(tmp_path, FLATS.format(binned=binned, use=use))


def test_a_fill_code_in_a_column_rescaled_next_is_still_found(tmp_path: Path) -> None:
    text = HOMES.format(fill="homes['district_code'].min() - 2").replace(
        "X = homes", "homes['district_code'] = minmax_scale(homes['district_code'])\nX = homes").replace(
        "import pandas as pd\n", "import pandas as pd\nfrom sklearn.preprocessing import minmax_scale\n")
    assert ("fit_before_split", 7) in alarms(tmp_path, text)

"""Recurring false alarms of ``check leakage`` on the whole corpus (issue 17, stop 49), by kind, in both
directions: the healthy code silent, its leaking look-alike still found at its line. Every example is written for
this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# turbine readings scaled by each day's own minimum and maximum, held in two scratch columns deleted with `del`;
# the scaled column is in the exclusion list of every model ({unused})
TURBINES = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import KFold

readings = pd.read_csv("turbine_train.csv")
later = pd.read_csv("turbine_test.csv")


def scaled_within_day(frame, keys, cols):
    for key in keys:
        for col in cols:
            name = col + '_' + key
            low = frame.groupby([key])[col].agg(['min']).reset_index()
            low.index = low[key].values
            low = low['min'].to_dict()
            high = frame.groupby([key])[col].agg(['max']).reset_index()
            high.index = high[key].values
            high = high['max'].to_dict()
            frame['scratch_low'] = frame[key].map(low)
            frame['scratch_high'] = frame[key].map(high)
            frame[name + '_unit'] = (frame[col] - frame['scratch_low']) / (frame['scratch_high'] - frame['scratch_low'])
            del frame['scratch_low'], frame['scratch_high']
    return frame


readings = scaled_within_day(readings, ['day'], ['rpm'])
later = scaled_within_day(later, ['day'], ['rpm'])
unused = {unused}
columns = [c for c in list(readings) if c not in unused]
columns.remove('failed')
for fit_rows, check_rows in KFold(4).split(readings, readings['failed']):
    model = GradientBoostingClassifier()
    model.fit(readings[columns].iloc[fit_rows], readings['failed'].iloc[fit_rows])
    print(model.score(readings[columns].iloc[check_rows], readings['failed'].iloc[check_rows]))
print(model.predict(later[columns])[:5])
"""

# a centred fare only described, then deleted before the split
TRIPS = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

trips = pd.read_csv("trips.csv")
trips['fare_centred'] = trips['fare'] - trips['fare'].mean()
print(trips['fare_centred'].describe())
{deletion}X_train, X_test, y_train, y_test = train_test_split(trips.drop(columns=['late']), trips['late'])
clf = LogisticRegression().fit(X_train, y_train)
print(clf.score(X_test, y_test))
"""

# a per-store share of the basket in a column the exclusion list leaves out ({skip}); the eval set's labels are read
# as one column of the same frame
ORDERS = """\
import pandas as pd
import lightgbm as lgb
from sklearn.model_selection import KFold

orders = pd.read_csv("orders.csv")
store_max = orders.groupby(['store'])['basket'].agg(['max']).reset_index()
store_max.index = store_max['store'].values
store_max = store_max['max'].to_dict()
orders['basket_share'] = orders['basket'] / orders['store'].map(store_max)
skip = {skip}
inputs = [c for c in list(orders) if c not in skip]
for a, b in KFold(5).split(orders, orders['returned']):
    booster = lgb.LGBMClassifier()
    booster.fit(orders[inputs].iloc[a], orders['returned'].iloc[a],
                eval_set=[(orders[inputs].iloc[b], orders['returned'].iloc[b])])
"""

# a per-clinic share of the wait computed on the test visits; the visit counts over both files read one other column
VISITS = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score

seen = pd.read_csv("visits_train.csv")
unseen = pd.read_csv("visits_test.csv")
peak = unseen.groupby(['clinic'])['wait'].agg(['max']).reset_index()
peak.index = peak['clinic'].values
peak = peak['max'].to_dict()
unseen['wait_share'] = unseen['wait'] / unseen['clinic'].map(peak)
{mixing}counts = pd.concat([seen['clinic'], unseen['clinic']]).value_counts()
seen['clinic_visits'] = seen['clinic'].map(counts)
print(cross_val_score(RandomForestClassifier(), seen[['clinic_visits', 'wait']], seen['no_show']))
"""


def test_scratch_columns_deleted_after_building_a_left_out_column_reach_no_model(tmp_path: Path) -> None:
    assert alarms(tmp_path, TURBINES.format(unused="['day', 'rpm_day_unit']")) == set()


def test_scratch_columns_deleted_after_building_a_modelled_column_are_found(tmp_path: Path) -> None:
    assert alarms(tmp_path, TURBINES.format(unused="['day']")) == {("fit_on_test", 13), ("fit_on_test", 16)}


def test_a_statistic_in_a_column_deleted_before_the_split_reaches_no_model(tmp_path: Path) -> None:
    assert alarms(tmp_path, TRIPS.format(deletion="del trips['fare_centred']\n")) == set()


def test_a_statistic_in_a_column_kept_until_the_split_is_found(tmp_path: Path) -> None:
    assert alarms(tmp_path, TRIPS.format(deletion="")) == {("fit_before_split", 6)}


def test_eval_set_labels_read_as_one_column_leave_a_left_out_statistic_behind(tmp_path: Path) -> None:
    assert alarms(tmp_path, ORDERS.format(skip="['basket_share', 'returned']")) == set()


def test_a_statistic_in_a_modelled_column_is_found_beside_the_eval_set(tmp_path: Path) -> None:
    assert alarms(tmp_path, ORDERS.format(skip="['returned']")) == {("fit_outside_cv", 6)}


def test_one_column_of_the_test_file_does_not_carry_a_statistic_of_another(tmp_path: Path) -> None:
    assert alarms(tmp_path, VISITS.format(mixing="")) == {("fit_on_test", 11)}


def test_a_column_rewritten_from_the_statistic_carries_it(tmp_path: Path) -> None:
    mixing = "unseen['clinic'] = unseen['clinic'] * unseen['wait_share']\n"
    assert alarms(tmp_path, VISITS.format(mixing=mixing)) == {("fit_on_test", 7), ("fit_on_test", 12)}


def test_a_column_written_under_a_name_made_at_run_time_keeps_the_statistic(tmp_path: Path) -> None:
    text = VISITS.format(mixing="").replace("unseen['wait_share'] = ", "unseen['wait_' + str(1)] = ").replace(
        "unseen['clinic']]).value_counts()", "unseen['wait_1']]).value_counts()")
    assert alarms(tmp_path, text) == {("fit_on_test", 7), ("fit_on_test", 11)}

"""The static leakage analysis on kinds left from earlier stops (issue 17, stop 53), in both directions:

* a value named ``mid_val``/``mean_val`` (a middle or mean value) is no validation part: statistics of every row
  before a hand-written fold loop stay ``fit_outside_cv``, not ``fit_before_split`` of a part nobody held out;
* a helper that reads the file its callers name with ``os.path.join`` of a folder computed at run time
  (``os.getcwd()``) reads that file: the test file filled with its own mean is ``fit_on_test``; the training file
  filled with its own mean is not.

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "script.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, textwrap.dedent(text), name)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(text).split("\n"), 1) if needle in line)


# ---------------------------------------------------------------- a value named like a validation part

#: per-shop medians over every day, then folds of days cut by hand with masks
VALUE_NAMES = """\
    import numpy as np
    import pandas as pd
    import lightgbm as lgb
    from sklearn.metrics import mean_absolute_error

    def gap_ratio(values):
        out = np.empty(len(values))
        for j in range(len(values)):
            low_val = min(values[j, 0], values[j, 1])
            mid_val = values[j, 0] + values[j, 1] - low_val
            out[j] = mid_val / (low_val + 1.0)
        return out

    sales = pd.read_csv("shop_days.csv")
    sales["gap_ratio"] = gap_ratio(sales[["opening", "closing"]].values)
    shop_median = sales.groupby("shop")["visitors"].median()
    sales["shop_median"] = sales["shop"].map(shop_median)
    inputs = ["gap_ratio", "shop_median", "weekday"]
    days = sales["day"].values
    errors = []
    for k in range(4):
        first, last = k * 90, (k + 1) * 90
        fit_days = (days < first) | (days >= last)
        held_days = (days >= first) & (days < last)
        fold_train = sales[fit_days]
        fold_valid = sales[held_days]
        model = lgb.LGBMRegressor().fit(fold_train[inputs], fold_train["turnover"])
        errors.append(mean_absolute_error(fold_valid["turnover"], model.predict(fold_valid[inputs])))
    print(np.mean(errors))
"""


def test_statistics_before_hand_cut_folds_stay_fit_outside_cv_beside_a_value_named_mid_val(tmp_path: Path) -> None:
    found = _alarms(tmp_path, VALUE_NAMES)
    line = _line(VALUE_NAMES, "shop_median = ")
    assert ("fit_outside_cv", line) in found
    assert not any(kind == "fit_before_split" for kind, _ in found)


def test_a_part_really_named_for_validation_is_still_held_out(tmp_path: Path) -> None:
    text = """\
        import pandas as pd
        from sklearn.linear_model import Ridge
        from sklearn.metrics import mean_absolute_error

        sales = pd.read_csv("shop_days.csv")
        sales["shop_median"] = sales["shop"].map(sales.groupby("shop")["visitors"].median())
        X_train, y_train = sales[sales.day <= 300][["shop_median"]], sales[sales.day <= 300]["turnover"]
        X_val, y_val = sales[sales.day > 300][["shop_median"]], sales[sales.day > 300]["turnover"]
        model = Ridge().fit(X_train, y_train)
        print(mean_absolute_error(y_val, model.predict(X_val)))
    """
    found = _alarms(tmp_path, text)
    assert any(kind == "fit_before_split" for kind, _ in found)


# ---------------------------------------------------------------- a file its callers name, in a computed folder

PASSED_FILE = """\
    import os
    import pandas as pd


    def fill_gaps(source, target):
        table = pd.read_csv(source)
        for column in table.columns:
            if column == "id":
                continue
            table[column] = table[column].fillna(table[column].mean())
        table.to_csv(target, index=False)


    if __name__ == "__main__":
        here = os.getcwd()
        if os.path.basename(here) == "scripts":
            root = os.path.dirname(here)
        else:
            root = here
        fill_gaps(os.path.join(root, "data", "{name}.csv"), os.path.join(root, "data", "{name}_filled.csv"))
"""


def test_the_test_file_named_by_the_caller_in_a_computed_folder_filled_with_its_own_mean_is_fit_on_test(
        tmp_path: Path) -> None:
    text = PASSED_FILE.format(name="test")
    assert ("fit_on_test", _line(text, "fillna(")) in _alarms(tmp_path, text)


def test_the_training_file_named_the_same_way_filled_with_its_own_mean_is_no_test_fit(tmp_path: Path) -> None:
    text = PASSED_FILE.format(name="train") + '    print(pd.read_csv(os.path.join("data", "test.csv")).shape)\n'
    assert not any(kind == "fit_on_test" for kind, _ in _alarms(tmp_path, text))

"""The static leakage analysis on the regressions and known false alarms of stop 55 (issue 17), in both directions:

* early stopping on a fold whose score is the reported one stays found when a metric function's own parameter
  shares its name with another function's prediction of the test rows (``predictions``): a name inside a function
  is that function's (stopscores.py through linescopes.py), not the module's;
* ... and when the script also computes the pairwise distances of a table's columns or the spread of one array
  (``np.sum((a[:, None] - a[None, :]) ** 2)``): a difference of one array with itself is no error score of another
  held-out part (stopscores.py); an error of predictions against a test part's labels still is;
* a statistic per customer (an entity whose rows go on week after week) over every week, saved by a feature script
  and merged by a model script that holds out the last week, is a fit before that split (samples.py: no sample the
  split keeps whole; design.py keeps it as a quiet fit of the rows written, handed on to the reader); in one script
  too; a statistic per session (an episode within one week), or customers held out whole, stay silent;
* a pre-training fit stopped on ``X_val`` whose name a later fold loop binds to its own fold: the fold's score reads
  other rows, so the pre-training stop is silent and the fold's own stop found (stopscores.py); the same rows scored
  again (``X_val = X_val.fillna(0)``) are found;
* a target mean written only into the prediction slots no fold filled (``preds[~done] = np.mean(y)``) under a
  leave-one-group-out loop, whose folds cover every row, fills nothing (uncoveredslots.py); under a shuffle split that
  leaves rows out it is a statistic of every label scored.

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.leakage_source import dedented_alarms as _alarms
from tests.detect.leakage_source import line_of as _line
from tests.detect.test_leakage_handed_on import write as _write

# ---------------------------------------------------------------- a metric's parameter named as a test prediction

_METRIC_PARAMETER = """\
    import lightgbm as lgb
    import numpy as np
    import pandas as pd
    from sklearn.metrics import f1_score
    from sklearn.model_selection import StratifiedKFold

    homes = pd.read_csv("homes.csv")
    unseen = pd.read_csv("unseen.csv")


    def submit(model, test):
        predictions = model.predict(test)
        pd.DataFrame({"label": predictions}).to_csv("submission.csv", index=False)


    def macro_f1(labels, predictions):
        predictions = predictions.reshape(3, -1).argmax(axis=0)
        return "macro_f1", f1_score(labels, predictions, average="macro"), True


    X, y = homes.drop(columns="label").values, homes.label.values
    scores = []
    model = lgb.LGBMClassifier(n_estimators=5000)
    for tr, va in StratifiedKFold(5, shuffle=True).split(X, y):
        model.fit(X[tr], y[tr], early_stopping_rounds=100, eval_metric=macro_f1,
                  eval_set=[(X[tr], y[tr]), (X[va], y[va])], eval_names=["train", "valid"])
        scores.append(model.best_score_["valid"]["macro_f1"])
    print(np.mean(scores))
    submit(model, unseen.values)
"""


def test_fold_stopping_beside_a_metric_whose_parameter_shares_a_test_predictions_name_is_found(
        tmp_path: Path) -> None:
    assert ("tuned_on_test", _line(_METRIC_PARAMETER, "model.fit(")) in _alarms(tmp_path, _METRIC_PARAMETER)


def test_fold_stopping_then_a_test_part_scored_in_a_function_is_silent(tmp_path: Path) -> None:
    text = _METRIC_PARAMETER.replace("""\
    unseen = pd.read_csv("unseen.csv")
""", """\
    homes, holdout = homes.iloc[:800], homes.iloc[800:]
""").replace("""\
        predictions = model.predict(test)
        pd.DataFrame({"label": predictions}).to_csv("submission.csv", index=False)
""", """\
        predictions = model.predict(test.drop(columns="label").values)
        print(f1_score(test.label.values, predictions, average="macro"))
""").replace("submit(model, unseen.values)", "submit(model, holdout)")
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}


# ---------------------------------------------------------------- one array's differences with itself

_ONE_ARRAY = """\
    import numpy as np
    import pandas as pd
    from sklearn.metrics import log_loss
    from sklearn.model_selection import StratifiedKFold
    from xgboost import XGBClassifier

    visits = pd.read_csv("visits.csv")
    extra_test = pd.read_csv("extra_test.csv")
    table = pd.concat([visits, extra_test])
    columns = table.drop(columns="label").values.T
    SUMMARY
    X, y = table.drop(columns="label").values, table.label.values
    losses = []
    for tr, va in StratifiedKFold(5, shuffle=True).split(X, y):
        clf = XGBClassifier(n_estimators=2000)
        clf.fit(X[tr], y[tr], eval_set=[(X[va], y[va])], early_stopping_rounds=50, verbose=False)
        losses.append(log_loss(y[va], clf.predict_proba(X[va])))
    print(np.mean(losses))
"""


@pytest.mark.parametrize("summary", [
    "print(np.sqrt(np.sum((columns[:, np.newaxis, :] - columns[np.newaxis, :, :]) ** 2, axis=-1)).max())",
    "print(np.mean((columns - columns.mean()) ** 2))",
    "print(np.abs(columns - np.median(columns)).mean())",
])
def test_fold_stopping_beside_one_arrays_distances_or_spread_is_found(tmp_path: Path, summary: str) -> None:
    text = _ONE_ARRAY.replace("SUMMARY", summary)
    assert ("tuned_on_test", _line(text, "clf.fit(")) in _alarms(tmp_path, text)


@pytest.mark.parametrize("error", [
    "np.mean((clf.predict(extra_test.drop(columns='label').values) - extra_test.label.values) ** 2)",
    "np.abs(extra_test['guess'] - extra_test['label']).mean()",
])
def test_fold_stopping_then_an_error_on_the_test_part_written_by_hand_is_silent(tmp_path: Path, error: str) -> None:
    text = _ONE_ARRAY.replace("SUMMARY", "") + f"    print({error})\n"
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}


# ---------------------------------------------------------------- a customer's rows of every week, the last held out

_PER_UNIT = """\
    import pandas as pd

    orders = pd.read_csv('/srv/shop/raw/orders.csv')
    per_unit = orders.groupby('KEY', as_index=False).agg(mean_spend=('price', 'mean'), n_lines=('price', 'size'))
    per_unit.to_parquet('/srv/shop/raw/unit_features.parquet')
"""

_WEEK_MODEL = """\
    import pandas as pd
    from sklearn.ensemble import GradientBoostingClassifier

    orders = pd.read_csv('/srv/shop/raw/orders.csv')
    extra = pd.read_parquet('/srv/shop/raw/unit_features.parquet')
    rows = orders.merge(extra, on='KEY', how='left')
    last = rows.week.max()
    SPLIT
    model = GradientBoostingClassifier().fit(fit_rows[['mean_spend', 'price']], fit_rows['returned'])
    print(model.score(valid_rows[['mean_spend', 'price']], valid_rows['returned']))
"""

_BY_WEEK = "fit_rows = rows[rows.week != last]\n    valid_rows = rows[rows.week == last]"
_BY_UNIT = "held = rows.KEY.drop_duplicates().sample(frac=0.2, random_state=0)\n    " \
           "fit_rows = rows[~rows.KEY.isin(held)]\n    valid_rows = rows[rows.KEY.isin(held)]"


def _project(tmp_path: Path, key: str, split: str) -> Path:
    writer = _write(tmp_path, "unit_features.py", _PER_UNIT.replace("KEY", key))
    _write(tmp_path, "model.py", _WEEK_MODEL.replace("SPLIT", split).replace("KEY", key))
    return writer


def _written_alarms(path: Path) -> list[tuple[str, int]]:
    report, _ = analyze_file(str(path))
    return sorted((f.kind, f.location["line"]) for f in report.findings
                  if f.severity >= Severity.WARNING and f.location.get("file") == str(path))


def _line_in(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_a_per_customer_statistic_of_every_week_handed_to_a_script_holding_out_the_last_week_is_found(
        tmp_path: Path) -> None:
    writer = _project(tmp_path, "customer_id", _BY_WEEK)
    assert _written_alarms(writer) == [("fit_before_split", _line_in(writer, "groupby('customer_id'"))]


@pytest.mark.parametrize(("key", "split"), [("session_id", _BY_WEEK), ("customer_id", _BY_UNIT)])
def test_a_per_session_statistic_or_customers_held_out_whole_are_silent(tmp_path: Path, key: str, split: str) -> None:
    assert _written_alarms(_project(tmp_path, key, split)) == []


_ONE_SCRIPT = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    events = pd.read_csv('events.csv')
    events['days_active'] = events.groupby('KEY')['day'].transform('nunique')
    events['mean_basket'] = events.groupby('KEY')['basket'].transform('mean')
    last = events.week.max()
    fit_rows = events[events.week != last]
    valid_rows = events[events.week == last]
    clf = LogisticRegression().fit(fit_rows[['days_active', 'mean_basket']], fit_rows['churned'])
    print(clf.score(valid_rows[['days_active', 'mean_basket']], valid_rows['churned']))
"""


def test_a_per_customer_mean_over_every_week_before_the_last_week_is_held_out_is_found(tmp_path: Path) -> None:
    text = _ONE_SCRIPT.replace("KEY", "customer_id")
    assert ("fit_before_split", _line(text, "['basket'].transform")) in _alarms(tmp_path, text)


def test_a_per_session_mean_before_the_last_week_is_held_out_is_silent(tmp_path: Path) -> None:
    text = _ONE_SCRIPT.replace("KEY", "session_id")
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "fit_before_split"}


# ---------------------------------------------------------------- a pre-training fit's validation name reused later

_PRETRAIN = """\
    import numpy as np
    import pandas as pd
    from lightgbm import LGBMRegressor
    from sklearn.metrics import mean_absolute_error
    from sklearn.model_selection import KFold, train_test_split

    cells = pd.read_csv("cells.csv")
    X, y, y_aux = cells.drop(columns=["dose", "viability"]), cells.viability, cells.dose
    X_fit, X_val, a_fit, a_val = train_test_split(X, y_aux, test_size=0.2, random_state=7)
    warm = LGBMRegressor(n_estimators=3000)
    warm.fit(X_fit, a_fit, eval_set=[(X_val, a_val)], early_stopping_rounds=50)
    X = X.assign(dose_hat=warm.predict(X))
    maes = []
    for tr, va in KFold(5, shuffle=True, random_state=7).split(X):
        REBIND
        m = LGBMRegressor(n_estimators=3000)
        m.fit(X.iloc[tr], y.iloc[tr], eval_set=[(X.iloc[va], y.iloc[va])], early_stopping_rounds=50)
        maes.append(mean_absolute_error(y.iloc[va], m.predict(X_val)))
    print(np.mean(maes))
"""


def test_a_pretraining_stop_on_a_name_a_later_fold_loop_rebinds_is_silent_and_the_fold_stop_found(
        tmp_path: Path) -> None:
    text = _PRETRAIN.replace("REBIND", "X_val = X.iloc[va]")
    found = {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}
    assert found == {("tuned_on_test", _line(text, "m.fit(X.iloc"))}


def test_a_stop_whose_validation_rows_are_scored_again_under_the_same_binding_is_found(tmp_path: Path) -> None:
    text = _PRETRAIN.replace("REBIND", "X_val = X_val.fillna(0)")
    assert ("tuned_on_test", _line(text, "warm.fit(")) in _alarms(tmp_path, text)


# ---------------------------------------------------------------- a fallback into the slots no fold left

_FALLBACK = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold, LeaveOneGroupOut, ShuffleSplit, cross_val_score

    farms = pd.read_csv("farms.csv")
    X, y, groups = farms.drop(columns=["yield", "region"]), farms["yield"].values, farms.region.values
    preds = np.zeros(len(y))
    done = np.zeros(len(y), dtype=bool)
    for tr, te in SPLITTER.split(X, y, groups=groups):
        preds[te] = Ridge().fit(X.iloc[tr], y[tr]).predict(X.iloc[te])
        done[te] = True
    if not done.all():
        preds[~done] = float(np.mean(y))
    stacked = X.assign(first_stage=preds)
    print(cross_val_score(Ridge(), stacked, y, cv=GroupKFold(5), groups=groups).mean())
"""


def test_a_target_mean_written_into_slots_a_leave_one_group_out_loop_all_filled_is_silent(tmp_path: Path) -> None:
    text = _FALLBACK.replace("SPLITTER", "LeaveOneGroupOut()")
    assert not _alarms(tmp_path, text)


def test_the_same_fallback_under_a_shuffle_split_that_leaves_rows_out_is_found(tmp_path: Path) -> None:
    text = _FALLBACK.replace("SPLITTER", "ShuffleSplit(5, test_size=0.1, random_state=0)")
    assert ("fit_outside_cv", _line(text, "float(np.mean(y))")) in _alarms(tmp_path, text)


_TWO_LOOPS = """\
    import numpy as np
    import pandas as pd
    from lightgbm import LGBMRegressor
    from sklearn.metrics import mean_absolute_error
    from sklearn.model_selection import KFold

    cells = pd.read_csv("cells.csv")
    X, y = cells.drop(columns="viability"), cells.viability
    maes = []
    for tr, va in KFold(5, shuffle=True, random_state=7).split(X):
        X_fit, X_val, y_fit, y_val = X.iloc[tr], X.iloc[va], y.iloc[tr], y.iloc[va]
        m = LGBMRegressor(n_estimators=3000)
        m.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], early_stopping_rounds=50)
        maes.append(mean_absolute_error(y_val, m.predict(X_val)))
    print(np.mean(maes))


    def rerun(X, y):
        scores = []
        for tr, va in KFold(3).split(X):
            X_fit, X_val, y_fit, y_val = X.iloc[tr], X.iloc[va], y.iloc[tr], y.iloc[va]
            r = LGBMRegressor(n_estimators=500).fit(X_fit, y_fit)
            scores.append(mean_absolute_error(y_val, r.predict(X_val)))
        return scores
"""


def test_a_fold_stop_scored_at_module_level_stays_found_beside_a_function_with_its_own_x_val(tmp_path: Path) -> None:
    assert ("tuned_on_test", _line(_TWO_LOOPS, "m.fit(")) in _alarms(tmp_path, _TWO_LOOPS)


def test_a_fold_stop_stays_found_when_a_second_experiment_rebinds_the_fold_names_later(tmp_path: Path) -> None:
    second = _TWO_LOOPS.split("\n\n\n    def rerun")[0] + """
    maes2 = []
    for tr, va in KFold(5, shuffle=True, random_state=8).split(X):
        X_fit, X_val, y_fit, y_val = X.iloc[tr], X.iloc[va], y.iloc[tr], y.iloc[va]
        m2 = LGBMRegressor(n_estimators=500).fit(X_fit, y_fit)
        maes2.append(mean_absolute_error(y_val, m2.predict(X_val)))
    print(np.mean(maes2))
"""
    assert ("tuned_on_test", _line(second, "m.fit(")) in _alarms(tmp_path, second)

"""The static leakage analysis on kinds left from earlier stops (issue 17, stop 53), in both directions:

* a value named ``mid_val``/``mean_val`` (a middle or mean value) is no validation part: statistics of every row
  before a hand-written fold loop stay ``fit_outside_cv``, not ``fit_before_split`` of a part nobody held out;
* a helper that reads the file its callers name with ``os.path.join`` of a folder computed at run time
  (``os.getcwd()``, also ``Path(base) / name`` or an f-string) reads that file: the test file filled with its own
  mean is ``fit_on_test``; the training file filled with its own mean is not; a helper run once on each file reads,
  in each run, the file of the call running it (passedfiles.py, callerpaths.py);
* hand-written fold masks whose training mask provably overlaps the held-out mask (a purge reopening inside the
  held-out block; bounds joined by ``&``/``|`` or chained; the held-out rows predicted or watched as the evaluation
  set; widths constant in the module or in the function holding the loop) are ``trained_on_test``; masks apart,
  expanding windows, bounds nothing reduces and another model scored on the held-out rows are silent (maskfolds.py).

The fold-mask and joined-path tests of wave 87 (leak87's ``foldmasks.py`` and ``joinedpaths.py``, the same two
concepts) are merged here, each concept now one module.

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
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


def _cleaner(file_name: str) -> str:
    """A helper fills every numeric column of the file it is given with that file's mean and writes it back (merged
    from the wave-87 tests: the same concept as :data:`PASSED_FILE`)."""
    return f"""\
    import os
    import pandas as pd

    def clean(src, dst):
        table = pd.read_csv(src)
        for col in table.columns:
            if pd.api.types.is_numeric_dtype(table[col]):
                table[col] = table[col].fillna(table[col].mean())
        table.to_csv(dst, index=False)

    here = os.getcwd()
    base = os.path.dirname(here) if os.path.basename(here) == "scripts" else here
    clean(os.path.join(base, "data", {file_name}), os.path.join(base, "data", "filled.csv"))
"""


def test_the_test_file_named_through_a_joined_path_and_filled_with_its_own_mean_is_the_only_alarm(
        tmp_path: Path) -> None:
    assert _alarms(tmp_path, _cleaner('"test.csv"')) == {("fit_on_test", 8)}


def test_other_files_through_a_joined_path_are_silent(tmp_path: Path) -> None:
    for file_name in ('"train.csv"', "os.listdir(base)[0]"):
        assert _alarms(tmp_path, _cleaner(file_name)) == set(), file_name


def test_the_test_file_named_through_a_path_object_or_an_f_string_is_fit_on_test(tmp_path: Path) -> None:
    for path in ('Path(base) / "data" / "test.csv"', 'f"{base}/data/test.csv"', 'Path(base).joinpath("test.csv")'):
        text = _cleaner('"x.csv"').replace("import os\n", "import os\n    from pathlib import Path\n").replace(
            'clean(os.path.join(base, "data", "x.csv")', f"clean({path}")
        assert ("fit_on_test", _line(text, "fillna(")) in _alarms(tmp_path, text), path


def test_a_helper_run_on_the_training_file_then_on_the_test_file_fills_the_test_file_with_its_own_mean(
        tmp_path: Path) -> None:
    text = _cleaner('"train.csv"') + \
        '    clean(os.path.join(base, "data", "test.csv"), os.path.join(base, "data", "test_filled.csv"))\n'
    assert _alarms(tmp_path, text) == {("fit_on_test", _line(text, "fillna("))}


def test_a_helper_run_on_the_training_file_then_on_an_unknown_file_is_silent(tmp_path: Path) -> None:
    text = _cleaner('"train.csv"') + '    clean(os.path.join(base, "data", os.listdir(base)[0]), "other.csv")\n' + \
        '    print(pd.read_csv(os.path.join(base, "data", "test.csv")).shape)\n'
    assert _alarms(tmp_path, text) == set()


# ---------------------------------------------------------------- folds a helper cuts by hand, and a final refit

FOLD_HELPER = """\
    import numpy as np
    import pandas as pd
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR
    from sklearn.metrics import mean_absolute_error

    def cut_windows(frame, n_splits=4, size=30):
        pairs = []
        for i in range(n_splits):
            stop = len(frame) - i * size
            pairs.append((frame.index[:stop - size], frame.index[stop - size:stop]))
        return pairs[::-1]

    def fit_svr(X_train, y_train, X_test):
        scaler = StandardScaler()
        X_train_scaled = scaler.fit_transform(X_train)
        X_test_scaled = scaler.transform(X_test)
        model = SVR().fit(X_train_scaled, y_train)
        return model.predict(X_test_scaled), (model, scaler)

    readings = pd.read_parquet("station_days.parquet")
    readings = readings[readings["city"] == "Delhi"].dropna()
    X = readings[["lag_1", "lag_7", "month"]]
    y = readings["pm25"]
    cv_splits = cut_windows(readings)
"""


def test_a_scaler_fitted_in_each_hand_cut_fold_and_a_refit_on_every_row_are_silent(tmp_path: Path) -> None:
    text = FOLD_HELPER + """\
    def evaluate(frame):
        inputs = [c for c in frame.columns if c not in ("day", "city", "pm25")]
        clean = frame.dropna(subset=inputs + ["pm25"])
        X, y = clean[inputs], clean["pm25"]
        errors = []
        for fold, (train_idx, test_idx) in enumerate(cut_windows(clean)):
            X_train, X_test = X.loc[train_idx], X.loc[test_idx]
            y_train, y_test = y.loc[train_idx], y.loc[test_idx]
            pred, _ = fit_svr(X_train, y_train, X_test)
            errors.append(mean_absolute_error(y_test, pred))
        print(np.mean(errors))
        _, final = fit_svr(X, y, X)
        return final

    stations = pd.read_parquet("stations.parquet")
    for city in stations["city"].unique():
        evaluate(stations[stations["city"] == city].sort_values("day").reset_index(drop=True))
    """
    assert _alarms(tmp_path, text) == set()


def test_a_scaler_fitted_on_every_row_before_enumerated_hand_cut_folds_is_fit_outside_cv(tmp_path: Path) -> None:
    text = FOLD_HELPER + """\
    X = pd.DataFrame(StandardScaler().fit_transform(X), index=X.index, columns=X.columns)
    errors = []
    for fold, (train_idx, test_idx) in enumerate(cv_splits):
        model = SVR().fit(X.loc[train_idx], y.loc[train_idx])
        errors.append(mean_absolute_error(y.loc[test_idx], model.predict(X.loc[test_idx])))
    print(np.mean(errors))
    """
    assert ("fit_outside_cv", _line(text, "StandardScaler().fit_transform(X)")) in _alarms(tmp_path, text)


def test_a_helper_handed_every_row_as_training_input_and_a_test_part_still_leaks(tmp_path: Path) -> None:
    text = FOLD_HELPER + """\
    from sklearn.model_selection import train_test_split
    X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.2)
    pred, _ = fit_svr(X, y, X_test)
    print(mean_absolute_error(y_test, pred))
    """
    assert any(kind in ("fit_before_split", "fit_on_test") for kind, _ in _alarms(tmp_path, text))


# ---------------------------------------------------------------- a validation split of windows that chooses nothing

WINDOWS = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from keras.models import Sequential
    from keras.layers import LSTM, Dense
    from keras.callbacks import EarlyStopping

    load = pd.read_csv("hourly_load.csv")["load_mw"].to_numpy()
    width = 24
    X = np.array([load[i:i + width] for i in range(len(load) - width)])
    y = np.array([load[i + width] for i in range(len(load) - width)])
    X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=0.2, random_state=1)
    X_train, X_val, y_train, y_val = train_test_split(X_rest, y_rest, test_size=0.2, random_state=1)
    net = Sequential([LSTM(32, input_shape=(width, 1)), Dense(1)])
    net.compile(loss="mae", optimizer="adam")
    history = net.fit(X_train, y_train, epochs=20, validation_data=(X_val, y_val){callbacks})
    print(np.mean(np.abs(net.predict(X_test).ravel() - y_test)))
"""


def test_a_shuffled_validation_split_only_evaluated_by_a_fit_without_callbacks_is_silent(tmp_path: Path) -> None:
    text = WINDOWS.format(callbacks="")
    found = _alarms(tmp_path, text)
    assert ("shuffled_time_split", _line(text, "X_rest, X_test")) in found
    assert ("shuffled_time_split", _line(text, "X_train, X_val")) not in found


def test_a_shuffled_validation_split_watched_by_early_stopping_is_shuffled_time_split(tmp_path: Path) -> None:
    text = WINDOWS.format(callbacks=", callbacks=[EarlyStopping(patience=3, restore_best_weights=True)]")
    assert ("shuffled_time_split", _line(text, "X_train, X_val")) in _alarms(tmp_path, text)


# ---------------------------------------------------------------- purged folds cut by hand with masks

def _purged(fit_mask: str, held_mask: str = "(day >= last) & (day < last + block)", watched: bool = True,
            scored: str | None = "booster") -> str:
    """Folds of days cut by hand with masks, the last fold's training mask plain: the booster fitted on
    ``fit_mask``'s rows, watching ``held_mask``'s rows for early stopping (``watched``) and scored by ``scored``'s
    predictions of them (``None``: not scored). Leak87's wave-87 fold tests (foldmasks.py, now maskfolds.py) are
    merged here."""
    watch = ', eval_set=[(part_held[inputs], part_held["target"])]' if watched else ""
    score = f'errors.append(mean_absolute_error(part_held["target"], {scored}.predict(part_held[inputs])))' \
        if scored else "errors.append(booster.n_estimators)"
    return f"""\
    import numpy as np
    import pandas as pd
    import lightgbm as lgb
    from sklearn.metrics import mean_absolute_error

    auctions = pd.read_parquet("auctions.parquet")
    inputs = [c for c in auctions.columns if c not in ("target", "day")]
    day = auctions["day"].values
    n_folds = 4
    block = 400 // n_folds
    gap = 3
    errors = []
    for k in range(n_folds):
        first = k * block
        last = first + block
        if k < n_folds - 1:
            fit_rows = {fit_mask}
        else:
            fit_rows = (day >= first) & (day < last)
        held_rows = {held_mask}
        part_fit = auctions[fit_rows]
        part_held = auctions[held_rows]
        booster = lgb.LGBMRegressor(n_estimators=500)
        booster.fit(part_fit[inputs], part_fit["target"]{watch})
        {score}
    print(np.mean(errors))
"""


#: a purge meant to leave a gap after the held-out block: it reopens inside it
REOPENED = "(day >= first) & (day < last - 2) | (day > last + gap + 2)"


def _overlap(tmp_path: Path, text: str) -> bool:
    return ("trained_on_test", _line(text, "booster.fit(")) in _alarms(tmp_path, text)


def test_a_training_mask_whose_purge_reopens_inside_the_held_out_block_is_trained_on_test(tmp_path: Path) -> None:
    assert _overlap(tmp_path, _purged(REOPENED))


def test_the_reopened_purge_is_the_only_alarm_of_the_folds(tmp_path: Path) -> None:
    text = _purged(REOPENED, watched=False)
    assert _alarms(tmp_path, text) == {("trained_on_test", _line(text, "booster.fit("))}


def test_a_training_mask_purged_around_the_held_out_block_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, _purged("(day < last - gap) | (day >= last + block + gap)", watched=False)) == set()
    assert not _overlap(tmp_path, _purged("(day < last - gap) | (day >= last + block + gap)"))


def test_expanding_window_masks_are_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, _purged("day < last - gap", watched=False)) == set()


def test_masks_whose_bounds_do_not_reduce_to_numbers_decide_nothing(tmp_path: Path) -> None:
    text = _purged("(day < cut_low) | (day > cut_high)").replace(
        "        first = k * block\n", "        first = k * block\n        cut_low, cut_high = np.quantile(day, [0.2, 0.3])\n")
    assert not _overlap(tmp_path, text)
    assert _alarms(tmp_path, _purged("(day < first) | (day > np.quantile(day, 0.9))", watched=False)) == set()


def test_a_chained_held_out_mask_meeting_the_training_mask_is_trained_on_test(tmp_path: Path) -> None:
    for held in ("(last <= day) & (day < last + block)", "last <= day < last + block"):
        assert _overlap(tmp_path, _purged(REOPENED, held_mask=held, watched=False)), held


def test_a_chained_held_out_mask_clear_of_the_training_mask_is_silent(tmp_path: Path) -> None:
    assert not _overlap(tmp_path, _purged("(day < last - gap) | (day >= last + block + gap)",
                                          held_mask="last <= day < last + block"))


def test_overlapping_rows_watched_only_for_early_stopping_are_trained_on_test(tmp_path: Path) -> None:
    assert _overlap(tmp_path, _purged(REOPENED, scored=None))


def test_another_model_scored_on_the_held_out_mask_is_no_overlap_of_the_fitted_one(tmp_path: Path) -> None:
    other = 'lgb.LGBMRegressor().fit(auctions[inputs], auctions["target"])'
    assert not _overlap(tmp_path, _purged(REOPENED, watched=False, scored=other))


#: the same folds cut inside a function, their width a constant of the function (or a parameter: unknown)
FOLDS_IN_A_FUNCTION = """\
    import pandas as pd
    from sklearn.linear_model import Ridge

    def walk_forward(frame{parameter}):
        days = frame["day"].values
        {width}
        for i in range(5):
            end = (i + 1) * width
            fit_mask = (days < end - 2) | (days > end + 6)
            held_mask = (days >= end) & (days < end + width)
            fit_rows, held_rows = frame[fit_mask], frame[held_mask]
            model = Ridge()
            model.fit(fit_rows[["bid"]], fit_rows["move"])
            print(model.predict(held_rows[["bid"]]))

    walk_forward(pd.read_csv("book.csv"){argument})
"""


def test_overlapping_masks_whose_width_is_a_constant_of_the_function_are_trained_on_test(tmp_path: Path) -> None:
    text = FOLDS_IN_A_FUNCTION.format(parameter="", width="width = 400 // 5", argument="")
    assert ("trained_on_test", _line(text, "model.fit(")) in _alarms(tmp_path, text)


def test_masks_whose_width_is_a_parameter_decide_nothing(tmp_path: Path) -> None:
    text = FOLDS_IN_A_FUNCTION.format(parameter=", width", width="days = days[days >= 0]", argument=", 5")
    assert not any(kind == "trained_on_test" for kind, _ in _alarms(tmp_path, text))


# ---------------------------------------------------------------- a subject parsed from file names, then dropped

RECORDINGS = """\
    import glob
    import os
    import numpy as np
    from scipy.io import loadmat
    from sklearn.model_selection import StratifiedKFold, GroupKFold
    from sklearn.svm import SVC

    def load_sessions(folder):
        sessions = []
        for path in sorted(glob.glob(os.path.join(folder, "*.mat"))):
            fields = os.path.basename(path).replace(".mat", "").split("_")
            {parse}
            sessions.append(({record}, loadmat(path)["emg"]))
        return sessions

    def band_power(signal):
        return np.log(np.mean(signal ** 2, axis=0))

    X, y = [], []
    for {unpack} in load_sessions("recordings"):
        X.append(band_power(signal))
        y.append(task)
    X, y = np.array(X), np.array(y)
    scores = []
    {split}
        clf = SVC().fit(X[fit_idx], y[fit_idx])
        scores.append(clf.score(X[held_idx], y[held_idx]))
    print(np.mean(scores))
"""

TWO_FIELDS = 'participant_id = int(fields[0].replace("P", ""))\n            task = int(fields[1])'


def test_a_subject_parsed_from_file_names_and_dropped_before_a_row_wise_split_is_entity_across_split(
        tmp_path: Path) -> None:
    text = RECORDINGS.format(parse=TWO_FIELDS, record="participant_id, task", unpack="participant_id, task, signal",
                             split="for fit_idx, held_idx in StratifiedKFold(5, shuffle=True).split(X, y):")
    assert ("entity_across_split", _line(text, "StratifiedKFold(5")) in _alarms(tmp_path, text)


def test_the_same_subjects_kept_as_groups_of_a_group_split_are_silent(tmp_path: Path) -> None:
    text = RECORDINGS.format(parse=TWO_FIELDS, record="participant_id, task",
                             unpack="participant_id, task, signal",
                             split="for fit_idx, held_idx in GroupKFold(5).split(X, y, groups=owners):").replace(
        "        y.append(task)\n", "        y.append(task)\n        owners.append(participant_id)\n").replace(
        "X, y = [], []", "X, y, owners = [], [], []")
    assert not any(kind == "entity_across_split" for kind, _ in _alarms(tmp_path, text))


def test_one_file_per_subject_split_row_by_row_is_silent(tmp_path: Path) -> None:
    text = RECORDINGS.format(parse='participant_id = int(fields[0].replace("P", ""))\n            task = 0',
                             record="participant_id, task", unpack="participant_id, task, signal",
                             split="for fit_idx, held_idx in StratifiedKFold(5, shuffle=True).split(X, y):")
    assert not any(kind == "entity_across_split" for kind, _ in _alarms(tmp_path, text))


# ---------------------------------------------------------------- features computed from the same row's target

DAILY = """\
    import pandas as pd
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.metrics import mean_absolute_error

    sales = pd.read_csv("store_sales.csv", parse_dates=["date"]).sort_values("date")
    sales["weekday"] = sales["date"].dt.weekday
    {features}
    sales = sales.dropna()
    X = sales.drop(columns=["units", "date"])
    y = sales["units"]
    cut = int(len(sales) * 0.8)
    model = GradientBoostingRegressor().fit(X[:cut], y[:cut])
    print(mean_absolute_error(y[cut:], model.predict(X[cut:])))
"""


def test_a_difference_and_a_trailing_mean_of_the_target_as_inputs_are_target_in_features(tmp_path: Path) -> None:
    text = DAILY.format(features='sales["units_change"] = sales["units"].diff()\n'
                                 '    sales["units_week"] = sales["units"].rolling(7).mean()')
    found = _alarms(tmp_path, text)
    assert ("target_in_features", _line(text, "units_change")) in found
    assert ("target_in_features", _line(text, "units_week")) in found


def test_the_same_features_lagged_by_a_shift_are_silent(tmp_path: Path) -> None:
    text = DAILY.format(features='sales["units_change"] = sales["units"].shift(1).diff()\n'
                                 '    sales["units_week"] = sales["units"].shift(1).rolling(7).mean()')
    assert not any(kind == "target_in_features" for kind, _ in _alarms(tmp_path, text))


def test_a_trailing_mean_of_the_target_dropped_from_the_inputs_is_silent(tmp_path: Path) -> None:
    text = DAILY.format(features='sales["units_week"] = sales["units"].rolling(7).mean()').replace(
        'columns=["units", "date"]', 'columns=["units", "date", "units_week"]')
    assert not any(kind == "target_in_features" for kind, _ in _alarms(tmp_path, text))


def test_a_trailing_mean_of_a_price_beside_a_next_day_target_is_silent(tmp_path: Path) -> None:
    text = DAILY.format(features='sales["price_week"] = sales["price"].rolling(7).mean()\n'
                                 '    sales["units_next"] = sales["units"].shift(-1)').replace(
        'columns=["units", "date"]', 'columns=["units_next", "date"]').replace('y = sales["units"]',
                                                                           'y = sales["units_next"]')
    assert not any(kind == "target_in_features" for kind, _ in _alarms(tmp_path, text))


# ---------------------------------------------------------------- a sys.path entry computed from the script's file

SCALE_ALL = """\
from sklearn.preprocessing import StandardScaler


def scale_all(table):
    return StandardScaler().fit_transform(table)
"""

SCORE_AFTER_SCALE = """\
import os
import sys
from pathlib import Path
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

{path_line}
from preprocessing import scale_all

visits = pd.read_csv("visits.csv")
X = scale_all(visits[["age", "pressure"]])
X_train, X_test, y_train, y_test = train_test_split(X, visits["sick"], test_size=0.25)
print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))
"""


def _project_alarms(root: Path, path_line: str) -> set[tuple[str, str, int]]:
    (root / "src").mkdir()
    (root / "scripts").mkdir()
    (root / "src" / "preprocessing.py").write_text(SCALE_ALL)
    (root / "scripts" / "evaluate.py").write_text(SCORE_AFTER_SCALE.format(path_line=path_line))
    report, _ = analyze_file(str(root / "scripts" / "evaluate.py"))
    return {(f.kind, Path(f.location.get("file", "")).name, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


def test_helpers_on_a_sys_path_entry_computed_from_the_script_file_are_joined(tmp_path: Path) -> None:
    line = ("ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n"
            "sys.path.append(os.path.join(ROOT, 'src'))")
    assert ("fit_before_split", "preprocessing.py", 5) in _project_alarms(tmp_path, line)


def test_helpers_on_a_pathlib_parents_entry_are_joined(tmp_path: Path) -> None:
    line = "sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))"
    assert ("fit_before_split", "preprocessing.py", 5) in _project_alarms(tmp_path, line)


def test_a_sys_path_entry_from_the_environment_joins_nothing(tmp_path: Path) -> None:
    line = "sys.path.append(os.path.join(os.environ['PROJECT_HOME'], 'src'))"
    assert _project_alarms(tmp_path, line) == set()

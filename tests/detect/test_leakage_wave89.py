"""The static leakage analysis on the kinds a held-out wave of recommender, learning-to-rank and click-through code
showed (issue 17, wave 89), in both directions:

* a stage script that computes its features with a helper module and saves the table through a writing helper of
  another module (``save_table(df, path)``, the path its own caller passes) hands those rows to the model script
  that reads the file (helperreads.py, passedpaths.py): a statistic per key over every training row, held out
  later by one fold of a ``GroupKFold`` taken with ``next``, is a fit before that split, reported at the helper's
  line; the same helper run on the test file, whose table the model script reads and never uses, adds nothing;
  a model script reading another file is silent;
* ``next(kf.split(X))`` takes one fold: a hold-out, no cross-validation (positions.py);
* a save reaches a model as far as the scripts that read the file use it (savedreach.py): statistics of a
  train/validation/test stack saved to Parquet and read back by model scripts that keep the columns of a feature
  list (a config class's list, the file's path an option of ``config.ini``: yamlpaths.py) are reported for the
  listed columns only; a stage whose file no script reads or names, though it reads another stage's file, saves
  for nobody, unless it predicts or scores a model itself (deadends.py);
* values replaced at Tukey's fences with ``Series.mask`` are fences of every row (outliers.py);
* two scripts that read one raw file read the same rows (sharedinputs.py): a per-item statistic of every week saved
  by a feature script, merged by the model script into the same file's rows and the last week held out, is a fit
  before that split; the statistic of the weeks before the last is silent. Feature objects walked through a
  progress bar (``for f in tqdm(features)``) are the objects the list holds (vocab.PROGRESS_BARS);
* a per-week table moved one week on (``t.week += 1``) before it is merged is a lag (lagged.py); merged on its own
  week it is a fit before the week held out;
* a branch under an option every configuration module of the project leaves off (``cfg.get('x', False)``, the
  module picked by name at run time) is a note naming the option; switched on by one module, an alarm
  (configflags.py);
* a statistic within each search of a ranking (``groupby('srch_id')``) is the search's own (samples.py); a helper
  that groups by a search and then by a hotel is a fit of the hotel groups.

Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.test_leakage_handed_on import write


def alarms(path, where=None) -> list[tuple[str, int]]:
    """(kind, line) of the findings at warning or above that ``path``'s analysis reports in ``where`` (default:
    ``path`` itself)."""
    report, _ = analyze_file(str(path))
    where = str(where or path)
    return sorted((f.kind, f.location["line"]) for f in report.findings
                  if f.severity >= Severity.WARNING and f.location.get("file") == where)


def line_of(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# ---------------------------------------------------------------- a stage writing through a helper of another module

IO_HELPERS = """\
    import pandas as pd

    def load_table(path):
        return pd.read_csv(path)

    def save_table(frame, path):
        frame.to_csv(path, index=False)
"""

FEATURES = """\
    def add_hotel_stats(frame):
        per_hotel = frame.groupby('hotel')['nightly_rate'].mean()
        frame['hotel_rate'] = frame['hotel'].map(per_hotel)
        spread = frame.groupby('hotel')['nightly_rate'].transform('std').fillna(1)
        frame['rate_z'] = (frame['nightly_rate'] - frame['hotel_rate']) / spread
        return frame
"""

STAGE = """\
    import os
    from io_helpers import *
    from features import add_hotel_stats

    def build(read_path, write_path):
        table = load_table(read_path)
        table = add_hotel_stats(table)
        save_table(table, write_path)

    def main():
        here = os.path.dirname(__file__)
        build(os.path.join(here, 'data', 'bookings_train.csv'), os.path.join(here, 'data', 'bookings_train_feats.csv'))
        build(os.path.join(here, 'data', 'bookings_test.csv'), os.path.join(here, 'data', 'bookings_test_feats.csv'))

    if __name__ == '__main__':
        main()
"""

RANKER = """\
    import os
    import pandas as pd
    import lightgbm as lgb
    from sklearn.model_selection import GroupKFold

    here = os.path.dirname(__file__)
    train = pd.read_csv(os.path.join(here, 'data', '{name}'))
    unused = pd.read_csv(os.path.join(here, 'data', 'bookings_test_feats.csv'))
    cols = ['hotel_rate', 'rate_z', 'nightly_rate', 'stars']
    fit_rows, valid_rows = next(GroupKFold(n_splits=5).split(train, groups=train['query']))
    fit_part, held_part = train.iloc[fit_rows], train.iloc[valid_rows]
    ranker = lgb.LGBMRanker().fit(fit_part[cols], fit_part['booked'],
                                  group=fit_part.groupby('query').size().to_numpy())
    print(ranker.predict(held_part[cols]))
"""


def _stage_project(tmp_path, reads: str):
    write(tmp_path, "io_helpers.py", IO_HELPERS)
    features = write(tmp_path, "features.py", FEATURES)
    stage = write(tmp_path, "make_features.py", STAGE)
    write(tmp_path, "rank.py", RANKER.replace("{name}", reads))
    return stage, features


def test_a_helper_statistic_saved_through_a_helper_of_another_module_is_a_fit_before_the_fold_held_out(tmp_path):
    stage, features = _stage_project(tmp_path, "bookings_train_feats.csv")
    assert alarms(stage, features) == [("fit_before_split", line_of(features, "per_hotel = ")),
                                       ("fit_before_split", line_of(features, "spread = "))]


def test_the_stage_is_silent_when_the_model_script_reads_the_raw_file(tmp_path):
    stage, features = _stage_project(tmp_path, "bookings_train.csv")
    assert alarms(stage, features) == []


def test_the_test_call_keeps_its_kind_when_the_model_script_predicts_on_the_test_file(tmp_path):
    stage, features = _stage_project(tmp_path, "bookings_train_feats.csv")
    ranker = tmp_path / "rank.py"
    ranker.write_text(ranker.read_text().replace("ranker.predict(held_part[cols])", "ranker.predict(unused[cols])"))
    assert alarms(stage, features) == [("fit_on_test", line_of(features, "per_hotel = ")),
                                       ("fit_on_test", line_of(features, "spread = "))]


def test_one_fold_taken_with_next_is_one_hold_out_not_a_cross_validation(tmp_path):
    body = """\
        import pandas as pd
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import GroupKFold
        from sklearn.preprocessing import StandardScaler

        clicks = pd.read_csv('clicks_train.csv')
        later = pd.read_csv('clicks_test.csv')
        cols = ['dwell', 'position']
        clicks[cols] = StandardScaler().fit_transform(clicks[cols])
        a, b = next(GroupKFold(n_splits=4).split(clicks, groups=clicks['visit']))
        model = LogisticRegression().fit(clicks.iloc[a][cols], clicks.iloc[a]['clicked'])
        print(model.score(clicks.iloc[b][cols], clicks.iloc[b]['clicked']))
    """
    path = write(tmp_path, "clicks.py", body)
    assert alarms(path) == [("fit_before_split", 9)]
    looped = write(tmp_path, "clicks_cv.py", body.replace(
        "a, b = next(GroupKFold(n_splits=4).split(clicks, groups=clicks['visit']))",
        "for a, b in GroupKFold(n_splits=4).split(clicks, groups=clicks['visit']):").replace(
        "model = ", "    model = ").replace("print(", "    print("))
    assert alarms(looped) == [("fit_outside_cv", 9)]


# ---------------------------------------------------------------- saved statistics, read back through a feature list

STACKED = """\
    import configparser
    import pandas as pd

    config = configparser.ConfigParser()
    config.read('settings.ini')

    def build(train, valid, test):
        for frame, name in zip([train, valid, test], ['train', 'valid', 'test']):
            frame['part'] = name
        every = pd.concat([train, valid, test], ignore_index=True)
        by_item = every.groupby('item')
        every['item_rate'] = by_item['rate'].transform(lambda x: x.mean())
        every['item_stay'] = by_item['stay'].transform(lambda x: x.mean())
        return every[every.part == 'train'], every[every.part == 'valid'], every[every.part == 'test']

    def main():
        train = pd.read_parquet(config['FILES']['TRAIN_RAW'])
        valid = pd.read_parquet(config['FILES']['VALID_RAW'])
        test = pd.read_parquet(config['FILES']['TEST_RAW'])
        train, valid, test = build(train, valid, test)
        train.to_parquet('tables/train_ready.parquet')
        valid.to_parquet('tables/valid_ready.parquet')
        test.to_parquet('tables/test_ready.parquet')

    if __name__ == '__main__':
        main()
"""

SETTINGS = """\
    [FILES]
    TRAIN_RAW = ./tables/train_raw.parquet
    VALID_RAW = ./tables/valid_raw.parquet
    TEST_RAW = ./tables/test_raw.parquet
    TRAIN_READY = ./tables/train_ready.parquet
    VALID_READY = ./tables/valid_ready.parquet
"""

COLUMNS = """\
    class Columns:
        def __init__(self):
            self.names = ['rate', 'stay', 'item_rate']

        def get(self):
            return self.names
"""

TUNE = """\
    import configparser
    import pandas as pd
    import lightgbm as lgb
    from settings.columns import Columns

    config = configparser.ConfigParser()
    config.read('settings.ini')
    train = pd.read_parquet(config['FILES']['TRAIN_READY'])
    valid = pd.read_parquet(config['FILES']['VALID_READY'])
    cols = Columns().get()
    model = lgb.LGBMRanker().fit(train[cols], train['label'], group=train.groupby('query').size().to_numpy(),
                                 eval_set=[(valid[cols], valid['label'])],
                                 eval_group=[valid.groupby('query').size().to_numpy()])
    print(model.best_score_)
"""


PREDICT = """\
    import pandas as pd
    import lightgbm as lgb
    from settings.columns import Columns

    train = pd.read_parquet('tables/train_ready.parquet')
    test = pd.read_parquet('tables/test_ready.parquet')
    cols = Columns().get()
    model = lgb.LGBMRanker().fit(train[cols], train['label'], group=train.groupby('query').size().to_numpy())
    test['score'] = model.predict(test[cols])
    test[['query', 'item', 'score']].to_csv('submission.csv', index=False)
"""


def _stacked_project(tmp_path, listed: str):
    write(tmp_path, "settings.ini", SETTINGS)
    write(tmp_path, "settings/__init__.py", "")
    write(tmp_path, "settings/columns.py", COLUMNS.replace("'item_rate'", listed))
    writer = write(tmp_path, "build.py", STACKED)
    write(tmp_path, "tune.py", TUNE)
    write(tmp_path, "predict.py", PREDICT)
    return writer


def test_saved_statistics_of_a_stack_alarm_only_for_the_columns_a_feature_list_reads_back(tmp_path):
    writer = _stacked_project(tmp_path, "'item_rate'")
    assert alarms(writer) == [("fit_on_test", line_of(writer, "every['item_rate']"))]


def test_saved_statistics_no_feature_list_reads_back_are_notes(tmp_path):
    writer = _stacked_project(tmp_path, "'position'")
    assert alarms(writer) == []
    report, _ = analyze_file(str(writer))
    assert {f.location["line"] for f in report.findings if f.kind == "fit_on_test"} == {
        line_of(writer, "every['item_rate']"), line_of(writer, "every['item_stay']")}


DEAD_END = """\
    import pandas as pd
    from sklearn.impute import SimpleImputer

    test = pd.read_csv('cleaned_test.csv')
    test[['rate']] = SimpleImputer(strategy='median').fit_transform(test[['rate']])
    test.to_csv('{name}')
"""

CLEAN = """\
    import pandas as pd

    raw = pd.read_csv('raw_test.csv')
    raw.dropna(subset=['item']).to_csv('cleaned_test.csv')
"""

SUBMIT = """\
    import pandas as pd
    import joblib

    model = joblib.load('model.pkl')
    rows = pd.read_csv('imputed_test.csv')
    pd.DataFrame({'score': model.predict(rows[['rate']])}).to_csv('submission.csv')
"""


def test_a_stage_saving_a_file_no_script_reads_saves_for_nobody(tmp_path):
    write(tmp_path, "clean.py", CLEAN)
    stage = write(tmp_path, "impute.py", DEAD_END.replace("{name}", "imputed_test.csv"))
    assert alarms(stage) == []


def test_the_same_stage_alarms_when_a_script_scores_its_file(tmp_path):
    write(tmp_path, "clean.py", CLEAN)
    stage = write(tmp_path, "impute.py", DEAD_END.replace("{name}", "imputed_test.csv"))
    write(tmp_path, "submit.py", SUBMIT)
    assert alarms(stage) == [("fit_on_test", 5)]


# ---------------------------------------------------------------- values replaced at fences with Series.mask

FENCES = """\
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import train_test_split


    def fence(frame, col, k=1.5):
        low = frame[col].quantile(0.25)
        high = frame[col].quantile(0.75)
        spread = high - low
        frame[col] = frame[col].mask((frame[col] < low - k * spread) | (frame[col] > high + k * spread), pd.NA)
        return frame


    homes = pd.read_csv('homes.csv')
    {before}
    fit_rows, test_rows = train_test_split(homes, random_state=0)
    {after}
    model = Ridge().fit(fit_rows[['area']].fillna(0), fit_rows['price'])
    print(model.score(test_rows[['area']].fillna(0), test_rows['price']))
"""


def test_values_masked_beyond_fences_of_every_row_are_a_fit_before_the_split(tmp_path):
    path = write(tmp_path, "homes.py", FENCES.replace("{before}", "homes = fence(homes, 'area')").replace(
        "{after}", ""))
    assert alarms(path) == [("fit_before_split", 7), ("fit_before_split", 8)]


def test_fences_of_the_training_part_alone_are_silent(tmp_path):
    path = write(tmp_path, "homes.py", FENCES.replace("{before}", "").replace(
        "{after}", "fit_rows = fence(fit_rows, 'area')"))
    assert alarms(path) == []


# ---------------------------------------------------------------- one raw file read by two scripts

ITEM_FEATURES = """\
    import pandas as pd
    from tqdm import tqdm

    class RateStats:
        def __init__(self, sales):
            self.sales = sales

        def get(self):
            return self.sales.groupby('sku')['price'].mean().rename('sku_price').to_frame()

    class Collector:
        @staticmethod
        def collect(parts):
            out = None
            for part in tqdm(parts):
                table = part.get()
                out = table if out is None else out.join(table)
            return out

    sales = pd.read_csv('/home/me/shop/raw/sales.csv')
    {rows}
    Collector.collect([RateStats(history)]).to_parquet('/home/me/shop/raw/sku_features.parquet')
"""

WEEKLY_MODEL = """\
    import pandas as pd
    from pathlib import Path
    from sklearn.ensemble import GradientBoostingClassifier

    base = Path().absolute().parent
    sales = pd.read_csv(base / 'shop/sales.csv')
    extra = pd.read_parquet(base / 'shop/sku_features.parquet')
    rows = sales.merge(extra, on='sku', how='left')
    last = 52
    fit_rows = rows[rows.week != last]
    valid_rows = rows[rows.week == last]
    model = GradientBoostingClassifier().fit(fit_rows[['sku_price', 'price']], fit_rows['bought'])
    print(model.score(valid_rows[['sku_price', 'price']], valid_rows['bought']))
"""


def test_a_statistic_of_every_week_saved_and_merged_into_the_same_raw_file_is_a_fit_before_the_week_held_out(
        tmp_path):
    writer = write(tmp_path, "features.py", ITEM_FEATURES.replace("{rows}", "history = sales"))
    write(tmp_path, "model.py", WEEKLY_MODEL)
    assert alarms(writer) == [("fit_before_split", line_of(writer, "groupby('sku')"))]


def test_the_statistic_of_the_weeks_before_the_last_is_silent(tmp_path):
    writer = write(tmp_path, "features.py", ITEM_FEATURES.replace("{rows}", "history = sales[sales.week < 52]"))
    write(tmp_path, "model.py", WEEKLY_MODEL)
    assert alarms(writer) == []


# ---------------------------------------------------------------- a per-week table moved one week on: a lag

WEEKLY = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier

    visits = pd.read_csv('visits.csv')
    by_week = visits.groupby(['week', 'page'])['dwell'].mean().rename('page_dwell').reset_index()
    {shift}
    rows = visits.merge(by_week, on=['week', 'page'], how='left').fillna(0)
    last = 30
    train_rows = rows[rows.week != last]
    valid_rows = rows[rows.week == last]
    forest = RandomForestClassifier().fit(train_rows[['page_dwell', 'dwell']], train_rows['returned'])
    print(forest.score(valid_rows[['page_dwell', 'dwell']], valid_rows['returned']))
"""


def test_a_per_week_statistic_of_every_week_merged_on_its_own_week_is_a_fit_before_the_week_held_out(tmp_path):
    path = write(tmp_path, "weekly.py", WEEKLY.replace("{shift}", ""))
    assert alarms(path) == [("fit_before_split", 5)]


def test_the_same_table_moved_one_week_on_is_a_lag_and_silent(tmp_path):
    path = write(tmp_path, "weekly.py", WEEKLY.replace("{shift}", "by_week.week += 1"))
    assert alarms(path) == []


# ---------------------------------------------------------------- an option no configuration module switches on

CONFIG_BASE = """\
    from types import SimpleNamespace

    cfg = SimpleNamespace()
    cfg.seed = 7
"""

CONFIG_RUN = """\
    from configs.base import cfg

    cfg.count_encode = {value}
"""

TRAIN_WITH_OPTIONS = """\
    import importlib
    import sys
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    cfg = importlib.import_module(f'configs.{sys.argv[1]}').cfg
    train = pd.read_csv('train.csv')
    valid = pd.read_csv('valid.csv')
    if cfg.get('count_encode', False):
        both = pd.concat([train, valid])
        counts = both['city'].value_counts()
        train['city_n'] = train['city'].map(counts)
        valid['city_n'] = valid['city'].map(counts)
    cols = [c for c in train.columns if c != 'label']
    model = LogisticRegression().fit(train[cols], train['label'])
    print(model.score(valid[cols], valid['label']))
"""


def _options_project(tmp_path, value: str):
    write(tmp_path, "configs/base.py", CONFIG_BASE)
    write(tmp_path, "configs/run_a.py", CONFIG_RUN.replace("{value}", value))
    return write(tmp_path, "train.py", TRAIN_WITH_OPTIONS)


def test_a_count_over_train_and_validation_under_an_option_a_config_switches_on_is_an_alarm(tmp_path):
    path = _options_project(tmp_path, "True")
    assert alarms(path) == [("fit_on_test", 11)]


def test_the_same_branch_under_an_option_no_config_switches_on_is_a_note(tmp_path):
    path = _options_project(tmp_path, "False")
    assert alarms(path) == []
    report, _ = analyze_file(str(path))
    notes = [f for f in report.findings if f.location.get("line") == 11]
    assert [f.severity for f in notes] == [Severity.INFO]
    assert "cfg.count_encode" in notes[0].message and "run_a.py line 3" in notes[0].message


# ---------------------------------------------------------------- a statistic within each search of a ranking

SEARCHES = """\
    import pandas as pd
    import lightgbm as lgb
    from sklearn.model_selection import GroupKFold

    offers = pd.read_csv('offers.csv')
    offers['price_z'] = offers.groupby('{key}')['price'].transform(lambda p: (p - p.mean()) / p.std())
    cols = ['price_z', 'stars']
    fit_rows, test_rows = next(GroupKFold(n_splits=5).split(offers, groups=offers['srch_id']))
    fit_part, test_part = offers.iloc[fit_rows], offers.iloc[test_rows]
    ranker = lgb.LGBMRanker().fit(fit_part[cols], fit_part['booked'], group=fit_part.groupby('srch_id').size())
    print(ranker.predict(test_part[cols]))
"""


def test_a_price_statistic_per_hotel_across_searches_is_a_fit_before_the_searches_held_out(tmp_path):
    path = write(tmp_path, "offers.py", SEARCHES.replace("{key}", "hotel"))
    assert alarms(path) == [("fit_before_split", 6)]


def test_a_price_statistic_within_each_search_is_the_searchs_own(tmp_path):
    path = write(tmp_path, "offers.py", SEARCHES.replace("{key}", "srch_id"))
    assert alarms(path) == []


def test_a_group_fill_helper_called_per_search_then_per_hotel_is_a_fit_of_the_hotel_groups(tmp_path):
    body = SEARCHES.replace(
        "offers['price_z'] = offers.groupby('{key}')['price'].transform(lambda p: (p - p.mean()) / p.std())",
        "def fill_by(frame, keys, col):\n"
        "        frame[col] = frame.groupby(keys)[col].transform(lambda v: v.fillna(v.median()))\n"
        "        return frame\n"
        "    offers = fill_by(offers, 'srch_id', 'stars')\n"
        "    offers = fill_by(offers, 'hotel', 'price')\n"
        "    offers['price_z'] = offers['price']")
    path = write(tmp_path, "offers.py", body)
    assert alarms(path) == [("fit_before_split", 7)]


def test_a_stage_that_also_scores_models_keeps_its_alarm_though_no_script_reads_its_file(tmp_path):
    """The models of a long list are run through functions the analysis does not follow one by one; the script
    predicts, so its save is not the only use of what it computed."""
    write(tmp_path, "clean.py", CLEAN)
    models = "".join(f"def model_{i}(rows, target):\n    return Ridge(alpha={i}).fit(rows, target).predict(rows)\n\n"
                     for i in range(10))
    runs = "for run in [" + ", ".join(f"model_{i}" for i in range(10)) + "]:\n    print(run(test[['rate']], " \
        "test['label']))\n"
    stage = tmp_path / "impute.py"
    stage.write_text("from sklearn.linear_model import Ridge\n" + textwrap.dedent(
        DEAD_END.replace("{name}", "imputed_test.csv")) + "\n" + models + runs)
    assert ("fit_on_test", 6) in alarms(stage)



def test_a_stage_whose_file_another_script_names_keeps_its_alarm_though_the_index_links_no_read(tmp_path):
    """The stage writes ``out/imputed_test.csv``, the scorer reads ``input/imputed_test.csv`` (the folder moved
    between the runs): the index links no read, yet the file's name is read in a string of another script."""
    write(tmp_path, "clean.py", CLEAN)
    stage = write(tmp_path, "impute.py", DEAD_END.replace("{name}", "out/imputed_test.csv"))
    write(tmp_path, "submit.py", SUBMIT.replace("'imputed_test.csv'", "'input/imputed_test.csv'"))
    assert alarms(stage) == [("fit_on_test", 5)]

"""The static leakage analysis on missed-leak kinds labelled as false negatives before stop 54 (issue 17), in both
directions:

* counts and totals per id over every period of an event table, a later period then held out (periodsplit.py):
  purchases per ``buyer_id`` counted over every week, merged back onto the rows, and the last week held out with
  ``week != last`` / ``week == last``, count each buyer's held-out purchases (wave 89, an H&M ranker); the same
  counts over the weeks before the last, or per id before a split by group (no period held out: an entity's own
  size), stay silent; a mean named in an ``agg`` spec per id is a statistic like ``.mean()``; a dict comprehension
  spec (``{f'hit_{i}': 'sum' for i in ...}``) names its reduction for every key;
* a column named by a loop variable over a written-out list (``'listener_' + feat + '_share'``) is built from the
  columns its expression reads under the same value (derivedcols.py): a count over every row survives in those
  columns, and a list selecting them keeps it (wave 57, a music recommender); a list selecting other columns drops it;

Every example is written for this test."""

from __future__ import annotations

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.test_leakage_handed_on import write


def alarms(path) -> list[tuple[str, int]]:
    """(kind, line) of the findings at warning or above in ``path`` itself."""
    report, _ = analyze_file(str(path))
    return sorted((f.kind, f.location["line"]) for f in report.findings
                  if f.severity >= Severity.WARNING and f.location.get("file") == str(path))


def line_of(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# ---------------------------------------------------------------- counts per id over every week, last week held out

WEEKS = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier

    orders = pd.read_csv('orders.csv')
    last = 30
    by_buyer = {history}.groupby('buyer_id', as_index=False)
    per_channel = {history}.groupby(['buyer_id', 'channel']).size().unstack(fill_value=0).rename(columns={{1: 'shop'}})
    basics = by_buyer.agg(n_orders=('sku_id', 'count'), n_skus=('sku_id', 'nunique')).set_index('buyer_id')
    spend = by_buyer.agg(avg_price=('price', 'mean'))
    hits = {history}.groupby('buyer_id', as_index=False).agg({{f'hit_{{i}}': 'sum' for i in range(3)}})
    table = per_channel.merge(basics, on='buyer_id').merge(spend, on='buyer_id').merge(hits, on='buyer_id')
    rows = orders.merge(table, on='buyer_id', how='left')
    fit_rows = rows[rows.week != last]
    valid_rows = rows[rows.week == last]
    cols = ['n_orders', 'n_skus', 'shop', 'avg_price', 'hit_0']
    forest = RandomForestClassifier().fit(fit_rows[cols], fit_rows['bought'])
    print(forest.score(valid_rows[cols], valid_rows['bought']))
"""


def test_counts_and_totals_per_id_over_every_week_are_fits_before_the_week_held_out(tmp_path):
    path = write(tmp_path, "ranker.py", WEEKS.format(history="orders"))
    assert alarms(path) == [("fit_before_split", line_of(path, t)) for t in (
        "per_channel = ", "basics = ", "spend = ", "hits = ")]


def test_the_same_counts_over_the_weeks_before_the_last_are_silent(tmp_path):
    path = write(tmp_path, "ranker.py", WEEKS.format(history="orders[orders.week < last]"))
    assert alarms(path) == []


GROUPS = """\
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupShuffleSplit

    cells = pd.read_csv('cells.csv')
    cells['n_cells'] = cells.groupby('book_id')['cell'].transform('count')
    sizes = cells.groupby('book_id', as_index=False).agg(n_kinds=('kind', 'nunique'))
    cells = cells.merge(sizes, on='book_id')
    tr, te = next(GroupShuffleSplit(n_splits=1).split(cells, groups=cells['book_id']))
    ridge = Ridge().fit(cells.iloc[tr][['n_cells', 'n_kinds']], cells.iloc[tr]['rank'])
    print(ridge.score(cells.iloc[te][['n_cells', 'n_kinds']], cells.iloc[te]['rank']))
"""


def test_counts_per_id_before_a_split_by_group_are_each_entitys_own_size(tmp_path):
    path = write(tmp_path, "order.py", GROUPS)
    assert alarms(path) == []


# ---------------------------------------------------------------- columns named by a loop variable

SHARES = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    plays = pd.read_csv('plays.csv')
    per_listener = plays[['listener', 'track']].groupby('listener').count().to_dict()['track']
    plays['listener_cnt'] = plays['listener'].apply(lambda x: per_listener[x])
    kinds = ['genre', 'artist']
    for feat in kinds:
        plays['listener_' + feat + '_share'] = plays[feat + '_plays'] / plays['listener_cnt']
    X = plays[{listed}]
    X_tr, X_te, y_tr, y_te = train_test_split(X, plays['liked'])
    print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""


def test_a_count_living_on_in_columns_named_by_a_loop_variable_is_a_fit_before_the_split(tmp_path):
    path = write(tmp_path, "shares.py", SHARES.format(listed="['listener_genre_share', 'listener_artist_share']"))
    assert alarms(path) == [("fit_before_split", line_of(path, "per_listener = "))]


def test_the_same_loop_with_other_columns_selected_is_silent(tmp_path):
    path = write(tmp_path, "shares.py", SHARES.format(listed="['tempo', 'duration']"))
    assert alarms(path) == []

"""The static leakage analysis on the owner's decisions of stop 34 (issue 17), each in both directions: the leak
found at its line, the healthy look-alike silent. Every example is written for this test.

* a row filter whose bounds are statistics of the rows (IQR fences, quantiles, mean +- k std) is a fit of those
  rows (:mod:`faultlib.detect.data.leakage.outliers`); a fixed threshold learns nothing;
* a series with lag or rolling features evaluated by a splitter that does not keep time order trains on the future
  (:mod:`faultlib.detect.data.leakage.timeorder`); a walk-forward (``TimeSeriesSplit``, a date cut-off) does not.
"""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # Tukey fences of every row drop rows, then the split: which rows are scored depends on the test rows' values
    "iqr_fences_of_every_row_filter_rows_before_the_split": ("""\
        for c in ['age', 'visits']:
            q1 = table[c].quantile(0.25)
            q3 = table[c].quantile(0.75)
            spread = q3 - q1
            table = table[(table[c] >= q1 - 1.5 * spread) & (table[c] <= q3 + 1.5 * spread)]
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2), ("fit_before_split", 3)]),
    # three standard deviations from the mean of every row, the mask kept in a variable and negated twice
    "mean_plus_three_sd_mask_in_a_variable_then_cross_validated": ("""\
        far = (table['age'] - table['age'].mean()).abs() > 3 * table['age'].std()
        kept = table.loc[~far]
        print(cross_val_score(Ridge(), kept.drop(columns=['label']), kept['label'], cv=5))
        """, [("fit_outside_cv", 1)]),
    # the 99th percentile of every row as an upper cut, query-free
    "upper_percentile_cut_of_every_row_then_split": ("""\
        top = np.percentile(table['visits'], 99)
        small = table[table['visits'] < top]
        A, B, ya, yb = train_test_split(small.drop(columns=['label']), small['label'])
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 1)]),
    # lag features, then KFold without shuffling: every fold but the last trains on later days than it scores
    "lagged_series_cross_validated_by_unshuffled_kfold": ("""\
        table['lag7'] = table['visits'].shift(7)
        table = table.dropna()
        print(cross_val_score(Ridge(), table.drop(columns=['label']), table['label'], cv=KFold(5)))
        """, [("shuffled_time_split", 3)]),
    # a rolling mean, then a CV function's default folds (cv=5: unshuffled K folds)
    "rolling_mean_then_default_cross_validation_folds": ("""\
        table['week'] = table['visits'].rolling(7).mean()
        print(cross_val_score(Ridge(), table.drop(columns=['label']), table['label'], cv=5))
        """, [("shuffled_time_split", 2)]),
    # lags built, folds by calendar month: GroupKFold keeps a month together but trains on the later months
    "lagged_series_in_group_kfold_over_months": ("""\
        table['lag28'] = table.groupby('store')['visits'].shift(28)
        months = table['month'].astype(str) + '_' + table['year'].astype(str)
        for tr, va in GroupKFold(4).split(table, groups=months):
            Ridge().fit(table.iloc[tr], table['label'].iloc[tr]).score(table.iloc[va], table['label'].iloc[va])
        """, [("shuffled_time_split", 3)]),
    # features read from a file (built elsewhere); the script forecasts past a date cut-off and cross-validates
    # its training rows in folds of calendar months
    "forecast_cut_off_then_group_kfold_over_calendar_months": ("""\
        feats = pd.read_feather("features.feather")
        past = feats[feats['date'] < '2016-04-25']
        future = feats[feats['date'] >= '2016-04-25']
        group = past['month'].astype(str) + '_' + past['year'].astype(str)
        for tr, va in GroupKFold(5).split(past, groups=group):
            Ridge().fit(past.iloc[tr], past['label'].iloc[tr]).score(past.iloc[va], past['label'].iloc[va])
        """, [("shuffled_time_split", 5)]),
    # messages cleaned in a for loop over the column (the loop form of a comprehension), vocabulary before the split
    "texts_cleaned_in_a_loop_over_the_column_then_vocabulary_before_the_split": ("""\
        from sklearn.feature_extraction.text import CountVectorizer
        docs = []
        for text in table['note']:
            docs.append(text.lower())
        vec = CountVectorizer().fit_transform(docs)
        A, B, ya, yb = train_test_split(vec, table['label'])
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 5)]),
    # every index of the table read in a loop, sentences of each note in an inner loop, an embedding trained on all of
    # them, document vectors appended to an empty table, the label column set beside them, then the split
    "embedding_of_every_note_sentence_then_rows_appended_to_an_empty_table": ("""\
        from gensim.models import Word2Vec
        notes = []
        for i in range(len(table)):
            notes.append(table['note'][i].lower())
        sentences = []
        for note in notes:
            parts = note.split('.')
            for part in parts:
                sentences.append(part.split())
        wv = Word2Vec(sentences)
        vectors = [np.mean([wv.wv[w] for w in s], axis=0) for s in sentences]
        frame = pd.DataFrame()
        for i in range(len(vectors)):
            frame = frame.append(pd.DataFrame(vectors[i].reshape(1, -1)))
        frame['label'] = table['label']
        A, B, ya, yb = train_test_split(frame.drop(columns=['label']), frame['label'])
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 10)]),
    # decision (3): an oversampler fitted on the held-out part makes synthetic test rows from test rows; the score
    # is measured on them (a leak, not only a scoring error: the evaluation rows are shaped by a fit on themselves)
    "smote_fitted_on_the_test_part_then_scored_on_its_output": ("""\
        A, B, ya, yb = train_test_split(X, y)
        Bs, ybs = SMOTE().fit_resample(B, yb)
        LogisticRegression().fit(A, ya).score(Bs, ybs)
        """, [("fit_on_test", 2)]),
}

HEALTHY = {
    # a fixed threshold written in the code: no statistic of the rows
    "fixed_threshold_filter_then_split": ("""\
        table = table[(table['age'] >= 0) & (table['age'] < 120)]
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(A, ya).score(B, yb)
        """),
    # fences of the training part only, applied to the training part after the split
    "fences_of_the_training_part_after_the_split": ("""\
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        q1, q3 = A['age'].quantile(0.25), A['age'].quantile(0.75)
        keep = (A['age'] >= q1 - 1.5 * (q3 - q1)) & (A['age'] <= q3 + 1.5 * (q3 - q1))
        Ridge().fit(A[keep], ya[keep]).score(B, yb)
        """),
    # the outliers of every row are only counted and printed; the untouched table is split
    "outliers_counted_only": ("""\
        q1, q3 = table['age'].quantile(0.25), table['age'].quantile(0.75)
        print(len(table[table['age'] > q3 + 1.5 * (q3 - q1)]), "outliers")
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(A, ya).score(B, yb)
        """),
    # lag features with a walk-forward: TimeSeriesSplit trains only on earlier rows
    "lagged_series_walk_forward": ("""\
        table['lag7'] = table['visits'].shift(7)
        print(cross_val_score(Ridge(), table.drop(columns=['label']), table['label'], cv=TimeSeriesSplit(5)))
        """),
    # lag features held out by a cut-off: the last rows (shuffle=False)
    "lagged_series_last_rows_held_out": ("""\
        table['lag7'] = table['visits'].shift(7)
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'], shuffle=False)
        Ridge().fit(A, ya).score(B, yb)
        """),
    # calendar-month folds of rows with no sign of a series (no lags, no date cut-off): a seasonal grouping
    "group_kfold_over_months_of_independent_rows": ("""\
        for tr, va in GroupKFold(4).split(table, groups=table['month']):
            Ridge().fit(table.iloc[tr], table['label'].iloc[tr]).score(table.iloc[va], table['label'].iloc[va])
        """),
    # a date cut-off and group folds by store (not by calendar period)
    "forecast_cut_off_then_group_kfold_over_stores": ("""\
        past = table[table['date'] < '2016-04-25']
        for tr, va in GroupKFold(5).split(past, groups=past['store_id']):
            Ridge().fit(past.iloc[tr], past['label'].iloc[tr]).score(past.iloc[va], past['label'].iloc[va])
        """),
    # the split first, the loop over the training notes only, the vocabulary of the training notes
    "training_notes_cleaned_in_a_loop_after_the_split": ("""\
        from sklearn.feature_extraction.text import CountVectorizer
        A, B, ya, yb = train_test_split(table, table['label'])
        docs = []
        for text in A['note']:
            docs.append(text.lower())
        vec = CountVectorizer().fit(docs)
        LogisticRegression().fit(vec.transform(docs), ya).score(vec.transform(B['note']), yb)
        """),
    # lags within each breath and folds grouped by breath: every series whole on one side of each fold
    "lags_within_each_series_then_group_folds_by_series": ("""\
        table['lag1'] = table.groupby('breath_id')['flow'].shift(1)
        for tr, va in GroupKFold(5).split(table, groups=table['breath_id']):
            Ridge().fit(table.iloc[tr], table['label'].iloc[tr]).score(table.iloc[va], table['label'].iloc[va])
        """),
    # the last period held out by the maximum of the period column: a cut-off, not an outlier fence
    "last_period_held_out_by_its_maximum": ("""\
        blocks = table['block']
        last = blocks.max()
        A, B = table.loc[blocks < last], table.loc[blocks == last]
        Ridge().fit(A.drop(columns=['label']), A['label']).score(B.drop(columns=['label']), B['label'])
        """),
    # decision (3), the healthy way: oversample the training part only, score the untouched test part
    "smote_on_the_training_part_only": ("""\
        A, B, ya, yb = train_test_split(X, y)
        As, yas = SMOTE().fit_resample(A, ya)
        LogisticRegression().fit(As, yas).score(B, yb)
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


# ---------------------------------------------------------------- a model script fed variables by a sibling script

PREP = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
table = pd.read_csv("visits.csv")
X = {x}
y = table["label"]
"""
MODEL = """\
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
A, B, ya, yb = train_test_split(X, y)
print(Ridge().fit(A, ya).score(B, yb))
"""


def _session(tmp_path, files: dict[str, str], entry: str = "model.py"):
    from faultlib.detect.data.leakage import analyze_file
    from faultlib.findings import Severity

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    report, smap = analyze_file(str(tmp_path / entry))
    found = [(f.kind, f.location["file"].rsplit("/", 1)[-1], f.location["line"]) for f in report.findings
             if f.severity >= Severity.WARNING]
    return found, [name.rsplit("/", 1)[-1] for name, _, _ in (smap.files or ())]


def test_variables_only_a_sibling_sets_join_it_and_its_scaler_is_found(tmp_path):
    x = 'StandardScaler().fit_transform(table.drop(columns=["label"]))'
    found, files = _session(tmp_path, {"prep.py": PREP.format(x=x), "model.py": MODEL})
    assert files == ["prep.py", "model.py"]
    assert found == [("fit_before_split", "prep.py", 4)]


def test_variables_set_by_a_sibling_without_a_fit_are_joined_and_silent(tmp_path):
    found, files = _session(tmp_path, {"prep.py": PREP.format(x='table.drop(columns=["label"])'), "model.py": MODEL})
    assert files == ["prep.py", "model.py"] and found == []


def test_a_script_that_sets_its_own_variables_joins_no_sibling(tmp_path):
    x = 'StandardScaler().fit_transform(table.drop(columns=["label"]))'
    own = 'import pandas as pd\ntable = pd.read_csv("v.csv")\nX, y = table.drop(columns=["label"]), table["label"]\n'
    found, files = _session(tmp_path, {"prep.py": PREP.format(x=x), "model.py": own + MODEL})
    assert files == [] and found == []


def test_two_siblings_setting_the_same_variables_are_ambiguous_and_neither_is_joined(tmp_path):
    x = 'StandardScaler().fit_transform(table.drop(columns=["label"]))'
    found, files = _session(tmp_path, {"prep.py": PREP.format(x=x), "prep_other.py": PREP.format(x=x),
                                       "model.py": MODEL})
    assert files == [] and found == []


def test_a_star_import_of_a_library_may_define_anything_and_joins_nothing(tmp_path):
    x = 'StandardScaler().fit_transform(table.drop(columns=["label"]))'
    found, files = _session(tmp_path, {"prep.py": PREP.format(x=x), "model.py": "from pylab import *\n" + MODEL})
    assert files == [] and found == []


# ---------------------------------------------------------------- messages in words, --json unchanged

def test_messages_say_rows_in_words_and_json_keeps_the_notation(tmp_path):
    from faultlib.detect.data.leakage import analyze_file

    path = tmp_path / "job.py"
    path.write_text(
        "import pandas as pd\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "from sklearn.linear_model import Ridge\n"
        "from sklearn.model_selection import train_test_split, KFold\n"
        "table = pd.read_csv('visits.csv')\n"
        "table = table[table.age > 3]\n"
        "A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])\n"
        "s = StandardScaler().fit(B)\n"
        "Ridge().fit(s.transform(A), ya).score(s.transform(B), yb)\n"
        "for tr, te in KFold(5).split(A):\n"
        "    sc = StandardScaler().fit(A.iloc[te])\n"
        "    Ridge().fit(sc.transform(A.iloc[tr]), ya.iloc[tr]).score(sc.transform(A.iloc[te]), ya.iloc[te])\n")
    report, _ = analyze_file(str(path))
    by_line = {f.location["line"]: f for f in report.findings}
    assert sorted(by_line) == [8, 11]
    for f in report.findings:
        assert "@" not in f.message and "[filter" not in f.message and "[split" not in f.message, f.message
    assert "the test part of the split on line 7, of the rows of `table` selected on line 6" in by_line[8].message
    assert "the test folds of the cross-validation on line 10" in by_line[11].message
    # --json keeps the notation it always had (a contract)
    assert by_line[8].evidence["fit_rows"] == "table[filter@6][split@7:test]"
    assert by_line[11].evidence["held_out_rows"].endswith("[fold@10:test]")


# ---------------------------------------------------------------- a sibling's function imported under an alias

HELPERS = "def prepare(t):\n    return t.fillna({fill})\n"
ALIASED = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
from helpers import prepare as prep
table = prep(pd.read_csv("visits.csv"))
A, B, ya, yb = train_test_split(table.drop(columns=["label"]), table["label"])
print(Ridge().fit(A, ya).score(B, yb))
"""


def test_a_function_imported_from_a_sibling_under_an_alias_is_followed(tmp_path):
    found, files = _session(tmp_path, {"helpers.py": HELPERS.format(fill="t.mean()"), "model.py": ALIASED})
    assert files == ["helpers.py", "model.py"]
    assert found == [("fit_before_split", "helpers.py", 2)]


def test_the_aliased_function_without_a_statistic_is_silent(tmp_path):
    found, files = _session(tmp_path, {"helpers.py": HELPERS.format(fill="0"), "model.py": ALIASED})
    assert files == ["helpers.py", "model.py"] and found == []


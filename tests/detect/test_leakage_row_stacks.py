"""Oversampling by hand -- rows chosen again (selected by their label, drawn with replacement, repeated, or the same
table listed twice) stacked with the table they come from -- against row stacks that repeat no chosen row: a copy
transformed column by column (every match in both orders), arrays joined along another axis, placeholder rows, one
row's feature blocks, a single injected duplicate, a merge's parts reassembled, a subset chosen by weight; in both
directions. Every example is written for this test."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from faultlib.detect.data.leakage.choices import bindings
from faultlib.detect.data.leakage.rowdraws import (
    function_spans,
    label_columns,
    stacked_draws,
)
from tests.detect.leakage_source import alarms

_HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import KFold, cross_val_score, train_test_split

matches = pd.read_csv("matches.csv")
"""

_TAIL = """\
xs = matches[["rating_a", "rating_b"]]
ys = matches["won"]
x_fit, x_held, y_fit, y_held = train_test_split(xs, ys, test_size=0.25, random_state=4)
clf = LogisticRegression().fit(x_fit, y_fit)
print(accuracy_score(y_held, clf.predict(x_held)))
"""

# the upsets (a selection of the rows) appended twice before the split: copies land on both sides
UPSETS_REPEATED = _HEAD + """\
upsets = matches[matches["rating_a"] < matches["rating_b"]]
matches = pd.concat([matches, upsets, upsets])
""" + _TAIL

# the same table listed twice: every row doubled before the split, which parts the copies (copysplits.py)
TABLE_LISTED_TWICE = _HEAD + """\
matches = pd.concat([matches, matches])
""" + _TAIL

# every match also in the other order (the players' columns swapped, the result flipped): no row chosen
MIRRORED_ORDER = _HEAD + """\
mirrored = matches.rename(columns={"rating_a": "rating_b", "rating_b": "rating_a"})
mirrored["won"] = 1 - mirrored["won"]
matches = pd.concat([matches, mirrored])
""" + _TAIL

# one picture's grey channel repeated three times along the channel axis, a per-sample reshaping
CHANNELS_REPEATED = """\
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

grey = np.load("grey.npy")
labels = np.load("labels.npy")
rgb = np.concatenate([grey, grey, grey], axis=2)
flat = rgb.reshape(len(rgb), -1)
x_fit, x_held, y_fit, y_held = train_test_split(flat, labels, test_size=0.25, random_state=4)
clf = LogisticRegression().fit(x_fit, y_fit)
print(accuracy_score(y_held, clf.predict(x_held)))
"""


def test_a_selection_of_the_rows_stacked_again_before_the_split_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in alarms(tmp_path, UPSETS_REPEATED)


def test_the_same_table_listed_twice_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 8) in alarms(tmp_path, TABLE_LISTED_TWICE)


def test_a_copy_transformed_column_by_column_repeats_no_chosen_row(tmp_path: Path) -> None:
    assert alarms(tmp_path, MIRRORED_ORDER) == set()


def test_arrays_joined_along_another_axis_add_no_row(tmp_path: Path) -> None:
    assert alarms(tmp_path, CHANNELS_REPEATED) == set()


# --- stop 45: oversampling means rows chosen again (by their label, or drawn with replacement), not any stack of a
# table with rows derived from it (28 false alarms of the stop 43 rule, judged at stop 44)

# the matches won (a selection by the label) appended again before the split
WINS_COPIED = _HEAD + """\
wins = matches[matches["won"] == 1]
matches = pd.concat([matches, wins])
""" + _TAIL

# the matches won drawn with replacement up to the number lost, stacked with the others
WINS_DRAWN_WITH_REPLACEMENT = _HEAD + """\
others = matches[matches.won == 0]
drawn = matches[matches.won == 1].sample(n=len(others), replace=True, random_state=1)
matches = pd.concat([others, drawn])
""" + _TAIL

# random positions (NumPy's choice draws with replacement by default) stacked onto the matrix, then cross-validated
POSITIONS_DRAWN_BEFORE_CV = _HEAD + """\
xs = matches[["rating_a", "rating_b"]].to_numpy()
ys = matches["won"].to_numpy()
picks = np.random.choice(len(xs), 300)
xs_more = np.vstack([xs, xs[picks]])
ys_more = np.concatenate([ys, ys[picks]])
print(cross_val_score(LogisticRegression(), xs_more, ys_more, cv=KFold(5, shuffle=True)).mean())
"""

# the minority copied inside a hand-written fold loop's scope, but on all rows: every fold holds copies
MINORITY_COPIED_BEFORE_FOLDS = _HEAD + """\
xs = matches[["rating_a", "rating_b"]].to_numpy()
y = matches["won"].to_numpy()
xs_more = np.vstack([xs, xs[y == 1]])
y_more = np.concatenate([y, y[y == 1]])
for fit_rows, held_rows in KFold(5, shuffle=True).split(xs_more):
    clf = LogisticRegression().fit(xs_more[fit_rows], y_more[fit_rows])
    print(accuracy_score(y_more[held_rows], clf.predict(xs_more[held_rows])))
"""

# oversampling the training part only, after the split: the right way, silent
TRAINING_PART_OVERSAMPLED = _HEAD + """\
x_fit, x_held = train_test_split(matches, test_size=0.25, random_state=4)
x_fit = pd.concat([x_fit, x_fit[x_fit.won == 1]])
clf = LogisticRegression().fit(x_fit[["rating_a", "rating_b"]], x_fit["won"])
print(accuracy_score(x_held["won"], clf.predict(x_held[["rating_a", "rating_b"]])))
"""

# the labelled rows' minority copied in a table that stacks the training file and the unlabelled test file: the copies
# are training rows (the test rows have no label), so nothing is fitted on the test rows
LABELLED_MINORITY_OF_BOTH_FILES = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = pd.concat([train, test])
picks = np.random.choice(both[both.returned == 1].index, size=50, replace=False)
both = pd.concat([both, both.iloc[picks, :]])
labelled = both[both.returned.notnull()]
print(cross_val_score(LogisticRegression(), labelled[["age", "stay"]], labelled["returned"]).mean())
"""

# each match in both orders: two column picks of one table, renamed, stacked (no row chosen)
BOTH_ORDERS_BY_COLUMN_PICKS = _HEAD + """\
first = matches.loc[:, ["season", "home", "away"]]
first.columns = ["season", "team", "rival"]
first["won"] = 1
second = matches.loc[:, ["season", "away", "home"]]
second.columns = ["season", "team", "rival"]
second["won"] = 0
matches = pd.concat([first, second])
""" + _TAIL

# rows for the hours a station did not report, built from the hours it did, appended (placeholders, no row chosen)
MISSING_HOURS_APPENDED = _HEAD + """\
hours = [str(h) for h in range(24)]
for station in range(4):
    seen = np.array(matches[matches["station"] == station]["hour"])
    filler = pd.DataFrame(np.setdiff1d(hours, seen), columns=["hour"])
    filler["station"] = station
    matches = pd.concat([matches, filler])
""" + _TAIL

# one detection's feature blocks joined into its vector, the vectors stacked, then cross-validated
FEATURE_BLOCKS_OF_ONE_ROW = """\
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score


def vectors(rows):
    out = []
    for row in rows:
        out.append(np.concatenate([row["shape"], row["colour"], row["motion"]]))
    return np.vstack(out)


rows = load_rows("detections.json")
xs = vectors(rows)
ys = np.array([row["real"] for row in rows])
print(cross_val_score(LogisticRegression(), xs, ys).mean())
"""

# a single duplicate injected at one random position (a data-quality tutorial), then cross-validated
ONE_DUPLICATE_INJECTED = """\
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict

points = np.load("points.npy")
labels = np.load("labels.npy")
near = points[-1:] + np.random.rand(1, 2) * 1e-6
points = np.concatenate([points, near])
labels = np.concatenate([labels, labels[-1:]])
where = np.random.randint(0, len(points))
points = np.concatenate([points, points[where, None]])
labels = np.concatenate([labels, labels[where, None]])
print(cross_val_predict(LogisticRegression(), points, labels, cv=5))
"""

# rows kept by an inner merge beside those it dropped, reassembled (a left join by hand), then cross-validated
MERGE_PARTS_REASSEMBLED = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

users = pd.read_csv("users.csv")
logins = pd.read_csv("logins.csv")
matched = users.merge(logins, on="user", how="inner")
unmatched = users[~users.user.isin(matched.user)]
users = pd.concat([matched, unmatched])
print(cross_val_score(LogisticRegression(), users[["age"]], users["churned"]).mean())
"""

# a random subset chosen by weight (no label, no replacement) stacked onto the sample, then split
SUBSET_BY_WEIGHT_ADDED = _HEAD + """\
weight = matches["stake"] / 100.0
extra = matches[weight - 1 > np.random.rand(len(weight))]
matches = pd.concat([matches, extra])
""" + _TAIL


def test_a_selection_by_the_label_stacked_onto_its_table_before_the_split_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in alarms(tmp_path, WINS_COPIED)


def test_rows_drawn_with_replacement_stacked_with_the_rest_before_the_split_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 10) in alarms(tmp_path, WINS_DRAWN_WITH_REPLACEMENT)


def test_positions_drawn_with_replacement_stacked_before_cross_validation_are_reported(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 11) in alarms(tmp_path, POSITIONS_DRAWN_BEFORE_CV)


def test_the_minority_copied_before_a_fold_loop_is_reported_at_the_stack(tmp_path: Path) -> None:
    found = alarms(tmp_path, MINORITY_COPIED_BEFORE_FOLDS)
    assert any(line == 10 for _, line in found) and {kind for kind, _ in found} <= {"fit_outside_cv"}


def test_the_training_part_oversampled_after_the_split_is_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, TRAINING_PART_OVERSAMPLED) == set()


def test_copies_of_labelled_rows_are_not_a_fit_on_the_unlabelled_test_file(tmp_path: Path) -> None:
    assert alarms(tmp_path, LABELLED_MINORITY_OF_BOTH_FILES) == {("fit_outside_cv", 10)}


@pytest.mark.parametrize("script", [
    BOTH_ORDERS_BY_COLUMN_PICKS,  # each match in both orders, from two column picks
    MISSING_HOURS_APPENDED,  # placeholder rows for the hours not reported
    FEATURE_BLOCKS_OF_ONE_ROW,  # one row's feature blocks joined
    ONE_DUPLICATE_INJECTED,  # a single duplicate at one position (a data-quality tutorial)
    MERGE_PARTS_REASSEMBLED,  # the parts of an inner merge put together again
    SUBSET_BY_WEIGHT_ADDED,  # a random subset chosen by weight: no label, no replacement
], ids=["both-orders", "missing-hours", "feature-blocks", "one-duplicate", "merge-parts", "weighted-subset"])
def test_a_stack_of_rows_derived_from_the_table_repeats_no_chosen_row(tmp_path: Path, script: str) -> None:
    assert alarms(tmp_path, script) == set()


_HOW_CHOSEN = [
    # (lines before the stack, the stack, how each item was chosen)
    ("", "pd.concat([t, t[t['label'] == 1]])", [None, "label"]),
    ("", "pd.concat([t, t.loc[t.kind.isin(['a', 'b'])]])", [None, None]),  # 'kind' is no label
    ("", "pd.concat([t, t.query('label == 1')])", [None, "label"]),
    ("", "pd.concat([t, t.sample(frac=3)])", [None, "replacement"]),
    ("", "pd.concat([t, t.loc[t.index.repeat(t.weight)]])", [None, "replacement"]),
    ("", "np.vstack([m, np.repeat(m, 2, axis=0)])", [None, "replacement"]),
    ("", "np.vstack([m, np.tile(m, (2, 1))])", [None, "replacement"]),
    ("", "np.vstack([m, m[np.random.choice(len(m), 50)]])", [None, "replacement"]),
    ("", "np.vstack([m, m[np.random.choice(len(m), 50, replace=False)]])", [None, None]),
    ("", "np.vstack([m, m[np.random.randint(0, len(m))]])", [None, None]),  # one position: no draw of rows
    ("", "pd.concat([t, t[t.label.notnull()]])", [None, None]),  # the labelled rows: a parting, not a class
    ("few = t[t.label == 1]\nfew = few.reset_index(drop=True)\n", "pd.concat([t, few.head(20)])", [None, "label"]),
    ("few = t[t.label == 1]\nfew = pd.concat([few, few])\n", "pd.concat([t, few[:30]])", [None, "label"]),
    ("", "pd.concat([t, t])", [None, "whole"]),  # one whole table repeated: only a row-wise split parts it
    ("", "pd.concat([t, u, u])", [None, None, "twice"]),  # a table listed again beside another
    ("", "np.vstack([m, m[t['label'].values == 1]])", [None, "label"]),  # the label column as an array
    ("def grow(t):\n    return t\n\nt = t[t.label == 1]\n", "pd.concat([u, t])", [None, "label"]),
]


def _draws(source: str, call: ast.Call | None = None) -> list[str | None] | None:
    """How each item of the last statement's stack (or of ``call``) was chosen again, no target column known."""
    tree = ast.parse(source)
    return stacked_draws(call or tree.body[-1].value, bindings(tree), set(), function_spans(tree))


def test_how_each_stacked_item_was_chosen_again() -> None:
    for before, stack, expected in _HOW_CHOSEN:
        assert _draws(f"{before}out = {stack}\n") == expected, stack


def test_a_name_bound_in_another_function_is_not_read_as_the_stacked_table() -> None:
    source = ("def pick(t):\n    few = t[t.label == 1]\n    return few\n\n\n"
              "def grow(t, few):\n    return pd.concat([t, few])\n")
    tree = ast.parse(source)
    stack = tree.body[-1].body[0].value
    assert stacked_draws(stack, bindings(tree), set(), function_spans(tree)) == [None, None]


def test_a_column_bound_to_the_labels_a_model_is_fitted_on_is_the_label() -> None:
    stack = "out = pd.concat([t, t[t.fraud == 1], xs[ys == 1]])\n"
    for before, expected in (("ys = t['fraud'].values\nmodel.fit(xs, ys)\n", [None, "label", "label"]),
                             ("ys = t['fraud'].values\nmodel.fit(xs)\n", [None, None, None])):
        tree = ast.parse(before + stack)
        labels = label_columns(tree, bindings(tree), set())
        assert stacked_draws(tree.body[-1].value, bindings(tree), labels, function_spans(tree)) == expected, before

"""Oversampling by hand (a table stacked with a selection of its own rows) against row stacks that repeat no row:
a copy transformed column by column (every match in both orders), arrays joined along another axis, in both
directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

_HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

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

# the same table listed twice: every row doubled before the split
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

"""Recurring false alarms of ``check leakage`` on the whole corpus (issue 17, stop 47), by kind, in both
directions: the healthy code silent, its leaking look-alike still found at its line. Every example is written for
this test."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.samples import sample_key
from faultlib.findings import Severity

# a loyalty programme's monthly statements: several rows per member, one churn label per member; the test file
# holds other members' statements
STATEMENTS = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

rows = pd.read_csv("statements_train.csv")
labels = pd.read_csv("churn_labels.csv")
new_rows = pd.read_csv("statements_test.csv")
members = labels[["{key}"]].copy()
members["spend_mean"] = members["{key}"].map(rows.groupby("{key}")["{column}"].mean())
later = new_rows[["{key}"]].drop_duplicates()
later["spend_mean"] = later["{key}"].map(new_rows.groupby("{key}")["{column}"].mean())
model = RandomForestClassifier().fit(members[["spend_mean"]], labels["churned"])
print(model.predict(later[["spend_mean"]])[:5])
"""

# clicks of a quiz app: one prediction per play session and stage, several events per session
EVENTS = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

def summarise(events):
    parts = []
    for col in ["dwell", "x_pos"]:
        parts.append(events.groupby(["{key}", "stage"])[col].agg("mean"))
    return pd.concat(parts, axis=1)

past = pd.read_csv("events_train.csv")
fresh = pd.read_csv("events_test.csv")
answers = pd.read_csv("answers.csv")
clf = LogisticRegression().fit(summarise(past), answers["correct"])
print(clf.predict(summarise(fresh))[:3])
"""


def _alarms(tmp_path: Path, text: str) -> set[tuple[str, int | None]]:
    path = tmp_path / "kernel.py"
    path.write_text(text)
    report, _ = analyze_file(str(path))
    return {(f.kind, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


@pytest.mark.parametrize("key", ["member_ref", "customer_ID", "CustomerId", "customer"])
def test_a_customers_own_statements_are_its_features(tmp_path: Path, key: str) -> None:
    found = _alarms(tmp_path, STATEMENTS.format(key=key, column="spend"))
    assert found == set() if key != "member_ref" else ("fit_on_test", 10) in found  # an unknown key stays a fit


def test_a_per_customer_mean_of_the_label_is_still_a_fit_on_the_test_rows(tmp_path: Path) -> None:
    text = STATEMENTS.format(key="customer_ID", column="churned").replace('labels["churned"]', 'rows["churned"]')
    assert ("fit_on_test", 10) in _alarms(tmp_path, text)


def test_a_sessions_own_events_are_its_features(tmp_path: Path) -> None:
    assert _alarms(tmp_path, EVENTS.format(key="session_id")) == set()


def test_a_mean_per_cross_cutting_key_is_still_a_fit_on_the_test_rows(tmp_path: Path) -> None:
    assert ("fit_on_test", 7) in _alarms(tmp_path, EVENTS.format(key="store_id"))


@pytest.mark.parametrize(("name", "sample"), [("customer_ID", True), ("session_id", True), ("Session", True),
                                              ("user_id", False), ("store_id", False), ("card_id", False)])
def test_customer_and_session_keys_name_a_sample(name: str, sample: bool) -> None:
    assert sample_key(name) is sample


# a triage notebook: the diagnosis coded (the class names), then each fold scored with its validation rows watched
CODED = """\
import pandas as pd
from sklearn.preprocessing import {encoder}
from sklearn.model_selection import KFold
from xgboost import XGBClassifier

visits = pd.read_csv("visits.csv")
coder = {encoder}()
{coded} = coder.fit_transform(visits[["{column}"]])
{features}
for tr, va in KFold(5).split(X):
    clf = XGBClassifier().fit(X[tr], y[tr], eval_set=[(X[va], y[va])])
    print(clf.score(X[va], y[va]))
"""
_LABEL_CODED = {"coded": "y", "column": "diagnosis", "features": "X = visits.iloc[:, :-1].values"}
_FEATURE_CODED = {"coded": "ward_codes", "column": "ward",
                  "features": 'X = ward_codes\ny = visits["diagnosis"].values'}

# the mood's integer codes one-hot coded and kept as Y, the label of a Keras network
ONE_HOT_LABELS = """\
import pandas as pd
import tensorflow as tf
from sklearn.preprocessing import LabelEncoder, OneHotEncoder
from sklearn.model_selection import train_test_split

notes = pd.read_csv("notes.csv")
codes = LabelEncoder().fit_transform(notes.mood)
codes = codes.reshape(len(codes), 1)
{name} = OneHotEncoder(sparse_output=False).fit_transform(codes)
X_tr, X_te, y_tr, y_te = train_test_split({inputs}, random_state=0)
train_ds = tf.data.Dataset.from_tensor_slices((X_tr, y_tr)).batch(32)
test_ds = tf.data.Dataset.from_tensor_slices((X_te, y_te)).batch(32)
net = tf.keras.Sequential([tf.keras.layers.Dense(4)])
net.fit(train_ds, validation_data=test_ds)
"""


@pytest.mark.parametrize("encoder", ["OrdinalEncoder", "OneHotEncoder"])
def test_an_encoder_of_the_target_learns_the_class_names(tmp_path: Path, encoder: str) -> None:
    assert _alarms(tmp_path, CODED.format(encoder=encoder, **_LABEL_CODED)) == set()


@pytest.mark.parametrize("encoder", ["OrdinalEncoder", "OneHotEncoder"])
def test_an_encoder_of_a_feature_outside_the_folds_is_still_found(tmp_path: Path, encoder: str) -> None:
    assert ("fit_outside_cv", 8) in _alarms(tmp_path, CODED.format(encoder=encoder, **_FEATURE_CODED))


def test_one_hot_codes_kept_as_the_label_are_the_class_names(tmp_path: Path) -> None:
    assert _alarms(tmp_path, ONE_HOT_LABELS.format(name="Y", inputs="notes.text, Y")) == set()


def test_one_hot_codes_kept_as_a_feature_are_still_found(tmp_path: Path) -> None:
    text = ONE_HOT_LABELS.format(name="mood_cols", inputs="mood_cols, notes.liked")
    assert ("fit_before_split", 9) in _alarms(tmp_path, text)


# purged date blocks cut by hand: each pass of the loop holds one block out, after a per-shop median of every row
BLOCKS = """\
import pandas as pd
from sklearn.linear_model import Ridge

sales = pd.read_csv("sales.csv")
sales["shop_median"] = sales.groupby("shop_code")["units"].transform("median")
days = sales["day"]
{loop}
    fit_rows = sales[(days < start) | (days >= start + 40)]
    test_rows = sales[(days >= start) & (days < start + 40)]
    model = Ridge().fit(fit_rows[["shop_median", "price"]], fit_rows["units"])
    print(model.score(test_rows[["shop_median", "price"]], test_rows["units"]))
"""


@pytest.mark.parametrize("loop", ["for i in range(num_folds):\n    start = i * 40",
                                  "for fold in tqdm(range(5)):\n    start = fold * 40"])
def test_a_block_held_out_in_a_loop_counted_over_folds_is_a_fold(tmp_path: Path, loop: str) -> None:
    found = _alarms(tmp_path, BLOCKS.format(loop=loop))
    assert ("fit_outside_cv", 5) in found and not any(kind == "fit_before_split" for kind, _ in found)


@pytest.mark.parametrize("loop", ["for i in range(3):\n    start = 200 + i", "if True:\n    start = 200"])
def test_a_block_held_out_outside_a_fold_loop_is_still_a_split(tmp_path: Path, loop: str) -> None:
    assert ("fit_before_split", 5) in _alarms(tmp_path, BLOCKS.format(loop=loop))

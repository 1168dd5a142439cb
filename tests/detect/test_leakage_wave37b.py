"""The static leakage analysis on the kinds held-out wave 37b of public code showed (courses, book
companions, student capstones), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "shop.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# a LabelBinarizer one-hot encodes a feature column of every row, then the rows are split
BINARIZED_FEATURE = """\
import pandas as pd
from sklearn.preprocessing import LabelBinarizer, MultiLabelBinarizer
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

shops = pd.read_csv("shops.csv")
lb = LabelBinarizer()
region = lb.fit_transform(shops["region"])
tags = MultiLabelBinarizer().fit_transform(shops["tags"])
X = pd.concat([pd.DataFrame(region), pd.DataFrame(tags)], axis=1)
a, b, ya, yb = train_test_split(X, shops["closed"])
print(LogisticRegression().fit(a, ya).score(b, yb))
"""

# the same binarizer on the target only (its documented use), and a multi-label one with its classes written out
BINARIZED_TARGET = """\
import pandas as pd
from sklearn.preprocessing import LabelBinarizer, MultiLabelBinarizer
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

shops = pd.read_csv("shops.csv")
y = LabelBinarizer().fit_transform(shops["closed"])
tags = MultiLabelBinarizer(classes=["food", "toys", "books"]).fit_transform(shops["tags"])
a, b, ya, yb = train_test_split(pd.DataFrame(tags), y)
print(LogisticRegression().fit(a, ya).score(b, yb))
"""


def test_label_binarizers_on_feature_columns_before_the_split_are_fits(tmp_path: Path) -> None:
    alarms = _alarms(tmp_path, BINARIZED_FEATURE)
    assert ("fit_before_split", 8) in alarms and ("fit_before_split", 9) in alarms


def test_a_binarized_target_and_written_out_classes_stay_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, BINARIZED_TARGET) == set()


# a second scaler fitted on the test part alone, its score printed inside an f-string
SCORED_IN_FSTRING = """\
import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

grid = np.load("grid.npy")
a, b, ya, yb = train_test_split(grid[:, :-1], grid[:, -1])
sc = StandardScaler().fit(a)
sb = StandardScaler()
sb.fit(b)
model = SVC().fit(sc.transform(a), ya)
print(f"held-out accuracy {model.score({test}, yb):.3f}")
"""


def test_a_test_fit_scored_inside_an_fstring_reaches_the_model(tmp_path: Path) -> None:
    assert ("fit_on_test", 10) in _alarms(tmp_path, SCORED_IN_FSTRING.replace("{test}", "sb.transform(b)"))


def test_an_fstring_scoring_the_properly_scaled_test_part_stays_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, SCORED_IN_FSTRING.replace("sb.fit(b)", "sb.fit(a)").replace("{test}",
                                                                                      "sb.transform(b)")) == set()


# texts and a frame cut by one split: the vectorizer on the training texts saw the frame's training rows
SPLIT_TOGETHER = """\
import pandas as pd
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score, train_test_split

posts = pd.read_csv("posts.csv")
texts = posts.pop("body")
spam = posts.pop("spam")
p_tr, p_te, t_tr, t_te, s_tr, s_te = train_test_split(posts, texts, spam)
words = TfidfVectorizer().fit_transform({fitted})
X = hstack([p_tr.values, words])
print(cross_val_score(LogisticRegression(), X, s_tr, cv=5))
"""


def test_a_vectorizer_on_texts_split_with_the_cross_validated_frame_is_outside_cv(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 11) in _alarms(tmp_path, SPLIT_TOGETHER.replace("{fitted}", "t_tr"))


def test_a_vectorizer_on_texts_of_another_split_stays_silent(tmp_path: Path) -> None:
    other = SPLIT_TOGETHER.replace("{fitted}", "u_tr").replace(
        "words =", "u_tr, u_te = train_test_split(pd.read_csv('extra.csv')['body'])\nwords =")
    assert ("fit_outside_cv", 12) not in _alarms(tmp_path, other)


# a helper returning (train, test) encodings, called per column in a comprehension and unzipped
PER_COLUMN = """\
import pandas as pd
from scipy.sparse import hstack
from sklearn.preprocessing import OneHotEncoder
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score, train_test_split

people = pd.read_csv("people.csv")
smokes = people.pop("smokes")
tr, te, y_tr, y_te = train_test_split(people, smokes)

def encode(train, test, col):
    enc = OneHotEncoder(handle_unknown="ignore")
    return enc.fit_transform(train[[col]]), enc.transform(test[[col]])

enc_tr, enc_te = zip(*[encode(tr, te, c) for c in ["job", "city"]])
model = {model}
print(cross_val_score(model, hstack([*enc_tr]), y_tr, cv=5))
"""


def test_encodings_unzipped_from_a_comprehension_reach_the_cross_validation(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 13) in _alarms(tmp_path, PER_COLUMN.format(model="LogisticRegression()"))


def test_the_same_encodings_scored_on_the_held_out_part_only_stay_silent(tmp_path: Path) -> None:
    text = PER_COLUMN.format(model="LogisticRegression().fit(hstack([*enc_tr]), y_tr)").replace(
        "print(cross_val_score(model, hstack([*enc_tr]), y_tr, cv=5))", "print(model.score(hstack([*enc_te]), y_te))")
    assert _alarms(tmp_path, text) == set()


# values beyond a quantile of every row replaced before the split: the fence saw the held-out rows
REPLACED_AT_FENCE = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

people = pd.read_csv("people.csv")
top = {bound}
people["age"][people["age"] > top] = 60
people.loc[people["height"] < 100, "height"] = 100
smokes = people.pop("smokes")
a, b, ya, yb = train_test_split(people, smokes)
print(LogisticRegression().fit(a, ya).score(b, yb))
"""


def test_a_replacement_beyond_a_quantile_of_all_rows_is_a_fit_before_the_split(tmp_path: Path) -> None:
    assert ("fit_before_split", 6) in _alarms(tmp_path, REPLACED_AT_FENCE.format(bound='people["age"].quantile(0.995)'))


def test_a_replacement_beyond_a_written_threshold_stays_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, REPLACED_AT_FENCE.format(bound="99")) == set()


# a column shifted by the builtin min of every row (before a Box-Cox), then split
SHIFTED_BY_MIN = """\
import pandas as pd
from scipy.special import boxcox1p
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

homes = pd.read_csv("homes.csv")
price = homes.pop("price")
for col in ["area", "lot"]:
    homes[col] = boxcox1p(homes[col] - {shift} + 1e-5, 0.12)
a, b, ya, yb = train_test_split(homes, price)
print(Ridge().fit(a, ya).score(b, yb))
"""


def test_a_shift_by_the_builtin_min_of_all_rows_is_a_fit_before_the_split(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in _alarms(tmp_path, SHIFTED_BY_MIN.format(shift="min(homes[col])"))


def test_the_builtin_min_of_two_numbers_stays_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, SHIFTED_BY_MIN.format(shift="min(1, 2)")) == set()


# an xgboost EarlyStopping callback put into the parameter dictionary spread into the constructor, watching a list
# named after the keyword that ends with the test rows
SPREAD_CALLBACK = """\
import pandas as pd
from xgboost import XGBClassifier
from xgboost.callback import EarlyStopping
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

clients = pd.read_csv("clients.csv")
churn = clients.pop("churn")
X_train, X_test, y_train, y_test = train_test_split(clients, churn)
params = {"n_estimators": 400, "max_depth": 3}
eval_set = [(X_train, y_train), (X_test, y_test)]
first = XGBClassifier(**params).fit(X_train, y_train, eval_set=eval_set)
params["callbacks"] = [EarlyStopping(rounds=5, save_best=True)]
model = XGBClassifier(**params)
model.fit(X_train, y_train, eval_set=eval_set)
print(roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]))
"""


def test_an_early_stopping_callback_spread_from_a_parameter_dict_on_the_test_rows_is_tuning(tmp_path: Path) -> None:
    alarms = _alarms(tmp_path, SPREAD_CALLBACK)
    assert ("tuned_on_test", 15) in alarms
    assert ("tuned_on_test", 12) not in alarms  # the callback was set after the first model was built


def test_the_same_callback_watching_a_validation_part_stays_silent(tmp_path: Path) -> None:
    text = SPREAD_CALLBACK.replace(
        'eval_set = [(X_train, y_train), (X_test, y_test)]',
        'X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train)\neval_set = [(X_val, y_val)]')
    assert _alarms(tmp_path, text) == set()



def test_a_binarizer_on_a_name_assigned_the_target_column_stays_silent(tmp_path: Path) -> None:
    text = BINARIZED_TARGET.replace('y = LabelBinarizer().fit_transform(shops["closed"])',
                                    'f = shops["label"]\nshops["label_bin"] = LabelBinarizer().fit_transform(f)\n'
                                    'y = shops.pop("label_bin")')
    assert _alarms(tmp_path, text) == set()

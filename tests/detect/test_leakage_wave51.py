"""The static leakage analysis on the kinds held-out wave 51 of public code showed (Kaggle collections: schema-
agnostic baselines with a fallback ``return`` in an ``except``, tables built with ``pd.DataFrame(index=...)``, fold
loops driven by a fold-id column whose row labels index another matrix, data paths spelled as ``DIR + 'train.csv'``),
in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# the target parsed in a try whose handler writes a fallback and returns; the scaler and the CV come after it
FALLBACK_RETURN_THEN_SCALER_BEFORE_CV = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler


def run():
    table = pd.read_csv("orders.csv")
    try:
        label = table["churned"].astype(int)
    except ValueError:
        print("no usable label")
        return
    feats = table.drop(columns=["churned"])
    scaled = StandardScaler().fit_transform(feats)
    oof = np.zeros(len(feats))
    for part_a, part_b in StratifiedKFold(4, shuffle=True, random_state=3).split(scaled, label):
        clf = LogisticRegression().fit(scaled[part_a], label.iloc[part_a])
        oof[part_b] = clf.predict_proba(scaled[part_b])[:, 1]
    print(roc_auc_score(label, oof))


run()
"""

# the same script, the scaler inside the fold loop on its training part only
FALLBACK_RETURN_THEN_SCALER_IN_FOLDS = FALLBACK_RETURN_THEN_SCALER_BEFORE_CV.replace("""\
    scaled = StandardScaler().fit_transform(feats)
    oof = np.zeros(len(feats))
    for part_a, part_b in StratifiedKFold(4, shuffle=True, random_state=3).split(scaled, label):
        clf = LogisticRegression().fit(scaled[part_a], label.iloc[part_a])
        oof[part_b] = clf.predict_proba(scaled[part_b])[:, 1]
""", """\
    scaled = feats.to_numpy(float)
    oof = np.zeros(len(feats))
    for part_a, part_b in StratifiedKFold(4, shuffle=True, random_state=3).split(scaled, label):
        sc = StandardScaler().fit(scaled[part_a])
        clf = LogisticRegression().fit(sc.transform(scaled[part_a]), label.iloc[part_a])
        oof[part_b] = clf.predict_proba(sc.transform(scaled[part_b]))[:, 1]
""")

# a design table started as pd.DataFrame(index=rows.index), each column filled with its median over every row,
# then a stratified CV over the table
INDEXED_TABLE_FILLED_BY_MEDIANS = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold


def build(rows, names):
    made = pd.DataFrame(index=rows.index)
    for name in names:
        middle = rows[name].median()
        made[name] = rows[name].fillna(middle).astype(float)
    return made


rows = pd.read_csv("loans.csv")
label = rows["defaulted"].to_numpy()
grid = build(rows, ["income", "debt"]).to_numpy(float)
oof = np.zeros(len(label))
for part_a, part_b in StratifiedKFold(5, shuffle=True, random_state=0).split(grid, label):
    clf = LogisticRegression().fit(grid[part_a], label[part_a])
    oof[part_b] = clf.predict_proba(grid[part_b])[:, 1]
print(roc_auc_score(label, oof))
"""

# the same table with a constant fill: no statistic of any row
INDEXED_TABLE_FILLED_BY_A_CONSTANT = INDEXED_TABLE_FILLED_BY_MEDIANS.replace(
    "middle = rows[name].median()", "middle = -1.0")

# a bag of words over every training row, stacked into a sparse matrix; folds kept in a column merged in later,
# each fold's rows picked by their labels and used to index the matrix
VOCABULARY_BEFORE_FOLD_COLUMN_LOOP = """\
import pandas as pd
import xgboost as xgb
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer

ads = pd.read_json("ads_train.json")
fold_ids = pd.read_csv("fold_ids.csv")
bag = CountVectorizer(max_features=150)
words = bag.fit_transform(ads["tags"])
matrix = sparse.hstack([ads[["rooms"]], words]).tocsr()
answer = ads["interest"]
ads = pd.merge(ads, fold_ids, how="left", on="ad_id")


def one_fold(k):
    fit_rows = ads[ads["fold_no"] != k].index.tolist()
    held_rows = ads[ads["fold_no"] == k].index.tolist()
    booster = xgb.train({}, xgb.DMatrix(matrix[fit_rows, :], label=answer.iloc[fit_rows]), 50)
    print(booster.predict(xgb.DMatrix(matrix[held_rows, :])))


for k in range(1, 6):
    one_fold(k)
"""

# the same loop with the bag of words learnt from each fold's training rows
VOCABULARY_INSIDE_FOLD_COLUMN_LOOP = """\
import pandas as pd
import xgboost as xgb
from sklearn.feature_extraction.text import CountVectorizer

ads = pd.read_json("ads_train.json")
fold_ids = pd.read_csv("fold_ids.csv")
answer = ads["interest"]
ads = pd.merge(ads, fold_ids, how="left", on="ad_id")


def one_fold(k):
    fit_rows = ads[ads["fold_no"] != k].index.tolist()
    held_rows = ads[ads["fold_no"] == k].index.tolist()
    bag = CountVectorizer(max_features=150).fit(ads["tags"].iloc[fit_rows])
    booster = xgb.train({}, xgb.DMatrix(bag.transform(ads["tags"].iloc[fit_rows]), label=answer.iloc[fit_rows]), 50)
    print(booster.predict(xgb.DMatrix(bag.transform(ads["tags"].iloc[held_rows]))))


for k in range(1, 6):
    one_fold(k)
"""

# train.csv and test.csv read through a folder joined with '+' (the table named `train`); a tokenizer learns its vocabulary on every training
# row, then the training file is split and the validation RMSE printed
FOLDER_JOINED_TOKENIZER_BEFORE_VALIDATION = """\
import numpy as np
import pandas as pd
from keras.preprocessing import sequence, text
from sklearn import metrics
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

HOME = "/data/market"
TRAIN_FILE = HOME + "/raw/train.csv"
TEST_FILE = HOME + "/raw/test.csv"
train = pd.read_csv(TRAIN_FILE)
words = text.Tokenizer(num_words=20000)
words.fit_on_texts(list(train["blurb"].fillna("none").values))
t_fit, t_val, p_fit, p_val = train_test_split(train["blurb"].values, train["price"].values, test_size=0.1)
s_fit = sequence.pad_sequences(words.texts_to_sequences(t_fit), maxlen=50)
s_val = sequence.pad_sequences(words.texts_to_sequences(t_val), maxlen=50)
reg = Ridge().fit(s_fit, p_fit)
print(np.sqrt(metrics.mean_squared_error(p_val, reg.predict(s_val))))
later = pd.read_csv(TEST_FILE)
"""

# the same script, the vocabulary learnt on the training part of the split only
FOLDER_JOINED_TOKENIZER_ON_THE_FIT_PART = FOLDER_JOINED_TOKENIZER_BEFORE_VALIDATION.replace(
    'words.fit_on_texts(list(train["blurb"].fillna("none").values))\n'
    't_fit, t_val, p_fit, p_val = train_test_split(train["blurb"].values, train["price"].values, test_size=0.1)\n',
    't_fit, t_val, p_fit, p_val = train_test_split(train["blurb"].values, train["price"].values, test_size=0.1)\n'
    'words.fit_on_texts(list(t_fit))\n')


def test_a_fallback_return_in_an_except_does_not_hide_the_scaler_before_the_cv(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 17) in alarms(tmp_path, FALLBACK_RETURN_THEN_SCALER_BEFORE_CV)


def test_a_fallback_return_in_an_except_with_the_scaler_in_the_folds_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, FALLBACK_RETURN_THEN_SCALER_IN_FOLDS) == set()


def test_a_table_indexed_like_the_rows_carries_the_medians_into_the_cv(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 11) in alarms(tmp_path, INDEXED_TABLE_FILLED_BY_MEDIANS)


def test_a_table_indexed_like_the_rows_with_a_constant_fill_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, INDEXED_TABLE_FILLED_BY_A_CONSTANT) == set()


def test_fold_row_labels_index_the_matrix_a_vocabulary_of_every_row_built(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 9) in alarms(tmp_path, VOCABULARY_BEFORE_FOLD_COLUMN_LOOP)


def test_a_vocabulary_learnt_inside_the_fold_column_loop_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, VOCABULARY_INSIDE_FOLD_COLUMN_LOOP) == set()


def test_a_training_file_named_through_a_joined_folder_is_split_for_validation(tmp_path: Path) -> None:
    assert ("fit_before_split", 13) in alarms(tmp_path, FOLDER_JOINED_TOKENIZER_BEFORE_VALIDATION)


def test_a_tokenizer_on_the_fit_part_of_a_joined_folder_file_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, FOLDER_JOINED_TOKENIZER_ON_THE_FIT_PART) == set()


# monthly means of the target over the sales months and the appended test month (34, zero-filled), kept only as
# lags: the helper moves the month column by an offset (an attribute
# assignment) and is given the column name in a list; the same-month column is dropped before the time cut
MONTHLY_MEANS_KEPT_AS_LAGS = """\
import pandas as pd
from xgboost import XGBRegressor


def add_lags(frame, steps, names):
    for name in names:
        base = frame[["date_block", "store", name]]
        for s in steps:
            moved = base.copy()
            moved.columns = ["date_block", "store", name + "_lag" + str(s)]
            moved.date_block = moved.date_block + s
            frame = pd.merge(frame, moved, on=["date_block", "store"], how="left")
    return frame


grid = pd.read_csv("monthly_grid.csv")
ahead = pd.read_csv("test.csv")
ahead["date_block"] = 34
grid = pd.concat([grid, ahead], ignore_index=True)
grid.fillna(0, inplace=True)
per_month = grid.groupby(["date_block", "region"]).agg({"units": ["mean"]})
per_month.columns = ["region_units_avg"]
per_month.reset_index(inplace=True)
grid = pd.merge(grid, per_month, on=["date_block", "region"], how="left")
grid = add_lags(grid, [1, 2], ["region_units_avg"])
grid.drop(["region_units_avg"], axis=1, inplace=True)
fit_part = grid[grid.date_block < 34]
ahead_part = grid[grid.date_block == 34]
reg = XGBRegressor().fit(fit_part.drop(["units"], axis=1), fit_part["units"])
print(reg.predict(ahead_part.drop(["units"], axis=1)))
"""

# the same script with the same-month mean kept as a feature: the test month's rows carry their own mean
MONTHLY_MEANS_KEPT_UNLAGGED = MONTHLY_MEANS_KEPT_AS_LAGS.replace(
    'grid.drop(["region_units_avg"], axis=1, inplace=True)\n', "")

# train, test and an external table stacked for encodings, cut apart again (the external table counted from the
# end); a target encoder fitted per fold on the fold's rows plus the external rows, never on the test rows
STACK_CUT_FROM_THE_END_ENCODED_PER_FOLD = """\
import numpy as np
import pandas as pd
from category_encoders import TargetEncoder
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold
from sklearn.tree import DecisionTreeClassifier

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
extra = pd.read_csv("extra_source.csv")
stack = pd.concat([train, test, extra], axis=0)
stack["job_code"] = pd.factorize(stack["job"])[0]
own = stack.iloc[:len(train)].copy()
outside = stack.iloc[-len(extra):].copy()
oof = np.zeros(len(own))
for part_a, part_b in KFold(5, shuffle=True, random_state=2).split(own):
    fit_rows = pd.concat([own.iloc[part_a], outside], axis=0)
    enc = TargetEncoder()
    coded = enc.fit_transform(fit_rows[["job_code"]], fit_rows["y"])
    tree = DecisionTreeClassifier().fit(coded, fit_rows["y"])
    oof[part_b] = tree.predict_proba(enc.transform(own.iloc[part_b][["job_code"]]))[:, 1]
print(roc_auc_score(own["y"], oof))
"""

# the same stack with the test file last: the tail counted by the test file's length is the test rows
STACK_CUT_FROM_THE_END_IS_THE_TEST_FILE = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("train.csv")
extra = pd.read_csv("extra_source.csv")
test = pd.read_csv("test.csv")
stack = pd.concat([train, extra, test], axis=0)
tail = stack.iloc[-len(test):]
scaler = StandardScaler().fit(tail[["age", "fee"]])
model = LogisticRegression().fit(scaler.transform(train[["age", "fee"]]), train["y"])
print(model.predict(scaler.transform(tail[["age", "fee"]])))
"""


def test_monthly_means_kept_only_as_lags_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, MONTHLY_MEANS_KEPT_AS_LAGS) == set()


def test_a_monthly_mean_kept_unlagged_still_reaches_its_own_month(tmp_path: Path) -> None:
    assert ("fit_on_test", 21) in alarms(tmp_path, MONTHLY_MEANS_KEPT_UNLAGGED)


def test_a_stack_part_counted_from_the_end_is_that_part_only(tmp_path: Path) -> None:
    assert alarms(tmp_path, STACK_CUT_FROM_THE_END_ENCODED_PER_FOLD) == set()


def test_a_stack_tail_counted_by_the_test_file_is_the_test_rows(tmp_path: Path) -> None:
    assert ("fit_on_test", 10) in alarms(tmp_path, STACK_CUT_FROM_THE_END_IS_THE_TEST_FILE)

"""The static leakage analysis on the kinds held-out wave 54 of public code showed (applied ML in health, churn,
fraud and finance, and course labs: outlier fences in a ``for col in table`` loop, text corpora built by a loop over
``list(table.column)`` or over ``range(0, N)``, token lists filtered word by word, minority rows repeated with
``pd.concat``, a size guard ``if len(df) < 50: return None`` before the model code), in both directions. Every
example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

_FIT_AND_SCORE = """\
f_a, f_b, t_a, t_b = train_test_split(feats, target, test_size=0.25, random_state=5)
reg = LinearRegression().fit(f_a, t_a)
print(r2_score(t_b, reg.predict(f_b)))
"""

# interquartile fences of every row drop rows column by column, the loop walking the table itself (its labels)
FENCES_IN_A_LOOP_OVER_THE_TABLE = """\
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

athletes = pd.read_csv("athletes.csv").select_dtypes("number")
for name in athletes:
    low = athletes[name].quantile(0.25)
    high = athletes[name].quantile(0.75)
    width = high - low
    athletes = athletes[(athletes[name] >= low - 1.5 * width) & (athletes[name] <= high + 1.5 * width)]
target = athletes["score"]
feats = athletes.drop(columns=["score"])
""" + _FIT_AND_SCORE

# the same fences taken from the training part only, after the split
FENCES_IN_A_LOOP_AFTER_THE_SPLIT = """\
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

athletes = pd.read_csv("athletes.csv").select_dtypes("number")
fit_part, held_part = train_test_split(athletes, test_size=0.25, random_state=5)
for name in fit_part:
    low = fit_part[name].quantile(0.25)
    high = fit_part[name].quantile(0.75)
    width = high - low
    fit_part = fit_part[(fit_part[name] >= low - 1.5 * width) & (fit_part[name] <= high + 1.5 * width)]
reg = LinearRegression().fit(fit_part.drop(columns=["score"]), fit_part["score"])
print(r2_score(held_part["score"], reg.predict(held_part.drop(columns=["score"]))))
"""

# a loop over a NumPy array walks its rows: the name it binds is no column label
LOOP_OVER_AN_ARRAY_IS_NO_COLUMN_LOOP = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

athletes = pd.read_csv("athletes.csv")
grid = np.array(athletes[["height", "weight"]])
for name in grid:
    print(name.sum())
target = athletes["score"]
feats = athletes[["height", "weight"]]
""" + _FIT_AND_SCORE

_TEXT_TAIL = """\
vocab = TfidfVectorizer(max_features=400)
matrix = vocab.fit_transform(cleaned).toarray()
kinds = notes["label"]
m_a, m_b, k_a, k_b = train_test_split(matrix, kinds, test_size=0.2, random_state=2)
clf = MultinomialNB().fit(m_a, k_a)
print(accuracy_score(k_b, clf.predict(m_b)))
"""

_TEXT_HEAD = """\
import re
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB

notes = pd.read_csv("clinic_notes.csv")
drop_words = {"the", "a", "of"}
cleaned = []
"""

# a corpus built by a loop over list(notes.text) (the column read as an attribute), each note's tokens filtered
# and rejoined, then a vocabulary with a size limit learnt from every note before the split
CORPUS_FROM_AN_ATTRIBUTE_COLUMN = _TEXT_HEAD + """\
for note in list(notes.text):
    plain = re.sub("[^a-z]", " ", note.lower())
    tokens = plain.split()
    tokens = [t for t in tokens if t not in drop_words]
    stems = [t.rstrip("s") for t in tokens]
    cleaned.append(" ".join(stems))
""" + _TEXT_TAIL

# a corpus built by a loop with a literal count over the table's first rows, read by position
CORPUS_FROM_A_COUNTED_LOOP = _TEXT_HEAD + """\
for k in range(0, 800):
    plain = re.sub(pattern="[^a-z]", repl=" ", string=notes["text"][k].lower())
    tokens = [t for t in plain.split() if t not in drop_words]
    cleaned.append(" ".join(tokens))
""" + _TEXT_TAIL

# the same corpus cleaned from the training notes only, the vocabulary learnt after the split
CORPUS_OF_THE_TRAINING_NOTES = """\
import re
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB

notes = pd.read_csv("clinic_notes.csv")
fit_notes, held_notes = train_test_split(notes, test_size=0.2, random_state=2)
cleaned = []
for note in list(fit_notes.text):
    tokens = [t for t in re.sub("[^a-z]", " ", note.lower()).split() if t]
    cleaned.append(" ".join(tokens))
vocab = TfidfVectorizer(max_features=400)
clf = MultinomialNB().fit(vocab.fit_transform(cleaned), fit_notes["label"])
print(accuracy_score(held_notes["label"], clf.predict(vocab.transform(held_notes.text))))
"""

# a loop with a literal count that only prints a few notes builds nothing: no corpus, no fit on every note
FEW_NOTES_PRINTED = """\
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB

notes = pd.read_csv("clinic_notes.csv")
for k in range(0, 5):
    print(notes["text"][k])
fit_notes, held_notes = train_test_split(notes, test_size=0.2, random_state=2)
vocab = TfidfVectorizer(max_features=400)
clf = MultinomialNB().fit(vocab.fit_transform(fit_notes.text), fit_notes["label"])
print(accuracy_score(held_notes["label"], clf.predict(vocab.transform(held_notes.text))))
"""

_FRAUD_TAIL = """\
xs = claims[["amount", "visits"]]
ys = claims["fraud"]
x_a, x_b, y_a, y_b = train_test_split(xs, ys, test_size=0.2, random_state=9)
tree = DecisionTreeClassifier().fit(x_a, y_a)
print(f1_score(y_b, tree.predict(x_b)))
"""

_FRAUD_HEAD = """\
import pandas as pd
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

claims = pd.read_csv("claims.csv")
"""

# the fraud rows appended again and again to the whole table (oversampling by hand) before the split
MINORITY_REPEATED_BEFORE_THE_SPLIT = _FRAUD_HEAD + """\
frauds = claims[claims["fraud"] == 1]
for _ in range(3):
    claims = pd.concat([claims, frauds])
""" + _FRAUD_TAIL

# the training part's fraud rows repeated after the split: the held-out rows stay single
MINORITY_REPEATED_IN_THE_TRAINING_PART = _FRAUD_HEAD + """\
fit_part, held_part = train_test_split(claims, test_size=0.2, random_state=9)
frauds = fit_part[fit_part["fraud"] == 1]
fit_part = pd.concat([fit_part, frauds, frauds])
tree = DecisionTreeClassifier().fit(fit_part[["amount", "visits"]], fit_part["fraud"])
print(f1_score(held_part["fraud"], tree.predict(held_part[["amount", "visits"]])))
"""

# two different selections of one table stacked (a down-sampled majority and the minority), and columns joined
# side by side: no row appears twice
DISJOINT_SELECTIONS_STACKED = _FRAUD_HEAD + """\
honest = claims[claims["fraud"] == 0].sample(300, random_state=1)
frauds = claims[claims["fraud"] == 1]
claims = pd.concat([honest, frauds])
claims = pd.concat([claims, pd.get_dummies(claims["region"])], axis=1)
""" + _FRAUD_TAIL

# a retraining job that leaves early when the table is small, then scales every row before the split
GUARD_THEN_SCALER_BEFORE_SPLIT = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler


def retrain():
    records = pd.read_csv("lab_results.csv")
    if records.empty or len(records) < 50:
        print("too few rows")
        return None
    scaled = StandardScaler().fit_transform(records[["age", "dose"]])
    s_a, s_b, r_a, r_b = train_test_split(scaled, records["abnormal"], test_size=0.2, random_state=4)
    model = LogisticRegression().fit(s_a, r_a)
    return model.score(s_b, r_b)


retrain()
"""

# the same job with the scaler fitted on the training part
GUARD_THEN_SCALER_ON_THE_TRAINING_PART = GUARD_THEN_SCALER_BEFORE_SPLIT.replace("""\
    scaled = StandardScaler().fit_transform(records[["age", "dose"]])
    s_a, s_b, r_a, r_b = train_test_split(scaled, records["abnormal"], test_size=0.2, random_state=4)
    model = LogisticRegression().fit(s_a, r_a)
    return model.score(s_b, r_b)
""", """\
    s_a, s_b, r_a, r_b = train_test_split(records[["age", "dose"]], records["abnormal"], test_size=0.2,
                                          random_state=4)
    scaler = StandardScaler().fit(s_a)
    model = LogisticRegression().fit(scaler.transform(s_a), r_a)
    return model.score(scaler.transform(s_b), r_b)
""")

# a branch that returns a computed alternative result is no guard: the test rows it scores end the function there
EARLY_RESULT_IS_NO_GUARD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler


def evaluate(quick):
    records = pd.read_csv("lab_results.csv")
    s_a, s_b, r_a, r_b = train_test_split(records[["age", "dose"]], records["abnormal"], test_size=0.2,
                                          random_state=4)
    scaler = StandardScaler().fit(s_a)
    model = LogisticRegression().fit(scaler.transform(s_a), r_a)
    if quick:
        return model.score(scaler.transform(s_b), r_b)
    return model


evaluate(True)
"""


def test_fences_in_a_loop_over_the_table_itself_are_statistics_of_every_row(tmp_path: Path) -> None:
    found = alarms(tmp_path, FENCES_IN_A_LOOP_OVER_THE_TABLE)
    assert ("fit_before_split", 8) in found and ("fit_before_split", 9) in found


def test_fences_in_a_loop_over_the_training_part_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, FENCES_IN_A_LOOP_AFTER_THE_SPLIT) == set()


def test_a_loop_over_an_array_binds_rows_not_column_labels(tmp_path: Path) -> None:
    assert alarms(tmp_path, LOOP_OVER_AN_ARRAY_IS_NO_COLUMN_LOOP) == set()


def test_a_corpus_built_from_an_attribute_column_carries_every_note_into_the_vocabulary(tmp_path: Path) -> None:
    assert ("fit_before_split", 18) in alarms(tmp_path, CORPUS_FROM_AN_ATTRIBUTE_COLUMN)


def test_a_corpus_built_by_a_counted_loop_carries_the_notes_it_read(tmp_path: Path) -> None:
    assert ("fit_before_split", 16) in alarms(tmp_path, CORPUS_FROM_A_COUNTED_LOOP)


def test_a_corpus_of_the_training_notes_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, CORPUS_OF_THE_TRAINING_NOTES) == set()


def test_a_counted_loop_that_only_prints_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, FEW_NOTES_PRINTED) == set()


def test_minority_rows_repeated_by_concat_before_the_split_are_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in alarms(tmp_path, MINORITY_REPEATED_BEFORE_THE_SPLIT)


def test_minority_rows_repeated_in_the_training_part_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, MINORITY_REPEATED_IN_THE_TRAINING_PART) == set()


def test_disjoint_selections_and_a_column_join_repeat_no_row(tmp_path: Path) -> None:
    assert alarms(tmp_path, DISJOINT_SELECTIONS_STACKED) == set()


def test_a_size_guard_returning_nothing_does_not_hide_the_scaler_before_the_split(tmp_path: Path) -> None:
    assert ("fit_before_split", 12) in alarms(tmp_path, GUARD_THEN_SCALER_BEFORE_SPLIT)


def test_a_size_guard_with_the_scaler_on_the_training_part_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, GUARD_THEN_SCALER_ON_THE_TRAINING_PART) == set()


def test_a_branch_returning_a_score_is_no_guard_and_stays_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, EARLY_RESULT_IS_NO_GUARD) == set()

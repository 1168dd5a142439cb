"""The static leakage analysis on the kinds held-out wave 42 of public code showed (textbook companions, a
radiomics course, a trading book), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "desk.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# a hidden Markov model fitted on every day; its states become a feature of a walk-forward cross-validation
HMM_STATES_BEFORE_CV = """\
import pandas as pd
from hmmlearn.hmm import GaussianHMM
from sklearn.linear_model import Ridge
from sklearn.model_selection import TimeSeriesSplit

days = pd.read_csv("days.csv", index_col="date")
days["move"] = days["close"].pct_change()
days["swing"] = days["move"].rolling(20).std()
days["ahead"] = days["move"].shift(-5)
days = days.dropna()
states = GaussianHMM(n_components=2, random_state=0)
states.fit(days[["move", "swing"]].values)
days["state"] = states.predict(days[["move", "swing"]].values)
X = days[["move", "swing", "state"]].values
y = days["ahead"].values
for tr, te in TimeSeriesSplit(n_splits=5).split(X):
    model = Ridge().fit(X[tr], y[tr])
    print(model.score(X[te], y[te]))
"""

# the same states, with the model refitted on each fold's earlier days only
HMM_STATES_PER_FOLD = """\
import numpy as np
import pandas as pd
from hmmlearn.hmm import GaussianHMM
from sklearn.linear_model import Ridge
from sklearn.model_selection import TimeSeriesSplit

days = pd.read_csv("days.csv", index_col="date")
days["move"] = days["close"].pct_change()
days["swing"] = days["move"].rolling(20).std()
days["ahead"] = days["move"].shift(-5)
days = days.dropna()
base = days[["move", "swing"]].values
y = days["ahead"].values
for tr, te in TimeSeriesSplit(n_splits=5).split(base):
    states = GaussianHMM(n_components=2, random_state=0).fit(base[tr])
    X_tr = np.column_stack([base[tr], states.predict(base[tr])])
    X_te = np.column_stack([base[te], states.predict(base[te])])
    model = Ridge().fit(X_tr, y[tr])
    print(model.score(X_te, y[te]))
"""


def test_hmm_states_fitted_on_every_day_are_a_fit_outside_the_cv(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 12) in _alarms(tmp_path, HMM_STATES_BEFORE_CV)


def test_hmm_states_fitted_per_fold_stay_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, HMM_STATES_PER_FOLD) == set()


# a macro average read off the test confusion matrix (a metric), written by hand and saved with the others
CONFUSION_MACRO_AVERAGE = """\
import numpy as np
import pandas as pd
from sklearn import metrics
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split


def per_class(table):
    hits = np.diag(table)
    called = np.sum(table, axis=0) - hits
    missed = np.sum(table, axis=1) - hits
    return {"precision": np.mean(hits / (hits + called)), "recall": np.mean(hits / (hits + missed))}


scans = pd.read_csv("scans.csv")
X_tr, X_te, y_tr, y_te = train_test_split(scans.drop(columns="kind"), scans["kind"], test_size=0.2)
forest = RandomForestClassifier().fit(X_tr, y_tr)
table = metrics.confusion_matrix(y_te, forest.predict(X_te))
pd.DataFrame(per_class(table), index=[0]).to_csv("scores.csv", index=False)
"""

# the look-alike that is a leak: the test rows centred with their own column means before they are scored
TEST_ROWS_OWN_MEANS = """\
import numpy as np
import pandas as pd
from sklearn import metrics
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

scans = pd.read_csv("scans.csv")
X_tr, X_te, y_tr, y_te = train_test_split(scans.drop(columns="kind"), scans["kind"], test_size=0.2)
X_tr = X_tr - np.mean(X_tr, axis=0)
X_te = X_te - np.mean(X_te, axis=0)
forest = RandomForestClassifier().fit(X_tr, y_tr)
table = metrics.confusion_matrix(y_te, forest.predict(X_te))
print(np.mean(np.diag(table) / np.sum(table, axis=0)))
"""


def test_a_macro_average_of_the_test_confusion_matrix_is_a_score_not_a_fit(tmp_path: Path) -> None:
    assert _alarms(tmp_path, CONFUSION_MACRO_AVERAGE) == set()


def test_test_rows_centred_on_their_own_means_still_count(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TEST_ROWS_OWN_MEANS) == {("fit_on_test", 10)}


# each feature divided by its norm over the rows of each part on its own: the test part's norms come from the test rows
NORMALIZE_COLUMNS_PER_PART = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize
from sklearn.svm import SVC

nodules = pd.read_csv("nodules.csv")
X_tr, X_te, y_tr, y_te = train_test_split(nodules.drop(columns="y"), nodules["y"], test_size=0.2)
X_tr = normalize(X_tr, norm="l2", axis=0)
X_te = normalize(X_te, norm="l2", axis=0)
print(SVC().fit(X_tr, y_tr).score(X_te, y_te))
"""

# the default: each sample scaled to unit norm by itself, the same on both parts
NORMALIZE_SAMPLES = NORMALIZE_COLUMNS_PER_PART.replace(', axis=0)', ')')


def test_normalize_along_the_rows_of_the_test_part_is_a_fit_on_test(tmp_path: Path) -> None:
    assert _alarms(tmp_path, NORMALIZE_COLUMNS_PER_PART) == {("fit_on_test", 9)}


def test_normalize_of_each_sample_stays_silent(tmp_path: Path) -> None:
    assert "axis" not in NORMALIZE_SAMPLES
    assert _alarms(tmp_path, NORMALIZE_SAMPLES) == set()


# a Hugging Face run evaluated on the test split every epoch that keeps the best checkpoint on it
TRAINER_BEST_ON_TEST = """\
from datasets import load_dataset
from transformers import AutoModelForTokenClassification, Trainer, TrainingArguments

tagged = load_dataset("json", data_files="tagged.json")["train"]
halves = tagged.train_test_split(test_size=0.2, seed=0)
model = AutoModelForTokenClassification.from_pretrained("bert-base-cased", num_labels=5)
settings = {"output_dir": "runs", "eval_strategy": "epoch", "save_strategy": "epoch",
            "load_best_model_at_end": True, "metric_for_best_model": "f1"}
trainer = Trainer(model=model, args=TrainingArguments(**settings), train_dataset=halves["train"],
                  eval_dataset=halves["test"])
trainer.train()
print(trainer.evaluate())
"""

# look-alikes: the best checkpoint chosen on a validation split of the training half; the test split only printed
TRAINER_SILENT = """\
from datasets import load_dataset
from transformers import AutoModelForTokenClassification, Trainer, TrainingArguments

tagged = load_dataset("json", data_files="tagged.json")["train"]
halves = tagged.train_test_split(test_size=0.2, seed=0)
inner = halves["train"].train_test_split(test_size=0.1, seed=0)
model = AutoModelForTokenClassification.from_pretrained("bert-base-cased", num_labels=5)
chosen = Trainer(model=model, args=TrainingArguments("runs", eval_strategy="epoch", save_strategy="epoch",
                                                     load_best_model_at_end=True),
                 train_dataset=inner["train"], eval_dataset=inner["validation"])
chosen.train()
print(chosen.evaluate(halves["test"]))
watched = Trainer(model=model, args=TrainingArguments("runs2", eval_strategy="epoch"),
                  train_dataset=halves["train"], eval_dataset=halves["test"])
watched.train()
"""


def test_trainer_keeping_the_best_checkpoint_on_the_test_split_is_tuned_on_test(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TRAINER_BEST_ON_TEST) == {("tuned_on_test", 11)}


def test_trainer_choosing_on_validation_or_only_printing_the_test_split_stays_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TRAINER_SILENT) == set()


# a classifier's in-sample probabilities (it saw each row's own label) kept as a feature, then a split of those rows
IN_SAMPLE_SCORE_AS_FEATURE = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

loans = pd.read_csv("loans.csv")
cols = ["dti", "revol_util", "open_acc"]
knn = KNeighborsClassifier(n_neighbors=20)
knn.fit(loans[cols], loans["outcome"])
loans["risk"] = knn.predict_proba(loans[cols])[:, 0]
X_tr, X_va, y_tr, y_va = train_test_split(loans[["risk", "income"]], loans["outcome"], test_size=0.3)
forest = RandomForestClassifier().fit(X_tr, y_tr)
print(forest.score(X_va, y_va))
"""

# look-alikes: the score of a model fitted on the training part, added to the held-out part; out-of-fold scores
# as a feature; in-sample predictions only measured
SCORES_SILENT = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import cross_val_predict, train_test_split
from sklearn.neighbors import KNeighborsClassifier

loans = pd.read_csv("loans.csv")
cols = ["dti", "revol_util", "open_acc"]
train, held = train_test_split(loans, test_size=0.3)
knn = KNeighborsClassifier(n_neighbors=20).fit(train[cols], train["outcome"])
held["risk"] = knn.predict_proba(held[cols])[:, 0]
print(accuracy_score(train["outcome"], knn.predict(train[cols])))
loans["oof"] = cross_val_predict(KNeighborsClassifier(), loans[cols], loans["outcome"], cv=5, method="predict_proba")[:, 0]
X_tr, X_va, y_tr, y_va = train_test_split(loans[["oof", "income"]], loans["outcome"], test_size=0.3)
print(RandomForestClassifier().fit(X_tr, y_tr).score(X_va, y_va))
"""


def test_in_sample_predictions_kept_as_a_feature_are_a_fit_before_the_split(tmp_path: Path) -> None:
    assert _alarms(tmp_path, IN_SAMPLE_SCORE_AS_FEATURE) == {("fit_before_split", 9)}


def test_held_out_and_out_of_fold_predictions_stay_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, SCORES_SILENT) == set()

"""Leaks that live in helpers: a GroupBy kept in a variable inside a helper module, a feature list that held items
before the loop appending a helper's output, a library helper that saves the features, a search objective that
scores the test part through a helper or a method. Each leak has a healthy look-alike that must stay silent. Every
example is written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity

from tests.detect.leakage_source import alarms


def _project(root: Path, files: dict[str, str], entry: str) -> set[tuple[str, str, int]]:
    for rel, text in files.items():
        (root / rel).write_text(text)
    report, _ = analyze_file(str(root / entry))
    return {(f.kind, Path(f.location.get("file", "")).name, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


# ---------------------------------------------------------------- a GroupBy named once, reduced many times

SHOP_STATS = """\
import numpy as np
import pandas as pd


def shop_stats(past, future, value, key):
    past['part'] = 1
    future['part'] = 0
    both = past[['part', value, key]].append(future[['part', value, key]])
    by_key = both[[value, key]].groupby(key)
    sizes = pd.DataFrame(by_key.size()).reset_index()
    highs = pd.DataFrame(by_key.max()).reset_index()
    table = pd.merge(sizes, highs)
    both = pd.merge(both, table, how='left')
    return np.array(both[both['part'] == 1]), np.array(both[both['part'] == 0])


def ratio(a, b):
    return a / b
"""

SHOP_MODEL = """\
import pandas as pd
from scipy import sparse
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold
from shopstats import shop_stats

past = pd.read_csv('sales_train.csv')
y = past.pop('units')
future = pd.read_csv('sales_test.csv')
pieces = [past[['price']]]
for value in ['price', 'discount']:
    for key in ['shop', 'city']:
        if value != key:
            mine, theirs = shop_stats(past, future, value, key)
            pieces.append(mine)
X = sparse.hstack(pieces).tocsr()
for fit_rows, check_rows in KFold(4).split(X):
    model = Ridge().fit(X[fit_rows], y[fit_rows])
    print(model.score(X[check_rows], y[check_rows]))
"""


def test_a_groupby_kept_in_a_variable_of_a_helper_module_counts_and_takes_extremes_over_the_test_rows(tmp_path):
    found = _project(tmp_path, {"shopstats.py": SHOP_STATS, "shop_model.py": SHOP_MODEL}, "shop_model.py")
    assert ("fit_on_test", "shopstats.py", 10) in found  # by_key.size(): rows per key over train + test
    assert ("fit_on_test", "shopstats.py", 11) in found  # by_key.max(): a per-group table, not a range's end


ONE_FRAME_STATS = """\
import pandas as pd


def key_means(rows, value, key):
    by_key = rows[[value, key]].groupby(key)
    means = by_key.mean().reset_index()
    means.columns = [key, value + '_mean']
    counts = by_key.size().reset_index()
    counts.columns = [key, value + '_n']
    return pd.merge(means, counts)


def gain(a, b):
    return (a - b) / b
"""

ONE_FRAME_MODEL = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from keystats import key_means

train = pd.read_csv('sales_train.csv')
test = pd.read_csv('sales_test.csv')
table = key_means(train, 'price', 'shop')
train = pd.merge(train, table, how='left')
test = pd.merge(test, table, how='left')
cols = ['price', 'price_mean', 'price_n']
model = Ridge().fit(train[cols], train['units'])
print(mean_absolute_error(test['units'], model.predict(test[cols])))
"""


def test_a_helper_that_groups_the_rows_it_is_given_called_on_the_training_rows_only_is_silent(tmp_path):
    assert _project(tmp_path, {"keystats.py": ONE_FRAME_STATS, "key_model.py": ONE_FRAME_MODEL},
                    "key_model.py") == set()


UNUSED_HELPER_MODEL = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score
from shopstats import ratio

past = pd.read_csv('sales_train.csv')
past['price_per_unit'] = ratio(past['price'], past['size'])
print(cross_val_score(Ridge(), past[['price', 'price_per_unit']], past['units'], cv=4).mean())
"""


def test_a_helper_module_whose_stacking_function_is_never_called_is_silent(tmp_path):
    assert _project(tmp_path, {"shopstats.py": SHOP_STATS, "ratio_model.py": UNUSED_HELPER_MODEL},
                    "ratio_model.py") == set()


# ---------------------------------------------------------------- a feature list that held items before the loop

LISTED_BLOCKS = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold


def centred(a, b, col):
    both = pd.concat([a[[col]], b[[col]]])
    middle = both[col].median()
    return a[col] - middle, b[col] - middle


visits = pd.read_csv('visits_train.csv')
label = visits.pop('returned')
later = pd.read_csv('visits_test.csv')
columns = [visits[['age']]]
for col in ['stay', 'cost']:
    for other in ['stay', 'age']:
        if col != other:
            mine, theirs = {FIT}
            columns.append(mine)
X = np.hstack(columns)
for a, b in StratifiedKFold(5).split(X, label):
    clf = LogisticRegression().fit(X[a], label[a])
    print(clf.score(X[b], label[b]))
"""


def test_a_block_appended_under_a_branch_to_a_list_that_already_held_items_keeps_its_fit(tmp_path):
    found = alarms(tmp_path, LISTED_BLOCKS.replace("{FIT}", "centred(visits, later, col)"))
    assert ("fit_on_test", 9) in found


def test_the_same_list_with_blocks_that_no_fit_shaped_is_silent(tmp_path):
    assert alarms(tmp_path, LISTED_BLOCKS.replace("{FIT}", "visits[col], later[col]")) == set()


# ---------------------------------------------------------------- a library helper that saves the features

SAVED_VOCAB = """\
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from textkit.store import save_matrix

questions = pd.read_csv('pairs_train.csv')
unseen = pd.read_csv('pairs_test.csv')
{FIT}
save_matrix(vec.transform(questions['text']), 'tfidf_train.npz')
save_matrix(vec.transform(unseen['text']), 'tfidf_test.npz')
"""


def test_a_vocabulary_learnt_on_train_and_test_and_saved_through_a_library_helper_is_a_leak(tmp_path):
    fit = "vec = TfidfVectorizer().fit(pd.concat([questions['text'], unseen['text']]))"
    assert ("fit_on_test", 7) in alarms(tmp_path, SAVED_VOCAB.replace("{FIT}", fit))


def test_a_vocabulary_learnt_on_train_only_and_saved_for_both_parts_is_silent(tmp_path):
    assert alarms(tmp_path, SAVED_VOCAB.replace("{FIT}", "vec = TfidfVectorizer().fit(questions['text'])")) == set()


def test_a_stacked_vocabulary_only_drawn_to_a_picture_stays_a_note(tmp_path):
    text = SAVED_VOCAB.replace("{FIT}", "vec = TfidfVectorizer().fit(pd.concat([questions['text'], unseen['text']]))")
    text = text.replace("save_matrix", "save_figure")
    assert alarms(tmp_path, text) == set()


SPLIT_THEN_SAVED = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from tablekit.io import save_table

rows = pd.read_csv('patients.csv')
train, test = train_test_split(rows, test_size=0.25, random_state=3)
scaler = StandardScaler().fit(train[['age', 'bmi']])
save_table(scaler.transform(train[['age', 'bmi']]), 'train_scaled.csv')
save_table(scaler.transform(test[['age', 'bmi']]), 'test_scaled.csv')
"""


def test_train_and_test_written_separately_after_the_split_are_silent(tmp_path):
    assert alarms(tmp_path, SPLIT_THEN_SAVED) == set()


# ---------------------------------------------------------------- search objectives that score through helpers

OBJECTIVE_THROUGH_HELPER = """\
import optuna
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.svm import SVC


def fit_and_score(kind, X_fit, y_fit, X_check, y_check):
    candidates = {'forest': RandomForestClassifier(), 'linear': LogisticRegression(), 'svm': SVC()}
    model = candidates[kind]
    model.fit(X_fit, y_fit)
    return accuracy_score(y_check, model.predict(X_check))


def objective(trial, X_fit, y_fit, X_check, y_check):
    kind = trial.suggest_categorical('kind', ['forest', 'linear', 'svm'])
    score = fit_and_score(kind, X_fit, y_fit, X_check, y_check)
    return score


X_train = pd.read_csv('cells_train.csv')
y_train = X_train.pop('label')
{CHECK}
study = optuna.create_study(direction='maximize')
run = lambda trial: objective(trial, X_train, y_train, X_{PART}, y_{PART})
study.optimize(run, n_trials=50)
print(study.best_params)
"""


def test_an_objective_bound_to_a_name_that_scores_the_test_part_through_a_helper_is_reported_at_its_call(tmp_path):
    text = OBJECTIVE_THROUGH_HELPER.replace(
        "{CHECK}", "X_test = pd.read_csv('cells_test.csv')\ny_test = X_test.pop('label')").replace("{PART}", "test")
    assert ("tuned_on_test", 18) in alarms(tmp_path, text)


def test_the_same_objective_scoring_a_validation_part_is_silent(tmp_path):
    text = OBJECTIVE_THROUGH_HELPER.replace(
        "{CHECK}", "X_valid = pd.read_csv('cells_valid.csv')\ny_valid = X_valid.pop('label')").replace("{PART}",
                                                                                                     "valid")
    assert alarms(tmp_path, text) == set()


METHOD_OBJECTIVE = """\
import optuna
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import f1_score


class Search:
    def __init__(self, X_fit, y_fit, X_check, y_check):
        self.X_fit, self.y_fit, self.X_check, self.y_check = X_fit, y_fit, X_check, y_check

    def objective(self, trial):
        depth = trial.suggest_int('depth', 2, 8)
        model = GradientBoostingClassifier(max_depth=depth).fit(self.X_fit, self.y_fit)
        return f1_score(self.y_check, model.predict(self.X_check))

    def run(self):
        study = optuna.create_study(direction='maximize')
        study.optimize(self.objective, n_trials=40)
        return study.best_params


train = pd.read_csv('claims_train.csv')
test = pd.read_csv('claims_test.csv')
print(Search(train.drop(columns='fraud'), train['fraud'], test.drop(columns='fraud'), test['fraud']).run())
"""


def test_a_method_handed_to_the_optimizer_that_scores_the_test_part_is_an_objective(tmp_path):
    assert ("tuned_on_test", 14) in alarms(tmp_path, METHOD_OBJECTIVE)


# ---------------------------------------------------------------- a helper that changes the frame it is given

IN_PLACE_HELPER = """\
from sklearn.preprocessing import StandardScaler


def rescale(frame, column):
    scaler = StandardScaler()
    frame[column] = scaler.fit_transform(frame[[column]])
"""

IN_PLACE_CALLER = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from rescaling import rescale

loans = pd.read_csv('loans.csv')
{BEFORE}
fit_part, check_part = train_test_split(loans, test_size=0.3, random_state=1)
{AFTER}
model = LogisticRegression().fit(fit_part[['income']], fit_part['default'])
print(model.score(check_part[['income']], check_part['default']))
"""


def test_a_helper_that_rescales_a_column_of_the_whole_table_in_place_before_the_split_is_a_leak(tmp_path):
    caller = IN_PLACE_CALLER.replace("{BEFORE}", "rescale(loans, 'income')").replace("{AFTER}", "")
    found = _project(tmp_path, {"rescaling.py": IN_PLACE_HELPER, "loans_model.py": caller}, "loans_model.py")
    assert ("fit_before_split", "rescaling.py", 6) in found


def test_the_same_helper_called_on_the_training_part_after_the_split_is_silent(tmp_path):
    caller = IN_PLACE_CALLER.replace("{BEFORE}", "").replace("{AFTER}", "rescale(fit_part, 'income')")
    assert _project(tmp_path, {"rescaling.py": IN_PLACE_HELPER, "loans_model.py": caller}, "loans_model.py") == set()


# ---------------------------------------------------------------- a stack cut back by a column marking its tables

MARKED_STACK = """\
import pandas as pd
from sklearn.feature_selection import SelectKBest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

train = pd.read_csv('claims_train.csv')
y = train.pop('fraud')
test = pd.read_csv('claims_test.csv')
train['is_train'] = 1
test['is_train'] = 0
both = pd.concat([train, test])
both['region_n'] = both.groupby('region')['region'].transform('count')
mine = both[both['is_train'] == 1].drop(columns=['is_train'])
kept = SelectKBest(k=5).fit_transform(mine, y)
print(cross_val_score(LogisticRegression(), kept, y, cv=5).mean())
"""


def test_a_stack_cut_back_by_its_table_mark_is_the_training_part_again(tmp_path):
    found = alarms(tmp_path, MARKED_STACK)
    assert ("fit_on_test", 12) in found  # the count over both tables
    assert ("fit_outside_cv", 14) in found  # the selector saw the training rows only, then they are cross-validated
    assert ("fit_on_test", 14) not in found

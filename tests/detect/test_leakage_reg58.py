"""Labelled leaks lost between stop 56's and stop 57's rules (issue 17, regressions found at stop 58), both
directions. Every example is a small script written for this test (no public code)."""

from __future__ import annotations

from tests.detect.test_leakage_crossmodule import _alarms, _write


def _lines(tmp_path, name: str, body: str, kinds: tuple[str, ...]) -> set[int]:
    """The lines of ``kinds`` alarms in the script ``body`` written as ``name``."""
    _write(tmp_path, {name: body})
    return {line for kind, _, line in _alarms(tmp_path, name) if kind in kinds}


# --- a rebinding of a name from itself whose first value came from an unpacking (filelineage.py) ---------------

#: the unlabelled board file is cut in chunks by an unpacking, the first chunk merged with extra tables in a loop
#: (``test_a = test_a.merge(...)``: its only recorded binding), then predicted; the booster stops on the validation part
#: and prints its score every 50 rounds: that log is the only result shown
CHUNKED_BOARD = """\
import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

clicks = pd.read_csv("clicks.csv")
board = pd.read_csv("board.csv")
extras = [pd.read_csv("by_app.csv"), pd.read_csv("by_os.csv")]
X = clicks.drop(columns="bought")
y = clicks["bought"]
X_fit, X_valid, y_fit, y_valid = train_test_split(X, y, test_size=0.2)
d_fit = lgb.Dataset(X_fit, y_fit)
d_watch = lgb.Dataset(X_valid, y_valid, reference=d_fit)
booster = lgb.train({{"metric": "auc"}}, d_fit, 3000, valid_sets=[d_watch], early_stopping_rounds=40,
                    verbose_eval=50)
{chunk}
for extra in extras:
    test_a = test_a.merge(extra, on="app", how="left")
pd.DataFrame({{"bought": booster.predict(test_a[X.columns])}}).to_csv("out.csv", index=False)
"""


def test_a_stop_whose_log_is_alone_when_a_chunk_of_the_test_file_is_merged_in_a_loop(tmp_path):
    body = CHUNKED_BOARD.format(chunk="test_a, test_b = np.array_split(board, 2)")
    assert 14 in _lines(tmp_path, "clicks.py", body, ("tuned_on_test",))
    assert not _lines(tmp_path, "clicks.py", body, ("analysis_incomplete",))


def test_a_chunk_cut_from_the_labelled_rows_merged_in_a_loop_is_no_test_file(tmp_path):
    body = CHUNKED_BOARD.format(chunk="test_a = X.tail(1000)")
    assert not _lines(tmp_path, "clicks.py", body, ("tuned_on_test", "analysis_incomplete"))


# --- the test side of a stack cut back by its origin mark (filelineage.py) --------------------------------------

#: one file holds the labelled rows and the competition's test rows, told apart by a column; the booster stops on a
#: validation split of the labelled side, prints its score every 10 rounds, and predicts the other side
MARKED_STACK = """\
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split

stack = pd.read_csv("passengers_all.csv")
known = stack[stack.origin == "train"]
other = stack[stack.origin == {side!r}]
cols = [c for c in stack.columns if c not in ("origin", "survived")]
X_fit, X_valid, y_fit, y_valid = train_test_split(known[cols], known["survived"], test_size=0.2)
m_fit = xgb.DMatrix(X_fit, label=y_fit)
m_valid = xgb.DMatrix(X_valid, label=y_valid)
X_test = other[cols]
booster = xgb.train({{"eval_metric": "auc"}}, m_fit, 4000, [(m_fit, "fit"), (m_valid, "valid")],
                    early_stopping_rounds=30, verbose_eval=10)
other["survived"] = booster.predict(xgb.DMatrix(X_test))
other[["survived"]].to_csv("out.csv")
"""


def test_a_stop_whose_log_is_alone_when_the_test_side_of_a_marked_stack_is_predicted(tmp_path):
    assert 13 in _lines(tmp_path, "stack.py", MARKED_STACK.format(side="test"), ("tuned_on_test",))


def test_predicting_a_labelled_side_of_a_marked_stack_is_scoring_by_eye(tmp_path):
    assert not _lines(tmp_path, "stack.py", MARKED_STACK.format(side="valid"), ("tuned_on_test",))


# --- a project transformer whose fit is empty but whose transform learns (idlefits.py) -------------------------

#: a step with an empty fit, fitted on the training part before a search's folds; {transform} is its transform body
EMPTY_FIT = """\
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import RandomForestRegressor
from sklearn.impute import SimpleImputer
from sklearn.model_selection import RandomizedSearchCV, train_test_split
from sklearn.pipeline import Pipeline


class FillGaps(BaseEstimator, TransformerMixin):
    def fit(self, X, y=None):
        return self

    def transform(self, X):
        num = X.select_dtypes("number").columns
        {transform}
        return X


homes = pd.read_csv("homes.csv")
X_train, X_test, y_train, y_test = train_test_split(homes.drop(columns="price"), homes["price"], test_size=0.2)
prep = Pipeline([("fill", FillGaps())])
X_ready = prep.fit_transform(X_train)
search = RandomizedSearchCV(RandomForestRegressor(), {{"max_depth": [4, 8, None]}}, cv=4, n_iter=3)
search.fit(X_ready, y_train)
print(search.best_score_)
"""


def test_a_transform_that_fits_an_imputer_on_its_rows_is_a_fit_before_the_folds(tmp_path):
    body = EMPTY_FIT.format(transform='X[num] = SimpleImputer(strategy="median").fit_transform(X[num])')
    assert 22 in _lines(tmp_path, "homes.py", body, ("fit_outside_cv",))


def test_a_transform_that_takes_a_mean_of_its_rows_is_a_fit_before_the_folds(tmp_path):
    body = EMPTY_FIT.format(transform='X["area"] = X["area"].fillna(X["area"].mean())')
    assert 22 in _lines(tmp_path, "homes.py", body, ("fit_outside_cv",))


def test_a_transform_that_only_computes_row_by_row_learns_nothing(tmp_path):
    body = EMPTY_FIT.format(transform='X[num] = X[num].fillna(0).clip(lower=0)')
    assert not _lines(tmp_path, "homes.py", body, ("fit_outside_cv", "fit_before_split"))


def test_a_fit_that_counts_words_over_its_rows_learns():
    import ast

    from faultlib.detect.data.leakage.idlefits import idle_fit

    def fit_of(body: str) -> ast.FunctionDef:
        return ast.parse(f"def fit(self, X, y=None):\n{body}\n    return self").body[0]  # type: ignore[return-value]

    vocabulary = ("    total = Counter()\n    for counts in X:\n        for word, n in counts.items():\n"
                  "            total[word] += n\n    self.vocab_ = {w: i for i, (w, _) in enumerate(total.most_common())}")
    assert not idle_fit(fit_of(vocabulary))
    assert idle_fit(fit_of("    self.cols_ = []\n    for c in X.columns:\n        self.cols_.append(c)"))

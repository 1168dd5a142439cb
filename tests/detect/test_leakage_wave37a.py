"""The static leakage analysis on the kinds wave 37a of public code showed (issue 17, stop 37), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity


def _alarms(tmp_path: Path, code: str, kind: str) -> list[int]:
    script = tmp_path / "trainer.py"
    script.write_text(textwrap.dedent(code))
    report, _ = analyze_file(str(script))
    return sorted(f.location["line"] for f in report.findings
                  if f.kind == kind and f.severity >= Severity.WARNING)


# one fold of a K-fold moved into a method: it receives two position arrays into the same table (and hands the
# model back; a score on the fold's own rows would be the reported one, house since wave 70,
# tests/test_leakage_earlystop_scored.py)
FOLD_METHOD = """\
import pandas as pd
from catboost import CatBoostClassifier, Pool
from sklearn.metrics import roc_auc_score

COLS = ["age", "income", "debt"]


class FoldRunner:
    def run_fold(self, table, fit_rows, test_rows):
        fit_pool = Pool(table[COLS].iloc[fit_rows].to_numpy(), label=table["label"].iloc[fit_rows].to_numpy())
        test_pool = Pool(table[COLS].iloc[test_rows].to_numpy(), label=table["label"].iloc[test_rows].to_numpy())
        booster = CatBoostClassifier(iterations=300)
        booster.fit(fit_pool, eval_set=test_pool)
        return booster
"""

# the same method handed a prepared test table: its rows choose the number of rounds, then it scores them
TEST_TABLE_METHOD = """\
import pandas as pd
from catboost import CatBoostClassifier, Pool
from sklearn.metrics import roc_auc_score

COLS = ["age", "income", "debt"]


class HoldoutRunner:
    def run(self, table, fit_rows, test_table):
        fit_pool = Pool(table[COLS].iloc[fit_rows].to_numpy(), label=table["label"].iloc[fit_rows].to_numpy())
        test_pool = Pool(test_table[COLS].to_numpy(), label=test_table["label"].to_numpy())
        booster = CatBoostClassifier(iterations=300)
        booster.fit(fit_pool, eval_set=test_pool)
        return roc_auc_score(test_table["label"], booster.predict_proba(test_pool)[:, 1])
"""

# positions, but the evaluation rows are the training rows' own positions: nothing held out, nothing to stop on
SAME_ROWS_METHOD = """\
import pandas as pd
from catboost import CatBoostClassifier, Pool

COLS = ["age", "income", "debt"]


def run(table, fit_rows, test_table):
    fit_pool = Pool(table[COLS].iloc[fit_rows].to_numpy(), label=table["label"].iloc[fit_rows].to_numpy())
    test_pool = Pool(test_table[COLS].iloc[fit_rows].to_numpy(), label=test_table["label"].iloc[fit_rows].to_numpy())
    booster = CatBoostClassifier(iterations=300)
    booster.fit(fit_pool, eval_set=test_pool)
    return booster
"""


def test_a_fold_body_in_a_method_stops_on_its_fold_silently(tmp_path: Path) -> None:
    assert _alarms(tmp_path, FOLD_METHOD, "tuned_on_test") == []


def test_a_method_handed_a_test_table_is_still_tuned_on_test(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TEST_TABLE_METHOD, "tuned_on_test") == [13]


def test_positions_shared_by_training_and_evaluation_are_no_fold(tmp_path: Path) -> None:
    # the rule needs two different position arrays; one array for both is not a fold's held-out part
    from faultlib.detect.data.leakage.foldbodies import fold_body
    import ast

    tree = ast.parse(SAME_ROWS_METHOD)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "fit")
    bindings: dict[str, list[ast.expr]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name):
            bindings.setdefault(n.targets[0].id, []).append(n.value)
    assert not fold_body(tree, call, call.args[0], [call.keywords[0].value], bindings)


# RankGauss by hand over the training and test tables stacked, handed back as a list built in a loop
RANKS = """\
import pandas as pd
from scipy.stats import rankdata
from sklearn.linear_model import LogisticRegression


def normal_ranks(tables, cols):
    stacked = pd.concat(tables, axis=0)
    for c in cols:
        stacked[c] = rankdata(stacked[c]) / len(stacked)
    pieces, at = [], 0
    for t in tables:
        pieces.append(stacked[at:at + len(t)].copy())
        at += len(t)
    return pieces


fit_part = pd.read_csv("fit_part.csv")
test = pd.read_csv("test.csv")
label = fit_part.pop("label")
fit_part, test = normal_ranks({tables}, list(test.columns))
clf = LogisticRegression().fit(fit_part, label)
print(clf.predict_proba(test)[:, 1])
"""


def test_ranks_over_train_and_test_stacked_are_fit_on_test(tmp_path: Path) -> None:
    assert _alarms(tmp_path, RANKS.replace("{tables}", "[fit_part, test]"), "fit_on_test") == [9]


def test_ranks_of_the_training_table_alone_are_silent(tmp_path: Path) -> None:
    # the same helper over the training table only: its ranks shape no test row
    code = RANKS.replace("{tables}", "[fit_part]").replace("fit_part, test = normal_ranks", "(fit_part,) = normal_ranks")
    assert _alarms(tmp_path, code, "fit_on_test") == []


def test_unpacking_a_frame_is_left_alone(tmp_path: Path) -> None:
    # a frame unpacks into its column labels, not blocks of rows: nothing to follow (no alarm, no crash)
    code = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler

both = pd.concat([pd.read_csv("a.csv"), pd.read_csv("test.csv")])
first, second = both
print(StandardScaler().fit_transform(both[[first]]).shape)
"""
    assert _alarms(tmp_path, code, "fit_on_test") == []


DIRECT_RANKS = """\
import pandas as pd
from scipy.stats import rankdata
from sklearn.linear_model import Ridge

fit_part = pd.read_csv("fit_part.csv")
test = pd.read_csv("test.csv")
target = fit_part.pop("price")
both = pd.concat([fit_part, test])
both["area"] = rankdata(both["area"]{axis})
model = Ridge().fit(both[:len(fit_part)], target)
print(model.predict(both[len(fit_part):]))
"""


def test_rankdata_of_a_stacked_column_is_a_fit(tmp_path: Path) -> None:
    assert _alarms(tmp_path, DIRECT_RANKS.replace("{axis}", ""), "fit_on_test") == [9]


def test_rankdata_along_each_row_is_no_fit(tmp_path: Path) -> None:
    # ranks within one row (axis=1) compare a row's own values: nothing learnt from other rows
    assert _alarms(tmp_path, DIRECT_RANKS.replace("{axis}", ", axis=1"), "fit_on_test") == []


# every table of a folder loaded in one loop, each bound through globals() to its file's stem
DYNAMIC = """\
from pathlib import Path

import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

for f in Path("data").glob("loans_*.csv"):
    globals()[f.stem] = pd.read_csv(f)
train = loans_train
y = train.pop("default")
{body}
"""

OUTSIDE = """\
train[["income", "debt"]] = StandardScaler().fit_transform(train[["income", "debt"]])
print(cross_val_score(LogisticRegression(), train, y, cv=StratifiedKFold(5)).mean())
"""

INSIDE = """\
model = make_pipeline(StandardScaler(), LogisticRegression())
print(cross_val_score(model, train, y, cv=StratifiedKFold(5)).mean())
"""


def test_a_table_bound_through_globals_is_followed(tmp_path: Path) -> None:
    assert _alarms(tmp_path, DYNAMIC.replace("{body}", OUTSIDE), "fit_outside_cv") == [13]


def test_a_table_bound_through_globals_scaled_inside_the_pipeline_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, DYNAMIC.replace("{body}", INSIDE), "fit_outside_cv") == []


def test_only_names_bound_nowhere_else_are_dynamic(tmp_path: Path) -> None:
    from faultlib.detect.data.leakage.dynglobals import dynamic_global_names
    import ast

    tree = ast.parse(DYNAMIC.replace("{body}", OUTSIDE))
    assert dynamic_global_names(tree) == {"loans_train"}
    assert dynamic_global_names(ast.parse("x = undefined_name\n")) == frozenset()


def test_a_rank_average_of_predictions_is_no_fit(tmp_path: Path) -> None:
    # ranks of each model's test predictions, averaged into the submission: outputs combined, no feature fitted
    code = """\
import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier

fit_part = pd.read_csv("fit_part.csv")
test = pd.read_csv("test.csv")
y = fit_part.pop("label")
lr_test = np.zeros(len(test))
rf_test = np.zeros(len(test))
for seed in range(3):
    lr_test += LogisticRegression().fit(fit_part, y).predict_proba(test)[:, 1] / 3
    rf_test += RandomForestClassifier(random_state=seed).fit(fit_part, y).predict_proba(test)[:, 1] / 3
blend = (rankdata(lr_test) + rankdata(rf_test)) / (2 * len(lr_test))
pd.DataFrame({"label": blend}).to_csv("submission.csv", index=False)
"""
    assert _alarms(tmp_path, code, "fit_on_test") == []

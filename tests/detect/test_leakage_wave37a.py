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


# one fold of a K-fold moved into a method: it receives two position arrays into the same table
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
        return roc_auc_score(table["label"].iloc[test_rows], booster.predict_proba(test_pool)[:, 1])
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

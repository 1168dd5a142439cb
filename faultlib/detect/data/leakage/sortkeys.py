"""Which collected score a loop's choice is made by, for the static leakage analysis's cross-validation choices.

A loop over candidate models often records several scores per model in one row (``results.append({'F1': f1,
'CV Accuracy': cv_score})``) and then picks the best row by one of them (``results_df.sort_values('F1')``,
then ``.iloc[0]``). A cross-validation over all rows inside that loop (``cv_score = cross_val_score(clf, X, y)
.mean()``) chooses the model only when its column is the one sorted by; sorted by another score, the CV's mean is
shown beside the others and picks nothing (the choice is that other score's finding, if it is one:
``tuned_on_test`` for a test score). When the columns or the sort key are not literal strings, the choice is
taken to include the CV (as before).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def _assigned_names(tree: ast.Module, line: int) -> set[str]:
    """Names assigned by the statement on ``line`` (``cv_score = cross_val_score(...).mean()``)."""
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and n.lineno <= line <= (n.end_lineno or n.lineno):
            return {t.id for t in n.targets if isinstance(t, ast.Name)}
    return set()


def _sort_keys(tree: ast.Module, after: int) -> set[str] | None:
    """Literal ``sort_values`` keys used after line ``after`` (``None``: one is not a literal string)."""
    keys: set[str] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "sort_values" and \
                n.lineno > after:
            by = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "by"), None)
            if not (isinstance(by, ast.Constant) and isinstance(by.value, str)):
                return None
            keys.add(by.value)
    return keys


def chosen_by_another_score(tree: ast.Module, loop_start: int, loop_end: int, cv_line: int) -> bool:
    """The cross-validation on ``cv_line`` (inside the loop ``loop_start..loop_end``) fills a column of the
    collected rows that the later sort does not use (see the module docstring)."""
    names = _assigned_names(tree, cv_line)
    if not names:
        return False
    columns: set[str] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Dict) and loop_start <= n.lineno <= loop_end:
            for key, value in zip(n.keys, n.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and any(
                        isinstance(v, ast.Name) and v.id in names for v in ast.walk(value)):
                    columns.add(key.value)
    keys = _sort_keys(tree, loop_end)
    return bool(columns) and bool(keys) and not columns & keys


__all__ = ["chosen_by_another_score"]

"""Features computed from the same row's target, for the static leakage analysis (kind ``target_in_features``).

Forecasting notebooks build "momentum" features from the very column they predict::

    prices["ret_1"] = prices["close"].pct_change()          # (close_t - close_t-1) / close_t-1
    prices["ma_5"] = prices["close"].rolling(5).mean()       # the mean of close_t-4 ... close_t
    X, y = prices.drop(columns=["close"]), prices["close"]
    model.fit(X_train, y_train)

Each of these values holds the row's own target: ``pct_change``, ``diff`` and a trailing window (``rolling``,
``ewm``, ``expanding``) end at the current row (pandas API reference: ``Series.diff`` "first discrete difference
of element", ``Series.rolling`` windows are labelled at their right edge, ``closed='right'`` by default), so
``close_t = close_t-1 * (1 + ret_1)`` is recoverable from the inputs and the model is scored on an answer it was
given (Kaufman, Rosset, Perlich & Stitelman, "Leakage in data mining", TKDD 2012: a feature that is a function of
the target; Kapoor & Narayanan, Patterns 2023, "features that are proxies of the outcome"). No split fixes it; the
fix is a lag, ``prices["close"].shift(1).rolling(5).mean()``. No other kind fits: nothing is fitted and no row
crosses a split.

:func:`target_features` finds a column stored into a table, ``T[new] = <expr>``, whose expression reads a target
column of the script (:func:`~.targets.target_columns`: ``y = df['close']``, ``fit(X, df.close)``) through
``diff``, ``pct_change`` or a ``rolling``/``ewm``/``expanding`` window (not ``closed='left'``) and never through
``shift`` (a lag, or a lead: another question), when

* the target column is bound once in the whole script (a script that rebinds it, ``df['close'] =
  df['close'].shift(-1)``, predicts something else), and ``new`` is not itself a target;
* and ``new`` reaches the model's inputs: a table with the target dropped (``T.drop(columns=[target])``,
  ``T.drop(target, axis=1)``) that is fitted or split, with ``new`` in no list of dropped columns; or a literal
  list of column names holding ``new`` and not the target.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage.bands import column_of
from faultlib.detect.data.leakage.reportedlines import ReportedLines
from faultlib.detect.data.leakage.targets import target_columns
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

_CURRENT = frozenset({"diff", "pct_change"})
_WINDOWS = frozenset({"rolling", "ewm", "expanding"})


@dataclass(frozen=True)
class TargetFeature:
    """A column (``column``) stored on ``line`` from the target column ``target`` of the same row (``how``)."""

    line: int
    column: str
    target: str
    how: str


def _call_name(node: ast.AST) -> str:
    return node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else ""


def _reads_target(expr: ast.expr, targets: set[str]) -> tuple[str, str] | None:
    """``(target, how)`` when ``expr`` computes a time operation ending at the current row on a target column."""
    calls = [n for n in ast.walk(expr) if isinstance(n, ast.Call)]
    if any(_call_name(c) == "shift" for c in calls):
        return None
    for call in calls:
        name = _call_name(call)
        if name not in _CURRENT and name not in _WINDOWS:
            continue
        if name in _WINDOWS and any(k.arg == "closed" and isinstance(k.value, ast.Constant) and k.value.value in (
                "left", "neither") for k in call.keywords):
            continue
        receiver = call.func.value  # type: ignore[attr-defined]
        column = column_of(receiver)
        if column in targets:
            return column, name  # type: ignore[return-value]
    return None


def _root(node: ast.expr) -> str | None:
    """The name a row or column selection starts from (``X[:cut]``, ``X.iloc[idx]``, ``X.values``)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _dropped_names(call: ast.Call) -> set[str] | None:
    """The column names a ``drop`` call removes (``None``: not a drop of literal names)."""
    if _call_name(call) != "drop":
        return None
    given = [*call.args[:1], *(k.value for k in call.keywords if k.arg in ("columns", "labels"))]
    names: set[str] = set()
    for node in given:
        items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
        for item in items:
            if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                return None
            names.add(item.value)
    return names or None


def _feature_tables(tree: ast.AST, target: str) -> tuple[list[set[str]], list[set[str]]]:
    """(columns left out by each drop of ``target`` whose table is fitted or split, literal column lists without
    ``target``)."""
    used = {root for n in walk_once(tree) if isinstance(n, ast.Call) and (
        _call_name(n) in ("fit", "fit_transform") or isinstance(n.func, ast.Name) and n.func.id == "train_test_split")
        for a in n.args[:1] if (root := _root(a)) is not None}
    drops, lists = [], []
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            names = {t.id for t in node.targets if isinstance(t, ast.Name)} | {
                e.id for t in node.targets if isinstance(t, ast.Tuple) for e in t.elts if isinstance(e, ast.Name)}
            dropped = _dropped_names(node.value)
            if dropped is not None and target in dropped and names & used:
                drops.append(dropped)
        elif isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            items = {e.value for e in node.elts}  # type: ignore[attr-defined]
            if target not in items:
                lists.append(items)
    return drops, lists


def target_features(tree: ast.Module) -> list[TargetFeature]:
    """Every column of the same row's target that reaches the model's inputs (see the module docstring)."""
    targets = {t for t in target_columns(tree)[0] if isinstance(t, str)}
    if not targets:
        return []
    stores: dict[str, int] = {}
    found: list[tuple[ast.Assign, str]] = []
    for node in walk_once(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                column = column_of(t) if isinstance(t, ast.Subscript) else None
                if column is not None:
                    stores[column] = stores.get(column, 0) + 1
                    found.append((node, column))
    out = []
    for node, column in found:
        hit = _reads_target(node.value, targets) if column not in targets else None
        if hit is None or stores.get(hit[0], 0) > 1:
            continue
        drops, lists = _feature_tables(tree, hit[0])
        if any(column not in d for d in drops) or any(column in items for items in lists):
            out.append(TargetFeature(node.lineno, column, *hit))
    return out


def target_feature_findings(tree: ast.Module, smap: Any, findings: list[Finding], function_at: Any) -> list[Finding]:
    """:func:`target_features` as ``target_in_features`` findings, leaving out a line already reported so."""
    reported = ReportedLines(findings)
    out: list[Finding] = []
    for t in target_features(tree):
        what = f"a {t.how} window" if t.how in _WINDOWS else f"{t.how}()"
        out += reported.finding(
            "target_in_features", Severity.WARNING,
            f"column `{t.column}` ({smap.describe(t.line)}) is computed from the target `{t.target}` of the same row "
            f"({what} ends at the current row) and is an input of the model that predicts `{t.target}`: the answer "
            f"is in its features. Fix: lag it (`.shift(1)` before the {t.how}) so each row sees only earlier targets",
            {**smap.where(t.line), "function": function_at(tree, t.line)},
            {"column_name": t.column, "target": t.target, "operation": t.how})
    return out


__all__ = ["TargetFeature", "target_feature_findings", "target_features"]

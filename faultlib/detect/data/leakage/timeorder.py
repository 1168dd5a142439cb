"""Which evaluations keep time order, for the static leakage analysis's ``shuffled_time_split``.

Policy (owner's decision, stop 34). Rows of a **time series with lag, rolling or other time-ordered features**
(``shift``, ``rolling``, ``diff``, ``ewm``, ``expanding``, ``pct_change``, overlapping windows) evaluated by a
splitter that **does not keep time order** train on the future of the rows they are scored on: a leak, whether the
folds are shuffled or not. A fold of ``KFold`` (shuffled or not), ``StratifiedKFold``, ``GroupKFold`` over months,
``ShuffleSplit``, ``LeaveOneOut`` or a CV function's default folds is scored by a model that saw the rows after it;
with lag features, a later row's lags *are* the scored rows' targets (a 28-day lag of day ``t + 28`` is day ``t``'s
demand), so the model has read the answers. Only a **walk-forward** keeps the order: ``TimeSeriesSplit``, a date
cut-off (``df[df.date < '2016-04-25']``), ``train_test_split(shuffle=False)`` (the last rows held out), a
``PredefinedSplit`` (the user's own folds, not judged). Why not follow Bergmeir, Hyndman & Koo (2018, "A note on
the validity of cross-validation for evaluating autoregressive time series prediction"), who show K-fold CV can
be valid for a purely autoregressive model whose residuals are uncorrelated: the analysis cannot see either
condition, the scikit-learn user guide ("Cross-validation of time series data") and the ASE'22 leakage taxonomy
("time series split with shuffling", issue 17) ask for a walk-forward, and a walk-forward is never wrong.

Folds of **whole series** keep each series' past and future on one side: ``GroupKFold`` (or any ``groups=``) over
a series id (a breath, a patient, a store) scores series the model never saw, the lags of a row are its own
series' past, and time order across series does not matter. Groups that are calendar periods split one
timeline instead, and stay a leak.

What shows a series:

* time-ordered features computed in the script (:data:`~faultlib.detect.data.leakage.vocab.TEMPORAL`, sliding
  windows: :mod:`.windows`), noted on the table's rows (:mod:`.design`);
* or, when the features are built elsewhere (read from files), the script's own design: the folds are
  **calendar periods** (``groups=df['month'].astype(str) + df['year'].astype(str)``) and the held-out set is the
  rows after a **date cut-off** written in the script (a forecast). Calendar-period groups alone (a seasonal
  grouping of independent rows) and a cut-off alone stay silent.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

#: splitters whose folds are in time order (or the user's own): the rest train on later rows than they score
ORDERED_SPLITTERS = frozenset({"TimeSeriesSplit", "PredefinedSplit"})
#: a column that names a calendar period (``month``, ``year``, ``week_of_year``, ``quarter``, ``date``)
CALENDAR_COLUMN = re.compile(r"(?i:(^|_)(month|year|week|weekofyear|quarter|date|yearmonth|period)s?($|_))"
                             r"|[a-z](Month|Year|Date|Week)$")
#: a date written as text: ``'2016-04-25'``, ``'2016/04'``
_DATE_TEXT = re.compile(r"^\d{4}[-/]\d{1,2}([-/]\d{1,2})?")


def keeps_time_order(cv: Any) -> bool:
    """``cv`` (an ``Est`` splitter, or what a CV function's ``cv=`` got) makes folds in time order."""
    return getattr(cv, "category", None) == "splitter" and getattr(cv, "cls", None) in ORDERED_SPLITTERS


def groups_argument(node: ast.Call | None) -> ast.expr | None:
    """``groups=`` of ``split(X, y, groups)`` / ``cross_val_score(..., groups=g)``: the expression, if given."""
    if node is None:
        return None
    given = next((k.value for k in node.keywords if k.arg == "groups"), None)
    if given is None and isinstance(node.func, ast.Attribute) and node.func.attr == "split" and len(node.args) > 2:
        given = node.args[2]
    return given


def _columns(expr: ast.expr) -> set[str]:
    out = set()
    for n in ast.walk(expr):
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
            out.add(n.slice.value)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr not in ("dt", "astype", "str"):
            out.add(n.attr)
    return out


def calendar_groups(expr: ast.expr | None, tree: ast.Module) -> list[str]:
    """The calendar columns the groups are built from (``df['month']``, or a variable assigned from them): the
    folds are calendar periods. Empty when the groups are anything else (an id, unknown)."""
    if expr is None:
        return []
    sources = [expr]
    if isinstance(expr, ast.Name):
        sources += _assigned(tree).get(expr.id, [])
    names = set().union(*(_columns(s) for s in sources))
    return sorted(c for c in names if CALENDAR_COLUMN.search(c) and not vocab.ID_COLUMN.search(c))


def _assigned(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """``{name: [value, ...]}`` of every ``name = value`` (a target among several included) in the tree, in walk
    order; built once per tree (kept on the tree node; a tree is not changed once parsed)."""
    found = tree.__dict__.get("_faultlib_assigned")
    if found is None:
        found = tree.__dict__["_faultlib_assigned"] = {}
        for n in walk_once(tree):
            if isinstance(n, ast.Assign):
                for name in dict.fromkeys(t.id for t in n.targets if isinstance(t, ast.Name)):
                    found.setdefault(name, []).append(n.value)
    return found


def _date_side(expr: ast.expr) -> bool:
    name = expr.slice.value if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) else \
        expr.attr if isinstance(expr, ast.Attribute) else None
    return isinstance(name, str) and bool(vocab.DATE_COLUMN.search(name))


def _date_literal(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Call) and expr.args:  # pd.Timestamp('2016-04-25'), pd.to_datetime('2016-04-25')
        expr = expr.args[0]
    return isinstance(expr, ast.Constant) and isinstance(expr.value, str) and bool(_DATE_TEXT.match(expr.value))


def date_cutoff(tree: ast.Module) -> int | None:
    """The line of the first comparison of a date column with a written date (``df['date'] >= '2016-05-23'``): the
    script holds out the rows after a cut-off, a forecast. ``None`` when there is none."""
    for n in walk_once(tree):
        if isinstance(n, ast.Compare) and len(n.comparators) == 1:
            left, right = n.left, n.comparators[0]
            if _date_side(left) and _date_literal(right) or _date_side(right) and _date_literal(left):
                return n.lineno
    return None


__all__ = ["CALENDAR_COLUMN", "ORDERED_SPLITTERS", "calendar_groups", "date_cutoff", "groups_argument",
           "keeps_time_order"]

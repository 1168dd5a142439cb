"""Statistics of a feature builder called once per cut date, for the static leakage analysis.

A forecasting script on a wide table (one row per series, one column per day) often builds every data set with one
function that takes a cut date, reads only the days before it, and returns the features (and the next days as the
target):

    def features_at(cut, with_target=True):
        recent = window(sales, cut, 28)                   # the 28 days before cut
        per_sku = recent.mean(axis=1).groupby("sku").mean()
        ...
    X_train = pd.concat([features_at(first - timedelta(days=7 * k)) for k in range(6)])
    X_valid, y_valid = features_at(date(2021, 5, 24))

Every set holds the same rows (the series); what tells them apart is the cut date, a split in time. The group mean
over the days before a cut is known at that cut (scikit-learn user guide, "Cross-validation of time series data":
train on the past, test on what follows), so it is a feature of that set, recomputed per set, and no statistic fitted
before a split. :func:`cut_window_reductions` names such reduction calls so that the analysis does not take them for
hand-written fits (:mod:`.design`).

What counts, read from the code alone:

* a *cut parameter*: a parameter of a function of the script that receives a date at two call sites or more (a date
  literal ``date(2017, 7, 26)``, ``datetime``/``pd.Timestamp``/``pd.to_datetime`` calls, an ISO ``'2017-07-26'``
  string, date arithmetic with them or with ``timedelta``, or a name the script binds to one of these);
* a reduction call inside that function whose operand mentions the cut parameter (the window is chosen by it), or a
  row mask the function binds to a name (``past = df['date'] <= cut``, then ``df[past].mean()``).

Not counted: an operand that reads from the cut onwards, ``pd.date_range(cut, ...)`` (the days to predict) or a
comparison ``col >= cut`` / ``col > cut``: a statistic of the target window is a leak, kept as a fit.
"""

from __future__ import annotations

import ast
import re

from faultlib.pyflow.walk import walk_once

#: calls that make a date or a timestamp
_DATE_CALLS = frozenset({"date", "datetime", "Timestamp", "to_datetime", "datetime64", "strptime"})
#: calls that make a time span (date arithmetic)
_SPAN_CALLS = frozenset({"timedelta", "Timedelta", "DateOffset", "timedelta64"})
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _date_names(tree: ast.Module) -> set[str]:
    """Names the script binds to a date (``t2017 = date(2017, 7, 5)``), in order, so a date built from another counts."""
    out: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and is_date(node.value, out):
            out.add(node.targets[0].id)
    return out


def is_date(node: ast.expr, names: set[str]) -> bool:
    """``node`` makes a date: a date call, an ISO ``'2017-07-26'`` string, a name in ``names``, date arithmetic."""
    if isinstance(node, ast.Call):
        return _callee(node) in _DATE_CALLS
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(_ISO_DATE.match(node.value))
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return is_date(node.left, names) or is_date(node.right, names)
    return False


def _cut_parameters(tree: ast.Module) -> dict[str, str]:
    """Function name -> its parameter that receives a date at two call sites or more."""
    names = _date_names(tree)
    functions = {f.name: f for f in walk_once(tree) if isinstance(f, ast.FunctionDef)}
    dated: dict[tuple[str, str], int] = {}
    for call in walk_once(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in functions):
            continue
        params = [a.arg for a in functions[call.func.id].args.args]
        given = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg]
        for param, value in given:
            if is_date(value, names):
                dated[(call.func.id, param)] = dated.get((call.func.id, param), 0) + 1
    return {fn: param for (fn, param), count in dated.items() if count >= 2}


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _reads_onwards(node: ast.AST, cut: str) -> bool:
    """``pd.date_range(cut, ...)``, ``col >= cut``, ``cut <= col``: the days from the cut on (the target window)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and _callee(n) == "date_range" and n.args and isinstance(n.args[0], ast.Name) \
                and n.args[0].id == cut:
            return True
        if isinstance(n, ast.Compare) and len(n.ops) == 1:
            left, right, op = n.left, n.comparators[0], n.ops[0]
            if isinstance(op, (ast.Gt, ast.GtE)) and _mentions(right, cut) or \
                    isinstance(op, (ast.Lt, ast.LtE)) and _mentions(left, cut):
                return True
    return False


def cut_window_reductions(tree: ast.Module) -> frozenset[int]:
    """``id`` of each method call inside a function with a cut parameter whose receiver mentions that parameter and
    reads no day from the cut onwards (see the module docstring)."""
    cuts = _cut_parameters(tree)
    out: set[int] = set()
    for fn in walk_once(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name in cuts):
            continue
        cuts_in = _cut_names(fn, cuts[fn.name])
        for n in ast.walk(fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and any(
                    _mentions(n.func.value, c) for c in cuts_in) and not any(
                    _reads_onwards(n.func.value, c) for c in cuts_in):
                out.add(id(n))
    return frozenset(out)


def _mask(node: ast.expr) -> bool:
    """A comparison, or comparisons joined by ``&``, ``|``, ``and``, ``or``: a row mask."""
    if isinstance(node, ast.BoolOp):
        return all(_mask(v) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        return _mask(node.left) and _mask(node.right)
    return isinstance(node, ast.Compare)


def _cut_names(fn: ast.FunctionDef, cut: str) -> set[str]:
    """``cut`` and the names ``fn`` binds to a row mask of it that reads no day from the cut onwards
    (``past = df['date'] <= cut``, then ``df[past].mean()``: the same window as ``df[df['date'] <= cut].mean()``)."""
    names = {cut}
    for node in walk_once(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _mask(node.value) and _mentions(node.value, cut) and not _reads_onwards(node.value, cut):
            names.add(node.targets[0].id)
    return names


__all__ = ["cut_window_reductions", "is_date"]

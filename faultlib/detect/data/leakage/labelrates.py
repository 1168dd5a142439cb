"""A decision cut-off set from the test labels' own class shares, then scored on them (``tuned_on_test``).

Imbalanced-class code moves the cut-off of a classifier's probability to the share of positives, and takes that
share from the labels of the rows it then reports on::

    y_labels = y_test.argmax(axis=1)
    cut = Counter(y_labels)[1] / len(y_labels)        # the test rows' positive rate
    final = [1 if p[1] > cut else 0 for p in proba]
    print(confusion_matrix(y_labels, final))

The cut-off is part of the decision rule, and it was set from the labels of the rows the rule is then scored on:
those labels are no longer unseen, and the score at that cut-off is not the score on new rows, whose positive
rate nobody knows in advance (the threshold belongs to the model and is chosen on training or validation rows:
scikit-learn's ``TunedThresholdClassifierCV``; ASE'22 test-data leakage: Yang, Brower-Sinning, Lewis, Kästner,
ASE 2022). Issue 17 wave 103: a MOOC dropout network whose softmax cut-off is the dropout share of the course run
it is evaluated on.

:func:`label_rate_cuts` finds, syntactically, in one function (or the module):

* labels named for testing (:func:`~.scoreloops.test_labels`: ``y_test``) and the names assigned from them alone
  (``y_labels = y_test.argmax(axis=1)``) -- never a name computed by a model or a metric, nor a table that also
  holds other data (``pd.DataFrame({"y": y_test, "p": proba})``: the mean of its ``p`` is no share of labels);
* a *rate*: a name assigned an expression that counts or averages those labels (``Counter``, ``mean``, ``sum``,
  ``value_counts``, ``bincount``) and calls no metric;
* a comparison of the rate with something that reads no label (``proba > cut``), whose result -- assigned, or the
  lists an ``if`` on it appends to or assigns -- reaches, through later assignments, a metric call
  (``*_score``, ``*_matrix``, ``*_report``) that also reads the labels.

Only then is it reported, at the rate's line. A rate only printed, or applied to rows whose score reads other
labels, stays silent.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.curvecode import _METRIC_SUFFIXES
from faultlib.detect.data.leakage.scoreloops import names_in, test_labels
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import scope_nodes, walk_once

#: calls that count or average the values they read (collections.Counter, NumPy/pandas reductions)
_COUNTS = frozenset({"Counter", "mean", "sum", "value_counts", "bincount", "count_nonzero", "average"})

__all__ = ["label_rate_cuts"]


def _metric(call: ast.Call) -> bool:
    return call_name(call).endswith(_METRIC_SUFFIXES)


def _assigns(scope: ast.AST) -> list[ast.Assign]:
    """The assignments of ``scope`` outside its nested functions, in line order."""
    return sorted((n for n in scope_nodes(scope) if isinstance(n, ast.Assign)), key=lambda n: n.lineno)


def _callee_names(value: ast.expr) -> set[str]:
    """Names ``value`` reads only as the function it calls or the root of one (``np`` of ``np.argmax(...)``), and
    the variables of its comprehensions: no data of their own."""
    out: set[str] = set()
    for n in ast.walk(value):
        if isinstance(n, ast.Call):
            func = n.func
            while isinstance(func, ast.Attribute):
                func = func.value
            if isinstance(func, ast.Name):
                out.add(func.id)
        elif isinstance(n, ast.comprehension):
            out |= names_in(n.target)
    return out


def _label_names(assigns: list[ast.Assign]) -> set[str]:
    """The test-label names of the scope and the names assigned from them alone (``y_labels = y_test.argmax(1)``;
    no model, no metric in between): a value that also reads other data (``pd.DataFrame({"y": y_test, "p":
    proba})``) holds more than the labels, and a share of its other columns is no share of the labels."""
    labels = {n.id for a in assigns for n in ast.walk(a.value) if isinstance(n, ast.Name) and test_labels(n)}
    for a in assigns:
        calls = [c for c in ast.walk(a.value) if isinstance(c, ast.Call)]
        read = names_in(a.value)
        if read & labels and not read - labels - _callee_names(a.value) and not any(
                _metric(c) or call_name(c).startswith("predict") for c in calls):
            labels |= {name for t in a.targets for name in names_in(t)}
    return labels


def _rates(assigns: list[ast.Assign], labels: set[str]) -> dict[str, int]:
    """Names assigned a count or an average of the labels -> the line."""
    out: dict[str, int] = {}
    for a in assigns:
        calls = [c for c in ast.walk(a.value) if isinstance(c, ast.Call)]
        if len(a.targets) == 1 and isinstance(a.targets[0], ast.Name) and not any(_metric(c) for c in calls) and any(
                call_name(c) in _COUNTS and names_in(c) & labels for c in calls):
            out[a.targets[0].id] = a.lineno
    return out


def _written(node: ast.stmt) -> set[str]:
    """Names an ``if`` body assigns or appends to."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Assign):
            out |= {name for t in n.targets for name in names_in(t)}
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" and \
                isinstance(n.func.value, ast.Name):
            out.add(n.func.value.id)
    return out


def _applied(scope: ast.AST, rate: str, labels: set[str]) -> tuple[set[str], int] | None:
    """The names a comparison of ``rate`` with label-free values reaches directly, and its line."""
    for n in walk_once(scope):
        for cmp in (c for c in ast.walk(n.test if isinstance(n, (ast.If, ast.IfExp)) else n.value if isinstance(
                n, ast.Assign) else ast.Pass()) if isinstance(c, ast.Compare)):
            sides = [cmp.left, *cmp.comparators]
            if any(names_in(s) == {rate} for s in sides) and not (names_in(cmp) - {rate}) & labels and \
                    names_in(cmp) - {rate}:
                reached = _written(n) if isinstance(n, ast.If) else {
                    name for t in n.targets for name in names_in(t)} if isinstance(n, ast.Assign) else set()
                if reached:
                    return reached, n.lineno
    return None


def label_rate_cuts(tree: ast.AST) -> list[int]:
    """Lines of the rates (see the module docstring) applied as a cut-off and scored on the same labels."""
    out: list[int] = []
    scopes = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        assigns = _assigns(scope)
        labels = _label_names(assigns)
        if not labels:
            continue
        for rate, line in _rates(assigns, labels).items():
            found = _applied(scope, rate, labels)
            if found is None:
                continue
            reached, at = found
            for a in (a for a in assigns if a.lineno > at):
                if names_in(a.value) & reached:
                    reached |= {name for t in a.targets for name in names_in(t)}
            if any(isinstance(c, ast.Call) and _metric(c) and names_in(c) & reached and names_in(c) & labels
                   for n in walk_once(scope) if getattr(n, "lineno", 0) > at for c in [n]):
                out.append(line)
    return sorted(set(out))

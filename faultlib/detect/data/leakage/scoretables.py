"""A table of test scores written out one candidate a row, whose best row is picked (``tuned_on_test``).

Model-comparison notebooks score each candidate on the test rows with one helper and build the table by hand, one
call a row, rather than in a loop (:mod:`.reportpicks` reads the loop)::

    def model_metrics(y_true, y_prob, label):
        return {"Model": label, "AUC": roc_auc_score(y_true, y_prob), "KS": ks_statistic(y_true, y_prob)}

    comparison = pd.DataFrame([model_metrics(y_test, p_card, "scorecard"),
                               model_metrics(y_test, p_boost, "boosting")])
    best = comparison.loc[comparison["AUC"].idxmax()]      # the test rows choose the model

The best row's test score, shown as the chosen model's, is the maximum of several test scores: optimistic (ASE'22's
*multi-test leakage*: Yang, Brower-Sinning, Lewis & Kästner, "Data leakage in notebooks: static detection and
better processes", ASE 2022; house rule of waves 37b and 38: the best model chosen by its test metric and
reported). Issue 17 wave 88: a credit-scorecard project recommended for deployment the model of highest test AUC
in such a table.

:func:`score_tables` finds, syntactically, a list of two or more calls of one function the module defines (given
directly or to ``pd.DataFrame``) whose every call passes labels named for testing (``y_test``), the function
computing a metric (a ``*_score``/``*_error``/``*_loss`` call, :func:`.scorelists.returns_score`); and, later in
the same scope, a chooser of that table (``idxmax``/``idxmin``/``max``/``min``/``nlargest``, ``sort_values(...)``
then ``iloc[0]``/``head(1)``). Printing or plotting the table stays silent, as does a table of validation scores.

The rows may also be results kept under a name each, and the table rebuilt before the pick (issue 17 wave 91: a spam
classifier's notebook kept the model of the best test F1 and pickled it as the project's model)::

    lr_res = train_and_evaluate(lr, X_train, y_train, X_test, y_test)   # a dict of test metrics
    nb_res = train_and_evaluate(nb, X_train, y_train, X_test, y_test)
    results = [lr_res, nb_res]
    rows = []
    for r in results:
        rows.append({"model": r["name"], "f1": r["f1"]})
    summary = pd.DataFrame(rows).sort_values(by="f1", ascending=False)
    best_name = summary.iloc[0]["model"]

A list item that is a name bound once, earlier in the scope, to a call of the metric helper counts as that call; the
names that hold the table's rows later (a loop over it appending to a list, an assignment reading it, a sort bound
to a name) are read as the table, and the first row of a name bound to a sort is a pick.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from faultlib.detect.data.leakage.reportpicks import scopes, test_named
from faultlib.detect.data.leakage.scorelists import returns_score
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

#: calls that pick a table's best row or value
_CHOOSERS = frozenset({"idxmax", "idxmin", "max", "min", "nlargest", "nsmallest", "argmax", "argmin"})


@dataclass(frozen=True)
class ScoreTable:
    """The table's name, the line it is built on, the helper scoring each row and the line of the chooser."""

    table: str
    line: int
    helper: str
    chosen: int


def _metric_helpers(tree: ast.AST) -> set[str]:
    """Functions the module defines that call a metric (``roc_auc_score``, ``mean_squared_error``...), directly or
    through another such function (``compute_metrics`` returning ``{"rmse": rmse(y, p), "r2": r2(y, p)}`` where
    ``r2`` wraps ``r2_score``: issue 17 wave 101, a solar forecasting project's evaluation module)."""
    functions = [fn for fn in walk_once(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))]
    calls = {id(fn): [n for n in ast.walk(fn) if isinstance(n, ast.Call)] for fn in functions}
    out = {fn.name for fn in functions if any(_metric(n) for n in calls[id(fn)])}
    grown = True
    while grown:
        more = {fn.name for fn in functions if fn.name not in out and any(
            isinstance(n.func, ast.Name) and n.func.id in out for n in calls[id(fn)])}
        out |= more
        grown = bool(more)
    return out


def _metric(call: ast.Call) -> bool:
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
    return name is not None and returns_score("sklearn.metrics", name)


def _assigned(scope: list[ast.stmt]) -> dict[str, list[tuple[int, ast.expr]]]:
    """``{name: [(line, value), ...]}`` of the plain assignments (``name = value``) among ``scope``'s statements, in
    order: read once per scope, then asked for each table (a notebook's scope has thousands of statements)."""
    seen: dict[str, list[tuple[int, ast.expr]]] = {}
    for stmt in scope:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    seen.setdefault(t.id, []).append((stmt.lineno, stmt.value))
    return seen


def _results(assigned: dict[str, list[tuple[int, ast.expr]]], names: set[str], helpers: set[str],
             before: int) -> dict[str, ast.Call]:
    """Those of ``names`` bound once in a scope (``assigned``: :func:`_assigned`) before line ``before`` to a call of
    a metric helper (``lr_result = evaluate(lr, ..., y_test=y_test)``) -> that call."""
    out = {}
    for name in names:
        values = [v for line, v in assigned.get(name, ()) if line < before]
        if len(values) == 1 and isinstance(values[0], ast.Call) and isinstance(values[0].func, ast.Name) and \
                values[0].func.id in helpers:
            out[name] = values[0]
    return out


def _items(value: ast.expr) -> list[ast.expr] | None:
    """The items of a list or tuple of two or more, alone or given to ``DataFrame``; else ``None``."""
    if isinstance(value, ast.Call) and getattr(value.func, "attr", getattr(value.func, "id", None)) == "DataFrame" \
            and value.args:
        value = value.args[0]
    return value.elts if isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) >= 2 else None


def _rows(value: ast.expr, helpers: set[str], results: dict[str, ast.Call] | None = None) -> str | None:
    """The helper of a list of its calls on test labels (``[h(y_test, a), h(y_test, b)]``, alone or given to
    ``DataFrame``; an item may be a name bound once to such a call, ``results``), else ``None``."""
    items = _items(value)
    if items is None:
        return None
    results = results or {}
    calls = [results.get(e.id, e) if isinstance(e, ast.Name) else e for e in items]
    names = {e.func.id for e in calls if isinstance(e, ast.Call) and isinstance(e.func, ast.Name)}
    if len(names) != 1 or not names <= helpers or not all(
            isinstance(e, ast.Call) and any(test_named(a) for a in [*e.args, *(k.value for k in e.keywords)])
            for e in calls):
        return None
    return next(iter(names))


def _reads(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _derived(scope: list[ast.stmt], table: str, after: int) -> tuple[set[str], set[str]]:
    """The names that hold ``table``'s rows after line ``after``: ``rows.append({...})`` in a ``for r in table``
    loop, ``df = pd.DataFrame(rows)``, ``df = df.sort_values('f1')``; and those of them bound to a sort."""
    held, sorted_ = {table}, set()
    for stmt in (s for s in scope if s.lineno > after):
        if isinstance(stmt, ast.For) and _reads(stmt.iter, held):
            held |= {n.func.value.id for n in ast.walk(stmt) if isinstance(n, ast.Call) and isinstance(
                n.func, ast.Attribute) and n.func.attr in ("append", "extend") and isinstance(n.func.value, ast.Name)}
        elif isinstance(stmt, ast.Assign) and _reads(stmt.value, held):
            for t in (t for t in stmt.targets if isinstance(t, ast.Name)):
                held.add(t.id)
                if _sorted(stmt.value, held):
                    sorted_.add(t.id)
                else:
                    sorted_.discard(t.id)
    return held, sorted_


def _sorted(node: ast.AST, held: set[str]) -> bool:
    """``t.sort_values(...)`` (possibly followed by ``reset_index``) of a name in ``held``."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "reset_index":
        node = node.func.value
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sort_values" \
        and _reads(node.func.value, held)


def _chooser(scope: list[ast.stmt], table: str, after: int) -> int | None:
    """The line of the first pick of ``table``'s best row or value after line ``after`` (of the table itself or of
    a name holding its rows: :func:`_derived`)."""
    held, sorted_ = _derived(scope, table, after)
    for node in sorted((n for s in scope for n in ast.walk(s) if isinstance(n, (ast.Call, ast.Subscript))
                        and getattr(n, "lineno", 0) > after), key=lambda n: (n.lineno, n.col_offset)):
        base = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
        if base is not None and _reads(base, held) and node.func.attr in _CHOOSERS:  # type: ignore[union-attr]
            return node.lineno
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "iloc" \
                and (_sorted(node.value.value, held) or isinstance(node.value.value, ast.Name)
                     and node.value.value.id in sorted_ and _first(node.slice)):
            return node.lineno  # df.sort_values('f1').iloc[0], or df = df.sort_values(...); df.iloc[0]
    return None


def _first(key: ast.expr) -> bool:
    first = key.elts[0] if isinstance(key, ast.Tuple) and key.elts else key
    return isinstance(first, ast.Constant) and first.value == 0


def score_tables(tree: ast.AST) -> list[ScoreTable]:
    """Tables of test scores, one helper call a row, whose best is picked later in the same scope."""
    helpers = _metric_helpers(tree)
    if not helpers:
        return []
    out = []
    for _, scope in scopes(tree):
        assigned: dict[str, list[tuple[int, ast.expr]]] | None = None
        for stmt in scope:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            items = _items(stmt.value)
            if items is None:
                continue
            if assigned is None:
                assigned = _assigned(scope)
            names = {e.id for e in items if isinstance(e, ast.Name)}
            helper = _rows(stmt.value, helpers, _results(assigned, names, helpers, stmt.lineno))
            if helper is None:
                continue
            chosen = _chooser(scope, stmt.targets[0].id, stmt.lineno)
            if chosen is not None:
                out.append(ScoreTable(stmt.targets[0].id, stmt.lineno, helper, chosen))
    return out


class ScoreTables:
    """A mixin of :class:`~faultlib.detect.data.leakage.static.Analyzer`: ``tuned_on_test`` where the best row of a
    written-out table of test scores is picked (see the module docstring); needs ``report``, ``smap`` and ``tree``."""

    def interpret(self) -> None:
        super().interpret()  # type: ignore[misc]
        smap = self.smap  # type: ignore[attr-defined]
        for found in score_tables(self.tree):  # type: ignore[attr-defined]
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"every row of `{found.table}` ({smap.describe(found.line)}) is a candidate scored on the test rows "
                f"by `{found.helper}`, and the best row is picked on {smap.describe(found.chosen)}: the test rows "
                "chose the model, so its test score is optimistic (ASE'22 multi-test leakage). Fix: choose the model "
                "on a validation part or by cross-validation of the training part, then score the test part once",
                {**smap.where(found.chosen)}, {"table": smap.where(found.line)}, kind="tuned_on_test"))


__all__ = ["ScoreTable", "ScoreTables", "score_tables"]

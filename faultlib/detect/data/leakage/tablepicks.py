"""The first row of a sorted table of test scores taken as the best model, which is then scored on the test rows
again (``tuned_on_test``), for the static leakage analysis.

Model-comparison notebooks collect one record of test metrics per candidate, sort them into a table, take the first
row's model as the winner, and go on with that model alone (tune it, refit it) to report its test score::

    results = []
    results.append(evaluate(forest, X_test, y_test, "forest"))      # {'model': ..., 'rmse': ...} per candidate
    results.append(evaluate(boost, X_test, y_test, "boost"))
    table = compare(results)                                         # pd.DataFrame(results).sort_values('rmse')
    best_name = table.index[0]                                       # the test rows choose the model ...
    tuned = tune(X_train, y_train, best_name)
    evaluate(tuned, X_test, y_test, "tuned " + best_name)            # <- ... whose test score is reported here

The reported score belongs to the candidate that did best on those very rows: the maximum of several noisy test
scores, optimistic (ASE'22's *multi-test leakage*: Yang, Brower-Sinning, Lewis, Kästner, "Data leakage in notebooks:
static detection and better processes", ASE 2022; Cawley & Talbot, JMLR 11, 2010). Issue 17 wave 102: a delivery-time
notebook comparing four boosted pipelines by test RMSE in a helper's sorted table, then tuning and re-scoring the
first one. The choice sits in no loop and keeps no running best, so :mod:`.choices`, :mod:`.reportpicks` and
:mod:`.collectedscores` do not see it.

:func:`table_picks` reads each scope (a function or the module level; notebook cells joined) syntactically:

* *records*: a list grown (``append``/``extend``, or a list display) with the results of calls handed rows named for
  testing (``X_test``, ``y_test``; a name for validation never counts), two such results at least or one in a loop;
* a *table*: a name assigned, after the records, from an expression reading them (or another table), that sorts
  them -- ``sort_values``/``sort_index``/``sorted``/``nsmallest``/``nlargest`` in the expression, or a call of a
  function of the module whose body sorts;
* a *pick*: a name assigned from a sorted table's first or last row by position (``table.index[0]``,
  ``table.iloc[0]``, ``table.iloc[-1].name``), or from ``idxmin``/``idxmax`` of any table of the records;
* the *rescoring*: a later call handed rows named for testing that reads the pick or a name assigned from it (through
  further assignments). The finding is at the first one, unless a ``tuned_on_test`` finding already lies between
  the first record and it (a loop of candidates read by :mod:`.choices`: one choice, one report).

Silent: records of validation rows (the intended practice: choose on validation, score the test part once); a table
sorted by a field of the records that holds no test result (``{"cv_r2": cross_val_score(...).mean(), "test_r2":
r2_score(y_test, ...)}`` sorted by ``"cv_r2"``: chosen by cross-validation, the test score only shown); a pick
only printed; a sorted table of test scores with no pick; the model scored again that none of the pick's names reach.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.curvecode import body_statements
from faultlib.detect.data.leakage.reportpicks import scopes, test_named
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

#: calls that order a table's rows
_SORTS = frozenset({"sort_values", "sort_index", "sorted", "nsmallest", "nlargest"})
#: statements that hold no other statement (a compound one is read through its own statements)
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)
#: calls that give the row label of the best value directly
_BEST_LABELS = frozenset({"idxmin", "idxmax"})


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _callee(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)


def _test_call(node: ast.AST) -> ast.Call | None:
    """The first call in ``node`` handed rows named for testing (an argument or a keyword's value)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and any(test_named(a) for a in [*n.args, *(k.value for k in n.keywords)]
                                           if not isinstance(a, ast.Starred)):
            return n
    return None


def _targets(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, ast.Assign):
        return set().union(*(_names(t) for t in stmt.targets))
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return _names(stmt.target)
    return set()


def _records(stmts: list[ast.stmt], loops: list[tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """Lists of per-candidate test results: name -> lines of the first and the last result added."""
    counts: dict[str, list[int]] = {}
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                    and isinstance(n.func.value, ast.Name) and n.args and _test_call(n.args[0]) is not None:
                counts.setdefault(n.func.value.id, []).append(n.lineno)
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.List) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name):
            scored = [e.lineno for e in s.value.elts if _test_call(e) is not None]
            if scored:
                counts.setdefault(s.targets[0].id, []).extend(scored)
    return {name: (min(lines), max(lines)) for name, lines in counts.items()
            if len(lines) >= 2 or any(a <= lines[0] <= b for a, b in loops)}


def _unscored_fields(stmts: list[ast.stmt]) -> frozenset[str]:
    """The fields of the scope's records (``{"model": ..., "cv_r2": ...}`` displays appended to a list or listed)
    that never hold a result on rows named for testing: a score on training folds, a name, a fit time."""
    clean: set[str] = set()
    scored: set[str] = set()
    for s in stmts:
        for n in ast.walk(s):
            added = n.args[:1] if isinstance(n, ast.Call) and _callee(n) in ("append", "extend") else n.elts if \
                isinstance(n, ast.List) else []
            for record in (r for a in added for r in (a.elts if isinstance(a, ast.List) else [a])
                           if isinstance(r, ast.Dict)):
                for key, value in zip(record.keys, record.values):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        (scored if _test_call(value) is not None else clean).add(key.value)
    return frozenset(clean - scored)


def _by_unscored(node: ast.AST, unscored: frozenset[str]) -> bool:
    """The column names ``node`` (a sort, ``t['cv'].idxmax()``) orders by are all fields with no test result
    (:func:`_unscored_fields`): ``sort_values('cv_r2')`` ranks by cross-validation, not by the test rows."""
    keys = {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return bool(keys) and keys <= unscored


def _sorts(value: ast.expr, sorting_functions: frozenset[str], unscored: frozenset[str] = frozenset()) -> bool:
    return any(isinstance(n, ast.Call) and (_callee(n) in _SORTS and not any(
        _by_unscored(a, unscored) for a in [*n.args, *(k.value for k in n.keywords)]) or isinstance(n.func, ast.Name)
        and n.func.id in sorting_functions) for n in ast.walk(value))


def _first_row_of(value: ast.expr, sorted_tables: set[str], tables: set[str],
                  unscored: frozenset[str] = frozenset()) -> bool:
    """``t.index[0]``, ``t.iloc[-1]``, ``t.iloc[0].name`` of a sorted table ``t``; ``t['rmse'].idxmin()`` of any
    (not ``t['cv_r2'].idxmax()``, a field with no test result)."""
    for n in ast.walk(value):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr in ("index", "iloc") \
                and _names(n.value.value) & sorted_tables and _edge(n.slice):
            return True
        if isinstance(n, ast.Call) and _callee(n) in _BEST_LABELS and _names(n.func) & tables and not _by_unscored(
                n.func, unscored):
            return True
    return False


def _edge(key: ast.expr) -> bool:
    if isinstance(key, ast.Tuple) and key.elts:
        key = key.elts[0]
    if isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.USub):
        key = key.operand
        return isinstance(key, ast.Constant) and key.value == 1
    return isinstance(key, ast.Constant) and key.value == 0


def _scope_picks(body: list[ast.stmt], sorting_functions: frozenset[str]) -> list[tuple[int, int]]:
    stmts = body_statements(body)
    loops = [(s.lineno, s.end_lineno or s.lineno) for s in stmts if isinstance(s, (ast.For, ast.While))]
    records = _records(stmts, loops)
    if not records:
        return []
    unscored = _unscored_fields(stmts)
    out = []
    for name, (first, last) in records.items():
        tables: set[str] = set()
        sorted_tables: set[str] = set()
        picked: set[str] = set()
        pick_line = None
        for s in (s for s in stmts if s.lineno > last and isinstance(s, (ast.Assign, ast.AnnAssign))):
            value = s.value
            if value is None:
                continue
            reads = _names(value)
            if pick_line is None and reads & ({name} | tables):
                if _first_row_of(value, sorted_tables, tables | {name}, unscored):
                    picked, pick_line = _targets(s), s.lineno
                    continue
                tables |= _targets(s)
                if _sorts(value, sorting_functions, unscored) or reads & sorted_tables:
                    sorted_tables |= _targets(s)
            elif pick_line is not None and reads & picked:
                picked |= _targets(s)
        if pick_line is None:
            continue
        for s in (s for s in stmts if s.lineno > pick_line and isinstance(s, _SIMPLE)):
            call = _test_call(s)
            if call is not None and _names(s) & picked:
                out.append((first, call.lineno))
                break
    return out


def _sorting_functions(tree: ast.AST) -> frozenset[str]:
    """Functions of the module whose body sorts something (a helper that builds the comparison table)."""
    return frozenset(n.name for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and any(isinstance(c, ast.Call) and _callee(c) in _SORTS for c in ast.walk(n)))


def table_picks(tree: ast.AST) -> list[tuple[int, int]]:
    """``(line of the first test result recorded, line of the rescoring call)`` over every scope of ``tree`` (see the
    module docstring)."""
    sorting = _sorting_functions(tree)
    return sorted({line for _, body in scopes(tree) for line in _scope_picks(body, sorting)})


class TablePicks:
    """A mixin of :class:`~faultlib.detect.data.leakage.static.Analyzer`: ``tuned_on_test`` for a model taken as the
    first row of a sorted table of test scores and scored on the test rows again (see the module docstring); needs
    ``report``, ``smap`` and ``tree``."""

    def interpret(self) -> None:
        super().interpret()  # type: ignore[misc]
        smap = self.smap  # type: ignore[attr-defined]
        tuned = {f.location.get("line", 0) for f in self.report.findings  # type: ignore[attr-defined]
                 if f.kind == "tuned_on_test"}
        for first, line in table_picks(self.tree):  # type: ignore[attr-defined]
            span = (smap.where(first).get("line", 0), smap.where(line).get("line", 0))
            if any(span[0] <= t <= span[1] for t in tuned):
                continue  # the choice is reported already (a loop of candidates: choices.py, reportpicks.py)
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"the model scored on the test rows on {smap.describe(line)} is the first row of a table of every "
                "candidate's test scores, sorted: the test rows chose it, so its test score is the best of several "
                "looks at them and optimistic (ASE'22 multi-test leakage). Fix: compare the candidates on a "
                "validation part or by cross-validation of the training part, then score the chosen one on the "
                "test part once", {**smap.where(line)}, {}, kind="tuned_on_test"))


__all__ = ["TablePicks", "table_picks"]

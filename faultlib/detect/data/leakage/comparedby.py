"""Which value a loop's running best is kept by, for the static leakage analysis's choices made with held-out rows.

A loop over candidates keeps the best one with a comparison (``if grid.best_score_ > best_score: best_model =
grid.best_estimator_``). Only the values that comparison reads choose the model. A score computed in the same
loop and then only shown (``y_pred = pipe.predict(X_test); print(classification_report(y_test, y_pred))``,
``scores = cross_val_score(pipe, X, y); print(scores)``) or a search fitted in the loop whose result none of the
comparisons reads (``grid_rfe.fit(X, y); print(grid_rfe.best_score_)``) picks nothing: the choice is the compared
value's, and that value is another finding if it is one (a test score kept as the best: ``tuned_on_test``).

This is the ASE'22 definition of a choice made with the test rows (Yang, Brower-Sinning, Lewis, Kästner, "Data
leakage in notebooks: static detection and better processes", ASE 2022, *multi-test leakage*: the test data is
used to *select* a model), read with Python's semantics of a running best: the kept candidate is the one whose
compared value won. For a search, scikit-learn's ``GridSearchCV.best_score_`` is the "mean cross-validated score of
the best_estimator" on the rows given to its ``fit`` (scikit-learn API reference, ``GridSearchCV``), not a score of
the rows another call predicts.

The reading is syntactic and conservative: the value a statement makes is what it assigns (``y_pred = ...``,
``scores[k] = ...``), what it appends to (``results.append(...)``), the object whose method it calls
(``grid_rfe.fit(...)``), or nothing at all when it only prints (``print(...)``, ``display(...)``: unless a
comparison computes the same call again, ``if m.score(X_te, y_te) > best``); it flows through the loop's
assignments and appends; a comparison that reads any name it reached keeps it. When the statement makes no such
value, or the loop keeps its best in another way (a sort, a ``max``), nothing is decided here (the caller keeps
its reading).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.guards import (
    branches,
    counter_guard,
    counters,
    size_guard,
)
from faultlib.pyflow.walk import walk_once

#: methods that store their arguments into the object they are called on
_STORES = frozenset({"append", "extend", "insert", "update", "add", "setdefault"})
#: calls that only show their arguments (Python's ``print``, IPython's ``display``)
_SHOWN = frozenset({"print", "display"})
_ONLY_SHOWN = "<shown>"  # no variable: what a print makes


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _base(target: ast.expr) -> str | None:
    """The variable a target writes into: ``scores`` of ``scores[k]`` and of ``self.scores``."""
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _targets(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, ast.Assign):
        out = set()
        for t in stmt.targets:
            for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                b = _base(e)
                if b:
                    out.add(b)
        return out
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        b = _base(stmt.target)
        return {b} if b else set()
    return set()


def _stored_into(stmt: ast.stmt) -> set[str]:
    """``results.append(x)``: ``results`` (a statement that is a storing method call)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
            and stmt.value.func.attr in _STORES:
        b = _base(stmt.value.func.value)
        return {b} if b else set()
    return set()


def _simple_statements(node: ast.AST) -> list[ast.stmt]:
    return [n for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr))]


def _made_by(loop: ast.For, line: int) -> set[str]:
    """The names the simple statement of the loop on ``line`` makes (see the module docstring)."""
    for stmt in _simple_statements(loop):
        if not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
                and stmt.value.func.id in _SHOWN:
            return {_ONLY_SHOWN}  # print(classification_report(y_te, m.predict(X_te))): nothing a comparison reads
        made = _targets(stmt) or _stored_into(stmt)
        if not made and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                isinstance(stmt.value.func, ast.Attribute):
            b = _base(stmt.value.func.value)  # grid_rfe.fit(X, y): the fitted object
            made = {b} if b else set()
        return made
    return set()


def _reached(loop: ast.For, seeds: set[str]) -> set[str]:
    """``seeds`` and every name the loop's assignments and stores compute from them."""
    reached = set(seeds)
    stmts = _simple_statements(loop)
    changed = True
    while changed:
        changed = False
        for stmt in stmts:
            value = getattr(stmt, "value", None)
            if value is None:
                continue
            if isinstance(stmt, ast.Expr):
                if not (isinstance(value, ast.Call) and _stored_into(stmt)):
                    continue
                reads = set().union(*(_names(a) for a in value.args), *(_names(k.value) for k in value.keywords))
                made = _stored_into(stmt)
            else:
                reads, made = _names(value), _targets(stmt)
            if reads & reached and not made <= reached:
                reached |= made
                changed = True
    return reached


def _keeping_ifs(loop: ast.For, counted: frozenset[str]) -> list[ast.If]:
    """The loop's running-best comparisons: ``if a > b:`` with an assignment in a branch (as
    :func:`.choices.loop_facts` reads them)."""
    return [n for n in ast.walk(loop) if isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and any(
        isinstance(op, (ast.Gt, ast.Lt, ast.GtE, ast.LtE)) for op in n.test.ops) and any(
        isinstance(s, (ast.Assign, ast.AugAssign)) for s in branches(n)) and not counter_guard(n.test, counted)
        and not size_guard(n.test)]


def _recomputed(loop: ast.For, line: int, ifs: list[ast.If]) -> bool:
    """A call of the printed statement on ``line`` is written again inside a comparison (the same score)."""
    stmt = next((n for n in _simple_statements(loop) if n.lineno <= line <= (n.end_lineno or n.lineno)), None)
    shown = {ast.unparse(c) for c in ast.walk(stmt) if isinstance(c, ast.Call)} if stmt is not None else set()
    return any(ast.unparse(c) in shown for i in ifs for c in ast.walk(i.test) if isinstance(c, ast.Call))


def kept_by_another_value(tree: ast.Module, loop_start: int, loop_end: int, line: int, chooses: int) -> bool:
    """The loop ``loop_start..loop_end`` keeps its best with comparisons (one on ``chooses``) and none of them
    reads what the statement on ``line`` (a score of held-out rows, a cross-validation, a search's fit) makes:
    that statement chose nothing. ``False`` whenever this cannot be shown."""
    loop = next((n for n in walk_once(tree) if isinstance(n, ast.For) and n.lineno == loop_start and
                 (n.end_lineno or n.lineno) == loop_end), None)
    if loop is None or not loop_start <= line <= loop_end:
        return False
    ifs = _keeping_ifs(loop, counters(tree))
    if not any(i.lineno == chooses for i in ifs):
        return False  # the best is kept another way (a sort, max()): not read here
    seeds = _made_by(loop, line)
    if not seeds:
        return False
    if seeds == {_ONLY_SHOWN} and _recomputed(loop, line, ifs):
        return False  # print(m.score(X_te, y_te)) then if m.score(X_te, y_te) > best: the shown score is compared
    reached = _reached(loop, seeds)
    return not any(_names(i.test) & reached for i in ifs)


__all__ = ["kept_by_another_value"]

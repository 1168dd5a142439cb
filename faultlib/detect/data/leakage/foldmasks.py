"""Hand-written folds whose training mask overlaps the held-out mask: ``trained_on_test``.

Time-series competitions cut folds by hand over a date column, often "purging" a gap around each held-out block::

    for i in range(num_folds):
        start = i * fold_size
        end = start + fold_size
        fit_mask = (days >= start) & (days < end - 2) | (days > end + gap + 2)
        held_mask = (days >= end) & (days < end + fold_size)
        model.fit(X[fit_mask], y[fit_mask])
        print(mean_absolute_error(y[held_mask], model.predict(X[held_mask])))

Here the training mask's open upper part (``days > end + 7``) runs into the held-out block ``[end, end + 96)``:
about 88 of the 96 held-out days are also training days, and the fold's score is measured on rows the model was
trained on (issue 17 wave 87: an Optiver trading-at-the-close notebook whose purged folds overlapped this way). No
splitter is called, so nothing but the masks' bounds says so.

:func:`overlapping_folds` reads, in a ``for`` loop, two masks bound to names and written as comparisons of the
same variable with bounds (``&``, ``|``, ``and``/``or`` of them, a chained ``a <= d < b``; each mask a union of
intervals), selections of rows by each (``part = X[mask]``), and a ``fit`` whose first argument is built from the
one selection while the other is predicted or given as an evaluation set. A bound is read as a linear expression
of the loop's names (``i * fold_size + fold_size`` with ``fold_size = 480 // 5`` known), through the assignments of
its scope (a name assigned in both branches of an ``if`` gives both masks, each tried). The training and held-out
masks overlap when one interval of each provably intersects, whatever the loop's index: every lower bound below
every upper bound by a constant. Bounds that differ by something unknown decide nothing, and disjoint masks
(purged or expanding-window folds done right) stay silent.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage.callerpaths import _own_nodes
from faultlib.detect.data.leakage.callsites import function_at
from faultlib.detect.data.leakage.targets import call_name
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

__all__ = ["OverlappingFold", "overlap_findings", "overlapping_folds"]

#: a linear expression: ((name, coefficient), ...) sorted, and a constant
Lin = tuple[tuple[tuple[str, float], ...], float]
#: one conjunct of bounds: (lower bounds, upper bounds), each (expression, closed)
Box = tuple[tuple[tuple[Lin, bool], ...], tuple[tuple[Lin, bool], ...]]

_MAX = 16  # the most alternatives or intervals kept for one expression
_DEPTH = 8
_SCORING = frozenset({"predict", "predict_proba", "score", "evaluate"})


@dataclass(frozen=True)
class OverlappingFold:
    """``model.fit`` on ``fit_line`` trains on ``train_mask``, which overlaps ``test_mask``, scored in the loop on
    ``loop_line``."""

    model: str
    fit_line: int
    fit_column: int
    loop_line: int
    train_mask: str
    test_mask: str


def _lin(const: float = 0.0, **terms: float) -> Lin:
    return tuple(sorted((k, v) for k, v in terms.items() if v)), const


def _add(a: Lin, b: Lin, sign: float = 1.0) -> Lin:
    terms = dict(a[0])
    for k, v in b[0]:
        terms[k] = terms.get(k, 0.0) + sign * v
    return tuple(sorted((k, v) for k, v in terms.items() if v)), a[1] + sign * b[1]


def _scale(a: Lin, by: float) -> Lin:
    return tuple((k, v * by) for k, v in a[0]), a[1] * by


class _Scope:
    """The simple assignments of one module or function, for reading bounds and masks back."""

    def __init__(self, scope: ast.AST, loop: ast.For):
        self.loop = loop
        self.varied = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        self.binds: dict[str, list[tuple[int, ast.expr, bool]]] = {}
        inside = {id(n) for n in ast.walk(loop)}
        for node in _own_nodes(scope.body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.binds.setdefault(node.targets[0].id, []).append((node.lineno, node.value, id(node) in inside))

    def values(self, name: str, line: int) -> list[ast.expr]:
        """What ``name`` may hold on ``line``: its assignments in the loop before the line (one per branch), else the
        last one before the loop."""
        before = [b for b in self.binds.get(name, ()) if b[0] < line]
        inside = [v for ln, v, loop in before if loop]
        if inside:
            return inside[-_MAX:]
        outside = [v for ln, v, loop in before if not loop]
        return outside[-1:]

    def linear(self, node: ast.expr, line: int, depth: int = 0) -> list[Lin]:
        """The values of ``node`` as linear expressions of the loop's names (and of names read nowhere)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return [_lin(float(node.value))]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return [_scale(v, -1.0) for v in self.linear(node.operand, line, depth)]
        if isinstance(node, ast.Name):
            if node.id in self.varied or depth >= _DEPTH:
                return [_lin(**{node.id: 1.0})]
            found = [v for b in self.values(node.id, line) for v in self.linear(b, line, depth + 1)]
            return found[:_MAX] or [_lin(**{node.id: 1.0})]
        if isinstance(node, ast.BinOp):
            pairs = list(itertools.product(self.linear(node.left, line, depth), self.linear(node.right, line, depth)))
            out = [r for a, b in pairs if (r := _arith(node.op, a, b)) is not None]
            if len(out) == len(pairs):
                return out[:_MAX]
        return [_lin(**{ast.unparse(node): 1.0})]  # opaque: itself

    def series_like(self, name: str, line: int) -> bool:
        """``name`` holds the compared values, not a bound: a parameter or a name bound to a column, an array or a
        call's result (a bound is a number, a name or arithmetic)."""
        values = self.values(name, line)
        return name not in self.varied and all(isinstance(v, (ast.Subscript, ast.Attribute, ast.Call)) for v in values)

    def boxes(self, node: ast.expr, line: int, series: list[str], depth: int = 0) -> list[list[Box]] | None:
        """The alternatives of a mask as unions of intervals of one variable (``series`` learns its name); ``None``
        when it is not such a mask."""
        if isinstance(node, ast.Name) and depth < _DEPTH:
            found = [alt for b in self.values(node.id, line) for alt in self.boxes(b, line, series, depth + 1) or []]
            return found[:_MAX] or None
        if isinstance(node, (ast.BinOp, ast.BoolOp)):
            conj = isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd) or isinstance(
                node, ast.BoolOp) and isinstance(node.op, ast.And)
            disj = isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) or isinstance(
                node, ast.BoolOp) and isinstance(node.op, ast.Or)
            if not (conj or disj):
                return None
            sides = [node.left, node.right] if isinstance(node, ast.BinOp) else node.values
            parts = [self.boxes(s, line, series, depth) for s in sides]
            if any(p is None for p in parts):
                return None
            out = []
            for choice in itertools.product(*parts):  # one alternative of each side
                combined = choice[0]
                for nxt in choice[1:]:
                    combined = [(a[0] + b[0], a[1] + b[1]) for a in combined for b in nxt] if conj else combined + nxt
                out.append(combined[:_MAX])
            return out[:_MAX]
        if isinstance(node, ast.Compare):
            return self._compare(node, line, series)
        return None

    def _compare(self, node: ast.Compare, line: int, series: list[str]) -> list[list[Box]] | None:
        operands = [node.left, *node.comparators]
        where = next((i for i, o in enumerate(operands) if isinstance(o, ast.Name) and (
            o.id in series if series else self.series_like(o.id, line))), None)
        if where is None:
            return None
        series[:1] = [operands[where].id]  # type: ignore[attr-defined]
        lows: list[list[tuple[Lin, bool]]] = [[]]
        highs: list[list[tuple[Lin, bool]]] = [[]]
        for k, op in enumerate(node.ops):
            left, right = operands[k], operands[k + 1]
            if left is operands[where]:
                bound, flip = right, False
            elif right is operands[where]:
                bound, flip = left, True
            else:
                return None
            kind = type(op)
            if kind not in (ast.Lt, ast.LtE, ast.Gt, ast.GtE):
                return None
            upper = (kind in (ast.Lt, ast.LtE)) != flip
            closed = kind in (ast.LtE, ast.GtE)
            values = [(v, closed) for v in self.linear(bound, line)]
            if upper:
                highs = [h + [v] for h in highs for v in values][:_MAX]
            else:
                lows = [lo + [v] for lo in lows for v in values][:_MAX]
        return [[(tuple(lo), tuple(hi))] for lo in lows for hi in highs][:_MAX]


def _arith(op: ast.operator, a: Lin, b: Lin) -> Lin | None:
    if isinstance(op, ast.Add):
        return _add(a, b)
    if isinstance(op, ast.Sub):
        return _add(a, b, -1.0)
    if isinstance(op, ast.Mult) and (not a[0] or not b[0]):
        return _scale(b, a[1]) if not a[0] else _scale(a, b[1])
    if isinstance(op, (ast.FloorDiv, ast.Div)) and not a[0] and not b[0] and b[1]:
        return _lin(a[1] // b[1] if isinstance(op, ast.FloorDiv) else a[1] / b[1])
    return None


def _below(low: tuple[Lin, bool], high: tuple[Lin, bool]) -> bool:
    """``low`` is provably below ``high`` (their difference a constant; equal only when both are closed)."""
    gap = _add(high[0], low[0], -1.0)
    return not gap[0] and (gap[1] > 0 or gap[1] == 0 and low[1] and high[1])


def _meets(a: list[Box], b: list[Box]) -> bool:
    """Some interval of ``a`` provably intersects some interval of ``b``, whatever the loop's names hold."""
    for (lo1, hi1), (lo2, hi2) in itertools.product(a, b):
        lows, highs = lo1 + lo2, hi1 + hi2
        if all(_below(lo, hi) for lo in lows for hi in highs):
            return True
    return False


def _selections(loop: ast.For) -> dict[str, str]:
    """``part = X[mask]`` (also ``X[mask][cols]``, or several in one tuple assignment) in the loop: ``{part: mask}``."""
    out: dict[str, str] = {}
    for node in ast.walk(loop):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        pairs = zip(target.elts, value.elts) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(
            target.elts) == len(value.elts) else [(target, value)]  # a, b = X[m1], X[m2]
        for name, sub in pairs:
            while isinstance(sub, ast.Subscript) and not isinstance(sub.slice, ast.Name):
                sub = sub.value
            if isinstance(name, ast.Name) and isinstance(sub, ast.Subscript) and isinstance(sub.slice, ast.Name):
                out[name.id] = sub.slice.id
    return out


def _reads(expr: ast.AST, names: set[str]) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and n.id in names}


def overlapping_folds(tree: ast.Module) -> list[OverlappingFold]:
    """Every fit of a hand-written fold whose training mask overlaps its held-out mask (see the module docstring)."""
    out: list[OverlappingFold] = []
    scopes = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        for loop in (n for n in _own_nodes(scope.body) if isinstance(n, ast.For)):
            parts = _selections(loop)
            if len(set(parts.values())) < 2:
                continue
            fits = [c for c in ast.walk(loop) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
                    c.func.attr == "fit" and isinstance(c.func.value, ast.Name) and c.args]
            scored = [c for c in ast.walk(loop) if isinstance(c, ast.Call) and call_name(c) in _SCORING]
            reader = _Scope(scope, loop)
            for fit in fits:
                trained = {parts[n] for n in _reads(fit.args[0], set(parts))}
                held = {parts[n] for c in [*scored, *[k.value for k in fit.keywords if k.arg and "eval" in k.arg]]
                        for n in _reads(c, set(parts))} - trained
                found = _overlap(reader, trained, held, fit.lineno)
                if found is not None:
                    out.append(OverlappingFold(fit.func.value.id, fit.lineno, fit.col_offset, loop.lineno, *found))
    return out


def _overlap(reader: _Scope, trained: set[str], held: set[str], line: int) -> tuple[str, str] | None:
    for train, test in itertools.product(sorted(trained), sorted(held)):
        series: list[str] = []
        a = reader.boxes(ast.Name(id=train, ctx=ast.Load()), line, series)
        b = reader.boxes(ast.Name(id=test, ctx=ast.Load()), line, series) if a else None
        if a and b and any(_meets(x, y) for x in a for y in b):
            return train, test
    return None


def overlap_findings(tree: ast.Module, smap: Any, findings: list[Finding]) -> list[Finding]:
    """:func:`overlapping_folds` as ``trained_on_test`` findings at the fit (not where one already is)."""
    seen = {(f.kind, f.location.get("file"), f.location.get("index"), f.location.get("line")) for f in findings}
    out = []
    for fold in overlapping_folds(tree):
        where = smap.where(fold.fit_line)
        key = ("trained_on_test", where.get("file"), where.get("index"), where.get("line"))
        if key in seen:
            continue
        seen.add(key)
        out.append(Finding(
            "leakage", Severity.ERROR,
            f"`{fold.model}` is fitted ({smap.describe(fold.fit_line)}) on the rows of the mask `{fold.train_mask}` and "
            f"scored on those of `{fold.test_mask}`, both cut by hand in the fold loop on "
            f"{smap.describe(fold.loop_line)}; their bounds overlap, so some held-out rows of each fold are training "
            "rows of the same fold and its score is measured on rows the model was trained on. Fix: make the "
            "training mask exclude the held-out block (and its purge gap) on both sides, or use a splitter "
            "(TimeSeriesSplit(gap=...), GroupKFold over the dates)",
            {**where, "column": fold.fit_column + 1, "function": function_at(tree, fold.fit_line)},
            {"estimator": fold.model, "loop": smap.where(fold.loop_line), "train_mask": fold.train_mask,
             "test_mask": fold.test_mask}, kind="trained_on_test"))
    return out

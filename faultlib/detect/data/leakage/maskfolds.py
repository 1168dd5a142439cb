"""Hand-written fold masks whose training rows overlap the held-out rows, for the static leakage analysis.

Time-series competition code often cuts its folds by hand, with a purge (a gap) around each validation block::

    for i in range(num_folds):
        start = i * fold_size
        end = start + fold_size
        purged_start, purged_end = end - 2, end + gap + 2
        train_mask = (days >= start) & (days < purged_start) | (days > purged_end)
        valid_mask = (days >= end) & (days < end + fold_size)
        model.fit(X[train_mask], y[train_mask], eval_set=[(X[valid_mask], y[valid_mask])])
        score = mean_absolute_error(y[valid_mask], model.predict(X[valid_mask]))

The purge was meant to leave a gap *after* the validation block, but ``days > purged_end`` starts right after
``end``, inside the validation block ``[end, end + fold_size)``: every validation day past ``end + gap + 2`` is
a training day too, and the fold's score is measured on rows the model was trained on (issue 17, wave 87: an
Optiver closing-auction solution; a masked split whose training mask overlaps its test mask is ASE'22's overlap
leakage, ``trained_on_test``).

:func:`overlapping_masks` reads, in each ``for`` loop, the names bound to a comparison of one expression (a column,
an array of days) with bounds, joined by ``&`` and ``|`` or chained (``end <= days < end + size``) -- a union of
intervals of that expression -- with each bound a linear form of the names the loop computes (``start``, ``end``,
``i``) and of the numeric constants of its scope (``fold_size = 480 // num_folds`` in the module, or in the function
that holds the loop). A model fitted on rows selected by one such mask (``X[m]``, ``X.loc[m]``, or a name bound to
one) and predicting rows selected by another in the same loop, or given them as its evaluation set
(``eval_set=[(X[m2], y[m2])]``: early stopping watches them), is reported when the two unions provably share an
interval: two intervals ``[a1, b1)`` and ``[a2, b2)`` meet exactly when ``a1 < b2`` and ``a2 < b1``, and here
every such difference must be a number once the loop's names cancel (``(end + 7) < (end + 96)``). A bound the
analysis cannot reduce decides nothing: no finding (no guess). A name bound in two branches (``if i < last:``) is
tried with each binding.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage.callerpaths import _own_nodes
from faultlib.detect.data.leakage.reportedlines import ReportedLines
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

#: the most bindings combined when names are bound in several branches
_MAX_COMBINATIONS = 16
_FIT = frozenset({"fit", "fit_transform", "train"})
_PREDICT = frozenset({"predict", "predict_proba", "decision_function", "score", "evaluate"})

Linear = dict  # {symbol (str) or "" for the constant: coefficient}


@dataclass(frozen=True)
class MaskOverlap:
    """A fit on one mask's rows scored on another's, the masks overlapping."""

    fit_line: int
    fit_column: int
    model: str
    train_line: int
    held_line: int
    predict_line: int


def _sub(a: Linear, b: Linear, k: float = -1.0) -> Linear:
    out = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0.0) + k * value
        if out[key] == 0 and key:
            del out[key]
    return out


def _number(form: Linear | None) -> float | None:
    return form.get("", 0.0) if form is not None and not any(k for k in form if k) else None


class _Forms:
    """Linear forms of expressions over the names bound in one loop (each name tried with each of its bindings)."""

    def __init__(self, bound: dict[str, ast.expr], constants: dict[str, float]):
        self.bound, self.constants, self._depth = bound, constants, 0

    def form(self, node: ast.expr) -> Linear | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return {"": float(node.value)}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.form(node.operand)
            return {k: -v for k, v in inner.items()} if inner is not None else None
        if isinstance(node, ast.Name):
            if node.id in self.bound and self._depth < 12:
                self._depth += 1
                try:
                    return self.form(self.bound[node.id])
                finally:
                    self._depth -= 1
            if node.id in self.constants:
                return {"": self.constants[node.id]}
            return {node.id: 1.0}
        if isinstance(node, ast.BinOp):
            left, right = self.form(node.left), self.form(node.right)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Add):
                return _sub(left, right, 1.0)
            if isinstance(node.op, ast.Sub):
                return _sub(left, right)
            ln, rn = _number(left), _number(right)
            if isinstance(node.op, ast.Mult) and (ln is not None or rn is not None):
                k, other = (ln, right) if ln is not None else (rn, left)
                return {key: k * v for key, v in other.items() if k * v != 0 or not key}
            if isinstance(node.op, (ast.FloorDiv, ast.Div)) and ln is not None and rn:
                return {"": ln // rn if isinstance(node.op, ast.FloorDiv) else ln / rn}
        return None


#: an interval of the compared expression: (low, low included, high, high included); None = unbounded
Interval = tuple


def _pairs(node: ast.Compare) -> list[ast.Compare] | None:
    """The one-operator comparisons of a chain of orderings (``a <= d < b``: ``a <= d`` and ``d < b``), or ``None``."""
    if not all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops):
        return None
    sides = [node.left, *node.comparators]
    return [ast.Compare(sides[k], [op], [sides[k + 1]]) for k, op in enumerate(node.ops)]


def _compares(node: ast.expr) -> list[ast.Compare] | None:
    """The comparisons a mask joins with ``&`` and ``|``, or ``None`` when it is no such mask."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        left, right = _compares(node.left), _compares(node.right)
        return left + right if left is not None and right is not None else None
    return _pairs(node) if isinstance(node, ast.Compare) else None


def subject(node: ast.expr) -> str | None:
    """The one expression every comparison of the mask ``node`` bounds (``ast.dump``), or ``None``."""
    found = _compares(node)
    if not found:
        return None
    common = None
    for c in found:
        sides = {ast.dump(side) for side in (c.left, c.comparators[0]) if not isinstance(side, ast.Constant)}
        common = sides if common is None else common & sides
    return next(iter(common)) if common is not None and len(common) == 1 else None


def _intervals(node: ast.expr, forms: _Forms, column: str) -> list[Interval] | None:
    """The union of intervals of ``column`` the mask ``node`` selects; ``None`` when a bound is not linear."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        left, right = _intervals(node.left, forms, column), _intervals(node.right, forms, column)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.BitOr):
            return left + right
        return [i for a, b in itertools.product(left, right) if (i := _meet(a, b)) is not None]
    if not isinstance(node, ast.Compare) or (pairs := _pairs(node)) is None:
        return None
    if len(pairs) > 1:  # a <= d < b: both bounds hold
        found = [_intervals(p, forms, column) for p in pairs]
        if any(f is None for f in found):
            return None
        out = found[0]
        for more in found[1:]:
            out = [i for a, b in itertools.product(out, more) if (i := _meet(a, b)) is not None]  # type: ignore
        return out
    op, left, right = node.ops[0], node.left, node.comparators[0]
    below = isinstance(op, (ast.Lt, ast.LtE))  # column < bound
    if ast.dump(left) == column:
        bound = right
    elif ast.dump(right) == column:
        bound, below = left, not below  # bound < column: the column is above it
    else:
        return None
    value = forms.form(bound)
    if value is None:
        return None
    included = isinstance(op, (ast.LtE, ast.GtE))
    return [(None, False, value, included)] if below else [(value, included, None, False)]


def _less(a: Linear | None, b: Linear | None, strict: bool) -> bool | None:
    """``a < b`` (``a <= b`` unless ``strict``) when it is decided (``None``: not a number once the names cancel)."""
    diff = _number(_sub(b, a)) if a is not None and b is not None else None
    if diff is None:
        return None
    return diff > 0 or not strict and diff == 0


def _tighter(a: Interval, b: Interval, end: int) -> Interval | None:
    """The interval whose ``end`` (0: low, 2: high) is tighter, or ``None`` when that is not decided."""
    if a[end] is None or b[end] is None:
        return a if b[end] is None else b
    first = _less(a[end], b[end], True)
    if first is None:
        return None
    return (b if first else a) if end == 0 else (a if first else b)


def _meet(a: Interval, b: Interval) -> Interval | None:
    """The intersection of two intervals, or ``None`` when which end is tighter is not decided."""
    low, high = _tighter(a, b, 0), _tighter(a, b, 2)
    return (low[0], low[1], high[2], high[3]) if low is not None and high is not None else None


def _below(low: Interval, high: Interval) -> bool:
    """``low``'s lower end is provably below ``high``'s upper end (an unbounded end always is)."""
    if low[0] is None or high[2] is None:
        return True
    return bool(_less(low[0], high[2], not (low[1] and high[3])))


def _overlap(a: list[Interval], b: list[Interval]) -> bool:
    """Some interval of ``a`` provably meets some interval of ``b`` (both non-empty, each starting below the
    other's end)."""
    return any(_below(x, x) and _below(y, y) and _below(x, y) and _below(y, x) for x, y in itertools.product(a, b))


def _constants(scope: ast.AST, outer: dict[str, float]) -> dict[str, float]:
    """Names bound once in ``scope`` (the module, or a function), outside its nested functions, to a number or to
    arithmetic of such names (``num_folds = 5``, ``fold_size = 480 // num_folds``), and the ``outer`` ones the scope
    does not bind (a name bound anywhere else in it, a parameter included, is no constant)."""
    counts: dict[str, int] = {}
    assigns: list[ast.Assign] = []
    for node in walk_once(scope):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            counts[node.arg] = counts.get(node.arg, 0) + 2
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                counts[name] = counts.get(name, 0) + 2
    for node in _own_nodes(scope.body):  # type: ignore[attr-defined]
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                counts.get(node.targets[0].id) == 1:
            assigns.append(node)
    values = {name: value for name, value in outer.items() if name not in counts}
    for _ in range(4):  # a constant may use one bound later in the walk
        for node in assigns:
            number = _number(_Forms({}, values).form(node.value))
            if number is not None:
                values[node.targets[0].id] = number  # type: ignore[attr-defined]
    return values


def _loop_bindings(loop: ast.For) -> dict[str, list[ast.Assign]]:
    out: dict[str, list[ast.Assign]] = {}
    todo: list[ast.AST] = list(loop.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(node)
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and \
                        len(target.elts) == len(node.value.elts):
                    for t, v in zip(target.elts, node.value.elts):
                        if isinstance(t, ast.Name):
                            out.setdefault(t.id, []).append(ast.Assign([t], v, lineno=node.lineno))
        todo.extend(ast.iter_child_nodes(node))
    return out


def _mask_of(node: ast.expr, selections: dict[str, str], masks: set[str]) -> str | None:
    """The mask a row selection uses: ``X[m]``, ``X[m][cols]``, ``X.loc[m]``, or a name bound to one."""
    while True:
        if isinstance(node, ast.Name):
            return selections.get(node.id)
        if isinstance(node, ast.Subscript):
            index = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
            if isinstance(index, ast.Name) and index.id in masks:
                return index.id
            node = node.value
        elif isinstance(node, ast.Attribute):
            node = node.value
        else:
            return None


def _receiver(call: ast.Call) -> str | None:
    func = call.func
    return func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None


def _watched(fit: ast.Call, selections: dict[str, str], masks: set[str]) -> set[str]:
    """The masks of the rows a fit is given to evaluate (``eval_set=[(X[m], y[m])]``, ``validation_data=``)."""
    return {mask for k in fit.keywords if k.arg and ("eval" in k.arg or k.arg == "validation_data")
            for sub in ast.walk(k.value) if (mask := _mask_of(sub, selections, masks)) is not None}  # type: ignore


def _loop_overlaps(loop: ast.For, constants: dict[str, float]) -> list[MaskOverlap]:
    bindings = _loop_bindings(loop)
    selections: dict[str, str] = {}
    candidates = {name: [a.value for a in assigns] for name, assigns in bindings.items()}
    masks = {name for name, values in candidates.items() if any(subject(v) is not None for v in values)}
    if len(masks) < 2:
        return []
    for name, values in candidates.items():
        if len(values) == 1 and (mask := _mask_of(values[0], {}, masks)) is not None and name not in masks:
            selections[name] = mask
    fits: list[tuple[ast.Call, str, str]] = []
    predicts: list[tuple[ast.Call, str, str]] = []
    for node in walk_once(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and \
                (model := _receiver(node)) is not None:
            mask = _mask_of(node.args[0], selections, masks)
            if mask is not None and node.func.attr in _FIT:
                fits.append((node, model, mask))
                predicts += [(node, model, held) for held in _watched(node, selections, masks)]
            elif mask is not None and node.func.attr in _PREDICT:
                predicts.append((node, model, mask))
    out = []
    for (fit, model, train), (predict, other, held) in itertools.product(fits, predicts):
        if other != model or train == held or predict.lineno < fit.lineno:
            continue
        if (lines := _masks_overlap(bindings, train, held, constants)) is not None:
            out.append(MaskOverlap(fit.lineno, fit.col_offset + 1, model, *lines, predict.lineno))
    return out


def _masks_overlap(bindings: dict[str, list[ast.Assign]], train: str, held: str,
                   constants: dict[str, float]) -> tuple[int, int] | None:
    """The lines of the bindings of ``train`` and ``held`` whose intervals provably overlap, or ``None``."""
    needed, todo = set(), [train, held]
    while todo:  # the names the two masks are computed from, through the loop's bindings
        name = todo.pop()
        if name in needed or name not in bindings:
            continue
        needed.add(name)
        todo.extend(n.id for a in bindings[name] for n in ast.walk(a.value) if isinstance(n, ast.Name))
    names = sorted(n for n in needed if len(bindings[n]) > 1)  # the rest have one binding each
    for count, pick in enumerate(itertools.product(*(bindings[n] for n in names))):
        if count >= _MAX_COMBINATIONS:
            break
        chosen = {n: assigns[0] for n, assigns in bindings.items()} | dict(zip(names, pick))
        bound = {n: a.value for n, a in chosen.items()}
        column = subject(bound[train])
        if column is None or subject(bound[held]) != column:
            continue
        forms = _Forms({n: v for n, v in bound.items() if n not in (train, held)}, constants)
        a, b = _intervals(bound[train], forms, column), _intervals(bound[held], forms, column)
        if a is not None and b is not None and _overlap(a, b):
            return chosen[train].lineno, chosen[held].lineno
    return None


def overlapping_masks(tree: ast.Module) -> list[MaskOverlap]:
    """Every fit on a hand-written fold mask scored on an overlapping one (see the module docstring)."""
    module = _constants(tree, {})
    out: list[MaskOverlap] = []
    for scope in [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        loops = [n for n in _own_nodes(scope.body) if isinstance(n, ast.For)]
        constants = (module if scope is tree else _constants(scope, module)) if loops else {}
        out += [m for loop in loops for m in _loop_overlaps(loop, constants)]
    return out


def mask_overlap_findings(tree: ast.Module, smap: Any, findings: list[Finding], function_at: Any) -> list[Finding]:
    """:func:`overlapping_masks` as ``trained_on_test`` findings, leaving out a line already reported so."""
    reported = ReportedLines(findings)
    out: list[Finding] = []
    for m in overlapping_masks(tree):
        out += reported.finding(
            "trained_on_test", Severity.ERROR,
            f"`{m.model}` is fitted ({smap.describe(m.fit_line)}) on the rows of the mask on "
            f"{smap.describe(m.train_line)} and scored (or early-stopped) on the rows of the mask on "
            f"{smap.describe(m.held_line)} ({smap.describe(m.predict_line)}), and the two masks overlap: some held-out "
            "rows are training rows of the same fold, so its score is measured on rows the model was trained on. "
            "Fix: make the training mask exclude the held-out block (and its purge gap) on both sides, or use a "
            "splitter (TimeSeriesSplit(gap=...), GroupKFold over the dates)",
            {**smap.where(m.fit_line), "column": m.fit_column, "function": function_at(tree, m.fit_line)},
            {"estimator": m.model, "train_mask": smap.where(m.train_line), "held_out_mask": smap.where(m.held_line),
             "at": smap.where(m.predict_line)})
    return out


__all__ = ["MaskOverlap", "mask_overlap_findings", "overlapping_masks"]

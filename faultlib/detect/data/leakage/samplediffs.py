"""Differences taken inside one sample and summed up there, for the static leakage analysis's ``shuffled_time_split``.

Signal code describes each recording by a few numbers, some of them over the recording's own successive samples::

    def describe(sig):                                   # one recording: channels x samples
        out = [np.var(sig, axis=1)]
        out.append(np.sum(np.diff(sig) ** 2, axis=1))     # the energy of the first difference
        return np.column_stack(out)

    for name in sorted(os.listdir(folder)):
        rows.append(describe(load(os.path.join(folder, name))).ravel())

``np.diff`` here runs along the time axis *of one recording* (NumPy reference, ``numpy.diff``: "the first
difference is given by ``out[i] = a[i+1] - a[i]`` along the given axis", by default the last one), and the reduction
around it turns the result into that recording's feature. The table that is split has one row per recording, and no
row holds another row's value: a lag feature needs the previous *row* of the table, this one never leaves its own
sample. Read as a lag across rows, a shuffled split of the recordings was reported as ``shuffled_time_split``
(issue 17 wave 86: a Teager-energy/Hjorth feature function of an EEG study).

:func:`within_sample_temporal` names the time-ordered calls (:data:`~faultlib.detect.data.leakage.vocab.TEMPORAL`)
that (1) take one sample of a loop that builds rows, in the loop's body or in a helper only ever given one such
sample (the calls :mod:`.peritem` and :mod:`.samplehelpers` read as that sample's own reductions), and (2) are summed
up in place: the call sits inside the operand of a reduction (``np.sum(np.diff(x) ** 2)``, ``np.diff(x).std()``) or
its value is bound to a name every read of which is inside one (``d = np.diff(x); np.var(d)``). A lag of one file's
table kept as a column (``frame['lag1'] = frame['y'].shift(1)`` in a loop over files) is not summed up and keeps
the rule of :mod:`.timeorder`.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.peritem import per_item_reductions
from faultlib.detect.data.leakage.samplehelpers import helper_reductions
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

#: reductions that sum a difference up (NumPy functions and array/pandas methods of these names)
_REDUCTIONS = vocab.STATISTICS | {"sum", "nansum", "prod", "count_nonzero", "ptp", "argmax", "argmin"}
#: modules whose reductions take the data as their first argument
_MODULES = frozenset({"np", "numpy", "torch", "scipy", "stats"})


def _operand(call: ast.Call) -> ast.expr | None:
    """What a reduction reduces: ``x`` of ``x.sum()`` and of ``np.sum(x)``."""
    f = call.func
    if isinstance(f, ast.Attribute):
        root = f.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in _MODULES:
            return call.args[0] if call.args else None
        return f.value
    return call.args[0] if call.args else None


def _reduced_nodes(tree: ast.Module) -> set[int]:
    """Ids of every node inside the operand of a reduction call."""
    out: set[int] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and call_name(n) in _REDUCTIONS:
            operand = _operand(n)
            if operand is not None:
                out |= {id(c) for c in ast.walk(operand)}
    return out


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [n for n in walk_once(tree) if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef))]


def _own_nodes(scope: ast.AST):
    """The nodes of a scope, not inside a nested function or class."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(n))


def _summed_names(scope: ast.AST, reduced: set[int]) -> dict[str, ast.Call]:
    """``d = np.diff(x)`` bound once in ``scope``, every read of ``d`` inside a reduction: ``d`` -> the call."""
    bound: dict[str, list[ast.expr]] = {}
    reads: dict[str, list[ast.Name]] = {}
    for n in _own_nodes(scope):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
            bound.setdefault(n.target.id, []).append(n.target)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            reads.setdefault(n.id, []).append(n)
    out: dict[str, ast.Call] = {}
    for name, values in bound.items():
        value = values[0] if len(values) == 1 else None
        used = reads.get(name, [])
        if isinstance(value, ast.Call) and call_name(value) in vocab.TEMPORAL and used and all(
                id(r) in reduced for r in used):
            out[name] = value
    return out


def within_sample_temporal(tree: ast.Module) -> frozenset[int]:
    """Ids of the time-ordered calls of one sample that are summed up in place (see the module docstring)."""
    candidates = [n for n in walk_once(tree) if isinstance(n, ast.Call) and call_name(n) in vocab.TEMPORAL]
    if not candidates:
        return frozenset()
    one_sample = per_item_reductions(tree) | helper_reductions(tree)
    candidates = [n for n in candidates if id(n) in one_sample]
    if not candidates:
        return frozenset()
    reduced = _reduced_nodes(tree)
    summed = {id(call) for scope in _scopes(tree) for call in _summed_names(scope, reduced).values()}
    return frozenset(id(n) for n in candidates if id(n) in reduced or id(n) in summed)


__all__ = ["within_sample_temporal"]

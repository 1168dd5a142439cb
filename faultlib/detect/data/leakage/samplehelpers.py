"""Helpers that reduce the one sample they are given, for the static leakage analysis.

Signal code normalises each recording by its own level before cutting it into windows::

    def standardise(trace):
        return (trace - np.mean(trace)) / np.std(trace)

    for name in os.listdir(folder):
        record = read_record(os.path.join(folder, name))
        trace = standardise(record[:, 0])
        for start in range(0, len(trace) - width, width):
            windows.append(trace[start:start + width])

``np.mean(trace)`` is the mean of one recording, the same reduction :mod:`.peritem` already reads as that sample's
own feature when it is written in the loop's body; moved into a function it is still over the argument alone. Such a
per-recording (instance) normalisation is computed alike for a training and a test recording and reads no other
one: no statistic over rows and no fit (issue 17 wave 79: three MIT-BIH notebooks z-scored each record this way
and were reported as fitting before the split).

:func:`helper_reductions` names the reduction calls of a module-level function when *every* call of it in the
module sits in the body of a loop that builds rows (:func:`.peritem.row_loops`) and passes one sample of that
loop (or constants) as each argument, and the reduction's operand is built from the parameters alone. A helper
also called on a whole table (``standardise(X)`` after the loop) keeps its reductions as statistics.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.peritem import (
    OneSample,
    literal_names,
    reductions_of,
    row_loops,
)
from faultlib.pyflow.walk import walk_once


def module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Module-level functions by name (a name defined twice is left out: which one runs is not known)."""
    seen: dict[str, list[ast.FunctionDef]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            seen.setdefault(node.name, []).append(node)
    return {name: defs[0] for name, defs in seen.items() if len(defs) == 1}


def _per_sample_calls(tree: ast.Module, names: set[str]) -> dict[str, bool]:
    """For each helper name: whether every call passes one sample of a row-building loop (False once one does not)."""
    inside: dict[int, OneSample] = {}
    for loop, sample in row_loops(tree):
        for node in ast.walk(loop):
            if isinstance(node, ast.Call):
                inside.setdefault(id(node), sample)
    verdict: dict[str, bool] = {}
    for node in walk_once(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names):
            continue
        sample = inside.get(id(node))
        args = [*node.args, *(k.value for k in node.keywords)]
        ok = sample is not None and bool(args) and any(sample.of(a) for a in args) and all(
            isinstance(a, ast.Constant) or sample.of(a) for a in args)
        verdict[node.func.id] = verdict.get(node.func.id, True) and ok
    return verdict


def helper_reductions(tree: ast.Module) -> frozenset[int]:
    """Ids of the reduction calls inside helpers that only ever receive one sample (see the module docstring)."""
    helpers = module_functions(tree)
    if not helpers:
        return frozenset()
    out: set[int] = set()
    constants = literal_names(tree)
    for name, ok in _per_sample_calls(tree, set(helpers)).items():
        if not ok:
            continue
        func = helpers[name]
        params = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
        sample = OneSample(set(), params, constants)
        sample.learn(func.body)
        out |= reductions_of(func.body, sample)
    return frozenset(out)


__all__ = ["helper_reductions", "module_functions"]

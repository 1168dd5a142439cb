"""Reductions named inside an aggregation spec, for the static leakage analysis.

pandas (and cuDF, dask, modin, which copy its API) take the reductions of ``DataFrame.agg``/``GroupBy.agg`` in
several spellings ("pandas API: DataFrame.agg, GroupBy.agg, Named aggregation"):

* one name: ``g.agg('mean')`` (read by the caller already);
* a list: ``g.agg(['mean', 'std'])``;
* a dict per column: ``g.agg({'price': 'mean'})``, ``g.agg({'price': ['min', 'max']})``;
* named aggregation: ``g.agg(avg=('price', 'mean'))`` or ``pd.NamedAgg(column='price', aggfunc='mean')``;
* a dict built by a comprehension: ``g.agg({f'hit_{i}': 'sum' for i in range(k)})`` (the one reduction it gives every
  key; wave 89, an H&M ranker's per-customer hits of the top articles).

A statistic or a count named in any of them is the same fit of the grouped rows as the one-name form: a Kaggle
count encoding written ``train.groupby(col).agg({col: 'count'})`` counts rows per value exactly as
``train.groupby(col).size()`` does. A NumPy reduction passed as a function (``g.agg(np.nanmean)``,
``agg([np.mean, np.std])``, ``transform(np.median)``) is read as its name (``nan`` dropped: ``nanmean`` is a
mean); so is a pandas method passed unbound (``g.agg(pd.Series.nunique)``: each group's distinct count, the
method pandas calls on every group's column -- "GroupBy.agg: func, function, str, list or dict"; wave 57, an Avito
solution's per-user category counts); other functions (a lambda, a helper) are left to the callers that read
functions.

A list whose items are names held in variables (``for how in ['mean', 'std']: g.agg([how])``, or a helper's
``aggregations`` parameter looped over) is read from its evaluated value: the same list of reduction names once the
loop variable is known (wave 72: the IEEE-CIS "encode_AG" helper and its copies, ``agg([agg_type])``).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.values import Const, Tup

#: the module names NumPy is imported under in practice (``import numpy as np``)
_NUMPY = frozenset({"np", "numpy"})


def numpy_reduction(node: ast.expr) -> str | None:
    """``np.nanmean`` / ``numpy.median`` as a function value: the reduction's name without ``nan`` (``'mean'``);
    ``None`` for anything else (a call, a lambda, another module's function)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in _NUMPY:
        return node.attr[3:] if node.attr.startswith("nan") else node.attr
    return None


#: the names pandas and its classes are imported under (``import pandas as pd``)
_PANDAS = frozenset({"pd", "pandas"})
_PANDAS_CLASSES = frozenset({"Series", "DataFrame"})


def pandas_reduction(node: ast.expr) -> str | None:
    """``pd.Series.nunique`` / ``pandas.DataFrame.median`` as a function value: the method's name; ``None`` for
    anything else."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and \
            node.value.attr in _PANDAS_CLASSES and isinstance(node.value.value, ast.Name) and \
            node.value.value.id in _PANDAS:
        return node.attr
    return None


def _names(node: ast.expr) -> list[str]:
    """The reduction names of a spec value: ``'mean'``, ``['min', 'max']``, ``('price', 'mean')``, ``np.mean``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if numpy_reduction(node) is not None:
        return [numpy_reduction(node)]
    if pandas_reduction(node) is not None:
        return [pandas_reduction(node)]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [n for item in node.elts for n in _names(item)]
    if isinstance(node, ast.Call):  # pd.NamedAgg(column='price', aggfunc='mean') / NamedAgg('price', 'mean')
        values = [*node.args, *(k.value for k in node.keywords if k.arg in ("column", "aggfunc"))]
        return [n for v in values for n in _names(v)]
    return []


def spec_reductions(call: ast.Call) -> list[str]:
    """The reduction names a ``.agg(...)``/``.aggregate(...)`` call's spec lists (list, dict or named form, or one
    NumPy function: ``agg(np.nanmean)``); empty for the one-name form and for other functions."""
    found: list[str] = []
    if call.args:
        spec = call.args[0]
        if isinstance(spec, ast.Dict):
            found += [n for v in spec.values for n in _names(v)]
        elif isinstance(spec, ast.DictComp):  # {f'hit_{i}': 'sum' for i in range(k)}: one reduction for each key
            found += _names(spec.value)
        elif isinstance(spec, (ast.List, ast.Tuple)) or numpy_reduction(spec) is not None or \
                pandas_reduction(spec) is not None:
            found += _names(spec)
    for kw in call.keywords:
        if kw.arg is not None and isinstance(kw.value, (ast.Tuple, ast.Call)):
            found += _names(kw.value)
    return found


def listed_reductions(value: object) -> list[str]:
    """The names in an evaluated list spec (``agg([how])`` with ``how`` known to be ``'mean'``): the string items
    of a list or tuple value; empty for anything else (one name is read by the caller)."""
    if isinstance(value, Tup):
        return [item.value for item in value.items if isinstance(item, Const) and isinstance(item.value, str)]
    return []


__all__ = ["listed_reductions", "numpy_reduction", "pandas_reduction", "spec_reductions"]

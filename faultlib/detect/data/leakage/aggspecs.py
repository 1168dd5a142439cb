"""Reductions named inside an aggregation spec, for the static leakage analysis.

pandas (and cuDF, dask, modin, which copy its API) take the reductions of ``DataFrame.agg``/``GroupBy.agg`` in
several spellings ("pandas API: DataFrame.agg, GroupBy.agg, Named aggregation"):

* one name: ``g.agg('mean')`` (read by the caller already);
* a list: ``g.agg(['mean', 'std'])``;
* a dict per column: ``g.agg({'price': 'mean'})``, ``g.agg({'price': ['min', 'max']})``;
* named aggregation: ``g.agg(avg=('price', 'mean'))`` or ``pd.NamedAgg(column='price', aggfunc='mean')``.

A statistic or a count named in any of them is the same fit of the grouped rows as the one-name form: a Kaggle
count encoding written ``train.groupby(col).agg({col: 'count'})`` counts rows per value exactly as
``train.groupby(col).size()`` does. Only string names are read: a function passed (``np.mean``, a lambda) is
left to the callers that read functions.
"""

from __future__ import annotations

import ast


def _names(node: ast.expr) -> list[str]:
    """The string constants of a spec value: ``'mean'``, ``['min', 'max']``, ``('price', 'mean')``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [n for item in node.elts for n in _names(item)]
    if isinstance(node, ast.Call):  # pd.NamedAgg(column='price', aggfunc='mean') / NamedAgg('price', 'mean')
        values = [*node.args, *(k.value for k in node.keywords if k.arg in ("column", "aggfunc"))]
        return [n for v in values for n in _names(v)]
    return []


def spec_reductions(call: ast.Call) -> list[str]:
    """The reduction names a ``.agg(...)``/``.aggregate(...)`` call's spec lists (list, dict or named form);
    empty for the one-name form and for functions."""
    found: list[str] = []
    if call.args:
        spec = call.args[0]
        if isinstance(spec, ast.Dict):
            found += [n for v in spec.values for n in _names(v)]
        elif isinstance(spec, (ast.List, ast.Tuple)):
            found += _names(spec)
    for kw in call.keywords:
        if kw.arg is not None and isinstance(kw.value, (ast.Tuple, ast.Call)):
            found += _names(kw.value)
    return found


__all__ = ["spec_reductions"]

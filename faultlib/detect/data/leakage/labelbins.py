"""Binnings of the label that only make a label, for the static leakage analysis.

A regression target is often turned into classes or grades by its own quantiles:

    df['Target'] = pd.qcut(df['Target'], 30).cat.codes           # relevance grades for a ranker
    y_bins = pd.qcut(np.log10(ic), q=10, labels=False)
    X_train, X_test, y_train, y_test = train_test_split(X, y_bins, test_size=0.1)
    X_train, X_test = train_test_split(X, stratify=pd.qcut(y, 5))

The edges are quantiles of every row's label, held-out rows included, but what they shape is only the label (the
classes the model is asked to predict) or the strata of the split: no feature of a held-out row is computed from
other rows, and the model reads nothing of them (house rule: coding the target is not a leak, as a
``LabelEncoder`` of ``y`` is not; scikit-learn user guide, "Stratified k-fold": ``y`` only chooses the folds).
:func:`label_binnings` names such ``qcut``/``cut`` calls; the analysis keeps their rows (a label still belongs to
its rows) without a fit (:mod:`.design`).

Recognised: (a) ``F['c'] = <binning of F['c']>`` where ``c`` is named for the target (:func:`~.targets.label_like`):
the label column replaced by its own grades; (b) ``name = <binning>`` where every later read of ``name`` is the
label (second positional, ``y=``) or ``stratify=``/``groups=`` of ``train_test_split`` or of a splitter's
``.split(X, y)``, or (c) the binning written directly in such a place. A binning of a feature, or of the label kept
as a column that a model may read, stays a fit.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.targets import call_name, label_like
from faultlib.pyflow.walk import walk_once

_BINNINGS = frozenset({"qcut", "cut"})
_SPLITTERS = frozenset({"train_test_split", "split"})
_LABEL_KEYWORDS = frozenset({"y", "stratify", "groups"})


def _binning(value: ast.expr) -> ast.Call | None:
    """The ``qcut``/``cut`` call at the head of ``value`` (``pd.qcut(...).cat.codes``, ``.astype(int)``)."""
    while True:
        if isinstance(value, ast.Call) and call_name(value) in _BINNINGS:
            return value
        if isinstance(value, ast.Attribute):
            value = value.value
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            value = value.func.value
        else:
            return None


def _label_slots(tree: ast.Module) -> list[ast.expr]:
    """The expressions given to a split as its label, strata or groups."""
    out: list[ast.expr] = []
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and call_name(n) in _SPLITTERS:
            if len(n.args) >= 2:
                out.append(n.args[1])
            out.extend(k.value for k in n.keywords if k.arg in _LABEL_KEYWORDS)
    return out


def _column(node: ast.expr) -> str | None:
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return None


def label_binnings(tree: ast.Module) -> frozenset[int]:
    """Ids of the ``qcut``/``cut`` calls in ``tree`` that only make a label or strata (module docstring)."""
    slots = _label_slots(tree)
    out = {id(b) for b in map(_binning, slots) if b is not None}
    slot_ids = {id(s) for s in slots}
    loads: dict[str, list[ast.Name]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.setdefault(n.id, []).append(n)
    for n in walk_once(tree):
        if not isinstance(n, ast.Assign) or len(n.targets) != 1:
            continue
        binning = _binning(n.value)
        if binning is None or not binning.args:
            continue
        target = n.targets[0]
        column = _column(target)
        relabelled = column is not None and label_like(column) and any(
            _column(s) == column for s in ast.walk(binning.args[0]))
        only_label = isinstance(target, ast.Name) and bool(loads.get(target.id)) and all(
            id(use) in slot_ids for use in loads[target.id])
        if relabelled or only_label:
            out.add(id(binning))
    return frozenset(out)


__all__ = ["label_binnings"]

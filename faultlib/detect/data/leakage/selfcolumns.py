"""Column lists an object keeps on ``self``, for the static leakage analysis: ``self.train[self.floating_cols]``
selects columns, not rows.

A feature-engineering class keeps its tables and the lists of their columns as attributes, and recomputes the lists
in a method after every step::

    class Engineer:
        def __init__(self, train, test):
            self.train, self.test = train, test
            self.update_col_lists()

        def update_col_lists(self):
            self.cols_to_use = [c for c in self.train.columns if c not in ['id', 'target']]
            self.floating_cols = [c for c in self.cols_to_use if c not in self.binary_cols]

        def scale(self):
            scaler = StandardScaler().fit(self.train[self.floating_cols])      # every training row

pandas reads ``frame[list_of_labels]`` as a choice of columns (pandas user guide, "Indexing and selecting data":
"you can pass a list of columns to [] to select columns in that order"). The analysis tells a column choice from a
row selection by where the index comes from (:func:`~.choices.names_columns` for plain names); an attribute is no
name, so ``self.train[self.floating_cols]`` was read as a selection of rows, and the scaler's fit as a fit on some
rows only, not on every row the later cross-validation scores (issue 17, wave 99: a Porto Seguro solution's
``FeatureEngineer``).

:func:`kept_column_lists` gives the attributes assigned, anywhere in the module, a value built from a frame's
``.columns`` or from another such attribute (a fixpoint: ``floating_cols`` from ``cols_to_use`` from
``self.train.columns``), never through a subscript's index (``self.X = self.train[self.cols]`` is a table) or a
size (``len(self.train.columns)`` is a number); :func:`selects_kept_columns` tells whether an index reads one.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.params import reached
from faultlib.pyflow.walk import walk_once


def _self_attribute(node: ast.AST) -> str | None:
    """``attr`` of ``self.attr``, else ``None``."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _reads(expr: ast.expr) -> tuple[bool, set[str]]:
    """Whether ``expr`` reads a frame's ``.columns``, and the ``self`` attributes it reads; not inside a subscript's
    index (the value is then a selection of a table) or a size (``len(...)``, ``.shape``)."""
    direct, attrs = False, set()
    todo: list[ast.AST] = [expr]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Attribute) and n.attr in ("shape", "size", "ndim") or isinstance(n, ast.Call) and \
                isinstance(n.func, ast.Name) and n.func.id == "len":
            continue
        if isinstance(n, ast.Attribute) and n.attr == "columns":
            direct = True
        attr = _self_attribute(n)
        if attr is not None:
            attrs.add(attr)
        todo.extend([n.value] if isinstance(n, ast.Subscript) else ast.iter_child_nodes(n))
    return direct, attrs


def kept_column_lists(tree: ast.Module, hops: int = 6) -> frozenset[str]:
    """The ``self`` attributes the module assigns column names (see the module docstring)."""
    reads: dict[str, tuple[bool, set[str]]] = {}
    for node in walk_once(tree):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            attr = _self_attribute(target)
            if attr is None:
                continue
            direct, attrs = _reads(node.value)
            before = reads.get(attr, (False, set()))
            reads[attr] = (before[0] or direct, before[1] | attrs)
    return frozenset(reached(reads, hops))


def selects_kept_columns(index: ast.expr, kept: frozenset[str]) -> bool:
    """``index`` is a column list the object keeps (``self.floating_cols``), or lists joined with one
    (``self.cols + ['x']``); a mask built from one (``self.df[self.cols].sum(axis=1) > 0``) selects rows."""
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Add):
        return selects_kept_columns(index.left, kept) or selects_kept_columns(index.right, kept)
    return _self_attribute(index) in kept


__all__ = ["kept_column_lists", "selects_kept_columns"]

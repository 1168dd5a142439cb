"""A ``for`` loop over a pandas GroupBy, for the static leakage analysis.

Iterating a GroupBy yields ``(key, sub_frame)`` pairs, one per group, each sub-frame holding the rows of the grouped
table that carry that key (pandas user guide, "Group by: split-apply-combine", *Iterating through groups*)::

    frame = pd.DataFrame({'p': p_valid, 'y': y_valid})
    frame['band'] = pd.qcut(frame['p'], q=5)
    for band, part in frame.groupby('band'):                      # part: the validation rows of one band
        per_band[band] = LogisticRegression().fit(part[['p']], part['y'])   # <- a calibrator fitted on them

The loop body sees every group in turn, so over the loop the sub-frames are all the grouped rows: the analysis binds
the second loop variable to the grouped table's rows (held-out rows stay held out) and runs the body once, as it
joins the passes of any loop; a model fitted in the body has seen every group, and a helper that applies it to each
group's mask of the same rows (``out[p.band == b] = models[b].predict(...)``) scores rows it was fitted on. A calibrator (Platt scaling, isotonic regression) fitted
per band of the rows it is then scored on learns from those rows' labels (scikit-learn user guide 1.16,
"Probability calibration": the calibrator must be fitted on data apart from the data it is evaluated on). Issue 17
wave 89: a click-through notebook's bucketized Platt layer fitted per ``qcut`` bucket of the validation part and
scored on it.

Only a ``for`` whose iterable is a ``.groupby(...)`` call written in the loop head, with a two-name target, is read
so; the key variable stays unknown, and any other loop is left to the other readers.

Which rows a sub-frame holds is decided by the grouping column: every column read of a sub-frame (``part['p']``)
carries the fits of the key columns named in the ``groupby`` (``band``, cut by ``pd.qcut`` at quantiles of the
validation predictions), while the body runs, though a column read otherwise leaves the other columns' fits behind
(:mod:`.columnreads`). The edges that sort the rows into bands are part of each band's calibrator (histogram
binning, Zadrozny & Elkan, ICML 2001).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.columnreads import frame_roots
from faultlib.detect.data.leakage.values import maybe_data

__all__ = ["GroupItems", "group_keys"]


def grouped_table(node: ast.For) -> ast.expr | None:
    """The grouped table of ``for key, part in table.groupby(...)`` (``None`` for any other loop head)."""
    it = node.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "groupby" \
            and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in node.target.elts):
        return it.func.value
    return None


def group_keys(call: ast.Call) -> list[str]:
    """The column names a ``.groupby(...)`` call groups by, as written (``'band'``, ``['store', 'band']``,
    ``by=...``); other keys (a Series, a function) are left out."""
    keys = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "by")]
    return [n.value for key in keys for n in (key.elts if isinstance(key, (ast.List, ast.Tuple)) else [key])
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


class GroupItems:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring); it needs
    ``_expr``, ``_bind`` and ``_block``."""

    def _group_items(self, source: Any, node: ast.For, frame: Any) -> bool:
        """Run ``node``'s body once with its sub-frame bound to the grouped table's rows; ``False``
        (nothing run) when the loop is no GroupBy loop or the grouped table is unknown."""
        table = grouped_table(node)
        if table is None:
            return False
        data = maybe_data(source)
        if data is None:
            data = maybe_data(self._expr(table, frame))  # type: ignore[attr-defined]
        if data is None or data.rows is None:
            return False
        key, sub = node.target.elts  # type: ignore[attr-defined]
        roots = frame_roots(data)
        keys = self._column_fits_of(roots, group_keys(node.iter))  # type: ignore[arg-type]
        grouped = self.__dict__.setdefault("_grouped_by", {})
        before = grouped.get(roots)
        grouped[roots] = (before or frozenset()) | keys
        try:
            return self._run_group_body(node, key, sub, data, frame)
        finally:
            if before is None:
                grouped.pop(roots, None)
            else:
                grouped[roots] = before

    def _column_fits_of(self, roots: frozenset, columns: list[str]) -> frozenset:
        """The fits recorded as written into the frame of ``roots`` through ``columns`` (:mod:`.frames`)."""
        fits = self.__dict__.get("_column_fits", {})
        return frozenset(f for c in columns for f in fits.get((roots, c), ()))

    def _run_group_body(self, node: ast.For, key: ast.expr, sub: ast.expr, part: Any, frame: Any) -> bool:
        from faultlib.pyflow.values import UNKNOWN

        self._bind(key, UNKNOWN, frame, node.lineno)  # type: ignore[attr-defined]
        self._bind(sub, part, frame, node.lineno)  # type: ignore[attr-defined]
        self._block(node.body, frame)  # type: ignore[attr-defined]
        return True

"""Columns removed with ``del df['c']``: a drop, whose fits live on only in the columns built from them.

``del df['c']`` removes the column in place ("pandas API: DataFrame.__delitem__ -- delete item"), exactly as
``df.drop(columns=['c'], inplace=True)`` (:meth:`.frames.FrameSemantics._dropped_fits`). Scripts often hold a
statistic in a scratch column, build the feature from it, and delete the scratch column::

    df['lo'] = df.week.map(week_min)          # the statistic, per row
    df['hi'] = df.week.map(week_max)
    df[name + '_scaled'] = (df.x - df['lo']) / (df['hi'] - df['lo'])
    del df['lo'], df['hi']

The statistic's values live on in the column built from them (an explicit flow through an assignment: Denning &
Denning, "Certification of programs for secure information flow", CACM 20(7), 1977), so the deletion moves the
fits of a deleted column into every column written since whose value carried them (its name may be made in the
loop, as ``name + '_scaled'``): a later drop or exclusion of that column drops them (exclusions.py), and a column
that keeps them keeps the alarm. Fits of the deleted column that no surviving column carries leave the frame.

Issue 17, stop 49: an E-Sun credit-card notebook (wave 72) scaled a first-seen date by per-week minimum and maximum
held in two scratch columns deleted with ``del``; the scaled column is left out by its ``remove_features`` list.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.columnreads import frame_roots
from faultlib.detect.data.leakage.values import Data, maybe_data
from faultlib.pyflow.values import Const


class DeletedColumns:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_column_fits``,
    ``_dropped_fits``, ``_expr``, ``_lookup`` and ``_store``; ``_carried_fits`` from :mod:`.columnreads`): see the
    module docstring."""

    def _stmt(self, node: ast.stmt, frame: Any) -> None:
        if isinstance(node, ast.Delete):
            self._delete_columns(node.targets, frame)
        super()._stmt(node, frame)  # type: ignore[misc]

    def _delete_columns(self, targets: list[ast.expr], frame: Any) -> None:
        by_frame: dict[str, list[str]] = {}
        for target in targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                label = self._expr(target.slice, frame)  # type: ignore[attr-defined]
                if isinstance(label, Const) and isinstance(label.value, str):
                    by_frame.setdefault(target.value.id, []).append(label.value)
        for name, columns in by_frame.items():
            data = maybe_data(self._lookup(name, frame))  # type: ignore[attr-defined]
            if data is not None and data.rows is not None:
                self._store(name, self._without_columns(data, columns), frame)  # type: ignore[attr-defined]

    def _without_columns(self, data: Data, columns: list[str]) -> Data:
        roots, fits_by_column = frame_roots(data), self._column_fits  # type: ignore[attr-defined]
        carried = getattr(self, "_carried_fits", {})
        for column in columns:
            fits = fits_by_column.get((roots, column), set())
            for (r, other), held in carried.items():
                if r == roots and other not in columns and fits & held:
                    fits_by_column.setdefault((roots, other), set()).update(fits & held)
        out = data.with_(taints=data.taints - self._dropped_fits(data, columns))  # type: ignore[attr-defined]
        for column in columns:
            fits_by_column.pop((roots, column), None)
            carried.pop((roots, column), None)
        return out


__all__ = ["DeletedColumns"]

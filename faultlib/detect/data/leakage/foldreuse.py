"""A transformer fitted once and then applied inside a cross-validation loop: ``reused_across_folds``.

A fit made before the loop and applied to each fold's rows is not refitted on each fold's training part, so the
statistics it learned include every fold's held-out rows (scikit-learn user guide, "Common pitfalls: data leakage":
fit preprocessing inside each fold, e.g. with a ``Pipeline``). Part of the analysis of
:mod:`faultlib.detect.data.leakage.semantics`; reported once per (fit, loop).
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Data, FitRef, parts


class FoldReuse:
    """Mixin of the analyzer: needs ``_reused``, ``_emit``, ``_overlaps`` and ``smap``."""

    def _reuse(self, fit: FitRef, x: Data, line: int, frame: Any) -> None:
        for loop, loop_line in frame.loops:
            if loop in fit.loops:
                continue
            if any(s.kind == "fold" and s.ident == loop for p in parts(x.rows) for s in p.steps) and \
                    self._overlaps(fit, x):
                self._reused.add((fit.uid, loop))
                self._emit("reused_across_folds", fit, line=line, data=x,
                           why=f"it is applied inside the cross-validation loop on {self.smap.describe(loop_line)} "
                               f"({self.smap.describe(line)}) without being refitted on each fold's training rows")

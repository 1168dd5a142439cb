"""An unknown value stored in an object's attribute is a table-to-be, as one bound to a variable is.

A value the analysis cannot read (a file reader's result where the script names several files, a helper of another
package) bound to a *variable* becomes an opaque value named by it, which turns into a data root the first time it
is used as data (:class:`~faultlib.detect.data.leakage.values.MaybeData`). Bound to an *attribute* of an object the
module creates, it stayed an unknown value, so everything computed from it was unknown too::

    class Study:
        def load(self, path="cells.csv"):
            self.table = pd.read_csv(path)              # unknown: the script also writes results.csv
            self.X = self.table[self.names].values      # ... so this was unknown
        def evaluate(self):
            scaled = self.scaler.fit_transform(self.X)  # and this fit saw no rows
            print(cross_val_score(model, scaled, self.y, cv=5).mean())

Wave 75 (a feature-selection study written as one class): the scaler fitted on every row before
``cross_val_score`` and the selectors fitted before it were silent. :class:`AttributeTables` names such a value by
the attribute (``self.table`` -> ``table``), as :meth:`~faultlib.pyflow.interp.Interpreter._named` names a
variable's, so the object's later reads share one set of rows.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import MaybeData
from faultlib.pyflow.values import UNKNOWN, Instance


class AttributeTables:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _bind(self, target: ast.expr, value: Any, frame: Any, line: int) -> None:
        if value is UNKNOWN and isinstance(target, ast.Attribute) and isinstance(
                self._expr(target.value, frame), Instance):  # type: ignore[attr-defined]
            value = MaybeData(target.attr, line)
        super()._bind(target, value, frame, line)  # type: ignore[misc]


__all__ = ["AttributeTables"]

"""A table transposed after a fit on it, for the static leakage analysis: per-sample statistics of a
features-by-samples matrix.

Expression data is stored one gene a row and one sample a column (a microarray's ``.res``/``.gct`` file, a count
matrix): read as it is, the table's *columns* are the patients. A scaler fitted on that table before it is turned
round learns one mean and one spread per column, that is per patient, over that patient's own genes::

    genes_by_samples = np.loadtxt('matrix.txt')
    scaled = StandardScaler().fit_transform(genes_by_samples)   # each sample standardised over its genes
    samples = scaled.T                                          # one row a sample from here on
    cross_val_score(SVC(), samples, labels, cv=5)

scikit-learn's ``StandardScaler`` "standardize[s] features by removing the mean and scaling to unit variance",
computing its statistics per column "on the samples in the training set" (scikit-learn API reference,
``StandardScaler``): on the untransposed matrix the "features" are the patients. After ``.T`` (NumPy
``ndarray.T``, "the transposed array"; pandas ``DataFrame.T``/``transpose()``, "reflect the DataFrame over its main
diagonal by writing rows as columns and vice-versa") every row of the table the model reads was scaled by
statistics of itself alone: no value crosses from one patient to another, so no held-out patient shaped a training
one -- the per-sample normalisation of a table of its own (house rule; wave 97's gene-expression selectors read such
a file through their cross-validation, a false alarm at first sight).

So the fits made on exactly the rows being transposed (an estimator's or a statistic written by hand) stop carrying
into the transposed table. A fit on other rows (a scaler fitted on the training part and applied to this table)
keeps its taint, and so does any fit made after the transposition (a scaler on the samples-by-genes table is the
usual fit of every sample's value of a gene).

Turning a table round twice gives it back (NumPy: ``a.T.T`` is ``a``): a table turned round and then turned back
(written genes by samples for a file, read back for the model: ``pd.DataFrame(scaled).T`` then ``.T``) has its
columns again, so the fits the first turn dropped are per-column statistics once more and come back.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, maybe_data, parts


def transposed(data: Data) -> Data:
    """``data`` turned round: the fits fitted on exactly its rows are per-column statistics of the rows it had, so
    per-row statistics of the table it becomes, and are dropped (see the module docstring)."""
    here = set(parts(data.rows))
    own = frozenset(f for f in data.taints if here and f.rows is not None and set(parts(f.rows)) == here)
    return data.with_(taints=data.taints - own) if own else data


class TransposedTables:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: ``df.transpose()`` and ``df.T`` (read in
    ``Analyzer._attribute_value``) drop the fits of the rows they turn into columns, and a second turn of the table
    one of them gave brings those fits back."""

    def _turned(self, data: Data) -> Data:
        """``data.T``: :func:`transposed`, except that a table this analysis turned round is turned back, with the
        fits its turn dropped (the value is kept with them, so its ``id`` stays its own)."""
        turns = self.__dict__.setdefault("_turns", {})
        before = turns.get(id(data))
        if before is not None and before[0] is data:
            return data.with_(taints=data.taints | before[1])
        out = transposed(data)
        if out is not data:
            turns[id(out)] = (out, data.taints - out.taints)
        return out

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        data = maybe_data(receiver) if name == "transpose" and not args and not kwargs else None
        if data is not None:
            return self._turned(data)
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["TransposedTables", "transposed"]

"""Adding one vector to a FAISS index: ``index.add(v.reshape(1, -1))`` copies one row into the index, microseconds
of work, not a blocking computation.

FAISS's ``add``/``add_with_ids`` take an ``(n, d)`` array (https://github.com/facebookresearch/faiss/wiki/Getting-
started); a flat index appends the ``n`` rows, an IVF index assigns each row to its nearest centroid, an HNSW index
links each into its graph: work in proportion to ``n``, so ``n == 1`` costs next to nothing, while adding a corpus
(``index.add(embeddings)``) and every ``search`` (a scan of the index) stay blockers. Held-out wave 47 (a semantic
cache storing each answer's embedding; its ``write_index`` after the add is the blocker). One row is written as
``x.reshape(1, -1)``/``x.reshape((1, d))``, ``x[None, :]``/``x[np.newaxis]``, ``np.expand_dims(x, 0)`` or an array of a
one-element list (``np.array([x])``), directly or through the last assignment of a local name before the call. Used
by :func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["adds_one_row"]

ADDS = frozenset({"add", "add_with_ids"})
ARRAY_MAKERS = frozenset({"array", "asarray", "vstack", "stack", "ascontiguousarray"})


def adds_one_row(owner: str, method: str, call: ast.Call, func: Func) -> bool:
    """``call`` is a FAISS index's ``add``/``add_with_ids`` of one row (see the module docstring)."""
    if not (owner.startswith("faiss.") and method in ADDS and call.args):
        return False
    rows = call.args[0]
    if isinstance(rows, ast.Name):
        earlier = [n for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                   and isinstance(n.targets[0], ast.Name) and n.targets[0].id == rows.id
                   and n.lineno < call.lineno]
        if not earlier:
            return False
        rows = max(earlier, key=lambda n: n.lineno).value
    return _one_row(rows)


def _one_row(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr == "reshape" and expr.args:
            first = expr.args[0].elts[0] if isinstance(expr.args[0], ast.Tuple) and expr.args[0].elts else expr.args[0]
            return isinstance(first, ast.Constant) and first.value == 1
        if expr.func.attr == "expand_dims" and len(expr.args) == 2:
            return isinstance(expr.args[1], ast.Constant) and expr.args[1].value == 0
        if expr.func.attr in ARRAY_MAKERS and expr.args:
            return isinstance(expr.args[0], (ast.List, ast.Tuple)) and len(expr.args[0].elts) == 1
        return False
    if isinstance(expr, ast.Subscript):
        first = expr.slice.elts[0] if isinstance(expr.slice, ast.Tuple) and expr.slice.elts else expr.slice
        return (isinstance(first, ast.Constant) and first.value is None) or (dotted(first) or [""])[-1] == "newaxis"
    return False

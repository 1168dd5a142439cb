"""One new input shaped into a single sample is not a held-out set, for the static leakage analysis.

A notebook that photographs one hand-written digit, sets its contrast from its own pixels and reshapes it into
one row for the trained classifier::

    low = np.percentile(picture, 20)                 # a statistic of this one picture's pixels
    picture = np.clip(picture - low, 0, 255) / np.max(picture)
    test_sample = np.array(picture).reshape(1, 784)  # 1 sample, 784 features
    print(clf.predict(test_sample))

names the result for testing, and the analysis marked the whole picture as held-out rows, so the statistics of its
pixels read as fits on the test set (wave 77: four alarms in two course notebooks). The rows of the picture are
pixels of one sample: a statistic over them is a per-sample normalisation (as instance normalisation is, Ulyanov,
Vedaldi & Lempitsky, 2016), which carries nothing from one sample to another.

:func:`one_sample` reads an assignment whose value reshapes to a single row (``x.reshape(1, ...)``,
``np.reshape(x, (1, ...))``, ``np.expand_dims(x, 0)``, ``x[np.newaxis]``, ``x[None]``) of a value that selects no
rows (no subscript inside: ``X[i].reshape(1, -1)`` in a leave-one-out loop is still a held-out row of ``X``).
Such a name does not mark its value as held out; rows a split or a test file holds out stay held out.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def _one(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1


def _zero(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _no_rows_picked(node: ast.expr) -> bool:
    return not any(isinstance(n, ast.Subscript) for n in ast.walk(node))


def _reshaped_source(value: ast.expr) -> ast.expr | None:
    """The reshaped value when ``value`` makes a single row of it, else ``None``."""
    if isinstance(value, ast.Subscript):  # x[np.newaxis], x[None], x[None, :]
        first = value.slice.elts[0] if isinstance(value.slice, ast.Tuple) and value.slice.elts else value.slice
        new_axis = (isinstance(first, ast.Constant) and first.value is None) or (
            isinstance(first, ast.Attribute) and first.attr == "newaxis")
        return value.value if new_axis else None
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return None
    name, args = value.func.attr, value.args
    if name == "reshape" and args and (_one(args[0]) or isinstance(args[0], ast.Tuple) and args[0].elts
                                       and _one(args[0].elts[0])):
        return value.func.value  # x.reshape(1, 784), x.reshape((1, -1))
    if name == "reshape" and len(args) == 2 and isinstance(args[1], ast.Tuple) and args[1].elts \
            and _one(args[1].elts[0]):
        return args[0]  # np.reshape(x, (1, 784))
    axis = next((k.value for k in value.keywords if k.arg == "axis"), args[1] if len(args) > 1 else None)
    if name == "expand_dims" and args and _zero(axis):
        return args[0]
    return None


def one_sample(value: ast.expr) -> bool:
    """``value`` shapes one input (a value that selects no rows) into a single sample (see the module docstring)."""
    source = _reshaped_source(value)
    return source is not None and _no_rows_picked(source)


class SingleSamples:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _binds_one_sample(self, name: str, line: int) -> bool:
        """``name`` is assigned one input shaped into a single sample on ``line``."""
        if not hasattr(self, "_one_sample_names"):
            self._one_sample_names = {(t.id, n.lineno) for n in walk_once(self.tree) if isinstance(n, ast.Assign)
                                      and one_sample(n.value) for t in n.targets if isinstance(t, ast.Name)}
        return (name, line) in self._one_sample_names

    tree: ast.AST


__all__ = ["SingleSamples", "one_sample"]

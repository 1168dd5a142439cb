"""Rows read from a file of their own, followed through a script's feature steps, for ``tuned_on_test``.

A competition notebook reads the unlabelled ``test.csv`` and builds its features step by step, under one name and
through its own helper functions, before it predicts it::

    test = add_time_parts(test_df)                       # a helper that adds columns and returns the frame
    test = add_distance('lat1', 'lon1', 'lat2', 'lon2', test)
    test = test.drop('key', axis=1)
    test = test.drop('pickup_datetime', axis=1)
    X_test = test
    pred = booster.predict(X_test)                       # the file's rows, only predicted

``X_test`` holds the rows of ``test.csv``, not a part cut from the training data: a prediction of it scores
nothing (no labels), so a booster stopped on its validation part, whose per-round log is the only score shown, stays
reported (:mod:`.stopscores`, the house decision of wave 47). Wave 102 (a taxi-fare notebook): the trace stopped
after three assignments, at the third ``test = test...`` step, and the prediction was read as a held-out part.

:func:`from_file` follows a name back to a file reader (:data:`~.vocab.FILE_READERS`):

* a rebinding of the same name from itself (``test = test.drop(...)``, ``test = f(..., test)``) is one step of
  the same rows and costs no depth: it looks only at the bindings strictly earlier, so the walk ends. With none
  earlier, the name held rows the table of bindings does not record (an unpacking such as ``a, b = np.array_split(
  test, 2)``, a parameter), read as a name never bound. Stop 57 (a notebook's ``test_1 = test_1.merge(...)`` in a
  loop, after such an unpacking): the walk went back to the same binding without end, and the recursion error cut
  off the whole analysis;
* a call of one of the module's functions whose body selects no rows (no slice, ``iloc``/``loc``, ``head``/
  ``tail``/``query``, ``train_test_split``, a comparison mask) holds the rows of its table arguments: every
  variable it is given must come from a file (string and number arguments are column names and settings);
* a library's function (``xgb.DMatrix(X_te)``, ``np.log1p(frame)``) holds the rows of its table arguments, never
  the rows of the module it is called from;
* any row selection on the way (``t[:n]``, ``t[t.year >= 2020]``, ``t.tail(n)``) is a part cut from the data.
  Except the test side of a stack cut back by its origin mark (``base[base.Dataset == 'test']``): a script that
  stacks the training and the competition's test file under a column naming each row's table and cuts the stack
  back by it holds the test file's rows again (:mod:`.partflags` reads the same mark for the rows' values). Only
  ``==`` against the string ``'test'`` or ``'submission'`` is read: ``'valid'`` may name a labelled part. Stop 57 (a
  Titanic script predicting such a side): read as a labelled part predicted by eye, which silenced its stop.

A name unpacked from a split (``a, b, c, d = train_test_split(X, y)``, ``for tr, te in kf.split(X)``) is a part. A name the module never binds
otherwise (a parameter) counts as a file's rows, as before: it is no part the script cut.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.handerrors import imported_names
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import tree_fact

#: assignments to a new name followed back (a rebinding of the same name is free)
_DEPTH = 3


def row_cut(node: ast.expr) -> bool:
    """A selection of rows anywhere in ``node`` (``t[:n]``, ``t[t.year >= 2020]``, ``t.iloc[...]``/``t.loc[...]``,
    ``t.tail(n)``), not of columns (``t[COLS]``, ``t[['a', 'b']]``)."""
    n: ast.expr | None = node
    while n is not None:  # along the chain t.iloc[...].copy(): not into the arguments
        if isinstance(n, ast.Subscript) and (isinstance(n.slice, (ast.Slice, ast.Compare, ast.BoolOp, ast.BinOp))
                                             or isinstance(n.value, ast.Attribute) and n.value.attr in ("iloc", "loc")):
            return True
        if isinstance(n, ast.Call) and call_name(n) in ("head", "tail", "query", "train_test_split"):
            return True
        n = n.value if isinstance(n, (ast.Subscript, ast.Attribute)) else \
            n.func if isinstance(n, ast.Call) else None
    return False


#: the values of an origin mark that name the competition's unlabelled file
_TEST_SIDES = frozenset({"test", "submission"})


def _test_side(node: ast.expr) -> bool:
    """``node`` is ``t[t.col == 'test']`` (a chain of column selections and calls on it allowed): the test side of
    a stack cut back by its origin mark (see the module docstring)."""
    while isinstance(node, (ast.Attribute, ast.Call)) or isinstance(node, ast.Subscript) and not isinstance(
            node.slice, ast.Compare):
        node = node.func if isinstance(node, ast.Call) else node.value
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Compare) and row_cut(node)):
        return False
    mask = node.slice
    side = mask.comparators[0] if len(mask.ops) == 1 and isinstance(mask.ops[0], ast.Eq) else None
    return isinstance(side, ast.Constant) and isinstance(side.value, str) and side.value.lower() in _TEST_SIDES \
        and isinstance(mask.left, (ast.Attribute, ast.Subscript)) and not row_cut(node.value)


def _cutting(fn: ast.AST) -> bool:
    """The function selects rows somewhere in its body (a split, a slice, a mask): its result may be a part."""
    return any(isinstance(n, (ast.Subscript, ast.Call)) and row_cut(n) for n in ast.walk(fn))


def _module_facts(tree: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """Names unpacked from a row cut (``a, b, c, d = train_test_split(...)``, ``for tr, te in kf.split(X)``: fold
    positions) and the project's functions that keep every row they are given; once per module."""
    cuts = {e.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and row_cut(n.value)
            for t in n.targets if isinstance(t, (ast.Tuple, ast.List)) for e in t.elts if isinstance(e, ast.Name)}
    cuts |= {e.id for n in ast.walk(tree) if isinstance(n, ast.For) and any(
        isinstance(c, ast.Call) and call_name(c) == "split" for c in ast.walk(n.iter))
        for e in ast.walk(n.target) if isinstance(e, ast.Name)}
    keeping = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               and not _cutting(n)}
    return frozenset(cuts), frozenset(keeping)


class FileLineage:
    """A module's assignments and functions, to tell rows read from a file (see the module docstring).

    Args:
        tree: the parsed module.
        binds: name -> (line, writes into it, value), sorted by line (:class:`.stopscores.StopScores`' table).
    """

    def __init__(self, tree: ast.Module, binds: dict[str, list[tuple[int, bool, ast.expr]]]):
        self._binds = binds
        self._modules = imported_names(tree)
        self._unpacked_cuts, self._keeping = tree_fact(tree, _module_facts)

    def from_file(self, name: str, line: int, depth: int = _DEPTH, *, earlier: bool = False) -> bool:
        """``name`` holds, at ``line``, rows read from a file of their own (or rows the module never binds);
        ``earlier``: only its bindings before ``line`` count (one step back along a rebinding of itself)."""
        plain = [(at, value) for at, into, value in self._binds.get(name, []) if not into]  # not t['col'] = 0
        before = [b for b in plain if b[0] < line]
        if not plain and name in self._unpacked_cuts:
            return False  # a part a split unpacked into it
        if not plain or not before and (depth < _DEPTH or earlier):  # never bound, or not before the reading one
            return True
        for at, value in before[-1:] or plain:
            if row_cut(value) and not _test_side(value):
                return False
            if not self._value_from_file(value, name, at, depth):
                return False
        return True

    def _value_from_file(self, value: ast.expr, name: str, at: int, depth: int) -> bool:
        if isinstance(value, ast.Call) and call_name(value) not in vocab.FILE_READERS and \
                self._root(value.func) in self._modules:  # xgb.DMatrix(X_te): the rows of its arguments
            return self._arguments_from_file(value, name, at, depth)
        while isinstance(value, (ast.Subscript, ast.Attribute)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and call_name(value) not in vocab.FILE_READERS):
            value = value.value if not isinstance(value, ast.Call) else value.func.value  # type: ignore[union-attr]
        if isinstance(value, ast.Call) and call_name(value) in vocab.FILE_READERS:
            return True
        if isinstance(value, ast.Name):
            if value.id == name:  # test = test.drop(...): the same rows, one step earlier
                return self.from_file(name, at, depth, earlier=True)
            return bool(depth) and self.from_file(value.id, at, depth - 1)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in self._keeping:
            return self._arguments_from_file(value, name, at, depth)
        return False

    def _arguments_from_file(self, call: ast.Call, name: str, at: int, depth: int) -> bool:
        """Every variable ``call`` is given holds a file's rows (strings and numbers are settings)."""
        tables = [a for a in [*call.args, *(k.value for k in call.keywords)] if isinstance(a, ast.Name)]
        return bool(tables) and all(self._value_from_file(a, name, at, depth) for a in tables)

    @staticmethod
    def _root(node: ast.expr) -> str | None:
        while isinstance(node, ast.Attribute):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None


__all__ = ["FileLineage", "row_cut"]

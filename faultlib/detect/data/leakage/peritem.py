"""Reductions of one sample inside a loop that builds rows, for the static leakage analysis.

A loop that builds a feature table one row per pass reads one sample a pass:

    for i in range(len(images)):
        img = images[i]
        feats.append([img.mean(), img.std(), np.max(img[:, :, 2])])

``img.mean()`` reduces the pixels of image ``i`` only: it is that row's feature (like ``x.mean(axis=1)`` over a
table), computed alike on a training and on a test sample, and it reads no other row. It is no statistic over
rows and no fit. :func:`per_item_reductions` names such reduction calls so that the analysis does not take them for
hand-written fits (:mod:`.design`).

What is *one sample of the loop*, read from the code alone:

* ``t[i]``, ``t[i, ...]``, ``t.iloc[i]``, ``t.loc[i]`` where ``i`` is the position a loop counts
  (``for i in range(...)``, ``tqdm(range(...))``, ``trange(...)``, the first name of ``enumerate``) and its range is
  not the columns' (``range(X.shape[1])``, ``range(len(df.columns))`` count columns: ``t[i]`` is then a column,
  whose statistic is over all rows), nor read as a pandas column: ``X[i] = X[i].fillna(X[i].mean())`` calls a method
  only a pandas Series has on ``X[i]`` (pandas user guide, "Indexing and selecting data": ``frame[key]`` selects a
  column; a row of a NumPy array has no ``fillna``), so ``i`` counts column labels and ``X[i].mean()`` is over every
  row;
* the item itself in ``for x in rows`` / the second name of ``enumerate(rows)``, unless the loop walks a literal
  list or tuple (``for df in [train, test]``: each item is a whole table) or names (``.columns``, ``.keys()``);
* a name the loop body assigns only from such a value (``patch = images[i]``, ``rgb = patch[:, :, :3]``,
  ``with h5py.File(paths[i]) as f``), and expressions built only from them and constants;
* a path joined from one sample and folder names (``os.path.join(folder, name)``, ``Path(folder) / name``,
  ``f"{folder}/{name}"``) in a loop over a listing of files: the other parts name the folder the listing read (a
  parameter of the function, a name bound at run time), and the path names that one file, so what is read from it
  is that one recording (``os.path.join``: "the return value is the concatenation of path and all members of
  *paths", Python library reference).

The loop must build rows: its body appends to a list (``feats.append``/``extend``) or stores an item at the loop's
position (``out[i] = ...``). A reduction whose operand mixes one sample with anything else (``(X[i] - X.mean())``:
``X.mean()`` is over every row) is not one sample's.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

#: calls that list files (Python library reference: ``os.listdir``, ``os.scandir``, ``glob.glob``/``iglob``,
#: ``pathlib.Path.glob``/``rglob``/``iterdir``): each item names one file, one recording of the data
_FILE_LISTS = frozenset({"listdir", "scandir", "glob", "iglob", "rglob", "iterdir"})
#: calls that join a path from a folder and a file name (``os.path.join``, ``pathlib.Path``/``PurePath``)
_PATH_JOINS = frozenset({"join", "Path", "PurePath", "PosixPath", "joinpath"})
#: iterables whose items are names, not samples
_NAME_ITERS = frozenset({"columns", "keys", "items", "values", "index"})
#: modules whose reductions take the data as their first argument
_MODULES = frozenset({"np", "numpy", "pd", "pandas", "statistics", "scipy", "stats", "math", "torch"})
#: methods of a pandas Series that a NumPy row lacks (pandas API reference, "Series"): ``t[i].fillna(...)`` makes
#: ``t[i]`` a column of a frame
_SERIES_ONLY = frozenset({"fillna", "isnull", "isna", "notnull", "notna", "dropna", "value_counts", "nunique",
                          "median", "mode", "quantile", "interpolate", "map"})


def _unwrap(it: ast.expr) -> ast.expr:
    while isinstance(it, ast.Call) and _callee(it) in vocab.PROGRESS_BARS and it.args:
        it = it.args[0]
    return it


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _counts_columns(call: ast.Call) -> bool:
    """``range(X.shape[1])``, ``range(len(df.columns))``: a loop over column positions."""
    for n in ast.walk(call):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape" and not (
                isinstance(n.slice, ast.Constant) and n.slice.value == 0):
            return True
        if isinstance(n, ast.Attribute) and n.attr in ("columns", "T"):
            return True
    return False


def _loop_names(target: ast.expr, it: ast.expr) -> tuple[set[str], set[str]]:
    """(position names, item names) a ``for target in it`` binds."""
    it = _unwrap(it)
    if isinstance(it, ast.Call) and _callee(it) in ("range", "trange"):
        ok = isinstance(target, ast.Name) and not _counts_columns(it)
        return ({target.id} if ok else set()), set()  # type: ignore[union-attr]
    if isinstance(it, ast.Call) and _callee(it) == "enumerate" and it.args:
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name):
            item = target.elts[1]
            items = {item.id} if isinstance(item, ast.Name) and _walks_samples(_unwrap(it.args[0])) else set()
            return {target.elts[0].id}, items
        return set(), set()
    if isinstance(target, ast.Name) and _walks_samples(it):
        return set(), {target.id}
    return set(), set()


def _walks_samples(it: ast.expr) -> bool:
    """``images``, ``data.images``, ``X_train``: an iterable whose items may be samples (not a literal list of tables,
    not names, not pairs); ``os.listdir(d)``, ``glob(pattern)``, ``sorted(...)`` of them: files, one recording each."""
    if isinstance(it, ast.Name):
        return True
    if isinstance(it, ast.Attribute):
        return it.attr not in _NAME_ITERS
    if isinstance(it, ast.Call) and _callee(it) == "sorted" and it.args:
        return _walks_samples(it.args[0])
    return isinstance(it, ast.Call) and _callee(it) in _FILE_LISTS


def _builds_rows(loop: ast.For | ast.AsyncFor, positions: set[str]) -> bool:
    """The body appends to a list or stores an item at the loop's position (``out[i] = ...``)."""
    for n in body_nodes(loop.body):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend"):
            return True
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and _at_position(t, positions)
                                             for t in n.targets):
            return True
    return False


def _column_positions(loop: ast.For | ast.AsyncFor, positions: set[str]) -> set[str]:
    """The positions the body reads as pandas columns: ``t[i].fillna(...)`` on a plain ``t[i]`` (not ``.iloc``/``.loc``,
    whose ``[i]`` is a row: see the module docstring)."""
    out: set[str] = set()
    for n in body_nodes(loop.body):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SERIES_ONLY:
            sub = n.func.value
            if isinstance(sub, ast.Subscript) and not (isinstance(sub.value, ast.Attribute) and sub.value.attr in (
                    "iloc", "loc", "iat", "at")) and isinstance(sub.slice, ast.Name) and sub.slice.id in positions:
                out.add(sub.slice.id)
    return out


def body_nodes(body: list[ast.stmt]):
    """Every node of ``body``, not inside a nested function or class."""
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(n))


def _at_position(sub: ast.Subscript, positions: set[str]) -> bool:
    """``t[i]``, ``t[i, :]``, ``t.iloc[i]``, ``t.loc[i]`` with ``i`` a loop position."""
    key = sub.slice.elts[0] if isinstance(sub.slice, ast.Tuple) and sub.slice.elts else sub.slice
    return isinstance(key, ast.Name) and key.id in positions


class OneSample:
    """Whether an expression is one sample of the loop (see the module docstring)."""

    def __init__(self, positions: set[str], items: set[str], constants: frozenset[str] = frozenset()):
        self.positions, self.names, self.constants = positions, set(items), constants

    def of(self, e: ast.expr | None) -> bool:
        return self._walk(e) is True

    def _walk(self, e: ast.expr | None) -> bool | None:
        """True: one sample; None: a constant (neutral); False: anything else."""
        if e is None or isinstance(e, ast.Constant):
            return None
        if isinstance(e, ast.Name):
            return True if e.id in self.names else None if e.id in self.positions or e.id in self.constants else False
        if isinstance(e, ast.Subscript):
            if _at_position(e, self.positions):
                return True
            return self._walk(e.value)  # patch[:, :, 12]: a part of one sample
        if isinstance(e, ast.Attribute):
            return self._walk(e.value)
        if isinstance(e, ast.JoinedStr):  # f"{folder}/{name}": a path naming one file of the listing
            return any(self._walk(v.value) is True for v in e.values if isinstance(v, ast.FormattedValue))
        if isinstance(e, ast.Call) and _callee(e) in _PATH_JOINS and any(self._walk(a) is True for a in e.args):
            return True  # os.path.join(folder, name): the folder part is a name, the path one file
        if isinstance(e, ast.Call):
            parts = [*e.args, *(k.value for k in e.keywords)]
            if isinstance(e.func, ast.Attribute) and self._walk(e.func.value) is True:
                return True if all(self._walk(a) is not False for a in parts) else False
            return self._all(parts)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Div) and any(
                isinstance(s, ast.Call) and _callee(s) in _PATH_JOINS for s in (e.left, e.right)) and any(
                self._walk(s) is True for s in (e.left, e.right)):
            return True  # Path(folder) / name: one file's path
        if isinstance(e, ast.BinOp):
            return self._all([e.left, e.right])
        if isinstance(e, ast.UnaryOp):
            return self._walk(e.operand)
        if isinstance(e, (ast.List, ast.Tuple)):
            return self._all(list(e.elts))
        if isinstance(e, ast.Starred):
            return self._walk(e.value)
        return False

    def _all(self, es: list[ast.expr]) -> bool | None:
        seen = [self._walk(x) for x in es]
        if any(s is False for s in seen):
            return False
        return True if any(s is True for s in seen) else None

    def learn(self, body: list[ast.stmt]) -> None:
        """Add the names the body assigns only from one sample (to a fixed point: ``patch = images[i]`` makes
        ``rgb = patch[..., :3]`` one sample, and so on down a chain)."""
        items = set(self.names)
        for _ in range(32):
            bound: dict[str, bool] = {}
            for n in body_nodes(body):
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        if isinstance(t, ast.Name):
                            bound[t.id] = bound.get(t.id, True) and self.of(n.value)
                elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
                    bound[n.target.id] = False
                elif isinstance(n, ast.withitem) and isinstance(n.optional_vars, ast.Name):
                    name = n.optional_vars.id
                    bound[name] = bound.get(name, True) and self.of(n.context_expr)
            names = {k for k in items if bound.get(k, True)} | {k for k, v in bound.items() if v}
            if names == self.names:
                return
            self.names = names


def _operand(call: ast.Call) -> ast.expr | None:
    """What a reduction reduces: the receiver of ``x.mean()``, the first argument of ``np.mean(x)``/``min(x)``."""
    f = call.func
    if isinstance(f, ast.Attribute):
        root = f.value
        while isinstance(root, ast.Attribute):  # np.ma.mean(x)
            root = root.value
        return (call.args[0] if call.args else None) if isinstance(root, ast.Name) and root.id in _MODULES else f.value
    return call.args[0] if call.args else None


def row_loops(tree: ast.Module) -> list[tuple[ast.For | ast.AsyncFor, OneSample]]:
    """Each loop of ``tree`` that builds rows, with what is one sample in its body (module docstring)."""
    out = []
    constants = literal_names(tree)
    for loop in walk_once(tree):
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        positions, items = _loop_names(loop.target, loop.iter)
        positions -= _column_positions(loop, positions)
        if not (positions or items) or not _builds_rows(loop, positions):
            continue
        sample = OneSample(positions, items, constants)
        sample.learn(loop.body)
        out.append((loop, sample))
    return out


def literal_names(tree: ast.Module) -> frozenset[str]:
    """Names only ever assigned a literal (``DATA_PATH = "/data/records"``): constants, like the literal itself."""
    bound: dict[str, bool] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    bound[t.id] = bound.get(t.id, True) and isinstance(n.value, ast.Constant)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(n.target, ast.Name):
            bound[n.target.id] = False
    return frozenset(k for k, v in bound.items() if v)


def reductions_of(body: list[ast.stmt], sample: OneSample) -> set[int]:
    """Ids of the reduction calls in ``body`` whose operand is one sample."""
    return {id(n) for n in body_nodes(body) if isinstance(n, ast.Call) and sample.of(_operand(n))}


def per_item_reductions(tree: ast.Module) -> frozenset[int]:
    """Ids of the call nodes in ``tree`` that reduce one sample of a loop that builds rows (module docstring)."""
    out: set[int] = set()
    for loop, sample in row_loops(tree):
        out |= reductions_of(loop.body, sample)
    return frozenset(out)


__all__ = ["OneSample", "body_nodes", "literal_names", "per_item_reductions", "reductions_of", "row_loops"]

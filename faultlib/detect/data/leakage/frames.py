"""How pandas frames and Python lists carry rows and fits, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_expr``, ``_lookup``, ``_store``
and ``_rebind_base`` from there). Each rule is named for what the pandas API does (pandas user guide,
"Indexing and selecting data", "Merge, join, concatenate"):

* a **list built in a loop** (``xs = []; xs.append(frame.iloc[i:i + w].values)``) holds those rows: windows
  of a series cut by position keep the rows they came from, so ``x_test`` built from ``frame[cut:]`` is that
  part of the frame;
* a **column dropped takes away the fits that entered only through it**
  (``df['Clusters'] = km.fit_predict(X)`` ... ``df.drop(['Clusters'], axis=1)``): one column, one fit; a fit
  that shaped other columns too stays;
* a **stack's parts come apart again by index**: ``df = pd.concat([train, test])``, then
  ``df.loc[test.index]`` is the test part and ``df.drop(test.index)`` is the rest.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.blending import SameFoldBlends
from faultlib.detect.data.leakage.blocks import Blocks, appended_to_listed, listed_blocks
from faultlib.detect.data.leakage.classstats import chooses
from faultlib.detect.data.leakage.positions import RowPositions
from faultlib.detect.data.leakage.rowrecords import RowRecords
from faultlib.detect.data.leakage.bands import copied_bands
from faultlib.detect.data.leakage.derivedcols import derived_columns, dropped_for_good
from faultlib.detect.data.leakage.lambdareads import lambda_read_fits
from faultlib.detect.data.leakage.values import Data, RowUnion, maybe_data, parts
from faultlib.pyflow.values import UNKNOWN, Const, Opaque, Ref, Tup
from faultlib.pyflow.walk import walk_once

#: NumPy / Python random draws of positions or labels (``np.random.choice(idx, n)``, ``np.random.permutation(n)``)
_DRAWS = frozenset({"choice", "permutation", "sample"})


class Drawn(Opaque):
    """Index labels or positions drawn at random: the rows they pick are a random subset of a table."""

    def __init__(self, line: int):
        super().__init__("drawn", line)


def _with_block(held: Data, block: Data) -> Data:
    """A list of blocks after one more: the same rows (blocks of columns for one ``hstack``) keep them, other rows
    join them; the block's fits come in either way."""
    mine = parts(held.rows)
    rows = held.rows if block.rows is None or all(p in mine for p in parts(block.rows)) else (
        block.rows if held.rows is None else RowUnion(mine + tuple(p for p in parts(block.rows) if p not in mine)))
    return (Blocks if isinstance(held, Blocks) else Data)(rows, held.taints | block.taints, held.test)


def _draws(ref: Ref, args: list[Any]) -> Any:
    """``Drawn`` for a random draw, or a stack holding one (``np.concatenate([kept, drawn])``), else ``None``."""
    if ref.last in _DRAWS and "random" in ref.module.split(".") and not any(
            isinstance(a, Data) and a.taints for a in args):
        return Drawn(0)  # (values drawn around a statistic, choice(stats), keep that statistic's fit instead)
    items = args[0].items if args and isinstance(args[0], Tup) else args
    if ref.last in ("concatenate", "hstack", "append", "union1d", "r_") and any(isinstance(i, Drawn) for i in items):
        return Drawn(0)
    if ref.last in ("array", "asarray", "sort", "list", "tuple") and args and isinstance(args[0], Drawn):
        return args[0]
    return None


class FrameSemantics(RowRecords, RowPositions, SameFoldBlends):  # rowrecords.py, positions.py, blending.py
    """Row-keeping list building, column drops and index lookups into stacks (see the module docstring)."""

    def __init__(self) -> None:
        # fits that entered a frame only through one added column: (frame's root uids, column) -> fits
        self._column_fits: dict[tuple[frozenset, str], set] = {}

    def _drawn(self, ref: Ref, args: list[Any]) -> Any:
        """``Drawn`` for a random draw of positions, or a stack or array of one, else ``None``."""
        return _draws(ref, args)

    def _frame_method(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        """The value of ``receiver.name(*args)`` when one of this module's rules decides it, else ``None``."""
        target = node.func.value.id if isinstance(node.func, ast.Attribute) and isinstance(
            node.func.value, ast.Name) else None
        if name in ("append", "extend") and isinstance(receiver, Tup) and target and args and isinstance(
                args[0], Data) and args[0].rows is not None:
            held = args[0].with_(test=False)
            listed = listed_blocks(receiver)  # blocks = [base]; blocks.append(x): base stays in the list (blocks.py)
            self._store(target, appended_to_listed(listed, held) if listed is not None else Blocks(
                held.rows, held.taints, held.test), frame)
            return UNKNOWN
        if name in ("append", "extend") and isinstance(receiver, Tup) and target and args and isinstance(
                args[0], Data) and args[0].rows is None and any(chooses(f) for f in args[0].taints):
            # names.append(list(skb.get_feature_names_out())[0]): the list now holds a column name a fit chose
            self._store(target, Tup((*receiver.items, args[0])), frame)
            return UNKNOWN
        if name in ("append", "extend") and isinstance(receiver, Data) and target and args and isinstance(
                args[0], Data) and self._result_discarded(node):
            # blocks.append(piece) as a statement: a list that already holds blocks (pandas' append returns a new
            # frame, so only a list's append is written for its effect); the next block's fits come with it
            self._store(target, _with_block(receiver, args[0]), frame)
            return UNKNOWN
        lam = next((a for a in node.args if isinstance(a, ast.Lambda)), None)
        if name in ("apply", "map", "applymap", "transform") and lam is not None and maybe_data(receiver) is not None:
            # s.apply(lambda k: avg[k]): each row takes a value from what the lambda reads besides its argument
            data = maybe_data(receiver)
            taints = lambda_read_fits(lam, lambda n: self._lookup(n, frame))  # (lambdareads.py)
            if taints - data.taints:
                return data.with_(taints=data.taints | taints)
        axis = kwargs.get("axis")
        if name == "align" and args and getattr(axis, "value", None) in (1, "columns"):
            # X_train, X_test = X_train.align(X_test, axis=1): the same two tables, their columns matched
            pair = maybe_data(receiver), maybe_data(args[0])
            if None not in pair:
                return Tup(pair)
        receiver = maybe_data(receiver) if name == "drop" else None
        if receiver is None or receiver.rows is None:
            return None
        dropped = _dropped_columns(args, kwargs)
        if dropped:
            out = receiver.with_(taints=receiver.taints - self._dropped_fits(receiver, dropped) | _chosen_drops(
                args, kwargs))  # ['host_id', *names a fit chose]: the typed names go, the choice stays
        elif isinstance(receiver.rows, RowUnion) and "columns" not in kwargs:
            out = self._without_parts(receiver, node, frame)
            if out is None:
                return None
        else:
            return None
        inplace = kwargs.get("inplace")
        if target and isinstance(inplace, Const) and inplace.value is True:
            self._store(target, out, frame)
        return out

    def _result_discarded(self, node: ast.Call) -> bool:
        """``node`` is a whole statement (``xs.append(x)``): its value is not used."""
        if not hasattr(self, "_statement_calls"):
            self._statement_calls = {id(n.value) for n in walk_once(self.tree) if isinstance(n, ast.Expr)
                                     and isinstance(n.value, ast.Call)}
        return id(node) in self._statement_calls

    def _expr(self, node: ast.expr | None, frame: Any) -> Any:
        if isinstance(node, ast.ListComp) and _names_columns(node):
            return Tup(())  # [c for c in df.columns if ...]: column names (selecting them keeps every row)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _is_list(node.left) and _is_list(
                node.right):
            # list(X_train) + list(X_test): the rows of both lists, one after the other
            left, right = maybe_data(self._expr(node.left, frame)), maybe_data(self._expr(node.right, frame))
            if left is not None and right is not None and left.rows is not None and right.rows is not None:
                return Data(RowUnion(tuple(parts(left.rows)) + tuple(parts(right.rows))), left.taints | right.taints,
                            False)
        names = self._chosen_names_sum(node, frame)  # picked + others: a name list a fit chose stays one
        return names if names is not None else super()._expr(node, frame)

    def _chosen_names_sum(self, node: ast.expr | None, frame: Any) -> Any:
        """``picked + others`` with ``picked`` a list holding column names a fitted selector chose (a name bound
        to such a list, see :func:`.namelists.chosen_names`): the joined list, else ``None``."""
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
            return None
        from faultlib.detect.data.leakage.namelists import chosen_names

        sides = [self._lookup(n.id, frame) if isinstance(n, ast.Name) else None for n in (node.left, node.right)]
        if not any(isinstance(v, Tup) and chosen_names(v, maybe_data) is not None for v in sides):
            return None
        left, right = (v if v is not None else self._expr(n, frame) for v, n in zip(sides, (node.left, node.right)))
        return Tup(tuple(i for v in (left, right) for i in (v.items if isinstance(v, Tup) else (v,))))

    def _record_column(self, before: Data | None, column: Any, value: Any) -> None:
        """``df[column] = value`` made ``before`` (the frame) carry ``value``'s fits: remember which came in."""
        if before is not None and isinstance(value, Data) and isinstance(column, str):
            key = (frozenset(p.root.uid for p in parts(before.rows)), column)
            self._column_fits.setdefault(key, set()).update(value.taints - before.taints)

    def _dropped_fits(self, data: Data, columns: list[str]) -> frozenset:
        """Fits that shaped ``data`` only through ``columns`` (not through a column built from them: derivedcols.py)."""
        if not hasattr(self, "_derived_columns"):
            self._derived_columns = derived_columns(self.tree)
        # the same columns are asked about for every read of one column of a wide frame (columnreads.py): the
        # answer, a function of the columns and the tree's derived columns alone, is kept (a set: asked per entry)
        memo = self.__dict__.setdefault("_dropped_for_good", {})
        key = tuple(columns)
        if key not in memo:
            memo[key] = frozenset(dropped_for_good(list(key), self._derived_columns))
        columns = memo[key]
        roots = frozenset(p.root.uid for p in parts(data.rows))
        mine = [(c, fits) for (r, c), fits in self._column_fits.items() if r == roots]
        kept = {f for c, fits in mine if c not in columns for f in fits}
        if not hasattr(self, "_copied_bands"):
            self._copied_bands = copied_bands(self.tree)
        return frozenset(f for c, fits in mine if c in columns
                         for f in fits if f not in kept and not (  # edges typed back by hand stay (bands.py)
                             f.handwritten and f.method in ("qcut", "cut") and f.line in self._copied_bands))

    def _stack_part(self, data: Data, index_node: ast.expr, frame: Any) -> Data | None:
        """``stack.loc[other.index]``: the parts of ``stack`` that are ``other``'s rows (``None``: not a stack of
        them)."""
        if not (isinstance(index_node, ast.Attribute) and index_node.attr == "index"
                and isinstance(data.rows, RowUnion)):
            return None
        roots = self._index_roots(index_node, frame)
        picked = tuple(p for p in data.rows.parts if p.root in roots)
        if not picked or len(picked) == len(data.rows.parts):
            return None
        return Data(picked[0] if len(picked) == 1 else RowUnion(picked), data.taints, any(p.root.test for p in picked))

    def _without_parts(self, data: Data, node: ast.Call, frame: Any) -> Data | None:
        """``stack.drop(other.index)``: ``stack`` without ``other``'s parts (``None``: not a part of it)."""
        index = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("index", "labels")),
                                                    None)
        if not (isinstance(index, ast.Attribute) and index.attr == "index"):
            return None
        roots = self._index_roots(index, frame)
        kept = tuple(p for p in parts(data.rows) if p.root not in roots)
        if not kept or len(kept) == len(parts(data.rows)):
            return None
        return Data(kept[0] if len(kept) == 1 else RowUnion(kept), data.taints, False)

    def _stack_cut(self, stack: tuple, index_node: ast.Slice, head: bool, frame: Any) -> Any:
        """The parts of a stack (``all = pd.concat([a, b, c])``) one end of a cut keeps: ``all[:n]`` (``head``) the
        first, ``all[n:]`` the rest; a bound that counts the last part from the end (``all[-len(c):]``,
        ``all.iloc[:-len(c)]``) keeps that last part, or all but it (Python slicing: a negative bound counts
        from the end)."""
        bound = index_node.upper if head else index_node.lower
        last = stack[-1]
        if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub) and isinstance(bound.operand, ast.Call) \
                and isinstance(bound.operand.func, ast.Name) and bound.operand.func.id == "len" \
                and len(bound.operand.args) == 1 and last.root in self._index_roots(bound.operand, frame):
            return last if not head else stack[0] if len(stack) == 2 else RowUnion(stack[:-1])
        return stack[0] if head else stack[1] if len(stack) == 2 else RowUnion(stack[1:])

    def _index_roots(self, index_node: ast.Attribute | ast.Call, frame: Any) -> set:
        node = index_node.args[0] if isinstance(index_node, ast.Call) else index_node.value  # len(t) / t.index
        other = maybe_data(self._expr(node, frame))
        return {p.root for p in parts(other.rows)} if other is not None else set()


def _is_list(node: ast.expr) -> bool:
    """``list(x)``, ``x.tolist()`` or another ``+`` of them: a Python list, whose ``+`` appends rows."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_list(node.left) and _is_list(node.right)
    return isinstance(node, ast.Call) and (isinstance(node.func, ast.Name) and node.func.id == "list" or isinstance(
        node.func, ast.Attribute) and node.func.attr == "tolist")


def _names_columns(node: ast.ListComp) -> bool:
    """``[c for c in df.columns ...]`` / ``[c for c in cols ...]`` over a frame's ``columns`` attribute."""
    source = node.generators[0].iter
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id in ("list", "sorted"):
        source = source.args[0] if source.args else source
    return isinstance(source, ast.Attribute) and source.attr == "columns" and isinstance(node.elt, ast.Name)


def _chosen_drops(args: list[Any], kwargs: dict[str, Any]) -> frozenset:
    """The fits that chose some of the names a drop list mixes with typed ones (``dr = ['id']`` extended by a loop
    under a test on the label correlation, wave 76; :mod:`.keptnames`, :func:`.namelists.chosen_names`)."""
    from faultlib.detect.data.leakage.namelists import chosen_names

    axis = kwargs.get("axis")
    named = kwargs.get("columns", args[0] if args and isinstance(axis, Const) and axis.value in (1, "columns")
                       else None)
    chosen = chosen_names(named, maybe_data) if isinstance(named, Tup) else None
    return chosen.taints if chosen is not None else frozenset()


def _dropped_columns(args: list[Any], kwargs: dict[str, Any]) -> list[str]:
    """The column names ``df.drop(['a', 'b'], axis=1)`` / ``df.drop(columns='a')`` removes (``[]``: not columns)."""
    axis = kwargs.get("axis")
    by_axis = isinstance(axis, Const) and axis.value in (1, "columns")
    named = kwargs.get("columns", args[0] if args and by_axis else None)
    items = named.items if isinstance(named, Tup) else (named,)
    return [i.value for i in items if isinstance(i, Const) and isinstance(i.value, str)]

"""One column read from a frame: it carries the fits its own writes brought, not those of the frame's other columns.

``df['c']`` selects one column and no other ("pandas API: Indexing and selecting data -- selecting a single
column"). The analysis records which fits came into a frame through which column (``df['c'] = <value>``,
:meth:`.frames.FrameSemantics._record_column`); a read of ``c`` holds the loaded values of ``c``, what every write of
``c`` carried (:meth:`ColumnReads._record_column` keeps it, a column built from another column's statistic
included: an explicit flow through an assignment, Denning & Denning, "Certification of programs for secure
information flow", CACM 20(7), 1977) and the frame-wide steps (``df.fillna(...)``, which no column records). It
leaves out the fits recorded under the frame's other columns, as a list of names does (:mod:`.listedcols`), but
only where every write of ``c`` was followed:

* no assignment of the module names ``c`` through an indexer or an attribute (``F.loc[rows, 'c'] = ...``,
  ``F.c = ...``), no ``rename``/``assign``/``insert``/``set_axis`` makes it (read from the syntax), and
* no assignment to the frame (the same rows, followed while the program runs) wrote several columns at once with
  ``c`` among them (``F[['c', 'd']] = ...``) or columns whose names the analysis could not read (``F[cols] = ...``;
  ``F['svd_' + str(i)] = ...`` may write any column whose name begins with ``svd_``), other than a column
  rewritten from its own values (``F[col] = F[col].astype(float)``).

A label column read for the evaluation rows (``eval_set=[(X_valid, df['label'].iloc[valid])]``) then no longer
brings a scratch statistic of the features along, nor does a frequency count of one key column bring the statistic
of another column with it.

Issue 17, stop 49: nine E-Sun credit-card notebooks (wave 72) passed ``train[target].iloc[valid_index]`` as the
eval set's labels and counted keys over ``pd.concat([train[col], test[col]])``, while a per-week statistic lived
only in a feature column their exclusion list left out.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, maybe_data, parts
from faultlib.pyflow.values import Const, Tup
from faultlib.pyflow.walk import walk_once

#: frame methods that make a column from a name given as a string (``insert``'s second argument)
_MAKERS = frozenset({"rename", "assign", "insert", "set_axis"})


def _strings(node: ast.expr) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def frame_roots(data: Data) -> frozenset:
    return frozenset(p.root.uid for p in parts(data.rows))


def unfollowed_names(tree: ast.Module) -> set[str]:
    """Every string naming a column written other than by ``F[name] = ...`` (a superset: module docstring)."""
    out: set[str] = set()
    for node in walk_once(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Subscript) and not isinstance(t.value, ast.Name):  # F.loc[rows, 'c'] = ...
                    out |= _strings(t.slice)
                elif isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store):
                    out.add(t.attr)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MAKERS:
            out |= {k.arg for k in node.keywords if k.arg} | set().union(*map(_strings, node.args), *(
                _strings(k.value) for k in node.keywords))
    return out


def name_prefix(key: ast.expr) -> str:
    """What every name a key expression makes begins with: ``'svd_' + str(i)`` and ``f'svd_{i}'`` -> ``'svd_'``
    (``''``: any name)."""
    while isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add):
        key = key.left
    if isinstance(key, ast.JoinedStr) and key.values:
        key = key.values[0]
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""


def _unfollowed(column: str, names: set[str]) -> bool:
    """``column`` is named, or matched by a ``prefix*`` pattern, in ``names`` (``'*'`` matches every column)."""
    return column in names or any(n.endswith("*") and column.startswith(n[:-1]) for n in names)


class ColumnReads:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_column_fits``, ``_dropped_fits``,
    ``_expr``, ``_lookup`` and ``tree``): see the module docstring. ``_carried_fits`` maps ``(rows, column)`` to
    every fit the column's writes carried (also read by :mod:`.deletedcols`)."""

    def _record_column(self, before: Data | None, column: Any, value: Any) -> None:
        super()._record_column(before, column, value)  # type: ignore[misc]
        if before is not None and isinstance(value, Data) and isinstance(column, str):
            carried = self.__dict__.setdefault("_carried_fits", {})
            key = (frame_roots(before), column)
            carried[key] = carried.get(key, frozenset()) | value.taints

    def _note_unfollowed(self, target: ast.expr, frame: Any) -> None:
        """``F[['c', 'd']] = ...`` / ``F[cols] = ...``: the names (``'*'``: any) whose writes are not followed
        (called by the Analyzer's ``_bind_item`` for every ``F[...] = ...``)."""
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return
        data = maybe_data(self._lookup(target.value.id, frame))  # type: ignore[attr-defined,union-attr]
        if data is None or data.rows is None:
            return
        label = None if any(isinstance(n, ast.Call) for n in ast.walk(target.slice)) else self._expr(  # type: ignore
            target.slice, frame)
        if isinstance(label, Const) and isinstance(label.value, str) or self._rewrites_itself(target):
            return  # one named column: _record_column follows it; F[k] = f(F[k]) moves no fit between columns
        names = label.items if isinstance(label, Tup) else ()
        known = [n.value for n in names if isinstance(n, Const) and isinstance(n.value, str)]
        unfollowed = self.__dict__.setdefault("_unfollowed_writes", {}).setdefault(frame_roots(data), set())
        unfollowed.update(known if names and len(known) == len(names) else [name_prefix(target.slice) + "*"])

    def _rewrites_itself(self, target: ast.Subscript) -> bool:
        """``F[k] = <expression reading F only as F[k]>`` (``df[col] = df[col].astype(float)``): each column is
        rewritten from its own values, whatever ``k`` is."""
        if not hasattr(self, "_assigned_values"):
            self._assigned_values = {id(t): n.value for n in walk_once(self.tree)  # type: ignore[attr-defined]
                                     if isinstance(n, ast.Assign) for t in n.targets}
        value = self._assigned_values.get(id(target))
        if value is None:
            return False
        frame, key = target.value.id, ast.dump(target.slice)  # type: ignore[union-attr]
        own = {id(n.value) for n in ast.walk(value) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
               and n.value.id == frame and ast.dump(n.slice) == key}
        reads = [n for n in ast.walk(value) if isinstance(n, ast.Name) and n.id == frame]
        return bool(reads) and all(id(n) in own for n in reads)

    def _only_own_column(self, data: Any, index: Any) -> Any:
        """``data`` read as the one column ``index`` names (see the module docstring)."""
        if not (isinstance(index, Const) and isinstance(index.value, str) and isinstance(data, Data)
                and data.rows is not None):
            return data
        if not hasattr(self, "_unfollowed_names"):
            self._unfollowed_names = unfollowed_names(self.tree)  # type: ignore[attr-defined]
        column, gone, own = index.value, frozenset(), frozenset()
        # pd.concat([train[c], test[c]]): the column of each part; a column written while the parts were one stack
        # (``full = pd.concat([train, val, test])``, ``full[c] = ...``, then each part taken back) is the stack's
        pieces = [(frozenset({part.root.uid}), part) for part in parts(data.rows)]
        if len(pieces) > 1:
            pieces.append((frame_roots(data), data.rows))
        for roots, rows in pieces:
            unfollowed = getattr(self, "_unfollowed_writes", {}).get(roots, set())
            if column in self._unfollowed_names or _unfollowed(column, unfollowed):
                return data
            others = sorted({c for (r, c) in self._column_fits if r == roots and c != column})  # type: ignore
            if others:
                gone |= self._dropped_fits(Data(rows, data.taints, False), others)  # type: ignore[attr-defined]
            own |= getattr(self, "_carried_fits", {}).get((roots, column), frozenset())
            own |= self.__dict__.get("_grouped_by", {}).get(roots, frozenset())  # a group's rows (groupitems.py)
        return data.with_(taints=data.taints - (gone - own)) if gone - own else data

__all__ = ["ColumnReads", "frame_roots", "name_prefix", "unfollowed_names"]

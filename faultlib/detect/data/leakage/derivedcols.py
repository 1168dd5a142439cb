"""Columns built from other columns of the same frame: a dropped column whose values live on in another one.

Dropping a column drops what a fit wrote into it (:meth:`.frames.FrameSemantics._dropped_fits`): a median filled
into ``age`` and ``age`` then dropped reaches no model. But a column is often dropped *after* a new one was computed
from it::

    df['years'] = df['years'].fillna(df['years'].median())    # the fill
    df['months_total'] = df['years'] * 12 + df['months']        # the filled values live on here
    df = df.drop(columns=['years', 'months'])                   # the sources go, the feature stays

The new column is a function of the filled values row by row, so the fill reaches every model that reads it (an
explicit flow through an assignment: Denning & Denning, "Certification of programs for secure information flow",
CACM 20(7), 1977). :func:`derived_columns` reads the module once for ``F['new'] = <expression reading F['old']>``
(also ``F.loc[:, 'new']`` and ``F.old`` attribute reads of the same frame name); :func:`dropped_for_good` keeps,
of the columns a ``drop`` names, only those with no derived column that survives the same drop (transitively).

Issue 17, stop 48 (wave 69): a financial-health notebook filled ``business_age_years`` with its median over the
train+test stack, built ``total_business_age_months`` from it, then dropped the source columns.

Names built from a loop variable count too: in ``for feat in ['artist', 'genre']: F['m_' + feat + '_prob'] =
F['m_' + feat + '_cnt'] / F['m_cnt']`` each pass writes ``m_artist_prob`` from ``m_artist_cnt`` and ``m_cnt`` (the loop
runs over a written-out list of strings, or a name bound to one before the loop; the key is a concatenation or an
f-string of constants and loop variables). Stop 54 (wave 57): a music recommender's per-member count survived only in
``msno_<feat>_prob`` columns built that way, and the listed selection of those columns was read as dropping it.
"""

from __future__ import annotations

import ast
import itertools

from faultlib.pyflow.walk import walk_once

#: the most loop values read for one column name (a longer list is not a list of column names)
MAX_VALUES = 64


def _text(key: ast.expr, values: dict[str, str]) -> str | None:
    """A column key as text: a string constant, a loop variable's value, their concatenation or f-string."""
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    if isinstance(key, ast.Name):
        return values.get(key.id)
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add):
        left, right = _text(key.left, values), _text(key.right, values)
        return left + right if left is not None and right is not None else None
    if isinstance(key, ast.JoinedStr):
        parts = [_text(v.value if isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None
                       else v, values) for v in key.values]
        return "".join(parts) if all(isinstance(p, str) for p in parts) else None  # type: ignore[arg-type]
    return None


def _written_column(target: ast.expr, values: dict[str, str] | None = None) -> tuple[str, str] | None:
    """``F['new']`` / ``F.loc[rows, 'new']`` as an assignment target: ``(frame name, column)``."""
    if not isinstance(target, ast.Subscript):
        return None
    key = target.slice
    frame = target.value
    if isinstance(frame, ast.Attribute) and frame.attr == "loc" and isinstance(key, ast.Tuple) and len(key.elts) == 2:
        frame, key = frame.value, key.elts[1]
    column = _text(key, values or {})
    if isinstance(frame, ast.Name) and column is not None:
        return frame.id, column
    return None


def _read_columns(value: ast.expr, frame: str, values: dict[str, str] | None = None) -> set[str]:
    """Columns of ``frame`` the expression reads: ``frame['c']`` and ``frame.c`` (a method's name is no column)."""
    called = {id(n.func) for n in ast.walk(value) if isinstance(n, ast.Call)}
    out: set[str] = set()
    for n in ast.walk(value):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == frame and (
                column := _text(n.slice, values or {})) is not None:
            out.add(column)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == frame and \
                id(n) not in called:
            out.add(n.attr)
    return out


def _strings(node: ast.expr, lists: dict[str, list[tuple[int, list[str]]]], line: int) -> list[str] | None:
    """The strings a ``for`` loop runs over: a written-out list/tuple of strings, or a name bound to one before."""
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts and len(node.elts) <= MAX_VALUES and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    if isinstance(node, ast.Name):
        before = [v for at, v in lists.get(node.id, ()) if at < line]
        return before[-1] if before else None
    return None


def _loop_values(tree: ast.Module) -> dict[int, list[dict[str, str]]]:
    """``{id(assignment): [{loop variable: value}, ...]}`` for assignments inside loops over lists of strings."""
    lists: dict[str, list[tuple[int, list[str]]]] = {}
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and (
                found := _strings(node.value, {}, 0)) is not None:
            lists.setdefault(node.targets[0].id, []).append((node.lineno, found))
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            lists.setdefault(node.target.id, []).append((node.lineno, []))  # the name is a loop variable from here
    for bound in lists.values():
        bound.sort(key=lambda b: b[0])
    out: dict[int, list[dict[str, str]]] = {}
    loops = [n for n in walk_once(tree) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)]
    for loop in loops:
        found = _strings(loop.iter, lists, loop.lineno)
        if not found:
            continue
        for n in ast.walk(loop):
            if isinstance(n, ast.Assign) and n is not loop:
                outer = out.get(id(n), [{}])
                out[id(n)] = [{**o, loop.target.id: v} for o, v in itertools.islice(
                    itertools.product(outer, found), MAX_VALUES)]  # type: ignore[attr-defined]
    return out


def derived_columns(tree: ast.Module) -> dict[str, set[str]]:
    """``{source column: {columns assigned from an expression reading it}}`` over the module (same frame name;
    names built from loop variables are read for each value the loop takes)."""
    out: dict[str, set[str]] = {}
    loops = _loop_values(tree)
    for node in walk_once(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        for values in loops.get(id(node), [{}]):
            written = _written_column(node.targets[0], values)
            if written is None:
                continue
            frame, column = written
            for source in _read_columns(node.value, frame, values) - {column}:
                out.setdefault(source, set()).add(column)
    return out


def dropped_for_good(columns: list[str], derived: dict[str, set[str]]) -> list[str]:
    """The columns of a ``drop`` whose values no surviving column was built from (see the module docstring)."""
    gone = set(columns)

    def lives_on(column: str, seen: set[str]) -> bool:
        for child in derived.get(column, ()):
            if child not in seen and (child not in gone or lives_on(child, seen | {child})):
                return True
        return False

    return [c for c in columns if not lives_on(c, {c})]


__all__ = ["derived_columns", "dropped_for_good"]

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
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def _written_column(target: ast.expr) -> tuple[str, str] | None:
    """``F['new']`` / ``F.loc[rows, 'new']`` as an assignment target: ``(frame name, column)``."""
    if not isinstance(target, ast.Subscript):
        return None
    key = target.slice
    frame = target.value
    if isinstance(frame, ast.Attribute) and frame.attr == "loc" and isinstance(key, ast.Tuple) and len(key.elts) == 2:
        frame, key = frame.value, key.elts[1]
    if isinstance(frame, ast.Name) and isinstance(key, ast.Constant) and isinstance(key.value, str):
        return frame.id, key.value
    return None


def _read_columns(value: ast.expr, frame: str) -> set[str]:
    """Columns of ``frame`` the expression reads: ``frame['c']`` and ``frame.c`` (a method's name is no column)."""
    called = {id(n.func) for n in ast.walk(value) if isinstance(n, ast.Call)}
    out: set[str] = set()
    for n in ast.walk(value):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == frame and isinstance(
                n.slice, ast.Constant) and isinstance(n.slice.value, str):
            out.add(n.slice.value)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == frame and \
                id(n) not in called:
            out.add(n.attr)
    return out


def derived_columns(tree: ast.Module) -> dict[str, set[str]]:
    """``{source column: {columns assigned from an expression reading it}}`` over the module (same frame name)."""
    out: dict[str, set[str]] = {}
    for node in walk_once(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        written = _written_column(node.targets[0])
        if written is None:
            continue
        frame, column = written
        for source in _read_columns(node.value, frame) - {column}:
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

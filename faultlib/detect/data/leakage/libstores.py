"""Values kept on a library object and read back later, for the static leakage analysis.

Streamlit runs an app's script from the top at every interaction and keeps what must outlive a run in
``st.session_state``, an object of the library that takes attributes and keys alike (Streamlit documentation,
"Session State": ``st.session_state.key = value`` or ``st.session_state["key"] = value``, read back the same
ways). A forecasting app loads the table in one step and models it in another::

    if st.session_state.step == 1:
        st.session_state.df = load_data(st.file_uploader("CSV"))
    elif st.session_state.step == 5:
        df = st.session_state.df
        scaled = MinMaxScaler().fit_transform(df[["Return"]])   # every day, before the 80/20 cut below

Without this, ``st.session_state.df`` was a reference to something of the library: ``df`` had no rows, and the
scaler fitted on every day before the windows were cut went unseen (issue 17 wave 85: a stock-return app whose
LSTM and GRU scale the whole series). The value assigned to an attribute of an imported object, or to one of its
keys written as a string (``st.session_state["df"]`` is the same entry as ``st.session_state.df``), is the value
read back from that place later in the run; a place nothing assigned stays a library reference. Only imported
objects (``Ref``) are such stores: an instance of a class the project defines keeps its own attributes
(:mod:`faultlib.pyflow.interp`), and a table's columns are :mod:`.semantics`'s.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import Ref

__all__ = ["LibraryStores"]


def _key(node: ast.expr) -> str | None:
    """The entry a subscript names when its key is a string that could be an attribute (``["df"]``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
        return node.value
    return None


def _dotted(node: ast.expr) -> bool:
    """``st.session_state``: names and attributes only (reading it runs nothing)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


class LibraryStores:
    """An imported object's attributes and string keys hold what the run put there (see the module docstring)."""

    def _stores(self) -> dict[str, Any]:
        return self.__dict__.setdefault("_library_stores", {})

    def _bind(self, target: ast.expr, value: Any, frame: Any, line: int) -> None:
        place = None
        if isinstance(target, ast.Attribute):
            place = target.attr
        elif isinstance(target, ast.Subscript):
            place = _key(target.slice)
        if place is not None and _dotted(target.value):
            owner = self._expr(target.value, frame)  # type: ignore[attr-defined]
            if isinstance(owner, Ref):
                self._stores()[f"{owner.name}.{place}"] = value
                return
        super()._bind(target, value, frame, line)  # type: ignore[misc]

    def _attribute(self, base: Any, attr: str) -> Any:
        if isinstance(base, Ref):
            stored = self._stores().get(f"{base.name}.{attr}")
            if stored is not None:
                return stored
        return super()._attribute(base, attr)  # type: ignore[misc]

    def _subscript(self, base: Any, index_node: ast.expr, frame: Any, line: int) -> Any:
        place = _key(index_node)
        if isinstance(base, Ref) and place is not None:
            stored = self._stores().get(f"{base.name}.{place}")
            if stored is not None:
                return stored
        return super()._subscript(base, index_node, frame, line)  # type: ignore[misc]

"""One pandas frame under two names in two scopes: a change through one name is seen through the other.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``globals`` from
:class:`faultlib.pyflow.interp.Interpreter`). Python passes objects by reference, and a pandas ``DataFrame``
is changed in place by ``frame[column] = value`` (pandas user guide, "Indexing and selecting data": setting a
column modifies the frame). So a helper that receives a module-level frame as its argument and writes a
column through the *module's* name changes its own argument too, and the reverse::

    def remove_outlier(part, col):            # called as remove_outlier(df1, c)
        q1, q3 = part[col].quantile(0.25), part[col].quantile(0.75)
        df1[col] = np.clip(part[col], ...)    # through the global name: ``part`` is that frame
        return part                           # ... so what is returned carries the clipping's statistics

The analysis binds the argument to the very value the caller passed; when a column store rebinds one name
with new fits, every name of the *other* scopes of the calls now running (the function's locals, its callers',
the module's globals) bound to that same value is rebound too. Names within the storing scope are left alone: a
copy (``b = a.copy()``) is a new value, and two names of one scope share a value only through a plain ``b = a``,
which Python aliases as well but which tutorials use to keep an untouched original (``df1 = df``) far more
often than to change it through both.

A whole table passed to a helper is named there by its parameter (:func:`.sole_file.renamed_whole`), a new
value that remembers the caller's (``renamed_from``): the caller's name is rebound too.

The same holds for a frame an object keeps: ``self.df['usage'] = self.df.groupby(...).transform(...)`` in a method
changes the frame the instance holds (:meth:`ScopeAliases._store_in_attribute`), which a later method returns.
"""

from __future__ import annotations

from typing import Any


class ScopeAliases:
    """Rebind the other scopes' names of a frame changed in place (see the module docstring)."""

    _live_scopes: list[dict[str, Any]]

    def _block(self, body: list, frame: Any) -> None:
        """Run ``body``, keeping the scopes of the calls now running (the caller's locals hold the argument too:
        ``for c in cols: part = remove_outlier(df, c)`` passes the same ``df`` on each turn)."""
        live = self.__dict__.setdefault("_live_scopes", [])
        if any(scope is frame.locals for scope in live):
            return super()._block(body, frame)
        live.append(frame.locals)
        try:
            return super()._block(body, frame)
        finally:
            live.pop()

    def _rebind_aliases(self, before: tuple, after: Any, frame: Any) -> None:
        """A column store in ``frame`` made ``after`` of the value a name held (``before``: that value, and the
        table it stands for when it is an opaque value used as data): rebind the names of the other running
        scopes that hold it."""
        if frame.locals is self.globals:
            return  # at module level no other scope is running
        own = frame.locals if any(v is after for v in frame.locals.values()) else self.globals
        before = (*before, *(getattr(b, "renamed_from", None) for b in before))  # df = the caller's rows, renamed
        for scope in [*self.__dict__.get("_live_scopes", []), self.globals]:
            if scope is own:
                continue
            for name, value in list(scope.items()):
                if any(value is b or getattr(value, "_data", None) is b for b in before if b is not None):
                    scope[name] = after

    def _store_in_attribute(self, expr: Any, new: Any, frame: Any) -> bool:
        """``obj.df[c] = value`` (``expr`` the target's base, ``new`` the value as data): the frame ``obj`` keeps
        now carries ``new``'s fits. True when ``expr`` is such an attribute of an instance (handled)."""
        import ast

        from faultlib.detect.data.leakage.values import maybe_data
        from faultlib.pyflow.values import Instance

        while isinstance(expr, (ast.Subscript, ast.Attribute)):
            if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
                owner = self._lookup(expr.value.id, frame)  # type: ignore[attr-defined]
                if isinstance(owner, Instance):
                    current = maybe_data(owner.attrs.get(expr.attr))
                    if current is not None and new is not None and not new.taints <= current.taints:
                        owner.attrs[expr.attr] = current.with_(taints=current.taints | new.taints)
                    return True
            expr = expr.value
        return False


__all__ = ["ScopeAliases"]

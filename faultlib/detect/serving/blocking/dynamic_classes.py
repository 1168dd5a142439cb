"""A class looked up by a name known only at run time on a library module: ``getattr(ccxt, exchange_id)(...)``.

The vocabulary's ``returns`` may map ``"<module>.*"`` to the type every class of that module called this way
builds (``"ccxt.*": "ccxt.Exchange"``: whichever exchange id is looked up on the sync ``ccxt`` package, its
instance is a synchronous exchange). The key names the module exactly, so ``getattr(ccxt.async_support, id)``
(another module) stays untyped. A lookup on anything but an imported module (``getattr(self, name)``) is no such
class.
"""

from __future__ import annotations

import ast

WILDCARD = ".*"


def is_dynamic_lookup(expr: ast.expr) -> bool:
    """``getattr(name, expr)`` with a name that is not a literal, on a plain name other than ``self``/``cls``."""
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "getattr"
            and len(expr.args) == 2
            and isinstance(expr.args[0], ast.Name) and expr.args[0].id not in ("self", "cls")
            and not isinstance(expr.args[1], ast.Constant))


def module_wildcard(index, expr: ast.Call, func) -> str | None:
    """``"<module>.*"`` for ``getattr(module, name)`` when the vocabulary types what that module's classes build,
    else None (``index``: the :class:`~faultlib.detect.serving.blocking.index.Index`; ``func``: where it is)."""
    if func is None or not is_dynamic_lookup(expr):
        return None
    target = index.resolve_parts([expr.args[0].id], func.module, func)
    if not isinstance(target, str):
        return None
    key = target + WILDCARD
    return key if key in index.vocab.returns else None

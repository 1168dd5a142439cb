"""``self.set(key, value)`` in a base class that has no ``set`` method, where each subclass binds ``set`` in its
``__init__`` to a method of its own client (``self.db = Redis(url); self.set = self.db.set``).

A key-value store with several backends often keeps the shared logic in the base (``set_key`` caches, then calls
``self.set``) and lets each backend either define ``set`` or bind its driver's method to the attribute. Subclasses
that define the method are followed as overrides (:mod:`~faultlib.detect.serving.blocking.reach`); the ones that
bind it run the driver's method on the spot (:func:`~faultlib.detect.serving.blocking.stored_callables.
stored_callable`), so the call in the base may be any of them: :func:`subclass_bound_site` reports the first binding that blocks,
beside the overrides that :mod:`~faultlib.detect.serving.blocking.reach` still follows.
Found by held-out wave 44 (a userbot's database wrapper over Redis, MongoDB or PostgreSQL).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func
from faultlib.detect.serving.blocking.sites import Site, named_site
from faultlib.detect.serving.blocking.stored_callables import stored_callable


def subclass_bound_site(index, call: ast.Call, func: Func) -> Site | None:
    """The site of ``call`` (``self.set(...)`` in a base) through the first library callable a subclass binds to
    the attribute that blocks, or None."""
    for bound in subclass_bound(index, call, func):
        site = named_site(index, bound, call, func)
        if site is not None:
            return Site(site.kind, f"{site.what} (what a subclass binds to `self.{call.func.attr}`)", func, call)
    return None


def subclass_bound(index, call: ast.Call, func: Func) -> list[str]:
    """The library callables the subclasses of ``func``'s class bind to the attribute ``self.<name>`` that
    ``call`` calls, when the class itself has no method of that name (up to 8, in the order of the subclasses)."""
    target = call.func
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
            and func.cls is not None and index.method(func.cls, target.attr) is None):
        return []
    found = []
    for sub in index.subclasses(func.cls):
        bound = stored_callable(index, sub, target.attr)
        if bound is not None and bound not in found:
            found.append(bound)
    return found[:8]

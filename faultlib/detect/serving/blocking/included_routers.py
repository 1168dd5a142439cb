"""Route handlers the scanned app serves from a package outside the scanned folder.

``check blocking api/`` where ``api/main.py`` builds the app and does ``from app.routers.reports import router`` then
``app.include_router(router)``: the ``async def`` handlers decorated on that router (``@router.post("/run")``) are
requests of the scanned app, served on its event loop (FastAPI's ``include_router`` copies the router's routes into
the application: https://fastapi.tiangolo.com/tutorial/bigger-applications/#include-an-apirouter-in-another). The
package is read as an outside package (:mod:`~faultlib.detect.serving.blocking.outside`), whose coroutines are
otherwise entries only when the scanned code calls them by name; a router is handed over, never called, so its
handlers were no entries and their blockers went unreported (madara88645/Compiler, held-out 47/48: ``api/`` includes
``app/routers/benchmark.py``'s router).

What counts as handing an object to the app: passing it to a registration call of a web framework made in a scanned
file -- FastAPI/Starlette ``include_router`` and ``mount``, Flask/Quart ``register_blueprint``, Sanic ``blueprint``,
aiohttp ``add_subapp`` and ``add_routes``. The object is resolved through the scanned file's imports (``from pkg.mod
import router as r``, ``from pkg import mod`` then ``mod.router``, one re-export in a package's ``__init__``); a
handler is one whose decorator is an attribute of that module-level object (``@router.get``, ``@bp.route``,
``@routes.post``). A router an included outside router includes in turn (``router.include_router(items.router)``,
FastAPI's nested routers) is served too. Other coroutines of an outside package stay no entries: nothing says the
scanned app runs them.
"""

from __future__ import annotations

import ast
import weakref
from typing import Any

from faultlib.detect.serving.blocking.model import Module, dotted

__all__ = ["REGISTRATIONS", "included_handler"]

REGISTRATIONS = frozenset({"include_router", "mount", "register_blueprint", "blueprint", "add_subapp", "add_routes"})
"""Method names by which a web framework's app takes in another object's routes."""
MAX_REEXPORTS = 4
"""Re-exports followed from the imported name to the module that defines the object."""

_included: weakref.WeakKeyDictionary[Any, frozenset[tuple[int, str]]] = weakref.WeakKeyDictionary()


def included_handler(index: Any, func: Any) -> bool:
    """Whether ``func`` is decorated on an object (``@router.post(...)``) that a scanned file hands to its app's
    registration call (:data:`REGISTRATIONS`): then the scanned app serves it on its loop."""
    owners = {_decorator_owner(decorator) for decorator in func.node.decorator_list} - {None}
    if not owners or func.parent is not None:
        return False
    included = _included.get(index)
    if included is None:
        included = _included[index] = _included_objects(index)
    return any((id(func.module), owner) in included for owner in owners)


def _decorator_owner(decorator: ast.expr) -> str | None:
    """``router`` for ``@router.get("/x")`` or ``@router.get``; None for any other decorator."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return target.value.id
    return None


def _included_objects(index: Any) -> frozenset[tuple[int, str]]:
    """``(id(module), global name)`` of every object the scanned files pass to a registration call, and of every
    object an included router of an outside module includes in turn (``router.include_router(sub_router)``: FastAPI
    nests routers the same way)."""
    found: set[tuple[int, str]] = set()
    pending = [module for module in index.distinct_modules() if module.path not in index.outside]
    outside = [module for module in index.distinct_modules() if module.path in index.outside]
    while pending:
        for module in pending:
            for receiver, arg in _registrations(module):
                scanned = module.path not in index.outside
                if scanned or (receiver is not None and (id(module), receiver) in found):
                    place = _defined_at(index, module, dotted(arg))
                    if place is not None:
                        found.add(place)
        reached = {place[0] for place in found}
        pending = [module for module in outside if id(module) in reached]
        outside = [module for module in outside if id(module) not in reached]
    return frozenset(found)


def _registrations(module: Module) -> list[tuple[str | None, ast.expr]]:
    """``(receiver name or None, argument)`` for every argument of a registration call in ``module``."""
    calls = []
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in REGISTRATIONS:
            receiver = node.func.value.id if isinstance(node.func.value, ast.Name) else None
            calls += [(receiver, arg) for arg in [*node.args, *(keyword.value for keyword in node.keywords)]]
    return calls


def _defined_at(index: Any, module: Module, parts: list[str] | None) -> tuple[int, str] | None:
    """The module and global name that ``parts`` (``['reports_router']``, ``['reports', 'router']``, a global of
    ``module`` itself) denotes in ``module``, through its imports; None for a local variable or a name no analysed
    module defines."""
    if parts and len(parts) == 1 and parts[0] in module.globals and parts[0] not in module.imports:
        return id(module), parts[0]  # a router of the same module (``router.include_router(items)``)
    if not parts or parts[0] not in module.imports:
        return None
    name = ".".join([module.imports[parts[0]], *parts[1:]])
    for _ in range(MAX_REEXPORTS):
        owner_name, _, attribute = name.rpartition(".")
        owner = index.lookup(owner_name) if owner_name else None
        if not isinstance(owner, Module):
            return None
        if attribute not in owner.imports:
            return id(owner), attribute
        name = owner.imports[attribute]  # a package's __init__ re-exporting the router of one of its modules
    return None

"""The objects a Home Assistant integration keeps in ``hass.data``, read back in its other modules.

``hass.data`` is the dictionary Home Assistant hands every integration for its shared state
(https://developers.home-assistant.io/docs/dev_101_hass/: "hass.data -- a dictionary for integrations to store
data"; https://developers.home-assistant.io/docs/config_entries_index/#setting-up-an-entry shows the pattern
``hass.data.setdefault(DOMAIN, {})[entry.entry_id] = MyApi(...)``). ``async_setup_entry`` builds the integration's
client or coordinator and stores it under ``hass.data[DOMAIN][...]``; ``async_unload_entry``, the diagnostics, the
platforms and the websocket commands take it back out, often in another module and often through a local
(``data = hass.data.get(DOMAIN, {})`` then ``data.get("coordinator")``). What is read back has the type of what was
stored under the same key path: every ``hass.data[k1][k2]... = value`` of the analysed files whose keys match --
literal strings, module constants (``DOMAIN``, ``PYDREO_MANAGER``) by name or by their string value, and a key
computed at run time (``entry.entry_id``) matching another computed key -- must agree, a read under a literal key
with no store under it falling back to the stores under a computed key. A dict display stored one level up
(``hass.data[DOMAIN] = {"client": client}``) stores each of its literal keys. Held-out wave 59: a ``PyDreo``
manager taken back in ``async_unload_entry`` and stopped there (a thread join of up to 20 s), a coordinator read in
the diagnostics whose history store reads CSV files. Used by :mod:`~faultlib.detect.serving.blocking.typeof`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import _single_assignment, stored_type
from faultlib.detect.serving.blocking.keyed_stores import keyed_stores
from faultlib.detect.serving.blocking.model import Func, Type, _is_local

__all__ = ["hass_item"]

HOME_ASSISTANT = "homeassistant.core.HomeAssistant"
"""The class of ``hass`` (https://developers.home-assistant.io/docs/dev_101_hass/)."""

GETTERS = frozenset({"get", "setdefault"})
"""``dict.get(key, default)`` and ``dict.setdefault(key, default)``: both read the value under ``key``."""

COMPUTED = "*"
"""The key of a path step computed at run time (``entry.entry_id``, a parameter)."""


def hass_item(index, expr: ast.expr, func: Func) -> Type | None:
    """The type of ``expr`` (``hass.data[DOMAIN][key]``, ``hass.data[DOMAIN].get(key)``, ``data.get(key)`` with
    ``data`` bound once to ``hass.data.get(DOMAIN, {})``) from what the analysed files store under that key path,
    or None."""
    path = _path(index, expr, func, 0)
    if not path:
        return None
    stores = _stores(index)
    exact = stores.get(path, [])
    if exact:
        return stored_type(index, exact)
    computed = [s for stored, found in stores.items() if _covers(stored, path) for s in found]
    return stored_type(index, computed) if computed else None


def _covers(stored: tuple[str, ...], read: tuple[str, ...]) -> bool:
    """A store under a computed key also holds a read under a literal key (``[DOMAIN][entry_id]`` read as
    ``[DOMAIN]["abc123"]``); a read under a computed key matches only stores under a computed key."""
    return len(stored) == len(read) and all(s == r or (s == COMPUTED and r != COMPUTED) for s, r in zip(stored, read))


def _path(index, expr: ast.expr, func: Func, depth: int) -> tuple[str, ...] | None:
    """The key path of ``expr`` below ``hass.data`` (``()`` for ``hass.data`` itself), or None."""
    if depth > 8:
        return None
    if isinstance(expr, ast.Subscript):
        outer = _path(index, expr.value, func, depth + 1)
        return None if outer is None else (*outer, _key(index, expr.slice, func))
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in GETTERS
            and expr.args and not isinstance(expr.args[0], ast.Starred)):
        outer = _path(index, expr.func.value, func, depth + 1)
        return None if outer is None else (*outer, _key(index, expr.args[0], func))
    if isinstance(expr, ast.Name) and _is_local(func, expr.id):  # data = hass.data.get(DOMAIN, {})
        bound = _single_assignment(func, expr.id)
        return None if bound is None else _path(index, bound, func, depth + 1)
    if isinstance(expr, ast.Attribute) and expr.attr == "data" and _is_hass(index, expr.value, func):
        return ()
    return None


def _is_hass(index, expr: ast.expr, func: Func) -> bool:
    """``hass``, ``self.hass`` (an entity's or a coordinator's), or a value typed as ``HomeAssistant``."""
    if isinstance(expr, ast.Name) and expr.id == "hass" or isinstance(expr, ast.Attribute) and expr.attr == "hass":
        return True
    return index.type_of(expr, func) == HOME_ASSISTANT


def _key(index, key: ast.expr, func: Func) -> str:
    """A literal string key, a module constant's string value (or its name when it is not a literal), else
    :data:`COMPUTED`."""
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    if isinstance(key, ast.Name) and not _is_local(func, key.id):
        value = _constant(index, key.id, func)
        return value if value is not None else f"<{key.id}>"
    return COMPUTED


def _constant(index, name: str, func: Func) -> str | None:
    """The string a module-level ``name = "..."`` binds, in ``func``'s module or the analysed module it is imported
    from (``from .const import DOMAIN``)."""
    module = func.module
    value = module.globals.get(name)
    if value is None and name in module.imports:
        owner, _, last = module.imports[name].rpartition(".")
        found = index.modules.get(owner)
        value = found.globals.get(last) if found is not None else None
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


def _stores(index) -> dict[tuple[str, ...], list[tuple[ast.expr, Func]]]:
    """``{key path: [(value, scope), ...]}`` of every store below ``hass.data`` in the analysed files (memoised)."""
    return keyed_stores(index, "_faultlib_hass_data", lambda node, scope: _stored(index, node, scope))


def _stored(index, node: ast.AST, scope: Func):
    """``(key path, value)`` of each store below ``hass.data`` that the statement ``node`` makes."""
    if not isinstance(node, ast.Assign):
        return
    for target in node.targets:
        path = _path(index, target, scope, 0) if isinstance(target, ast.Subscript) else None
        if not path:
            continue
        yield path, node.value
        if isinstance(node.value, ast.Dict):  # hass.data[DOMAIN] = {"client": client}
            for k, v in zip(node.value.keys, node.value.values):
                if k is not None:
                    yield (*path, _key(index, k, scope)), v

"""The values a Tornado application keeps in its ``settings``, read back by its handlers.

A handler's ``self.settings`` is its application's settings dict (https://www.tornadoweb.org/en/stable/web.html#
tornado.web.RequestHandler.settings: "an alias for self.application.settings"), so ``self.settings["db"]`` and
``self.settings.get("db")`` give what the code stored under ``"db"`` when it built or configured the application.
Jupyter Server extensions store their managers there in ``initialize_settings`` (``self.settings.update(
scheduler=scheduler)``; ``ExtensionApp.settings`` is merged into the server's web application settings:
https://jupyter-server.readthedocs.io/en/latest/developers/extensions.html#initializing-settings), and their
handlers read them back through a property. The stores looked for, anywhere in the analysed files:
``<x>.settings.update(key=value)``, ``<x>.settings.update({"key": value})`` and ``<x>.settings["key"] = value``;
the value is typed where it is stored, and every store of the key must agree. Only for code of a handler class or
of a mixin that a handler class of the analysed files derives from. Used by
:mod:`~faultlib.detect.serving.blocking.typeof`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.frameworks import TORNADO_HANDLERS
from faultlib.detect.serving.blocking.infer import stored_type
from faultlib.detect.serving.blocking.keyed_stores import keyed_stores
from faultlib.detect.serving.blocking.model import Func, Type

__all__ = ["settings_value"]

SETTINGS = "settings"


def settings_value(index, container: ast.expr, key: ast.expr | None, func: Func) -> Type | None:
    """The type stored under the constant ``key`` of ``self.settings`` (``container``) read in ``func`` (a method
    of a Tornado handler or of its mixin), or None."""
    if not (isinstance(container, ast.Attribute) and container.attr == SETTINGS and isinstance(container.value, ast.Name)
            and container.value.id == "self" and isinstance(key, ast.Constant) and isinstance(key.value, str)
            and func.cls is not None and _in_handler(index, func)):
        return None
    return stored_type(index, _stores(index).get(key.value, []))


def _in_handler(index, func: Func) -> bool:
    test = TORNADO_HANDLERS.__contains__
    return index.subclass_of(func.cls, test) or any(index.subclass_of(k, test) for k in index.subclasses(func.cls))


def _stores(index) -> dict[str, list[tuple[ast.expr, Func]]]:
    """``{key: [(value, scope), ...]}`` of every settings store in the analysed files (memoised on the index)."""
    return keyed_stores(index, "_faultlib_settings", lambda node, _scope: _stored(node))


def _stored(node: ast.AST):
    """``(key, value)`` pairs a statement stores into some ``<x>.settings``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" and (
            _is_settings(node.func.value)):
        yield from ((k.arg, k.value) for k in node.keywords if k.arg)
        for arg in node.args:
            if isinstance(arg, ast.Dict):
                yield from ((k.value, v) for k, v in zip(arg.keys, arg.values)
                            if isinstance(k, ast.Constant) and isinstance(k.value, str))
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            if (isinstance(target, ast.Subscript) and _is_settings(target.value) and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)):
                yield target.slice.value, node.value


def _is_settings(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Attribute) and expr.attr == SETTINGS

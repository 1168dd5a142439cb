"""The application an aiohttp signal callback receives: ``app.on_startup.append(init_model)`` then
``async def init_model(app): app["model"] = Converter()``.

aiohttp calls every callback of an application's ``on_startup``, ``on_shutdown`` and ``on_cleanup`` signals with the
application as its only argument ("Signal handlers should have the following signature: ``async def
on_startup(app)``"), and a ``cleanup_ctx`` generator the same way:
https://docs.aiohttp.org/en/stable/web_reference.html#aiohttp.web.Application.on_startup and
https://docs.aiohttp.org/en/stable/web_advanced.html#aiohttp-web-signals. A service written without annotations keeps
its model in the application there (``app["model"] = ...``), and its handlers read it back as ``request.app["model"]``
(:mod:`~faultlib.detect.serving.blocking.app_items`): the callback's first parameter must be typed as the application
for that store to count (held-out wave 68: an image service's converter, whose ``convert`` writes a PNG with OpenCV,
kept by an untyped ``init_model(app)``).

The callback is a function or method of the analysed files handed by name to ``append``/``insert``/``extend`` of one
of those signals, on a value the analysis types as an aiohttp application; anything else answers nothing. Used by
:meth:`~faultlib.detect.serving.blocking.infer.Inference.parameter`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.app_items import APPLICATIONS
from faultlib.detect.serving.blocking.model import Func, Type, _is_static

__all__ = ["signal_application"]

SIGNALS = frozenset({"on_startup", "on_shutdown", "on_cleanup", "cleanup_ctx"})
"""The application's signals whose callbacks receive the application."""
ADDERS = {"append": 0, "insert": 1, "extend": 0}
"""List methods that register a callback, with the position of the callback (or, for ``extend``, of its list)."""


def signal_application(index, func: Func, name: str) -> Type | None:
    """The application type when ``name`` is the first parameter of ``func`` (after ``self``) and ``func`` is
    registered as a callback of an aiohttp application's signal (see the module docstring), else None."""
    args = [a.arg for a in (*func.node.args.posonlyargs, *func.node.args.args)]
    first = 1 if func.cls is not None and not _is_static(func.node) else 0
    if len(args) <= first or args[first] != name:
        return None
    for signal, refs, caller in _registrations(index):
        if not any(index.callee(ref, caller) is func for ref in refs):
            continue
        owner = index.type_of(signal.value, caller)
        if owner in APPLICATIONS:
            return owner
    return None


def _registrations(index) -> list[tuple[ast.Attribute, list[ast.expr], Func]]:
    """``(signal, callback references, caller)`` of every ``app.on_startup.append(f)`` (and the other adders and
    signals) of the analysed files, in the order of :meth:`~faultlib.detect.serving.blocking.infer.Inference.sites`;
    built once per index (the callbacks' types are asked for every untyped parameter)."""
    if "_faultlib_signal_adds" not in index.__dict__:
        found = []
        for adder, position in ADDERS.items():
            for call, caller in index.infer.sites().get(adder, []):
                signal = call.func.value if isinstance(call.func, ast.Attribute) else None
                if not (isinstance(signal, ast.Attribute) and signal.attr in SIGNALS and len(call.args) > position):
                    continue
                handed = call.args[position]
                refs = handed.elts if adder == "extend" and isinstance(handed, (ast.List, ast.Tuple)) else [handed]
                found.append((signal, [ref for ref in refs if isinstance(ref, (ast.Name, ast.Attribute))], caller))
        index.__dict__["_faultlib_signal_adds"] = found
    return index.__dict__["_faultlib_signal_adds"]

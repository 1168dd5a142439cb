"""A module global bound to a method of an object: ``uploader = CatboxUploader()`` then ``upload_file =
uploader.upload_file`` at the top of a module, called as ``upload_file(path)`` there or in the modules that import
it (``from . import upload_file``).

An attribute read off an instance is a bound method (the Python language reference, "Instance methods": "When an
instance method object is called, the underlying function is called with the class instance inserted in front of
the argument list", https://docs.python.org/3/reference/datamodel.html#instance-methods), so calling the global
calls that method on that object: the callee is the method of the object's type, as if written
``uploader.upload_file(path)`` (and ``get = requests.get`` calls the module's function). Only a global assigned
once, at module level, to an attribute (never a call's result, whose value is typed elsewhere) counts -- or to
``functools.partial(f, ...)``: "a partial object ... when called ... behave[s] like the call of func with the positional
arguments args and keyword arguments keywords" (https://docs.python.org/3/library/functools.html#partial-objects), so
calling the global runs ``f`` (held-out wave 65: an aiohttp service's ``model_full = partial(embed, model=backbone)``,
whose forward ran on the loop). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.resolve_parts` and
:meth:`~faultlib.detect.serving.blocking.index.Index.member` (which pass their index in: no import of it here).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, Module, dotted


def bound_method(index, module: Module, name: str) -> Func | Klass | str | None:
    """What calling the module global ``name`` runs when it holds ``obj.method`` of a typed ``obj`` or a
    ``functools.partial`` of a function, else None."""
    values = module.global_values.get(name, [])
    if len(values) != 1 or values[0][1] is not None or not (
            isinstance(values[0][0], ast.Attribute) or is_partial(values[0][0])):
        return None
    found = index.callee(values[0][0], index.infer.module_func(module))  # `get = requests.get` too
    return found if isinstance(found, (Func, str)) else None


def is_partial(value: ast.expr) -> bool:
    """``functools.partial(f, ...)`` (or ``partial(f, ...)`` imported from it): a call whose callable is named."""
    return (isinstance(value, ast.Call) and bool(value.args) and (dotted(value.func) or [""])[-1] == "partial"
            and dotted(value.args[0]) is not None)

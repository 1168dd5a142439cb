"""Modal's remote functions: a method decorated ``@modal.method()`` (or a function ``@app.function()``) read through
its instance is a ``modal.Function`` handle, whose ``remote``/``spawn``/``map`` go through Modal's API.

A Modal app declares its GPU work as a class whose methods are ``@modal.method()``; the web handler builds the class
(``inference = Inference()``) and calls ``inference.run.remote(prompt)`` or ``inference.run.spawn(prompt)``. The
attribute ``inference.run`` is not the method of the file but Modal's handle on the remote function
(https://modal.com/docs/reference/modal.method: "Decorator for methods that should be transformed into a Modal
Function registered against this class"); its calls are the synchronous client, each with an ``.aio`` twin for async
code (https://modal.com/docs/guide/async: "Modal's client ... blocking by default", ``.aio`` for the async
interface). So :func:`remote_method` types ``inference.run`` as :data:`MODAL_FUNCTION`, whose blocking methods the
vocabulary lists (:mod:`~faultlib.detect.serving.blocking.libraries.modalclient`). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.attribute_type`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass, dotted

__all__ = ["MODAL_FUNCTION", "remote_method"]

MODAL_FUNCTION = "modal.Function"
REMOTE_DECORATORS = frozenset({"modal.method", "modal.Cls.method"})
"""What the decorators of a remote method resolve to."""


def remote_method(index, klass: Klass, name: str) -> str | None:
    """:data:`MODAL_FUNCTION` when ``name`` is a method of ``klass`` decorated ``@modal.method()``, else None."""
    method = klass.methods.get(name)
    if method is None:
        return None
    for decorator in method.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        parts = dotted(target)
        if parts and index.resolve_parts(parts, method.module, None) in REMOTE_DECORATORS:
            return MODAL_FUNCTION
    return None

"""A lambda handed to the constructor of a class of the analysed files is stored, not run where it is written.

``self.batcher = BatchProcessor(process_batch=lambda request: self._generate(**request), ...)`` in an async
``apply_config``: the lambda's body (the model's generate) runs when the batcher calls it -- in the project's case
in its own thread pool through ``run_in_executor`` -- not while the constructor runs. A lambda elsewhere
(``sorted(key=lambda ...)``, ``map(lambda ...)``, a third-party call) is still taken as run at its line. The
constructor keeps that reading when its ``__init__`` calls the parameter the lambda is bound to itself
(``self.rows = loader()``). :func:`stored_lambda` names the argument node to leave out of the caller's calls. Used by
:meth:`~faultlib.detect.serving.blocking.reach.Reach._walk_calls`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["stored_lambda"]


def stored_lambda(index, call: ast.Call, func: Func) -> ast.AST | None:
    """The lambda argument of ``call`` (the positional node, or its ``keyword``) when ``call`` constructs a class of
    the analysed files whose ``__init__`` does not call the parameter it binds; None otherwise."""
    positions = [i for i, a in enumerate(call.args) if isinstance(a, ast.Lambda)]
    keywords = [k for k in call.keywords if isinstance(k.value, ast.Lambda) and k.arg]
    if not positions and not keywords:
        return None
    klass = index.callee(call.func, func)
    if not isinstance(klass, Klass):
        return None
    init = index.method(klass, "__init__")
    if init is None:
        return None
    params = [a.arg for a in init.node.args.posonlyargs + init.node.args.args][1:]  # after self
    for position in positions:
        if position < len(params) and not _calls_name(init, params[position]):
            return call.args[position]
    for keyword in keywords:
        if keyword.arg in params + [a.arg for a in init.node.args.kwonlyargs] and not _calls_name(init, keyword.arg):
            return keyword
    return None


def _calls_name(init: Func, name: str) -> bool:
    """Whether ``init`` calls its parameter ``name`` itself (``name(...)``)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for n in init.nodes)

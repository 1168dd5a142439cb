"""An instance flag copied from a constructor parameter holds what the constructions pass.

:mod:`~faultlib.detect.serving.blocking.branches` judges ``if dnn:`` by the values the callers pass for the parameter
``dnn``. A class that keeps the parameter on the instance tests it later in another method::

    class Backend:
        def __init__(self, weights, dnn=False):
            self.dnn = dnn                       # or self.__dict__.update(locals())
        def forward(self, x):
            if self.dnn:
                return self.net.forward()        # never runs when every construction passes dnn=False

The attribute holds the parameter's value when the attribute is stored nowhere else: ``self.<name> = <name>`` (or
``self.__dict__.update(locals())``, :mod:`~faultlib.detect.serving.blocking.stored_locals`) in ``__init__``, with
the parameter not rebound there, and no other store of an attribute of that name in the analysed files (another
method, another object, a subclass). Its values are then the constructions' arguments, judged as a parameter's are
(the class built only by calls seen here, each passing a constant or leaving a constant default). Held-out wave 66:
YOLOv5's ``DetectMultiBackend(model_path, device=device, dnn=False)`` built by a nats-py subscriber, whose
``forward`` reported the OpenCV-DNN branch's ``self.net.forward()``.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, module_nodes_of
from faultlib.detect.serving.blocking.stored_locals import stores_locals

__all__ = ["flag_parameter"]


def flag_parameter(index, func: Func, name: str) -> tuple[Func, str] | None:
    """``(the class's __init__, parameter)`` when ``self.<name>``, read in a method of ``func``'s class, only ever
    holds that ``__init__`` parameter (see the module docstring), else None."""
    klass = func.cls
    init = klass.methods.get("__init__") if klass is not None else None
    if init is None or not init.node.args.args or name not in _parameters(init):
        return None
    init_self = init.node.args.args[0].arg
    if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in init.nodes):
        return None  # dnn = dnn or default(): rebound before it is kept
    kept = [n for n in init.nodes if _keeps(n, init_self, name)]
    stores = [n for m in index.distinct_modules() for n in module_nodes_of(m, ast.Attribute)
              if n.attr == name and isinstance(n.ctx, ast.Store)]
    if not kept or any(s not in [t for k in kept for t in _targets(k)] for s in stores):
        return None  # stored elsewhere too (another method, another object): not only the parameter
    return init, name


def _parameters(func: Func) -> list[str]:
    args = func.node.args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def _keeps(node: ast.AST, self_name: str, name: str) -> bool:
    """``self.<name> = <name>``, or ``self.__dict__.update(locals())`` (which keeps every local)."""
    if stores_locals(node, self_name):
        return True
    return (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Name)
            and node.value.id == name and _on(node.targets[0], self_name, name))


def _targets(node: ast.AST) -> list[ast.expr]:
    return list(node.targets) if isinstance(node, ast.Assign) else []


def _on(target: ast.expr, self_name: str, name: str) -> bool:
    return (isinstance(target, ast.Attribute) and target.attr == name and isinstance(target.value, ast.Name)
            and target.value.id == self_name)

"""``self.__dict__.update(locals())``: every local of the method becomes an attribute of the instance.

A constructor that picks one of several backends by a flag sometimes binds plain locals in each branch and stores them
all at once at the end, rather than ``self.x = ...`` in each::

    def __init__(self, weights, onnx=False):
        if onnx:
            session = onnxruntime.InferenceSession(weights)
        else:
            model = torch.jit.load(weights)
        self.__dict__.update(locals())  # self.session, self.model, self.onnx, self.weights ...

    def forward(self, x):
        return self.session.run(None, {"x": x}) if self.onnx else self.model(x)

``locals()`` is the dictionary of the frame's local names at that point, the parameters included
(https://docs.python.org/3/library/functions.html#locals), and updating an instance's ``__dict__`` with it sets each
one as an attribute (https://docs.python.org/3/reference/datamodel.html#object.__dict__); ``vars(self)`` is the same
``__dict__`` and ``vars()`` without an argument the same as ``locals()``
(https://docs.python.org/3/library/functions.html#vars). The attributes get the types of the locals, as if each had
been stored by name. YOLOv5's ``DetectMultiBackend`` (``models/common.py``, vendored by many services) does this
(held-out wave 66: a nats-py subscriber whose ``self.session.run`` went unseen). Only those spellings count: an update
with another mapping (``self.__dict__.update(kwargs)``, ``update(config)``) says nothing of the names it sets.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["local_names", "stores_locals"]


def stores_locals(node: ast.AST, self_name: str | None) -> bool:
    """Whether ``node`` is ``self.__dict__.update(locals())`` (or ``vars(self)`` for the receiver, ``vars()`` for the
    argument), with ``self_name`` the method's first parameter."""
    if not (self_name and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "update" and len(node.args) == 1 and not node.keywords):
        return False
    receiver, given = node.func.value, node.args[0]
    own = ((isinstance(receiver, ast.Attribute) and receiver.attr == "__dict__" and _named(receiver.value, self_name))
           or (_bare_call(receiver, "vars") and len(receiver.args) == 1 and _named(receiver.args[0], self_name)))
    return own and (_bare_call(given, "locals") or _bare_call(given, "vars")) and not given.args


def local_names(method: Func, self_name: str) -> list[str]:
    """The names ``locals()`` holds in ``method`` besides ``self_name``: its parameters and every name it binds."""
    args = method.node.args
    params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    looped = {id(n) for c in method.nodes if isinstance(c, ast.comprehension) for n in ast.walk(c.target)}
    bound = [n.id for n in method.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
             and id(n) not in looped]  # a comprehension's variable is the comprehension's own, not the method's
    return [name for name in dict.fromkeys((*params, *bound)) if name != self_name]


def _named(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name


def _bare_call(expr: ast.expr, builtin: str) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == builtin

"""PyTorch networks of the project trained by a hand-written loop, as models of the static leakage analysis.

A PyTorch model is a class of the project that subclasses ``torch.nn.Module`` (PyTorch reference,
``torch.nn.Module``: "Base class for all neural network modules. Your models should also subclass this class"). It
has no ``fit`` or ``predict``: the script calls the instance on a batch (``out = net(x)``, which runs ``forward``),
hands its parameters to an optimizer (``optim.Adam(net.parameters(), lr=...)``) and steps that optimizer in its own
loop (``loss.backward(); optimizer.step()``: PyTorch tutorial "Optimizing Model Parameters", "the optimization
loop"). After the loop the same call on the test rows is the model's prediction, scored as scikit-learn's
``predict`` would be::

    x_test = MinMaxScaler().fit_transform(x_test)        # refitted on the test rows
    net = Net(n_in, n_out)
    optimizer = optim.Adam(net.parameters(), lr=0.01)
    for epoch in range(100):
        loss = loss_fn(net(x_train), y_train); optimizer.zero_grad(); loss.backward(); optimizer.step()
    print(accuracy_score(y_test, net(x_test).argmax(1)))

Without this the call of the instance was a call of an unknown value: the rows went through it, but nothing said
a model read them, so a scaler refitted on the test rows that only a network scored was ``info`` ("reaches no
model") while the same helper before an SVC was a warning (issue 17 wave 105: the same ``preprocess.normalize``
refitted on the test file before an SVC, a KNN and a forest, and before a DNN, an LSTM and an autoencoder).

What counts: an instance of a class of the module or of the project (imported in a session) one of whose bases is
PyTorch's ``Module`` (``nn.Module``, ``torch.nn.Module``, ``from torch.nn import Module``), or a project class
that is one, whose ``parameters()`` the script has asked for (the optimizer's argument: the sign that the network
is trained here, not a frozen extractor). Its call on rows reaches a model, as a fit or a predict does, and gives
what its arguments combine to; so does a call of a method its class defines (``net.predict(x)``, whose body runs
``forward``: issue 17 wave 96, a meta-learner's ``predict`` on the test source's rows). ``Module.to``/``cuda``/``cpu``/``float``/``double``/``half``/``train``/``eval``
return the module itself (PyTorch reference: "Returns: self"), so ``net = Net().to(device)`` keeps the network.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import Bound, ClassVal, Instance, Ref

#: the PyTorch base class of every network (``torch.nn.Module``)
_BASE = "Module"
#: ``Module`` methods that return the module itself (PyTorch reference, ``torch.nn.Module``)
_SELF_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "train", "eval",
                           "requires_grad_", "to_empty", "type"})


def _torch_base(value: Any) -> bool:
    """``nn.Module``/``torch.nn.Module``/``Module`` imported from ``torch.nn``."""
    return isinstance(value, Ref) and value.last == _BASE and value.module.split(".")[0] == "torch"


class TorchModules:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_reach``, ``_combine`` and
    ``_expr``): a trained PyTorch network's call on rows reaches a model (see the module docstring)."""

    def _class(self, node: ast.ClassDef, frame: Any) -> Any:
        cls = super()._class(node, frame)  # type: ignore[misc]
        torch = self.__dict__.setdefault("_torch_classes", set())
        for base in node.bases:
            value = self._expr(base, frame)  # type: ignore[attr-defined]
            if _torch_base(value) or isinstance(value, ClassVal) and id(value) in torch:
                torch.add(id(cls))  # class Net(nn.Module), or a subclass of such a project class
                break
        return cls

    def _torch_module(self, value: Any) -> bool:
        return isinstance(value, Instance) and id(value.cls) in self.__dict__.get("_torch_classes", ())

    def _attribute_value(self, base: Any, attr: str) -> Any:
        if self._torch_module(base) and (attr in _SELF_METHODS or attr == "parameters"):
            return Bound(base, attr)  # a method nn.Module defines: called, it comes to _method_value
        return super()._attribute_value(base, attr)  # type: ignore[misc]

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        if self._torch_module(receiver):
            if name == "parameters":  # handed to an optimizer: the network is trained in this program
                self.__dict__.setdefault("_trained_nets", set()).add(id(receiver))
            elif name in _SELF_METHODS:
                return receiver
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _invoke(self, func: Any, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        receiver = args[0] if args else None
        if self._torch_module(receiver) and id(receiver) in self.__dict__.get("_trained_nets", ()) and \
                func.node.name != "__init__":  # net.predict(x), net.embed(x): a method of its own reads the rows
            self._reach(*args[1:], *kwargs.values())  # type: ignore[attr-defined]
        return super()._invoke(func, args, kwargs, line)  # type: ignore[misc]

    def _call_value(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        if self._torch_module(func) and id(func) in self.__dict__.get("_trained_nets", ()):
            self._reach(*args, *kwargs.values())  # type: ignore[attr-defined]  # forward on these rows
        return super()._call_value(func, args, kwargs, node)  # type: ignore[misc]


__all__ = ["TorchModules"]

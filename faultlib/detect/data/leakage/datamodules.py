"""PyTorch's ``random_split`` and a Lightning ``DataModule``'s ``setup``, for the static leakage analysis.

PyTorch code splits a dataset with ``torch.utils.data.random_split``, often inside a PyTorch Lightning data module
whose constructor prepares the tensors and whose ``setup`` the trainer calls::

    class Frames(pl.LightningDataModule):
        def __init__(self, X, y):
            X -= X.min(dim=0, keepdim=True).values            # a statistic of every row
            self.X, self.y = X, y

        def setup(self, stage=None):
            full = TensorDataset(self.X, self.y)
            self.train_ds, self.val_ds, self.test_ds = random_split(full, [0.7, 0.1, 0.2])

    trainer.fit(net, datamodule=Frames(X, y))

What the analysis reads here:

* ``TensorDataset(*tensors)`` "wraps tensors; each sample is retrieved by indexing tensors along the first dimension"
  (PyTorch reference, ``torch.utils.data.TensorDataset``): its rows are the first tensor's rows, and what shaped any of
  the tensors shaped it;
* ``random_split(dataset, lengths)`` "randomly split a dataset into non-overlapping new datasets of given lengths"
  (PyTorch reference, ``torch.utils.data.random_split``): a shuffled split, one part per length, like
  ``train_test_split``. The first part trains; with two parts the second is the held-out test part, with more the
  last is the test part and the ones between are validation parts. So a statistic of every row taken before it is a
  fit before the split, and rows of a time series (windows) split by it are a shuffled time split;
* ``trainer.fit/validate/test/predict(..., datamodule=dm)``: Lightning calls the data module's ``setup`` before it
  draws batches (Lightning documentation, "LightningDataModule": "setup ... is called from every process across all
  the nodes", by ``trainer.fit``/``validate``/``test``/``predict``), and trains and scores on its parts: ``setup`` of
  a data module of the program's own class runs there, once per data module, and its tensors reach the model.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import (
    Data,
    Step,
    as_data,
    data_rows_child,
    new_id,
    parts,
)
from faultlib.pyflow.values import UNKNOWN, Const, Instance, Tup

#: the trainer calls that set a data module up (Lightning's ``Trainer``)
_TRAINER_CALLS = frozenset({"fit", "validate", "test", "predict"})


def _torch_data(ref: Any) -> bool:
    return ref.module.split(".")[0] == "torch"


class DataModules:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.last == "TensorDataset" and _torch_data(ref) and args:
            datas = [as_data(a) for a in args]
            first = datas[0]
            if first is not None:  # the first tensor's rows, every tensor's fits
                return first.with_(taints=first.taints.union(*(d.taints for d in datas[1:] if d is not None)))
        if ref.last == "random_split" and _torch_data(ref) and args:
            data = as_data(args[0])
            lengths = args[1] if len(args) > 1 else kwargs.get("lengths")
            if data is not None:
                count = len(lengths.items) if isinstance(lengths, Tup) and len(lengths.items) >= 2 else 2
                return self._random_split(data, count, node.lineno, frame)
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def _random_split(self, data: Data, count: int, line: int, frame: Any) -> Tup:
        """The parts of ``random_split``: training, validation (the middle ones), test (the last)."""
        self._check_split_design([data], {}, line, frame, "random_split")  # type: ignore[attr-defined]
        self._reach_by_split(data, line=line)  # type: ignore[attr-defined]
        ident = new_id()
        names = ["train", *["val"] * (count - 2), "test"]
        out = []
        for part in names:
            held = part == "test"
            rows = data_rows_child(data, Step("split", ident, part, line=line))
            out.append(Data(rows, data.taints, held))
        test = out[-1]
        self._split_roots.update(p.root for p in parts(data.rows))  # type: ignore[attr-defined]
        self._test_parts.extend(parts(test.rows))  # type: ignore[attr-defined]
        self._check_test(test, line, "random_split")  # type: ignore[attr-defined]
        return Tup(tuple(out))

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        module = kwargs.get("datamodule")
        if name in _TRAINER_CALLS and isinstance(module, Instance):
            self._set_up(module, name, node)
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _set_up(self, module: Instance, stage: str, node: ast.Call) -> None:
        """Run the data module's own ``setup`` (once per data module) and let its tensors reach the model."""
        done = self.__dict__.setdefault("_set_up_modules", set())
        setup = module.cls.methods.get("setup")
        if setup is not None and id(module) not in done:
            done.add(id(module))
            self._invoke(setup, [module, Const(stage)], {}, node.lineno)  # type: ignore[attr-defined]
        self._reach(*(v for v in module.attrs.values() if v is not UNKNOWN))  # type: ignore[attr-defined]


__all__ = ["DataModules"]

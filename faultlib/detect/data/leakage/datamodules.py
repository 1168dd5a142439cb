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
* ``Subset(dataset, indices)`` is "a subset of a dataset at specified indices" (PyTorch reference,
  ``torch.utils.data.Subset``); the dataset may be of the program's own ``Dataset`` class (its ``__getitem__`` reads
  the tensors its constructor built from the rows it was given). Two or more subsets of one dataset at consecutive ranges of positions
  (``Subset(ds, range(0, n))``, ``Subset(ds, list(range(n, len(ds))))``, ``np.arange``) are a split in order, as
  ``train_test_split(..., shuffle=False)`` is: the first range trains, the last is the test part, the ones between
  are validation parts; a statistic of every row taken before it is a fit before the split (issue 17 wave 90: a
  scaler over the whole load series, then 24-hour windows cut 70/15/15 by three ``Subset`` ranges);
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

#: calls that give positions from a start to a stop (Python ``range``, NumPy ``arange``)
_RANGES = frozenset({"range", "arange"})
#: the trainer calls that set a data module up (Lightning's ``Trainer``)
_TRAINER_CALLS = frozenset({"fit", "validate", "test", "predict"})


def _torch_data(ref: Any) -> bool:
    return ref.module.split(".")[0] == "torch"


def _dataset_rows(value: Any, given: dict[int, Data]) -> Data | None:
    """The rows of a dataset: data itself, or a map-style dataset of the program's own class (its ``__getitem__``
    reads them): the rows its constructor was given (``given``: instance id -> the first data argument), else the
    data in its attributes (``self.X``), the first such attribute's rows with the fits of every one."""
    data = as_data(value)
    if data is not None or not isinstance(value, Instance) or "__getitem__" not in value.cls.methods:
        return data
    if id(value) in given:
        return given[id(value)]
    held = [d for v in value.attrs.values() if (d := as_data(v)) is not None]
    return held[0].with_(taints=held[0].taints.union(*(d.taints for d in held[1:]))) if held else None


def _range_of(node: ast.expr | None) -> ast.Call | None:
    """``range(a, b)``, ``list(range(a, b))``, ``np.arange(a, b)``: the range call, else ``None``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") \
            and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Call) and node.args and (getattr(node.func, "id", None) or getattr(
            node.func, "attr", None)) in _RANGES and not node.keywords and len(node.args) <= 2:
        return node
    return None


def _starts_at_zero(rng: ast.Call) -> bool:
    return len(rng.args) == 1 or isinstance(rng.args[0], ast.Constant) and rng.args[0].value == 0


def range_subsets(tree: ast.AST) -> dict[int, str]:
    """``id`` of each ``Subset(ds, range(...))`` call that is one part of consecutive ranges of the same dataset ->
    its part: ``train`` (the range from zero), ``test`` (the last one in the program), ``val`` (those between)."""
    from faultlib.pyflow.walk import walk_once

    by_dataset: dict[str, list[tuple[ast.Call, ast.Call]]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) == "Subset":
            index = n.args[1] if len(n.args) > 1 else next((k.value for k in n.keywords if k.arg == "indices"), None)
            rng = _range_of(index)
            if n.args and rng is not None:
                by_dataset.setdefault(ast.unparse(n.args[0]), []).append((n, rng))
    out: dict[int, str] = {}
    for subsets in by_dataset.values():
        subsets.sort(key=lambda s: (s[0].lineno, s[0].col_offset))
        firsts = [s for s in subsets if _starts_at_zero(s[1])]
        if len(subsets) < 2 or len(firsts) != 1 or firsts[0] is not subsets[0]:
            continue  # one range, or no range from zero first: not a split of the positions in order
        for i, (call, _) in enumerate(subsets):
            out[id(call)] = "train" if i == 0 else "test" if i == len(subsets) - 1 else "val"
    return out


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
        if ref.last == "Subset" and _torch_data(ref) and args:
            if "_range_subsets" not in self.__dict__:
                self._range_subsets = range_subsets(self.tree)  # type: ignore[attr-defined]
            part = self._range_subsets.get(id(node))
            data = _dataset_rows(args[0], self.__dict__.get("_dataset_args", {}))
            if part is not None and data is not None:
                return self._subset_part(data, part, node, frame)
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def _instantiate(self, cls: Any, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        out = super()._instantiate(cls, args, kwargs, line)  # type: ignore[misc]
        if isinstance(out, Instance) and "__getitem__" in cls.methods:  # a map-style dataset: the rows it was given
            given = next((d for a in [*args, *kwargs.values()] if (d := as_data(a)) is not None), None)
            if given is not None:
                self.__dict__.setdefault("_dataset_args", {})[id(out)] = given
        return out

    def _subset_part(self, data: Data, part: str, node: ast.Call, frame: Any) -> Data:
        """One ``Subset`` range of a split of ``data``'s positions in order (one split per dataset)."""
        idents = self.__dict__.setdefault("_subset_splits", {})
        key = ast.unparse(node.args[0])
        first = key not in idents
        ident = idents.setdefault(key, new_id())
        line = idents.setdefault((key, "line"), node.lineno)
        if first:
            self._reach_by_split(data, line=line)  # type: ignore[attr-defined]
        out = Data(data_rows_child(data, Step("split", ident, part, line=line)), data.taints, part == "test")
        if part == "test":
            self._split_roots.update(p.root for p in parts(data.rows))  # type: ignore[attr-defined]
            self._test_parts.extend(parts(out.rows))  # type: ignore[attr-defined]
            self._check_test(out, node.lineno, "Subset")  # type: ignore[attr-defined]
        return out

    tree: ast.Module

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


__all__ = ["DataModules", "range_subsets"]

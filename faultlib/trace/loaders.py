"""Which dataset samples a batch holds, and which DataLoader worker made it (the replay's side of ``faultlib
trace``): a NaN already in a step's input batch is named with its rows, their dataset indices and the worker.

:func:`install` wraps three methods of ``torch.utils.data.dataloader`` (the replay installs it before the script
runs; the watch pass does not, it costs a few Python calls per batch):

* ``_BaseDataLoaderIter._next_index``: the sampler's indices of the next batch (a list, or one index without
  automatic batching), kept on the iterator;
* ``_MultiProcessingDataLoaderIter._try_put_index``: the indices sent to a worker, by the batch's send number, and
  that worker (``_task_info``);
* ``_BaseDataLoaderIter.__next__``: the batch it returns is that of the receive number just passed
  (``_rcvd_idx - 1``; a single-process iterator fetches the indices it just drew): each tensor of the batch is
  remembered by its storage with ``{"indices", "worker"}`` (the last :data:`KEPT` batches).

Iterable-style datasets have no indices: their batches are remembered with the worker only. These are private
names of torch's DataLoader (stable since torch 1.x); where one is missing nothing is wrapped and nothing is said.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

KEPT = 16
"""How many recent batches are remembered (a prefetching loader returns them in order; the step's is recent)."""

_origins: "OrderedDict[int, dict[str, Any]]" = OrderedDict()


def _storage(t: Any) -> int | None:
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError, AttributeError):
        return None


def _remember(batch: Any, origin: dict[str, Any]) -> None:
    import torch
    from torch.utils._pytree import tree_leaves

    for t in tree_leaves(batch):
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            key = _storage(t)
            if key:
                _origins[key] = origin
                _origins.move_to_end(key)
    while len(_origins) > KEPT * 4:
        _origins.popitem(last=False)


def install(undo: list[Callable[[], None]]) -> None:
    """Wrap the DataLoader iterator's methods (see the module docstring); ``undo`` gets their removal."""
    from torch.utils.data import dataloader

    base = getattr(dataloader, "_BaseDataLoaderIter", None)
    multi = getattr(dataloader, "_MultiProcessingDataLoaderIter", None)
    if base is None or multi is None or not all(hasattr(c, m) for c, m in (
            (base, "_next_index"), (base, "__next__"), (multi, "_try_put_index"))):
        return
    next_index, next_batch, put_index = base._next_index, base.__next__, multi._try_put_index

    def _next_index(it):
        index = next_index(it)
        it._faultlib_index = index
        return index

    def _try_put_index(it):
        sent = it._send_idx
        it._faultlib_index = None
        put_index(it)
        if it._send_idx != sent:
            info = it._task_info.get(sent)
            it.__dict__.setdefault("_faultlib_sent", {})[sent] = (it._faultlib_index, info[0] if info else None)

    def __next__(it):
        batch = next_batch(it)
        try:
            if isinstance(it, multi):
                index, worker = it.__dict__.get("_faultlib_sent", {}).pop(it._rcvd_idx - 1, (None, None))
            else:
                index, worker = getattr(it, "_faultlib_index", None), None
            indices = index if isinstance(index, list) else [index] if isinstance(index, int) else None
            _remember(batch, {"indices": indices, "worker": worker})
        except Exception:  # noqa: BLE001 - the script's batch is returned whatever the bookkeeping does
            pass
        return batch

    base._next_index, multi._try_put_index, base.__next__ = _next_index, _try_put_index, __next__

    def remove() -> None:
        base._next_index, multi._try_put_index, base.__next__ = next_index, put_index, next_batch
        _origins.clear()

    undo.append(remove)


def samples_of(t: Any) -> dict[str, Any] | None:
    """``{"rows", "dataset_indices", "worker"}`` of an input tensor ``t`` a DataLoader returned (rows along its first
    dimension that hold a non-finite value; their indices in the dataset when the loader had indices), else None."""
    import torch

    origin = _origins.get(_storage(t) or 0)
    if origin is None or t.dim() == 0:
        return None
    bad = ~torch.isfinite(t.detach()).reshape(t.shape[0], -1).all(dim=1)
    rows = [int(r) for r in bad.nonzero().flatten()[:20]]
    indices = origin["indices"]
    return {"rows": rows, "worker": origin["worker"],
            "dataset_indices": [indices[r] for r in rows] if indices is not None and len(indices) == t.shape[0]
            else None}

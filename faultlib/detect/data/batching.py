"""Which batches a collate function cannot stack, and what padding or bucketing would cost.

:func:`check_batching` walks a dataset in the order a ``torch.utils.data.DataLoader`` with the same
``batch_size``, ``shuffle`` generator seed and ``drop_last`` would (it builds that DataLoader, with an
identity collate and a wrapper that remembers each sample's index), then hands every batch to the
collate function under test (``default_collate`` when none is given), without any model or training.

Kinds (``KINDS``):

- ``unstackable_batch`` (error): the collate function failed on batches whose samples differ in
  shape; the finding names the first such batch, the first sample that differs from the batch's
  entry 0 (the one ``torch.stack`` reports), both shapes and the dimension that varies;
- ``collate_error`` (error): the collate function failed for another reason (types, dict keys...);
- ``sample_error`` (error): ``dataset[i]`` raised;
- ``mixed_dtypes`` (warning): a field's dtype differs between samples of a batch that collated, so
  ``torch.stack`` promoted it silently.

Besides findings, :class:`BatchingReport` gives the length distribution of the varying dimension and
the padding waste of padding each loader batch to its longest sample versus batching by length with
:class:`faultlib.remedies.BucketBatchSampler` (same batch size, seed 0 or the shuffle seed, 50-batch pools).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from faultlib.errors import DetectorError
from faultlib.findings import Finding, Severity

DETECTOR = "batching"
KINDS = {
    "unstackable_batch": "the collate function cannot stack a batch because its samples differ in shape "
                         "(names the first batch, sample, both shapes and the varying dimension)",
    "collate_error": "the collate function raised on a batch for another reason than a shape difference",
    "sample_error": "indexing the dataset raised for a sample",
    "mixed_dtypes": "a field's dtype differs between samples of a batch; stacking promoted it silently",
}
_MAX_ERROR = 300


@dataclass(frozen=True)
class Leaf:
    """One field of a sample: ``path`` like ``[0]`` or ``['input_ids']``, ``shape`` (None for scalars
    and strings) and ``dtype`` (a torch/numpy dtype name, ``list`` or a Python type name)."""

    path: str
    shape: tuple[int, ...] | None
    dtype: str


def leaves(sample: Any, path: str = "") -> list[Leaf]:
    """The fields of a sample in the order ``default_collate`` visits them.

    Tensors and ndarrays are leaves with their shape; a list/tuple of numbers is a leaf of shape
    ``(len,)``; other lists, tuples and mappings are walked; anything else is a scalar leaf.
    """
    shape = getattr(sample, "shape", None)
    if shape is not None and hasattr(sample, "dtype"):
        return [Leaf(path or "[]", tuple(int(s) for s in shape), str(sample.dtype))]
    if isinstance(sample, Mapping):
        return [leaf for k, v in sample.items() for leaf in leaves(v, f"{path}[{k!r}]")]
    if isinstance(sample, (list, tuple)):
        if all(isinstance(v, numbers.Number) for v in sample):
            return [Leaf(path or "[]", (len(sample),), "list")]
        return [leaf for i, v in enumerate(sample) for leaf in leaves(v, f"{path}[{i}]")]
    return [Leaf(path or "[]", None, type(sample).__name__)]


@dataclass(frozen=True)
class Mismatch:
    """The first sample of a failing batch that differs from the batch's entry 0.

    Attributes:
        batch: 0-based index of the batch in loader order.
        dataset_index: the sample's index in the dataset (its position in the stream for iterable datasets).
        entry_in_batch: its position in the batch (>= 1).
        shape: its shape; reference_shape: entry 0's shape (lists of ints; None for a scalar field).
        reference_index: entry 0's dataset index.
        field: the field that differs (``[0]``, ``['input_ids']``; ``[]`` for bare tensors).
        dims: the dimensions whose sizes differ (empty when the number of dimensions differs).
        error: the collate function's message (truncated).
    """

    batch: int
    dataset_index: int
    entry_in_batch: int
    shape: list[int] | None
    reference_shape: list[int] | None
    reference_index: int
    field: str
    dims: list[int]
    error: str

    def to_json(self) -> dict[str, Any]:
        return {"batch": self.batch, "dataset_index": self.dataset_index, "entry_in_batch": self.entry_in_batch,
                "shape": self.shape, "reference_shape": self.reference_shape,
                "reference_index": self.reference_index, "field": self.field, "dims": self.dims,
                "error": self.error}


@dataclass(frozen=True)
class BatchingReport:
    """What :func:`check_batching` found.

    Attributes:
        findings: frozen findings, each with a kind of ``KINDS``.
        failing_batches: 0-based loader indices of every batch the collate function rejected.
        first_mismatch: the first sample that broke stacking (None when every batch stacked or the
            failures were not shape differences).
        varying_field / varying_dim: the first field whose shape varies across samples and its first
            varying dimension (None when every sample has the same shapes).
        lengths: distribution of that dimension's size (or of dim 0 of the first array field when nothing
            varies): ``dim``, ``field``, ``count``, ``min``, ``max``, ``mean``, ``p50``, ``p90``, ``p99``,
            ``histogram`` ``{length: samples}``; None when no field has a dimension.
        padding_waste: ``{"unit", "pad_to_batch_max", "bucketed", "pad_to_longest"}``, each a
            :class:`faultlib.remedies.PaddingWaste` as JSON; None without lengths.
        batches_checked / samples_checked: how much was walked; order: ``sequential`` or ``shuffle(seed=N)``
            or ``batch_sampler``; collate: the collate function's name.
    """

    findings: list[Finding]
    failing_batches: list[int]
    first_mismatch: Mismatch | None
    varying_field: str | None
    varying_dim: int | None
    lengths: dict[str, Any] | None
    padding_waste: dict[str, Any] | None
    batches_checked: int
    samples_checked: int
    order: str
    collate: str
    dataset_size: int | None = None
    varying: list[dict[str, Any]] = field(default_factory=list)

    def fields(self) -> dict[str, Any]:
        """The report's JSON fields (without ``findings``), as ``faultlib check batching --json`` prints them."""
        return {"failing_batches": self.failing_batches,
                "first_mismatch": self.first_mismatch.to_json() if self.first_mismatch else None,
                "varying_dim": self.varying_dim, "varying_field": self.varying_field, "varying": self.varying,
                "lengths": self.lengths, "padding_waste": self.padding_waste,
                "batches_checked": self.batches_checked, "samples_checked": self.samples_checked,
                "dataset_size": self.dataset_size, "order": self.order, "collate": self.collate}


class _Raised:
    """Stands in for a sample whose ``dataset[i]`` raised."""

    def __init__(self, exc: BaseException):
        self.exc = exc


def _indexed(dataset: Any):
    """A dataset view whose items are ``(index, sample)`` (or ``(index, _Raised)``)."""
    from torch.utils.data import Dataset, IterableDataset

    if isinstance(dataset, IterableDataset) or (not hasattr(dataset, "__getitem__") and hasattr(dataset, "__iter__")):
        class Stream(IterableDataset):
            def __iter__(self):
                iterator = iter(dataset)
                i = 0
                while True:
                    try:
                        item = next(iterator)
                    except StopIteration:
                        return
                    except Exception as exc:  # noqa: BLE001 - the user's dataset: report, do not crash
                        yield i, _Raised(exc)
                        return
                    yield i, item
                    i += 1

        return Stream(), True

    class Indexed(Dataset):
        def __len__(self):
            return len(dataset)

        def __getitem__(self, i):
            try:
                return int(i), dataset[i]
            except Exception as exc:  # noqa: BLE001 - the user's dataset: report, do not crash
                return int(i), _Raised(exc)

    return Indexed(), False


def _dataset_size(dataset: Any) -> int | None:
    try:
        return int(len(dataset))
    except Exception:  # noqa: BLE001 - iterable datasets have no length
        return None


def _first_mismatch(batch_no: int, indices: list[int], samples: list[Any], error: str) -> Mismatch | None:
    """The first field (in collate order) that differs from entry 0, and its first differing entry."""
    per_sample = [{leaf.path: leaf for leaf in leaves(s)} for s in samples]
    reference = per_sample[0]
    for path, ref in reference.items():
        for entry in range(1, len(samples)):
            other = per_sample[entry].get(path)
            if other is None or other.shape == ref.shape:
                continue
            if other.shape is None or ref.shape is None:
                dims: list[int] = []
            elif len(other.shape) != len(ref.shape):
                dims = []
            else:
                dims = [d for d, (a, b) in enumerate(zip(other.shape, ref.shape)) if a != b]
            return Mismatch(batch=batch_no, dataset_index=indices[entry], entry_in_batch=entry,
                            shape=list(other.shape) if other.shape is not None else None,
                            reference_shape=list(ref.shape) if ref.shape is not None else None,
                            reference_index=indices[0], field=path, dims=dims, error=error)
    return None


def _collate_name(fn: Callable | None) -> str:
    if fn is None:
        return "default_collate"
    inner = getattr(fn, "func", fn)  # functools.partial
    return getattr(inner, "__qualname__", None) or type(inner).__name__


def _lengths(shapes: dict[int, dict[str, Leaf]]) -> tuple[list[dict[str, Any]], str | None, int | None, dict[int, int]]:
    """Per field: which dims vary; the chosen field/dim; each sample's length along it."""
    import numpy as np

    paths: dict[str, list[tuple[int, tuple[int, ...]]]] = {}
    for index, fields in shapes.items():
        for path, leaf in fields.items():
            if leaf.shape:
                paths.setdefault(path, []).append((index, leaf.shape))
    varying = []
    for path, rows in paths.items():
        ndims = {len(s) for _, s in rows}
        if len(ndims) > 1:
            varying.append({"field": path, "dims": [], "ndims": sorted(ndims)})
            continue
        arr = np.array([s for _, s in rows])
        dims = [int(d) for d in np.nonzero(arr.min(0) != arr.max(0))[0]]
        if dims:
            varying.append({"field": path, "dims": dims})
    chosen = next((v for v in varying if v["dims"]), None)
    if chosen is not None:
        path, dim = chosen["field"], chosen["dims"][0]
    elif paths and not varying:
        path, dim = next(iter(paths)), 0
    else:
        return varying, None, None, {}
    return varying, path, dim, {i: s[dim] for i, s in paths[path]}


def _distribution(lengths: dict[int, int], path: str, dim: int) -> dict[str, Any]:
    import numpy as np

    values = np.fromiter(lengths.values(), dtype=np.int64)
    hist = np.unique(values, return_counts=True)
    return {"field": path, "dim": dim, "count": int(values.size), "min": int(values.min()), "max": int(values.max()),
            "mean": round(float(values.mean()), 4), "p50": float(np.percentile(values, 50)),
            "p90": float(np.percentile(values, 90)), "p99": float(np.percentile(values, 99)),
            "histogram": {str(int(k)): int(c) for k, c in zip(*hist)}}


def _waste(lengths: dict[int, int], batches: list[list[int]], batch_size: int, seed: int) -> dict[str, Any]:
    from faultlib.remedies import BucketBatchSampler, padding_waste

    ordered = sorted(lengths)
    position = {index: k for k, index in enumerate(ordered)}
    lens = [lengths[i] for i in ordered]
    loader = [[position[i] for i in b if i in position] for b in batches]
    bucketed = BucketBatchSampler(lens, batch_size, shuffle=True, seed=seed)
    longest = max(lens)
    return {"pad_to_batch_max": padding_waste(lens, loader).to_json(),
            "bucketed": {**padding_waste(lens, bucketed.batches()).to_json(), "sampler": "BucketBatchSampler",
                         "pool_batches": bucketed.pool_batches, "seed": seed},
            "pad_to_longest": padding_waste(lens, [[k for k in range(len(lens))]]).to_json()
            | {"longest": longest}}


def check_batching(dataset: Any, batch_size: int, *, collate_fn: Callable[[list[Any]], Any] | None = None,
                   shuffle_seed: int | None = None, drop_last: bool = False,
                   batch_sampler: Iterable[list[int]] | None = None, max_batches: int | None = None,
                   location: Mapping[str, Any] | None = None) -> BatchingReport:
    """Walk ``dataset`` in DataLoader order and collate every batch with ``collate_fn``.

    Args:
        dataset: a map-style dataset (``__len__`` and ``__getitem__``) or an iterable one.
        batch_size: samples per batch (>= 1), as given to the DataLoader.
        collate_fn: the collate function under test; default ``torch.utils.data.default_collate``.
        shuffle_seed: walk in the order of ``DataLoader(shuffle=True, generator=torch.Generator().manual_seed(shuffle_seed))``'s
            first epoch; None (default) walks in index order (``shuffle=False``).
        drop_last: as the DataLoader's ``drop_last``.
        batch_sampler: instead of ``batch_size``/``shuffle_seed``/``drop_last``, the DataLoader's
            ``batch_sampler`` (e.g. :class:`faultlib.remedies.BucketBatchSampler`).
        max_batches: stop after this many batches (default: all).
        location: location keys added to every finding (``file``, ``function``, ``line``).

    Returns:
        :class:`BatchingReport`. Findings locate the batch as ``step`` and the sample as ``index``.

    Raises:
        DetectorError: ``batch_size`` < 1, ``shuffle_seed`` with an iterable dataset, an empty dataset,
            or a dataset whose length or iteration itself fails (with the reason).

    Cost: loads every walked sample once and calls ``collate_fn`` once per batch (use ``max_batches``
    to bound it); keeps only shapes, never the samples.
    """
    import torch
    from torch.utils.data import DataLoader, default_collate

    if int(batch_size) < 1:
        raise DetectorError(f"batch_size must be >= 1, got {batch_size}")
    collate = collate_fn or default_collate
    view, streaming = _indexed(dataset)
    if streaming and (shuffle_seed is not None or batch_sampler is not None):
        raise DetectorError("an iterable dataset has no index order to shuffle or sample: drop shuffle_seed/batch_sampler")
    base = dict(location or {})
    name = _collate_name(collate_fn)
    failing: list[int] = []
    first: Mismatch | None = None
    other_error: tuple[int, list[int], str] | None = None
    sample_errors: list[tuple[int, int, str]] = []
    dtype_mixes: list[tuple[int, str, list[str]]] = []
    shapes: dict[int, dict[str, Leaf]] = {}
    batches: list[list[int]] = []
    try:
        if batch_sampler is not None:
            loader = DataLoader(view, batch_sampler=batch_sampler, collate_fn=list)
            order = "batch_sampler"
        elif shuffle_seed is not None:
            loader = DataLoader(view, batch_size=int(batch_size), shuffle=True, drop_last=drop_last, collate_fn=list,
                                generator=torch.Generator().manual_seed(int(shuffle_seed)))
            order = f"shuffle(seed={int(shuffle_seed)})"
        else:
            loader = DataLoader(view, batch_size=int(batch_size), shuffle=False, drop_last=drop_last, collate_fn=list)
            order = "sequential"
        iterator = iter(loader)
        while max_batches is None or len(batches) < max_batches:
            try:
                items = next(iterator)
            except StopIteration:
                break
            batch_no = len(batches)
            indices = [i for i, _ in items]
            batches.append(indices)
            bad = [(i, s) for i, s in items if isinstance(s, _Raised)]
            for i, s in bad:
                sample_errors.append((batch_no, i, f"{type(s.exc).__name__}: {s.exc}"[:_MAX_ERROR]))
            good = [(i, s) for i, s in items if not isinstance(s, _Raised)]
            if not good:
                continue
            for i, s in good:
                shapes[i] = {leaf.path: leaf for leaf in leaves(s)}
            if bad:
                continue  # the real loader would have raised on the sample before collating
            samples = [s for _, s in good]
            try:
                collate(samples)
            except Exception as exc:  # noqa: BLE001 - any failure of the collate function is the finding
                failing.append(batch_no)
                message = f"{type(exc).__name__}: {exc}"[:_MAX_ERROR]
                mismatch = _first_mismatch(batch_no, indices, samples, message)
                if mismatch is not None:
                    first = first or mismatch
                elif other_error is None:
                    other_error = (batch_no, indices, message)
                continue
            dtypes: dict[str, set[str]] = {}
            for i in indices:
                for path, leaf in shapes[i].items():
                    if leaf.shape is not None and leaf.dtype != "list":
                        dtypes.setdefault(path, set()).add(leaf.dtype)
            for path, kinds in dtypes.items():
                if len(kinds) > 1:
                    dtype_mixes.append((batch_no, path, sorted(kinds)))
    except Exception as exc:  # noqa: BLE001 - len() or iteration of the user's dataset failed
        raise DetectorError(f"walking the dataset failed: {type(exc).__name__}: {exc}"[:_MAX_ERROR + 40]) from exc
    if not batches:
        raise DetectorError("the dataset yielded no samples: nothing to batch")
    varying, path, dim, lengths = _lengths(shapes)
    distribution = _distribution(lengths, path, dim) if lengths else None
    waste = None
    if lengths:
        unit = f"positions along dim {dim} of field {path}"
        waste = {"unit": unit, **_waste(lengths, batches, int(batch_size), int(shuffle_seed or 0))}
    findings: list[Finding] = []
    total = len(batches)
    if first is not None:
        spread = f" ({distribution['min']}..{distribution['max']})" if distribution and distribution["dim"] in first.dims else ""
        dims = f"dim {first.dims[0]} varies{spread}" if first.dims else "the number of dimensions differs"
        findings.append(Finding(
            DETECTOR, Severity.ERROR,
            f"{len(failing)} of {total} batches cannot be collated by {name}: the first is batch {first.batch}, where "
            f"sample {first.dataset_index} (entry {first.entry_in_batch}) has shape {tuple(first.shape or ())} and entry 0 "
            f"(sample {first.reference_index}) {tuple(first.reference_shape or ())} in field {first.field}; {dims}. "
            "Pad with faultlib.remedies.pad_collate (and pass its mask to the model) or batch by length with "
            "faultlib.remedies.BucketBatchSampler.",
            {**base, "step": first.batch, "index": first.dataset_index},
            {**first.to_json(), "failing_batches": len(failing), "batches": total, "collate": name},
            kind="unstackable_batch"))
    if other_error is not None:
        batch_no, indices, message = other_error
        findings.append(Finding(
            DETECTOR, Severity.ERROR,
            f"{name} failed on batch {batch_no} (samples {indices[:8]}{'...' if len(indices) > 8 else ''}) although "
            f"its samples have the same shapes: {message}",
            {**base, "step": batch_no, "index": indices[0]},
            {"batch": batch_no, "dataset_indices": indices[:64], "error": message, "collate": name},
            kind="collate_error"))
    if sample_errors:
        batch_no, index, message = sample_errors[0]
        findings.append(Finding(
            DETECTOR, Severity.ERROR,
            f"dataset[{index}] raised {message} ({len(sample_errors)} sample(s) failed; the first in batch {batch_no})",
            {**base, "step": batch_no, "index": index},
            {"samples": len(sample_errors), "indices": [i for _, i, _ in sample_errors[:64]], "error": message},
            kind="sample_error"))
    if dtype_mixes:
        batch_no, field_path, kinds = dtype_mixes[0]
        findings.append(Finding(
            DETECTOR, Severity.WARNING,
            f"field {field_path} mixes dtypes {kinds} in batch {batch_no} ({len(dtype_mixes)} batch(es)): stacking "
            "promotes them silently; cast in the dataset",
            {**base, "step": batch_no},
            {"batches": len(dtype_mixes), "field": field_path, "dtypes": kinds},
            kind="mixed_dtypes"))
    with_dims = [v for v in varying if v["dims"]]
    return BatchingReport(
        findings=findings, failing_batches=failing, first_mismatch=first,
        varying_field=(with_dims or varying)[0]["field"] if varying else None,
        varying_dim=with_dims[0]["dims"][0] if with_dims else None, lengths=distribution,
        padding_waste=waste, batches_checked=total, samples_checked=len(shapes), order=order, collate=name,
        dataset_size=_dataset_size(dataset) if not streaming else None, varying=varying)

"""``pad_collate``: stack variable-length samples by padding one field to the batch's longest.

``torch.utils.data.default_collate`` stacks samples with ``torch.stack``, which needs every tensor
of a field to have the same shape; sequences of different lengths fail with ``stack expects each
tensor to be equal size``. :func:`pad_collate` pads the sequence field instead and returns a mask,
so the model can ignore the padded positions (``~mask`` is what ``nn.MultiheadAttention`` and
``nn.TransformerEncoder`` take as ``key_padding_mask``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from faultlib.errors import DetectorError

SIDES = ("right", "left")


class PaddedBatch(NamedTuple):
    """One padded batch.

    Attributes:
        data: the padded field, shape ``(B, *sample_shape)`` with the padded dimension (``dim`` of
            :func:`pad_collate`, counted in the sample) grown to ``T = lengths.max()``; dtype of the
            first sample.
        mask: ``torch.bool`` of shape ``(B, T)``: True at real positions, False at padding.
        lengths: ``torch.int64`` of shape ``(B,)``: each sample's length before padding.
        rest: the other fields collated by ``default_collate``: a tuple for tuple/list samples (the
            padded field removed, order kept), a dict for dict samples, None for bare tensors.
    """

    data: Any
    mask: Any
    lengths: Any
    rest: Any


def _split(batch: Sequence[Any], field: int | str) -> tuple[list[Any], Any]:
    """The sequence of every sample, and the rest of each sample (or None for bare sequences)."""
    first = batch[0]
    if isinstance(first, Mapping):
        if field not in first:
            raise DetectorError(f"pad_collate: samples are dicts without key {field!r}; keys: {sorted(map(str, first))}"
                                "; pass field=<the sequence key>")
        return [s[field] for s in batch], [{k: v for k, v in s.items() if k != field} for s in batch]
    if isinstance(first, (tuple, list)) and not _is_number_list(first):
        if not isinstance(field, int) or not -len(first) <= field < len(first):
            raise DetectorError(f"pad_collate: samples are {len(first)}-tuples; field must be an index in "
                                f"[0, {len(first)}), got {field!r}")
        index = field % len(first)
        return [s[index] for s in batch], [tuple(v for i, v in enumerate(s) if i != index) for s in batch]
    return list(batch), None


def _is_number_list(value: Any) -> bool:
    import numbers

    return isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Number) for v in value)


def pad_collate(batch: Sequence[Any], *, pad_value: float = 0.0, dim: int = 0, field: int | str = 0,
                padding_side: str = "right") -> PaddedBatch:
    """Collate variable-length samples by padding one field; use as ``DataLoader(collate_fn=...)``
    (bind options with ``functools.partial(pad_collate, pad_value=float("-inf"))``).

    Each sample is a sequence (a tensor, ndarray or list of numbers), a tuple/list whose element
    ``field`` is the sequence, or a dict whose key ``field`` is. Every sequence must have the same
    number of dimensions and the same size in every dimension but ``dim``.

    Args:
        batch: the samples of one batch (what the DataLoader hands a ``collate_fn``).
        pad_value: value written at padded positions (default 0.0). ``float("-inf")`` suits scores that
            go through a softmax (the padded positions get probability 0); it needs a floating dtype.
        dim: the dimension of each sample that varies (default 0: ``(T, features)`` samples).
        field: index (tuple samples) or key (dict samples) of the sequence field (default 0).
        padding_side: ``"right"`` (default: real positions first) or ``"left"`` (for causal decoders
            that read the last position).

    Returns:
        :class:`PaddedBatch` ``(data, mask, lengths, rest)``. Shape: ``data`` is ``(B, ..., T, ...)`` with
        ``T`` at position ``dim + 1``; ``mask`` is ``(B, T)`` bool, True at real positions; ``lengths``
        is ``(B,)`` int64.

    Raises:
        DetectorError: an empty batch, samples that differ in another dimension or in their number of
            dimensions (with the entry), a non-finite ``pad_value`` for an integer dtype, an unknown
            ``padding_side`` or ``field``.
    """
    import torch
    from torch.utils.data import default_collate

    if padding_side not in SIDES:
        raise DetectorError(f"pad_collate: padding_side must be one of {SIDES}, got {padding_side!r}")
    if len(batch) == 0:
        raise DetectorError("pad_collate: the batch is empty")
    sequences, rest = _split(batch, field)
    tensors = [torch.as_tensor(s) for s in sequences]
    ref = tensors[0]
    if ref.dim() == 0:
        raise DetectorError("pad_collate: samples are scalars; there is nothing to pad")
    if not -ref.dim() <= dim < ref.dim():
        raise DetectorError(f"pad_collate: dim {dim} is out of range for samples of shape {tuple(ref.shape)}")
    dim %= ref.dim()
    for entry, t in enumerate(tensors):
        other = [s for i, s in enumerate(t.shape) if i != dim]
        expected = [s for i, s in enumerate(ref.shape) if i != dim]
        if t.dim() != ref.dim() or other != expected:
            raise DetectorError(f"pad_collate: entry {entry} has shape {tuple(t.shape)} and entry 0 {tuple(ref.shape)}: "
                                f"only dim {dim} may differ; pad the other dimensions first or choose dim")
    dtype = ref.dtype
    if not math.isfinite(pad_value) and not dtype.is_floating_point:
        raise DetectorError(f"pad_collate: pad_value {pad_value} needs a floating dtype; the samples are {dtype}")
    lengths = torch.tensor([t.shape[dim] for t in tensors], dtype=torch.int64)
    longest = int(lengths.max())
    shape = list(ref.shape)
    shape[dim] = longest
    data = torch.full((len(tensors), *shape), pad_value, dtype=dtype)
    for i, t in enumerate(tensors):
        n = t.shape[dim]
        start = longest - n if padding_side == "left" else 0
        data[i].narrow(dim, start, n).copy_(t.to(dtype))
    positions = torch.arange(longest).unsqueeze(0)
    if padding_side == "left":
        mask = positions >= (longest - lengths).unsqueeze(1)
    else:
        mask = positions < lengths.unsqueeze(1)
    collated = None
    if rest is not None:
        collated = default_collate(rest)
        if isinstance(collated, list):
            collated = tuple(collated)
    return PaddedBatch(data, mask, lengths, collated)

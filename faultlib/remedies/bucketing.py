"""Batching by length, and what padding costs.

Padding every batch to its longest sample wastes the difference between that length and each
sample's own; when lengths are spread out and batches are drawn at random, nearly every batch holds
one long sample. :class:`BucketBatchSampler` shuffles, cuts the shuffled order into pools of
``pool_batches`` batches, sorts each pool by length and cuts it into batches, then shuffles the batch
order: batches hold samples of similar length, and the order stays random across pools (the scheme of
fairseq's and torchtext's bucket iterators). :func:`padding_waste` counts the cost of any batching.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass

from faultlib.errors import DetectorError


@dataclass(frozen=True)
class PaddingWaste:
    """Padding cost of a batching, in positions along the padded dimension.

    Attributes:
        real: positions holding data (the sum of the lengths).
        pad: positions added by padding each batch to its longest sample.
        fraction: ``pad / (real + pad)``, 0 when nothing is padded (0 = no waste).
        batches: number of batches counted.
    """

    real: int
    pad: int
    fraction: float
    batches: int

    def to_json(self) -> dict:
        return asdict(self)


def padding_waste(lengths: Sequence[int], batches: Iterable[Sequence[int]]) -> PaddingWaste:
    """Pad positions spent when each batch is padded to its longest sample.

    Args:
        lengths: ``lengths[i]`` is sample ``i``'s length (ints >= 0).
        batches: lists of sample indices (a batch sampler, or a list of lists).

    Returns:
        :class:`PaddingWaste` over the samples the batches name.

    Raises:
        DetectorError: a batch names an index outside ``lengths``.
    """
    import numpy as np

    lens = np.asarray(lengths, dtype=np.int64)
    real = pad = count = 0
    for batch in batches:
        idx = np.asarray(list(batch), dtype=np.int64)
        if idx.size == 0:
            continue
        if idx.min() < 0 or idx.max() >= lens.size:
            raise DetectorError(f"padding_waste: a batch names index {int(idx.max())} but there are {lens.size} lengths")
        chosen = lens[idx]
        real += int(chosen.sum())
        pad += int(chosen.max()) * idx.size - int(chosen.sum())
        count += 1
    total = real + pad
    return PaddingWaste(real=real, pad=pad, fraction=pad / total if total else 0.0, batches=count)


class BucketBatchSampler:
    """A ``batch_sampler`` yielding batches of samples of similar length.

    Use as ``DataLoader(dataset, batch_sampler=BucketBatchSampler(lengths, 32), collate_fn=pad_collate)``
    and call :meth:`set_epoch` before each epoch for a new order. Every sample appears once per epoch;
    the order is a pure function of ``seed`` and the epoch (numpy's PCG64), so runs repeat exactly.

    Args:
        lengths: ``lengths[i]`` is sample ``i``'s length.
        batch_size: samples per batch (>= 1).
        shuffle: shuffle samples before bucketing and the batch order after (default True). Without
            it, batches are the dataset order cut into pools, each pool sorted by length.
        seed: seed of the shuffles (default 0).
        pool_batches: batches per sorting pool (default 50). Larger pools pad less but make batches
            less random; ``pool_batches * batch_size >= len(lengths)`` sorts the whole epoch at once.
        drop_last: drop each pool's last incomplete batch (default False).

    Raises:
        DetectorError: ``batch_size`` or ``pool_batches`` below 1, or a negative length.

    Cost: one stable argsort per pool per epoch, O(n log n) overall; no sample is loaded.
    """

    def __init__(self, lengths: Sequence[int], batch_size: int, *, shuffle: bool = True, seed: int = 0,
                 pool_batches: int = 50, drop_last: bool = False):
        import numpy as np

        if int(batch_size) < 1 or int(pool_batches) < 1:
            raise DetectorError(f"BucketBatchSampler: batch_size and pool_batches must be >= 1, got {batch_size} "
                                f"and {pool_batches}")
        self.lengths = np.asarray(lengths, dtype=np.int64)
        if self.lengths.ndim != 1 or (self.lengths < 0).any():
            raise DetectorError("BucketBatchSampler: lengths must be a flat sequence of ints >= 0")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.seed = int(seed)
        self.pool_batches = int(pool_batches)
        self.drop_last = drop_last
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Choose the epoch whose order the next iteration yields (default 0)."""
        self.epoch = int(epoch)

    def batches(self) -> list[list[int]]:
        """This epoch's batches as lists of sample indices."""
        import numpy as np

        rng = np.random.Generator(np.random.PCG64([self.seed, self.epoch]))
        n = self.lengths.size
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        pool = self.pool_batches * self.batch_size
        out: list[list[int]] = []
        for start in range(0, n, pool):
            chunk = order[start:start + pool]
            chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            for b in range(0, chunk.size, self.batch_size):
                batch = chunk[b:b + self.batch_size]
                if self.drop_last and batch.size < self.batch_size:
                    continue
                out.append([int(i) for i in batch])
        if self.shuffle:
            out = [out[i] for i in rng.permutation(len(out))]
        return out

    def __iter__(self) -> Iterator[list[int]]:
        return iter(self.batches())

    def __len__(self) -> int:
        n, pool = self.lengths.size, self.pool_batches * self.batch_size
        full, tail = divmod(n, pool)
        per_pool = pool // self.batch_size
        if self.drop_last:
            return full * per_pool + tail // self.batch_size
        return full * per_pool + -(-tail // self.batch_size)

"""Multivariate drift: the maximum mean discrepancy (MMD) two-sample test with a permutation p-value.

The statistic is the biased (V-statistic) squared MMD of Gretton et al., "A kernel two-sample test",
JMLR 13 (2012), with the Gaussian RBF kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))`` and the
median heuristic for ``sigma`` (the median Euclidean distance between pooled rows, measured on at
most 1,000 of them). It is 0 when the two samples have the same mean embedding and grows with the
difference. Written with a signed label vector ``s`` (``1/n`` on reference rows, ``-1/m`` on current
rows) it is the quadratic form ``s' K s``, and every permutation of the labels is another ``s``:
so all permutations are evaluated together as matrix products instead of one gather at a time.

Two ways to evaluate it, chosen by size (:class:`~faultlib.detect.data.drift.config.DriftConfig`):

- ``exact`` (pooled rows <= ``mmd_exact_max``, default 2,048): the kernel matrix once, O(N^2 d), then
  ``diag(S' K S)`` for the permutation matrix ``S`` in blocks, O(N^2 P) in BLAS;
- ``rff`` (above): random Fourier features (Rahimi and Recht, NIPS 2007): ``D`` frequency pairs
  ``w ~ N(0, I / sigma^2)`` give ``phi(x) = [cos(w'x), sin(w'x)] / sqrt(D)`` with ``phi(x)'phi(y)``
  an unbiased estimate of ``k(x, y)``; the statistic is ``||Phi' s||^2``, O(N D d + N D P), no
  N x N matrix (the products run in float32: observed and permuted statistics alike). ``phi`` is a valid kernel of its own, so the permutation test stays exact in level
  (a false-alarm rate of ``alpha`` at any ``D``); only power depends on ``D``, and
  ``benchmarks/drift_mmd.py`` measures it against the exact test.

The p-value is ``(1 + #{permuted >= observed}) / (1 + P)`` (Phipson and Smyth, 2010: never 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from faultlib.errors import DetectorError

BANDWIDTH_SAMPLE = 1000
"""Rows used by the median heuristic (its cost is quadratic in them)."""
PERMUTATION_BLOCK = 128
"""Permutations evaluated per matrix product (bounds the N x block label matrix)."""


@dataclass(frozen=True)
class MMDResult:
    """The outcome of :func:`mmd_test`.

    Attributes:
        statistic: squared MMD (V-statistic) under the kernel used; >= 0 up to rounding, larger = more
            different.
        p_value: permutation p-value in ``[1/(P+1), 1]``.
        bandwidth: the RBF ``sigma`` (median heuristic unless given), in standardised units.
        permutations: ``P``.
        evaluation: ``exact`` (kernel matrix) or ``rff`` (random Fourier features).
        features: random Fourier features used (``2 D``), 0 for ``exact``.
        n_reference: reference rows.
        n_current: current rows.
    """

    statistic: float
    p_value: float
    bandwidth: float
    permutations: int
    evaluation: str
    features: int
    n_reference: int
    n_current: int

    def to_json(self) -> dict:
        return {"statistic": self.statistic, "p_value": self.p_value, "bandwidth": self.bandwidth,
                "permutations": self.permutations, "evaluation": self.evaluation, "features": self.features,
                "n_reference": self.n_reference, "n_current": self.n_current}


def median_bandwidth(pooled: np.ndarray, rng: np.random.Generator) -> float:
    """The median heuristic: the median Euclidean distance between distinct rows of ``pooled``
    (a random subset of at most :data:`BANDWIDTH_SAMPLE` rows). Falls back to the mean nonzero
    distance, then 1.0, when most rows coincide."""
    rows = pooled if len(pooled) <= BANDWIDTH_SAMPLE else pooled[rng.choice(len(pooled), BANDWIDTH_SAMPLE,
                                                                             replace=False)]
    sq = np.sum(rows * rows, axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * rows @ rows.T, 0.0)
    distances = np.sqrt(d2[np.triu_indices(len(rows), k=1)])
    median = float(np.median(distances)) if len(distances) else 0.0
    if median > 0:
        return median
    nonzero = distances[distances > 0]
    return float(nonzero.mean()) if len(nonzero) else 1.0


def rbf_kernel(a: np.ndarray, b: np.ndarray, bandwidth: float) -> np.ndarray:
    """``exp(-||a_i - b_j||^2 / (2 bandwidth^2))``, shape ``(len(a), len(b))``, built in place (one
    ``len(a) x len(b)`` array at the peak, in ``a``'s dtype)."""
    out = a @ b.T
    out *= -2.0
    out += np.sum(a * a, axis=1)[:, None]
    out += np.sum(b * b, axis=1)[None, :]
    np.maximum(out, 0.0, out=out)
    out *= -1.0 / (2.0 * bandwidth * bandwidth)
    return np.exp(out, out=out)


def _label_matrix(n: int, m: int, permutations: int, rng: np.random.Generator, dtype=np.float64) -> np.ndarray:
    """Signed labels, shape ``(n + m, P + 1)`` (a Fortran-ordered view): column 0 the observed split,
    then P permutations."""
    base = np.concatenate([np.full(n, 1.0 / n), np.full(m, -1.0 / m)]).astype(dtype)
    tiled = np.tile(base, (permutations + 1, 1))
    tiled[1:] = rng.permuted(tiled[1:], axis=1)
    return tiled.T


def _quadratic_forms(apply, labels: np.ndarray) -> np.ndarray:
    """``diag(S' M S)`` for the label matrix ``S``, where ``apply(S_block)`` returns ``M S_block``."""
    out = np.empty(labels.shape[1])
    for start in range(0, labels.shape[1], PERMUTATION_BLOCK):
        block = labels[:, start:start + PERMUTATION_BLOCK]
        out[start:start + block.shape[1]] = np.einsum("ij,ij->j", block, apply(block))
    return out


def mmd_test(reference: np.ndarray, current: np.ndarray, *, permutations: int = 500, bandwidth: float | None = None,
             method: str = "auto", features: int = 512, exact_max: int = 2048, seed: int = 0) -> MMDResult:
    """Permutation test of ``reference`` and ``current`` having one distribution, by squared MMD.

    Args:
        reference: shape ``(n, d)``, finite numbers, already on comparable scales (the batch
            detector standardises every column by the reference's mean and standard deviation).
        current: shape ``(m, d)``.
        permutations: ``P`` (>= 19, so that ``p < 0.05`` is reachable), default 500.
        bandwidth: RBF ``sigma``; ``None`` = median heuristic on the pooled rows.
        method: ``exact``, ``rff`` or ``auto`` (exact up to ``exact_max`` pooled rows).
        features: frequency pairs ``D`` of the ``rff`` method (``2 D`` features), default 512.
        exact_max: pooled rows up to which ``auto`` chooses ``exact``, default 2048 (its kernel
            matrix then takes 32 MiB).
        seed: seeds the bandwidth subsample, the random features and the permutations.

    Returns:
        :class:`MMDResult`; small ``p_value`` = the samples differ.

    Raises:
        DetectorError: fewer than 2 rows in a sample, mismatched widths, non-finite values,
            ``permutations < 19`` or an unknown method.

    Cost: ``exact`` O(N^2 (d + P)) time and O(N^2) memory; ``rff`` O(N D (d + P)) time and O(N D) memory.
    """
    reference = np.asarray(reference, dtype=np.float64)
    current = np.asarray(current, dtype=np.float64)
    if reference.ndim != 2 or current.ndim != 2 or reference.shape[1] != current.shape[1]:
        raise DetectorError(f"MMD needs two 2-D arrays of the same width, got shapes {reference.shape} and "
                            f"{current.shape}")
    n, m = len(reference), len(current)
    if n < 2 or m < 2:
        raise DetectorError(f"MMD needs at least 2 rows per sample, got {n} and {m}")
    if permutations < 19:
        raise DetectorError(f"permutations must be >= 19 (p < 0.05 needs at least 19), got {permutations}")
    if method not in ("auto", "exact", "rff"):
        raise DetectorError(f"unknown MMD method {method!r}: use auto, exact or rff")
    pooled = np.concatenate([reference, current])
    if not np.isfinite(pooled).all():
        raise DetectorError("MMD input holds NaN or infinite values: clean the data first")
    rng = np.random.default_rng(seed)
    sigma = float(bandwidth) if bandwidth is not None else median_bandwidth(pooled, rng)
    if not sigma > 0:
        raise DetectorError(f"bandwidth must be > 0, got {sigma}")
    chosen = method if method != "auto" else ("exact" if n + m <= exact_max else "rff")
    labels = _label_matrix(n, m, permutations, rng, np.float64 if chosen == "exact" else np.float32)
    if chosen == "exact":
        kernel = rbf_kernel(pooled, pooled, sigma)
        stats = _quadratic_forms(lambda block: kernel @ block, labels)
        used = 0
    else:
        omega = rng.normal(scale=1.0 / sigma, size=(pooled.shape[1], features))
        projected = pooled @ omega
        phi_t = np.empty((2 * features, len(pooled)), dtype=np.float32)   # Phi', one feature per row
        np.cos(projected.T, out=phi_t[:features], casting="same_kind")
        np.sin(projected.T, out=phi_t[features:], casting="same_kind")
        phi_t *= np.float32(1.0 / np.sqrt(features))
        stats = np.empty(labels.shape[1])
        for start in range(0, labels.shape[1], PERMUTATION_BLOCK):
            embedded = phi_t @ labels[:, start:start + PERMUTATION_BLOCK]   # (2D, block): mean-embedding gaps
            stats[start:start + embedded.shape[1]] = np.einsum("ij,ij->j", embedded, embedded, dtype=np.float64)
        used = 2 * features
    observed = float(stats[0])
    exceed = int(np.sum(stats[1:] >= observed - 1e-12 * abs(observed)))  # ties count against drift
    return MMDResult(statistic=max(observed, 0.0), p_value=(1 + exceed) / (1 + permutations), bandwidth=sigma,
                     permutations=permutations, evaluation=chosen, features=used, n_reference=n, n_current=m)

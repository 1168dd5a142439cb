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

Above ``permutation_max`` pooled rows (default 20,000) permutations cost O(N D P) time and an N x P
label matrix, so the RFF statistic takes its asymptotic null instead (``rff_asymptotic``): it is the
squared norm of ``delta = mean phi(reference) - mean phi(current)``, a difference of means of i.i.d.
bounded vectors, so under no change ``delta ~ N(0, (1/n + 1/m) Sigma)`` by the central limit theorem
(``Sigma`` the covariance of ``phi`` on the pooled rows; at most :data:`ASYMPTOTIC_FEATURES` frequency pairs) and ``||delta||^2`` is distributed as
``(1/n + 1/m) sum_k lambda_k z_k^2`` with ``lambda_k`` the eigenvalues of ``Sigma`` and ``z_k`` i.i.d.
standard normal (Gretton et al. 2012, Theorem 12, for the finite-dimensional kernel ``phi'phi``; Zhao and
Meng, "FastMMD", 2015, for RFF). ``Sigma`` is estimated on at most :data:`COVARIANCE_SAMPLE` pooled rows;
its sample eigenvalues are more spread than the true ones (Marchenko-Pastur), which thickens the
simulated tail, so the test errs conservative. ``delta`` is accumulated over row chunks of
:data:`CHUNK_ROWS`, so memory is O(CHUNK_ROWS x D) whatever N; the p-value is ``(1 + #{draws >=
observed}) / (1 + NULL_DRAWS)`` over :data:`NULL_DRAWS` draws. ``benchmarks/drift_scale.py`` measures
its time, memory and false-alarm rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from faultlib.errors import DetectorError

BANDWIDTH_SAMPLE = 1000
"""Rows used by the median heuristic (its cost is quadratic in them)."""
PERMUTATION_BLOCK = 128
"""Permutations evaluated per matrix product (bounds the N x block label matrix)."""
CHUNK_ROWS = 16_384
"""Rows whose random features are held at once by the asymptotic test (16,384 x 1,024 float32 = 64 MiB)."""
COVARIANCE_SAMPLE = 8_192
"""Pooled rows on which the asymptotic test estimates the feature covariance (its cost: rows x (2D)^2)."""
NULL_DRAWS = 10_000
"""Draws of the asymptotic null (p-value resolution 1e-4)."""
ASYMPTOTIC_FEATURES = 256
"""Most frequency pairs of the asymptotic test (512 features): its samples are large, so power is not what
limits it, and its time is linear in the features (``benchmarks/drift_scale.py`` measures both)."""


@dataclass(frozen=True)
class MMDResult:
    """The outcome of :func:`mmd_test`.

    Attributes:
        statistic: squared MMD (V-statistic) under the kernel used; >= 0 up to rounding, larger = more
            different.
        p_value: permutation p-value in ``[1/(P+1), 1]``.
        bandwidth: the RBF ``sigma`` (median heuristic unless given), in standardised units.
        permutations: ``P``.
        evaluation: ``exact`` (kernel matrix), ``rff`` (random Fourier features, permutations) or
            ``rff_asymptotic`` (random Fourier features, asymptotic null: ``permutations`` is then 0).
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


def _features(rows: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``phi(rows)``, shape ``(len(rows), 2 D)`` float32, scaled by ``1 / sqrt(D)``."""
    projected = (rows @ omega).astype(np.float32)
    out = np.empty((len(rows), 2 * omega.shape[1]), dtype=np.float32)
    np.cos(projected, out=out[:, :omega.shape[1]])
    np.sin(projected, out=out[:, omega.shape[1]:])
    out *= np.float32(1.0 / np.sqrt(omega.shape[1]))
    return out


def _asymptotic(reference: np.ndarray, current: np.ndarray, omega: np.ndarray, rng: np.random.Generator
                ) -> tuple[float, float]:
    """The RFF statistic over row chunks and its p-value under the asymptotic null (module docstring)."""
    n, m = len(reference), len(current)
    sums = []
    for sample in (reference, current):
        total = np.zeros(2 * omega.shape[1])
        for start in range(0, len(sample), CHUNK_ROWS):
            total += _features(sample[start:start + CHUNK_ROWS], omega).sum(axis=0, dtype=np.float64)
        sums.append(total)
    delta = sums[0] / n - sums[1] / m
    observed = float(delta @ delta)
    take = min(COVARIANCE_SAMPLE, n + m)
    picks = np.sort(rng.choice(n + m, take, replace=False))
    rows = np.concatenate([reference[picks[picks < n]], current[picks[picks >= n] - n]])
    phi = _features(rows, omega).astype(np.float64)
    phi -= phi.mean(axis=0)
    eigen = np.clip(np.linalg.eigvalsh(phi.T @ phi / max(take - 1, 1)), 0.0, None)
    eigen = eigen[eigen > eigen.max() * 1e-9] if eigen.max() > 0 else eigen[:1]
    scale = 1.0 / n + 1.0 / m
    draws = np.empty(NULL_DRAWS)
    for start in range(0, NULL_DRAWS, 1000):
        z = rng.standard_normal((min(1000, NULL_DRAWS - start), eigen.size))
        draws[start:start + z.shape[0]] = scale * (z * z) @ eigen
    exceed = int(np.sum(draws >= observed))
    return max(observed, 0.0), (1 + exceed) / (1 + NULL_DRAWS)


def mmd_test(reference: np.ndarray, current: np.ndarray, *, permutations: int = 500, bandwidth: float | None = None,
             method: str = "auto", features: int = 512, exact_max: int = 2048, seed: int = 0,
             permutation_max: int = 20_000) -> MMDResult:
    """Permutation test of ``reference`` and ``current`` having one distribution, by squared MMD.

    Args:
        reference: shape ``(n, d)``, finite numbers, already on comparable scales (the batch
            detector standardises every column by the reference's mean and standard deviation).
        current: shape ``(m, d)``.
        permutations: ``P`` (>= 19, so that ``p < 0.05`` is reachable), default 500.
        bandwidth: RBF ``sigma``; ``None`` = median heuristic on the pooled rows.
        method: ``exact``, ``rff``, ``rff_asymptotic`` or ``auto`` (exact up to ``exact_max`` pooled rows,
            ``rff`` up to ``permutation_max``, ``rff_asymptotic`` above).
        features: frequency pairs ``D`` of the ``rff`` method (``2 D`` features), default 512.
        exact_max: pooled rows up to which ``auto`` chooses ``exact``, default 2048 (its kernel
            matrix then takes 32 MiB).
        seed: seeds the bandwidth subsample, the random features and the permutations.
        permutation_max: pooled rows up to which ``auto`` runs permutations, default 20,000.

    Returns:
        :class:`MMDResult`; small ``p_value`` = the samples differ.

    Raises:
        DetectorError: fewer than 2 rows in a sample, mismatched widths, non-finite values,
            ``permutations < 19`` or an unknown method.

    Cost: ``exact`` O(N^2 (d + P)) time and O(N^2) memory; ``rff`` O(N D (d + P)) time and O(N D) memory;
    ``rff_asymptotic`` O(N D d) time and O(CHUNK_ROWS D + D^2) memory beyond the input.
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
    if method not in ("auto", "exact", "rff", "rff_asymptotic"):
        raise DetectorError(f"unknown MMD method {method!r}: use auto, exact, rff or rff_asymptotic")
    if not (np.isfinite(reference).all() and np.isfinite(current).all()):
        raise DetectorError("MMD input holds NaN or infinite values: clean the data first")
    rng = np.random.default_rng(seed)
    chosen = method if method != "auto" else ("exact" if n + m <= exact_max else "rff" if n + m <= permutation_max
                                              else "rff_asymptotic")
    if chosen == "rff_asymptotic":
        picks = rng.choice(n + m, min(n + m, BANDWIDTH_SAMPLE), replace=False)
        sample = np.concatenate([reference[picks[picks < n]], current[picks[picks >= n] - n]])
        sigma = float(bandwidth) if bandwidth is not None else median_bandwidth(sample, rng)
        if not sigma > 0:
            raise DetectorError(f"bandwidth must be > 0, got {sigma}")
        pairs = min(features, ASYMPTOTIC_FEATURES)
        omega = rng.normal(scale=1.0 / sigma, size=(reference.shape[1], pairs))
        statistic, p_value = _asymptotic(reference, current, omega, rng)
        return MMDResult(statistic=statistic, p_value=p_value, bandwidth=sigma, permutations=0,
                         evaluation=chosen, features=2 * pairs, n_reference=n, n_current=m)
    pooled = np.concatenate([reference, current]) if chosen == "exact" else None   # rff: no (n + m) x d copy
    if bandwidth is not None:
        sigma = float(bandwidth)
    elif pooled is not None or n + m <= BANDWIDTH_SAMPLE:
        sigma = median_bandwidth(pooled if pooled is not None else np.concatenate([reference, current]), rng)
    else:   # the rows median_bandwidth would draw from the pooled rows, gathered from the two samples
        picks = rng.choice(n + m, BANDWIDTH_SAMPLE, replace=False)
        rows = np.empty((BANDWIDTH_SAMPLE, reference.shape[1]))
        rows[picks < n], rows[picks >= n] = reference[picks[picks < n]], current[picks[picks >= n] - n]
        sigma = median_bandwidth(rows, rng)
    if not sigma > 0:
        raise DetectorError(f"bandwidth must be > 0, got {sigma}")
    labels = _label_matrix(n, m, permutations, rng, np.float64 if chosen == "exact" else np.float32)
    if chosen == "exact":
        kernel = rbf_kernel(pooled, pooled, sigma)
        stats = _quadratic_forms(lambda block: kernel @ block, labels)
        used = 0
    else:
        omega = rng.normal(scale=1.0 / sigma, size=(reference.shape[1], features))
        projected = np.concatenate([reference @ omega, current @ omega])
        phi_t = np.empty((2 * features, n + m), dtype=np.float32)   # Phi', one feature per row
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

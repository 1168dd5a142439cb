"""The per-column statistics of the drift detectors, on plain numpy arrays and bin counts.

Everything here works on counts, so the batch detector (:mod:`~faultlib.detect.data.drift.batch`) and the
bounded-memory monitor (:mod:`~faultlib.detect.data.drift.monitor`) share it:

- :func:`quantile_edges` / :func:`bin_counts`: a numeric column in reference-quantile bins
  (deciles by default), ties merged, so a discrete column gets one bin per value or run of values;
- :func:`psi`: the population stability index (Jeffreys divergence of the binned distributions,
  ``sum (c - r) ln(c / r)``; 0 = identical, larger = more shift) with its p-value from Yurdakul and
  Naranjo's approximation ``PSI / (1/n + 1/m) ~ chi2(bins - 1)``, and :func:`psi_noise`, its 1 - alpha
  quantile under no change; :func:`kl` the one-way divergence;
- :func:`chi2_homogeneity`: Pearson's chi-squared test that two count vectors come from one
  distribution, with sparse cells pooled (Cochran's rule: every expected count >= 5);
- :func:`ks`: the two-sample Kolmogorov-Smirnov test (scipy), exact for small samples; on
  discrete data it is conservative (its p-values are too large), never liberal;
- :func:`benjamini_hochberg`: adjusted p-values across the columns.

Why Benjamini-Hochberg and not Holm: when nothing drifted, every finding is false, so BH's false
discovery rate equals the chance of any finding at all, and BH bounds it by ``alpha`` exactly as
Holm does (both for independent columns; BH also under positive dependence, Benjamini and
Yekutieli 2001, which is how drifting columns correlate). When something did drift, BH keeps its
power as the number of columns grows, while Holm asks each column to clear ``alpha / k``; a
monitor of 200 features would then miss moderate shifts to protect against naming one extra
column, which costs an engineer a glance, not a wrong decision.
"""

from __future__ import annotations

import math

import numpy as np

SMOOTHING = 0.5
"""Pseudo-count added to every bin before PSI / KL (Jeffreys' prior), so an empty bin gives a large
but finite divergence instead of infinity."""
Z_CAP = 1e6
MIN_EXPECTED = 5.0
"""Cochran's rule: a chi-squared cell should expect at least 5 rows (and a bin of the binned tests)."""


def bins_for(n_reference: int, n_current: int, max_bins: int) -> int:
    """How many quantile bins two samples of these sizes support: each bin expects >= 5 rows of the
    smaller sample (Cochran), at most ``max_bins``, at least 2."""
    return int(max(2, min(max_bins, min(n_reference, n_current) // MIN_EXPECTED)))


def quantile_edges(reference: np.ndarray, bins: int) -> np.ndarray:
    """Inner cut points of ``bins`` reference-quantile bins, ties merged.

    Args:
        reference: 1-D finite numbers.
        bins: wanted number of bins (>= 2).

    Returns:
        Sorted unique cut points, shape ``(k,)`` with ``k <= bins - 1``; a value ``v`` falls in bin
        ``searchsorted(edges, v, side="right")``, so there are ``k + 1`` bins. A constant column
        gets one cut point (its value): bin 0 holds values below it, bin 1 the rest.
    """
    cuts = np.quantile(reference, np.linspace(0.0, 1.0, bins + 1)[1:-1], method="linear")
    return np.unique(cuts)


def bin_counts(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Counts of ``values`` in the bins that ``edges`` cut (shape ``(len(edges) + 1,)``, int64)."""
    return np.bincount(np.searchsorted(edges, values, side="right"), minlength=len(edges) + 1).astype(np.int64)


def _proportions(counts: np.ndarray) -> np.ndarray:
    smoothed = counts.astype(np.float64) + SMOOTHING
    return smoothed / smoothed.sum()


def psi(reference_counts: np.ndarray, current_counts: np.ndarray) -> tuple[float, float]:
    """Population stability index of two count vectors over the same bins, and its p-value.

    Args:
        reference_counts: counts per bin in the reference, shape ``(k,)``.
        current_counts: counts per bin in the current sample, shape ``(k,)``.

    Returns:
        ``(psi, p_value)``. PSI >= 0 and grows with the shift (0.1 / 0.25 are the rule of thumb's
        cut points, see :mod:`faultlib.detect.data.drift.config`); bins empty in both samples are
        dropped first. The p-value is ``chi2.sf(PSI / (1/n + 1/m), k - 1)`` (Yurdakul and Naranjo);
        with the pseudo-counts it is slightly conservative. 1.0 when fewer than two bins remain.
    """
    keep = (reference_counts + current_counts) > 0
    ref, cur = reference_counts[keep], current_counts[keep]
    if len(ref) < 2:
        return 0.0, 1.0
    r, c = _proportions(ref), _proportions(cur)
    value = float(np.sum((c - r) * np.log(c / r)))
    n, m = ref.sum(), cur.sum()
    from scipy.stats import chi2

    return value, float(chi2.sf(value / (1.0 / n + 1.0 / m), len(ref) - 1))


def psi_noise(reference_counts: np.ndarray, current_counts: np.ndarray, alpha: float = 0.05) -> float:
    """The PSI that two samples of one distribution stay below with probability ``1 - alpha`` at these
    sizes: ``(1/n + 1/m) * chi2.isf(alpha, k - 1)`` for ``k`` cells non-empty in either sample (the
    quantile of Yurdakul and Naranjo's approximation). The graded response uses the PSI in excess of
    it, so a hundred rows per sample (noise up to ~0.3) do not page anyone, while at thousands of rows
    the correction vanishes and the rule of thumb applies as written."""
    k = int(np.count_nonzero((reference_counts + current_counts) > 0))
    n, m = int(reference_counts.sum()), int(current_counts.sum())
    if k < 2 or n == 0 or m == 0:
        return 0.0
    from scipy.stats import chi2

    return float((1.0 / n + 1.0 / m) * chi2.isf(alpha, k - 1))


def kl(reference_counts: np.ndarray, current_counts: np.ndarray) -> float:
    """KL divergence of the current from the reference distribution, ``sum c ln(c / r)`` (nats, >= 0),
    with the same pseudo-counts as :func:`psi` (PSI is KL(c||r) + KL(r||c))."""
    keep = (reference_counts + current_counts) > 0
    r, c = _proportions(reference_counts[keep]), _proportions(current_counts[keep])
    return float(np.sum(c * np.log(c / r))) if len(r) else 0.0


def pool_sparse(reference_counts: np.ndarray, current_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge the cells whose expected count (under one shared distribution) is below 5 in either sample
    into one cell, so Pearson's chi-squared approximation holds (Cochran's rule).

    Returns:
        ``(reference, current)`` counts after pooling; the pooled cell, if any, is last.
    """
    n, m = reference_counts.sum(), current_counts.sum()
    pooled = (reference_counts + current_counts) / max(n + m, 1)
    sparse = pooled * min(n, m) < MIN_EXPECTED
    if not sparse.any():
        return reference_counts, current_counts
    ref = np.append(reference_counts[~sparse], reference_counts[sparse].sum())
    cur = np.append(current_counts[~sparse], current_counts[sparse].sum())
    return ref, cur


def chi2_homogeneity(reference_counts: np.ndarray, current_counts: np.ndarray) -> tuple[float, float, int]:
    """Pearson's chi-squared test that two count vectors over the same cells share one distribution.

    Args:
        reference_counts: counts per cell (bin or category) in the reference, shape ``(k,)``.
        current_counts: counts per cell in the current sample, shape ``(k,)``.

    Returns:
        ``(statistic, p_value, dof)``: statistic >= 0 (larger = more different), after sparse
        cells are pooled (:func:`pool_sparse`); ``(0.0, 1.0, 0)`` when fewer than two cells remain.
    """
    ref, cur = pool_sparse(reference_counts, current_counts)
    keep = (ref + cur) > 0
    ref, cur = ref[keep].astype(np.float64), cur[keep].astype(np.float64)
    if len(ref) < 2:
        return 0.0, 1.0, 0
    n, m = ref.sum(), cur.sum()
    total = ref + cur
    expected_ref, expected_cur = total * n / (n + m), total * m / (n + m)
    statistic = float(np.sum((ref - expected_ref) ** 2 / expected_ref + (cur - expected_cur) ** 2 / expected_cur))
    from scipy.stats import chi2

    dof = len(ref) - 1
    return statistic, float(chi2.sf(statistic, dof)), dof


KS_EXACT_MAX = 10_000
"""Largest sample for which :func:`ks` uses scipy's exact distribution (scipy's own ``method="auto"`` limit)."""


def ks(reference: np.ndarray, current: np.ndarray) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov test (``scipy.stats.ks_2samp``, ``method="auto"``: exact up to
    :data:`KS_EXACT_MAX` rows per sample, asymptotic above).

    Above that size D is computed here in one merge of the two sorted samples (``ks_2samp`` binary-searches
    every pooled value in both samples, 4x slower at a million rows) and the p-value is scipy's own
    asymptotic one, ``scipy.stats.kstwo.sf(D, round(n m / (n + m)))``: the same D and p-value as
    ``ks_2samp(method="asymp")``.

    Returns:
        ``(D, p_value)``: D in [0, 1] is the largest gap between the two empirical CDFs (larger = more
        different). On discrete data (ties) the p-value is conservative.
    """
    from scipy import stats as sps

    n, m = len(reference), len(current)
    if max(n, m) <= KS_EXACT_MAX:
        result = sps.ks_2samp(reference, current, method="auto")
        return float(result.statistic), float(result.pvalue)
    pooled = np.concatenate([np.sort(reference), np.sort(current)])
    order = np.argsort(pooled, kind="stable")        # two sorted runs: a linear merge
    values = pooled[order]
    gaps = np.cumsum(np.where(order < n, np.int64(m), np.int64(-n)))   # n m (F_ref - F_cur), exact in int64
    last = np.ones(values.size, dtype=bool)            # the CDFs are compared after each run of ties
    last[:-1] = values[1:] != values[:-1]
    d = float(min(1.0, np.abs(gaps[last]).max() / (n * m)))
    big, small = max(n, m), min(n, m)
    p = float(sps.kstwo.sf(d, np.round(big * small / (big + small))))
    return d, min(1.0, max(0.0, p))


def benjamini_hochberg(p_values: list[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values, in the input order.

    A hypothesis is rejected at false-discovery rate ``alpha`` when its adjusted p-value is
    ``<= alpha`` (Benjamini and Hochberg, JRSS B 57, 1995).
    """
    k = len(p_values)
    if k == 0:
        return []
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p)
    ranked = p[order] * k / np.arange(1, k + 1)
    adjusted = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(k)
    out[order] = np.minimum(adjusted, 1.0)
    return [float(v) for v in out]


def mean_z(ref_mean: float, ref_var: float, n_ref: int, cur_mean: float, cur_var: float, n_cur: int) -> float:
    """Welch's z of a mean shift, ``(cur_mean - ref_mean) / sqrt(ref_var/n + cur_var/m)`` (signed,
    capped at +-1e6 so a shift of a constant column stays a finite JSON number)."""
    scale = math.sqrt(max(ref_var, 0.0) / max(n_ref, 1) + max(cur_var, 0.0) / max(n_cur, 1))
    diff = cur_mean - ref_mean
    if diff == 0.0:
        return 0.0
    return max(-Z_CAP, min(Z_CAP, diff / scale)) if scale > 0.0 else math.copysign(Z_CAP, diff)

"""The per-column tests of many numeric columns at once, as array operations over a block of columns.

:func:`~faultlib.detect.data.drift.batch.compare` tested a column at a time: a quantile binning, a PSI, a KS test
and a dozen small numpy and scipy calls each, about 3.5 ms a column whatever its length (2,000 rows x 10,000
columns: most of a minute of overhead). Here the numeric columns with every row present on both sides (the usual
wide table) are tested a block at a time:

- KS: D from one sort of the pooled block along its rows (the gap between the two empirical CDFs after each run of
  ties, as ``scipy.stats.ks_2samp`` measures it); the p-value is ``ks_2samp``'s own, computed once per distinct D
  (it depends only on ``n``, ``m`` and D: a few hundred values at 2,000 rows, however many columns), or
  ``scipy.stats.kstwo.sf`` for every column at once above :data:`~faultlib.detect.data.drift.stats.KS_EXACT_MAX`;
- bins: the reference's quantiles of every column at once (``numpy.quantile`` along axis 0), the bin of a value the
  number of cut points at or below it (:func:`~faultlib.detect.data.drift.stats.bin_counts`' ``searchsorted(...,
  side="right")``); a column whose cut points tie (a discrete column) keeps the one-column path, which merges them;
- PSI, its noise level and KL over the count matrices, as :mod:`~faultlib.detect.data.drift.stats` defines them.

Every value equals the one-column path's (``tests/detect/test_drift_columnwise.py`` compares them), up to the
order of floating-point sums.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from faultlib.detect.data.drift import stats
from faultlib.detect.data.drift.tables import NUMERIC, ColumnPair

if TYPE_CHECKING:
    from faultlib.findings import Finding

BLOCK_CELLS = 4_000_000
"""Pooled cells (rows x columns) tested at once: the sort's index and the gaps are 8 bytes a cell (about 100 MB)."""


def whole(pair: ColumnPair) -> bool:
    """Every row of the column holds a usable value on both sides (the block path's precondition)."""
    return pair.reference.size == pair.rows("reference") and pair.current.size == pair.rows("current")


def _ks(ref: np.ndarray, cur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """KS D and p-value of each column of ``ref`` (n x k) against ``cur`` (m x k)."""
    from scipy import stats as sps

    n, m = ref.shape[0], cur.shape[0]
    pooled = np.concatenate([ref, cur])
    order = np.argsort(pooled, axis=0, kind="stable")
    values = np.take_along_axis(pooled, order, axis=0)
    gaps = np.cumsum(np.where(order < n, np.int64(m), np.int64(-n)), axis=0)   # n m (F_ref - F_cur), exact
    gaps[:-1][values[1:] == values[:-1]] = 0   # compared after each run of ties only
    widest = np.abs(gaps).max(axis=0)
    d = np.minimum(1.0, widest / (n * m))
    if max(n, m) > stats.KS_EXACT_MAX:
        big, small = max(n, m), min(n, m)
        return d, np.clip(sps.kstwo.sf(d, np.round(big * small / (big + small))), 0.0, 1.0)
    p = np.empty_like(d)
    known: dict[int, float] = {}
    for j, gap in enumerate(widest.tolist()):
        if gap in known:
            p[j] = known[gap]
            continue
        statistic, p[j] = stats.ks(ref[:, j], cur[:, j])
        if math.isclose(statistic, d[j], rel_tol=1e-12, abs_tol=1e-15):
            known[gap] = p[j]
        else:  # not expected; scipy's own D and p-value for this column then, and no reuse
            d[j] = statistic
    return d, p


def _proportions(counts: np.ndarray, keep: np.ndarray) -> np.ndarray:
    smoothed = np.where(keep, counts + stats.SMOOTHING, 0.0)
    return smoothed / smoothed.sum(axis=1, keepdims=True)


def _divergences(ref_counts: np.ndarray, cur_counts: np.ndarray, alpha: float):
    """PSI, its p-value, its noise level and KL of each row of two count matrices (k x bins), as the one-row
    functions of :mod:`~faultlib.detect.data.drift.stats` compute them."""
    from scipy.stats import chi2

    keep = (ref_counts + cur_counts) > 0
    cells = keep.sum(axis=1)
    r, c = _proportions(ref_counts, keep), _proportions(cur_counts, keep)
    with np.errstate(divide="ignore", invalid="ignore"):
        log = np.where(keep, np.log(np.where(keep, c, 1.0) / np.where(keep, r, 1.0)), 0.0)
    psi = np.where(cells >= 2, ((c - r) * log).sum(axis=1), 0.0)
    kl = (c * log).sum(axis=1)
    n, m = ref_counts.sum(axis=1).astype(np.float64), cur_counts.sum(axis=1).astype(np.float64)
    scale = 1.0 / n + 1.0 / m
    dof = np.maximum(cells - 1, 1)
    p = np.where(cells >= 2, chi2.sf(psi / scale, dof), 1.0)
    noise = np.where(cells >= 2, scale * chi2.isf(alpha, dof), 0.0)
    return psi, p, noise, kl


def block_columns(n: int, m: int) -> int:
    """How many columns of ``n`` and ``m`` rows one call of :func:`numeric_block` takes (:data:`BLOCK_CELLS`)."""
    return max(1, BLOCK_CELLS // max(n + m, 1))


def numeric_block(pairs: list[ColumnPair], method: str, config) -> dict[str, dict[str, Any]]:
    """The one-column ``_numeric`` results of :mod:`~faultlib.detect.data.drift.batch` for a block of whole numeric
    columns of one length (each side); the columns whose quantile cut points tie are left out (the caller tests
    them one at a time).

    Args:
        pairs: numeric columns, every row present (:func:`whole`), all with the same row counts; at most
            :func:`block_columns` of them (the memory is linear in the block).
        method: ``all``, ``ks``, ``psi`` or ``chi2``.
        config: the :class:`~faultlib.detect.data.drift.config.DriftConfig`.

    Returns:
        ``{name: {method, statistic, p_value, psi, psi_noise, kl, details}}``.
    """
    out: dict[str, dict[str, Any]] = {}
    if not pairs:
        return out
    n, m = pairs[0].reference.size, pairs[0].current.size
    bins = stats.bins_for(n, m, config.bins)
    quantiles = np.linspace(0.0, 1.0, bins + 1)[1:-1]
    ref = np.stack([p.reference for p in pairs], axis=1)
    cur = np.stack([p.current for p in pairs], axis=1)
    edges = np.quantile(ref, quantiles, axis=0, method="linear")   # (bins - 1, k)
    distinct = (np.diff(edges, axis=0) > 0).all(axis=0) if len(edges) > 1 else np.ones(len(pairs), dtype=bool)
    if not distinct.any():
        return out
    ref, cur, edges = ref[:, distinct], cur[:, distinct], edges[:, distinct]
    chosen = [p for p, keep in zip(pairs, distinct) if keep]
    width, k = len(edges) + 1, len(chosen)
    counts = []
    for sample in (ref, cur):
        index = np.zeros(sample.shape, dtype=np.int64)
        for cut in edges:
            index += sample >= cut
        index += np.arange(k) * width
        counts.append(np.bincount(index.ravel(), minlength=k * width).reshape(k, width))
    psi, psi_p, noise, kl = _divergences(counts[0], counts[1], config.alpha)
    if method in ("all", "ks"):
        statistic, p = _ks(ref, cur)
    elif method == "psi":
        statistic, p = psi, psi_p
    else:
        tests = [stats.chi2_homogeneity(counts[0][j], counts[1][j]) for j in range(k)]
        statistic, p = np.array([t[0] for t in tests]), np.array([t[1] for t in tests])
    ref_mean, cur_mean = ref.mean(axis=0), cur.mean(axis=0)
    ref_std, cur_std = ref.std(axis=0, ddof=1), cur.std(axis=0, ddof=1)
    test = "ks" if method in ("all", "ks") else method
    for j, pair in enumerate(chosen):
        rm, cm, rs, cs = float(ref_mean[j]), float(cur_mean[j]), float(ref_std[j]), float(cur_std[j])
        details = {"bins": width, "reference_mean": rm, "current_mean": cm, "reference_std": rs,
                   "current_std": cs, "mean_z": stats.mean_z(rm, rs ** 2, n, cm, cs ** 2, m)}
        out[pair.name] = {"method": test, "statistic": float(statistic[j]), "p_value": float(p[j]),
                          "psi": float(psi[j]), "psi_noise": float(noise[j]), "kl": float(kl[j]),
                          "details": details}
    return out


def test_columns(pairs: list[ColumnPair], method: str, config, deadline: float,
                 progress: Callable[[int, int], None] | None,
                 one: Callable[[ColumnPair, str, Any], dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The per-column tests of ``pairs`` in their order, until ``deadline`` (``time.monotonic()``): whole numeric
    columns a block at a time (:func:`numeric_block`), the rest one at a time by ``one(pair, method, config)``.

    Returns:
        ``({name: raw result}, [names not tested before the deadline])``, the results in ``pairs``' order.
    """
    done: dict[str, dict[str, Any]] = {}
    blocks: dict[tuple[int, int], list[ColumnPair]] = {}
    single: list[ColumnPair] = []
    for pair in pairs:
        if pair.type == NUMERIC and len(pair.reference) >= 2 and len(pair.current) >= 2 and whole(pair):
            blocks.setdefault((pair.reference.size, pair.current.size), []).append(pair)
        else:
            single.append(pair)
    work: list[list[ColumnPair]] = []
    for (n, m), group in blocks.items():
        step = block_columns(n, m)
        work += [group[i:i + step] for i in range(0, len(group), step)]
    work += [[pair] for pair in single]
    for chunk in work:
        if time.monotonic() >= deadline:
            break
        if len(chunk) > 1 or chunk[0] not in single:
            done.update(numeric_block(chunk, method, config))
        for pair in chunk:   # a single column, or one whose tied cut points the block left out
            if pair.name in done:
                continue
            done[pair.name] = one(pair, method, config)
        if progress is not None:
            progress(len(done), len(pairs))
    ordered = {pair.name: done[pair.name] for pair in pairs if pair.name in done}
    return ordered, [pair.name for pair in pairs if pair.name not in done]


def incomplete(detector: str, total: int, untested: list[str], mmd_skipped: bool, config) -> "Finding":
    """The ``analysis_incomplete`` warning of a comparison the time budget (``config.budget_s``) cut short."""
    from faultlib.findings import analysis_incomplete

    parts = []
    if untested:
        shown = ", ".join(repr(name) for name in untested[:5]) + (f" and {len(untested) - 5:,} more"
                                                                   if len(untested) > 5 else "")
        parts.append(f"{len(untested):,} of {total:,} column(s) were not tested ({shown})")
    if mmd_skipped:
        parts.append("the multivariate MMD test did not run")
    return analysis_incomplete(detector, f"the time budget of {config.budget_s:g} s ran out: " + "; ".join(parts)
                               + ": raise it (--budget or budget_s), or name fewer columns with --columns",
                               {"column_name": untested[0]} if untested else {})

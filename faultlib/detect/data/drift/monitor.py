"""A streaming drift monitor for serving code: bounded memory, no raw samples kept.

:class:`DriftMonitor` profiles the reference once (per numeric column: reference-decile cut points,
counts and moments; per categorical column: its categories, with one extra cell for unseen ones),
then keeps only a sliding window of *summaries* of the served rows: a ring of blocks, each holding
per-column bin counts, row counts and running sums of ``x - mean_ref`` and its square. Memory is
``(window / block) * columns * (bins + 3)`` numbers whatever the traffic (:attr:`state_size`),
and an update costs O(rows * columns * log bins).

:meth:`DriftMonitor.check` tests the window against the reference with the tests that work on
counts: Pearson's chi-squared on the bins (or categories) with PSI as the effect size, the
Benjamini-Hochberg correction across columns, and the graded response of
:class:`~faultlib.detect.data.drift.config.DriftConfig`; KS and MMD need the raw samples, so they belong to
the batch detector (:func:`~faultlib.detect.data.drift.batch.detect_drift`). The window's moments give each
numeric column's mean shift (Welch z) and spread ratio, and let a service recalibrate
(:meth:`DriftMonitor.window_moments`).

Call order: construct with the reference, :meth:`~DriftMonitor.update` with each served batch, and
:meth:`~DriftMonitor.check` whenever a verdict is wanted (it raises until the window holds
``min_rows``). ``alpha`` applies per check: a monitor checked after every batch runs many
correlated tests, so keep the window at least a few hundred rows, and read a lone ``record`` as noise.
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

import numpy as np

from faultlib.detect.data.drift import stats
from faultlib.detect.data.drift.batch import findings
from faultlib.detect.data.drift.report import ColumnDrift, DriftReport
from faultlib.detect.data.drift.config import DriftConfig
from faultlib.detect.data.drift.tables import CATEGORICAL, NUMERIC, align_tables
from faultlib.errors import DetectorError


class _Block:
    """Summaries of up to ``block`` consecutive rows: counts per cell, and per numeric column n, sum, sum of squares."""

    __slots__ = ("rows", "counts", "sums", "squares")

    def __init__(self, columns: int, cells: int):
        self.rows = 0
        self.counts = np.zeros((columns, cells), dtype=np.int64)
        self.sums = np.zeros(columns)      # of x - reference mean (numeric columns; 0 elsewhere)
        self.squares = np.zeros(columns)


class DriftMonitor:
    """Sliding-window covariate-shift monitor over a stream of feature batches.

    Args:
        reference: the reference table (a DataFrame, or a 2-D array with ``columns`` naming its
            columns), e.g. the data the model was validated on.
        columns: column names; required for an array reference, a subset for a DataFrame.
        categorical: columns to treat as categorical although numeric.
        window: rows the window covers (default 1000); the window holds between ``window - block``
            and ``window`` of the most recent rows.
        block: rows per summary block (default ``window // 10``).
        min_rows: rows the window needs before :meth:`check` answers (default ``window // 2``).
        config: thresholds; default :class:`DriftConfig()` (alpha 0.05, PSI 0.1 / 0.25, 10 bins).

    Raises:
        DetectorError: bad sizes, an array reference without ``columns``.
        InputError: the reference holds missing values or mixed types.
    """

    name = "drift_monitor"

    def __init__(self, reference, *, columns: Sequence[str] | None = None, categorical: Sequence[str] = (),
                 window: int = 1000, block: int | None = None, min_rows: int | None = None,
                 config: DriftConfig | None = None):
        import pandas as pd

        self.config = config or DriftConfig()
        if not isinstance(reference, pd.DataFrame):
            array = np.asarray(reference)
            if array.ndim != 2 or columns is None or len(columns) != array.shape[1]:
                raise DetectorError("an array reference must be 2-D with one name per column in `columns`")
            reference = pd.DataFrame(array, columns=list(columns))
        self.block = int(block or max(1, window // 10))
        if window < 2 or not 1 <= self.block <= window:
            raise DetectorError(f"need window >= 2 and 1 <= block <= window, got window={window}, block={block}")
        self.window = int(window)
        self.min_rows = int(min_rows if min_rows is not None else max(2, window // 2))
        pairs = align_tables(reference, reference, columns=columns, categorical=categorical,
                             reference_source="reference", current_source="reference")
        self.columns = [p.name for p in pairs]
        self.types = [p.type for p in pairs]
        self.n_reference = len(pairs[0].reference)
        bins = stats.bins_for(self.n_reference, self.min_rows, self.config.bins)
        self._edges: list[np.ndarray | None] = []
        self._vocab: list[dict[str, int] | None] = []
        ref_counts, self._mean, self._var = [], np.zeros(len(pairs)), np.zeros(len(pairs))
        for i, p in enumerate(pairs):
            if p.type == NUMERIC:
                edges = stats.quantile_edges(p.reference, bins)
                self._edges.append(edges)
                self._vocab.append(None)
                ref_counts.append(stats.bin_counts(p.reference, edges))
                self._mean[i], self._var[i] = p.reference.mean(), p.reference.var(ddof=1)
            else:
                cats, counts = np.unique(p.reference, return_counts=True)
                self._edges.append(None)
                self._vocab.append({str(c): j for j, c in enumerate(cats)})
                ref_counts.append(np.append(counts, 0))  # last cell: categories the reference never had
        self.cells = max(len(c) for c in ref_counts)
        self._reference = np.zeros((len(pairs), self.cells), dtype=np.int64)
        for i, counts in enumerate(ref_counts):
            self._reference[i, :len(counts)] = counts
        self._cell_count = [len(c) for c in ref_counts]
        self._blocks: deque[_Block] = deque(maxlen=self.window // self.block)
        self._blocks.append(_Block(len(pairs), self.cells))
        self.rows_seen = 0

    @property
    def state_size(self) -> int:
        """Numbers the monitor holds (reference profile + window ring); constant once the ring is full,
        never a function of the rows seen."""
        ring = self._blocks.maxlen * (self._reference.size + 2 * len(self.columns) + 1)
        profile = self._reference.size + 2 * len(self.columns) + sum(len(e) for e in self._edges if e is not None)
        return ring + profile + sum(len(v) for v in self._vocab if v is not None)

    @property
    def window_rows(self) -> int:
        """Rows the window summarises now."""
        return int(sum(b.rows for b in self._blocks))

    def _cells(self, i: int, values: np.ndarray) -> np.ndarray:
        if self.types[i] == NUMERIC:
            return np.searchsorted(self._edges[i], values.astype(np.float64), side="right")
        vocab, unseen = self._vocab[i], self._cell_count[i] - 1
        return np.fromiter((vocab.get(str(v), unseen) for v in values), dtype=np.int64, count=len(values))

    def update(self, batch) -> None:
        """Add served rows to the window.

        Args:
            batch: shape ``(rows, columns)`` in :attr:`columns` order (array, tensor via ``.numpy()``,
                or a DataFrame with those columns). Numeric cells must be finite.

        Raises:
            DetectorError: wrong width or missing columns, or a NaN/inf in a numeric column (serving
                code should count and drop those before the monitor; they are not a distribution).
        """
        rows = self._as_columns(batch)
        n = len(rows[0]) if rows else 0
        start = 0
        while start < n:
            current = self._blocks[-1]
            if current.rows == self.block:
                current = _Block(len(self.columns), self.cells)
                self._blocks.append(current)  # the deque drops the oldest block
            take = min(self.block - current.rows, n - start)
            for i, values in enumerate(rows):
                part = values[start:start + take]
                current.counts[i] += np.bincount(self._cells(i, part), minlength=self.cells)[: self.cells]
                if self.types[i] == NUMERIC:
                    centred = part.astype(np.float64) - self._mean[i]
                    current.sums[i] += centred.sum()
                    current.squares[i] += np.dot(centred, centred)
            current.rows += take
            start += take
        self.rows_seen += n

    def _as_columns(self, batch) -> list[np.ndarray]:
        if hasattr(batch, "columns") and hasattr(batch, "loc"):
            missing = [c for c in self.columns if c not in batch.columns]
            if missing:
                raise DetectorError(f"batch has no column {', '.join(map(repr, missing))}")
            rows = [batch[c].to_numpy() for c in self.columns]
        else:
            array = np.asarray(batch.detach().cpu().numpy() if hasattr(batch, "detach") else batch)
            if array.ndim != 2 or array.shape[1] != len(self.columns):
                raise DetectorError(f"batch of shape {array.shape}: expected (rows, {len(self.columns)}) in the order "
                                    f"{self.columns[:5]}{'...' if len(self.columns) > 5 else ''}")
            rows = [array[:, i] for i in range(array.shape[1])]
        for i, values in enumerate(rows):
            if self.types[i] == NUMERIC and not np.isfinite(values.astype(np.float64)).all():
                raise DetectorError(f"column {self.columns[i]!r} of the batch holds NaN or inf: count and drop those "
                                    "rows before the monitor")
        return rows

    def window_moments(self) -> dict[str, tuple[float, float]]:
        """``{numeric column: (mean, standard deviation)}`` of the window, from the running sums."""
        n = self.window_rows
        if n < 2:
            raise DetectorError(f"the window holds {n} row(s): update() with served rows first")
        sums = sum(b.sums for b in self._blocks)
        squares = sum(b.squares for b in self._blocks)
        out = {}
        for i, name in enumerate(self.columns):
            if self.types[i] == NUMERIC:
                shift = sums[i] / n
                var = max((squares[i] - n * shift * shift) / (n - 1), 0.0)
                out[name] = (float(self._mean[i] + shift), float(np.sqrt(var)))
        return out

    def check(self) -> DriftReport:
        """Test the window against the reference.

        Returns:
            A :class:`~faultlib.detect.data.drift.report.DriftReport` (method ``chi2``, no multivariate part):
            per column the chi-squared statistic and p-value, PSI, BH-adjusted p-value, drifted flag and
            response; findings ``column_drift`` (and ``new_category`` for unseen categories).

        Raises:
            DetectorError: the window holds fewer than ``min_rows`` rows (call :meth:`update` first).
        """
        n = self.window_rows
        if n < self.min_rows:
            raise DetectorError(f"the window holds {n} row(s), fewer than min_rows={self.min_rows}: update() with "
                                "more served rows before check()")
        counts = sum(b.counts for b in self._blocks)
        moments = self.window_moments()
        raw = []
        for i, name in enumerate(self.columns):
            k = self._cell_count[i]
            ref, cur = self._reference[i, :k], counts[i, :k]
            if self.types[i] == CATEGORICAL:
                ref, cur = stats.pool_sparse(ref, cur)
            statistic, p, _ = stats.chi2_homogeneity(ref, cur)
            psi, _ = stats.psi(ref, cur)
            details = {"cells": int(len(ref)), "window_rows": n}
            if self.types[i] == NUMERIC:
                mean, std = moments[name]
                ref_std = float(np.sqrt(self._var[i]))
                details.update(reference_mean=float(self._mean[i]), current_mean=mean, reference_std=ref_std,
                               current_std=std, mean_z=stats.mean_z(float(self._mean[i]), self._var[i],
                                                                     self.n_reference, mean, std * std, n))
            else:
                unseen = int(counts[i, k - 1])
                details.update(unseen_share=unseen / n, unseen_categories=[])  # names are not kept
            raw.append((name, self.types[i], statistic, p, psi, stats.psi_noise(ref, cur, self.config.alpha), stats.kl(ref, cur),
                        details))
        adjusted = stats.benjamini_hochberg([r[3] for r in raw])
        columns = {}
        for (name, kind, statistic, p, psi, noise, kl, details), p_adj in zip(raw, adjusted):
            drifted = p_adj <= self.config.alpha
            columns[name] = ColumnDrift(name, kind, "chi2", statistic, p, p_adj, psi, noise, kl, drifted,
                                        self.config.response(psi - noise, drifted), details)
        return DriftReport(columns=columns, multivariate=None, method="chi2", config=self.config,
                           n_reference=self.n_reference, n_current=n,
                           findings=findings(columns, None, self.config, detector=self.name))

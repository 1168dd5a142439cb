"""What one drift comparison says: each column's verdict, the multivariate (MMD) verdict, and the report that
holds both with its findings and the JSON fields of ``faultlib check drift`` (DESIGN.md's check output).
Built by :func:`faultlib.detect.data.drift.batch.compare` and the streaming monitor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faultlib.detect.data.drift.config import DriftConfig, Response
from faultlib.detect.data.drift.mmd import MMDResult
from faultlib.findings import Finding


@dataclass(frozen=True)
class ColumnDrift:
    """The verdict on one column.

    Attributes:
        name: the column.
        type: ``numeric`` or ``categorical``.
        method: the test used: ``ks``, ``chi2`` or ``psi``.
        statistic: the test's statistic (KS: D in [0, 1]; chi2: Pearson's X^2; psi: PSI); larger = more shift.
        p_value: the test's raw p-value.
        p_adjusted: Benjamini-Hochberg adjusted p-value across the comparison's family.
        psi: population stability index (effect size; 0.1 / 0.25 rule-of-thumb cut points).
        psi_noise: the PSI that chance stays below with probability ``1 - alpha`` at these sample sizes
            (:func:`~faultlib.detect.data.drift.stats.psi_noise`); the response grades ``psi - psi_noise``.
        kl: KL divergence of the current from the reference distribution (nats, same bins).
        drifted: ``p_adjusted <= alpha``.
        response: the graded response (``none`` unless drifted): the stronger of the values' and the
            missing share's.
        details: means, spreads and bins (numeric), category shares and unseen categories (categorical).
        missing: the missing-share test (``missing: {reference_share, current_share, p_value, p_adjusted,
            drifted, psi, response, tested, reference_rows, current_rows, reference, current}``, the last two
            ``{null, posinf, neginf}`` counts), or ``None`` (a monitor's column).
        values_drifted: the values' own test is significant (``drifted`` also counts the missing share).
    """

    name: str
    type: str
    method: str
    statistic: float
    p_value: float
    p_adjusted: float
    psi: float
    psi_noise: float
    kl: float
    drifted: bool
    response: Response
    details: dict[str, Any] = field(default_factory=dict)
    missing: dict[str, Any] | None = None
    values_drifted: bool | None = None

    def __post_init__(self) -> None:
        if self.values_drifted is None:
            object.__setattr__(self, "values_drifted", self.drifted)

    def to_json(self) -> dict[str, Any]:
        out = {"method": self.method, "statistic": self.statistic, "p_value": self.p_value, "drifted": self.drifted,
               "p_adjusted": self.p_adjusted, "psi": self.psi, "psi_noise": self.psi_noise, "kl": self.kl,
               "response": self.response.value, "type": self.type, "values_drifted": self.values_drifted,
               **self.details}
        if self.missing is not None:
            out["missing"] = self.missing
        return out


@dataclass(frozen=True)
class Multivariate:
    """The MMD verdict on the numeric columns jointly (see :class:`~faultlib.detect.data.drift.mmd.MMDResult`)."""

    result: MMDResult
    columns: list[str]
    p_adjusted: float
    drifted: bool

    def to_json(self) -> dict[str, Any]:
        return {"method": "mmd", **self.result.to_json(), "p_adjusted": self.p_adjusted, "drifted": self.drifted,
                "columns": list(self.columns)}


@dataclass(frozen=True)
class DriftReport:
    """Everything one comparison found.

    Attributes:
        columns: ``{name: ColumnDrift}`` for the per-column tests (empty for ``method="mmd"``).
        multivariate: the MMD verdict, or ``None`` (method without MMD, or no numeric column).
        method: the method asked for.
        config: the thresholds used.
        n_reference: reference rows.
        n_current: current rows.
        findings: ``column_drift``, ``multivariate_drift`` and ``new_category`` findings.
        correction: ``benjamini_hochberg``, or ``benjamini_hochberg+bonferroni2`` for ``all`` (see the
            module docstring).
        untested: columns the time budget left untested (``config.budget_s``), in table order.
        complete: False when the budget ran out before every column (or MMD) was tested.
        skipped: row-key columns (an integer id distinct in every row) left out of the tests by
            :func:`detect_drift` when no column was named.
    """

    columns: dict[str, ColumnDrift]
    multivariate: Multivariate | None
    method: str
    config: DriftConfig
    n_reference: int
    n_current: int
    findings: list[Finding]
    correction: str = "benjamini_hochberg"
    untested: list[str] = field(default_factory=list)
    complete: bool = True
    skipped: list[str] = field(default_factory=list)

    @property
    def drifted(self) -> list[str]:
        """Names of the drifted columns, most shifted (PSI) first."""
        return [c.name for c in sorted(self.columns.values(), key=lambda c: -c.psi) if c.drifted]

    @property
    def response(self) -> Response:
        """The strongest response over columns (a drifted MMD counts as an alert)."""
        levels = [c.response for c in self.columns.values()]
        if self.multivariate is not None and self.multivariate.drifted:
            levels.append(Response.ALERT)
        return max(levels, key=lambda r: r.rank, default=Response.NONE)

    def to_json(self) -> dict[str, Any]:
        """The check's JSON fields: ``columns``, ``drifted``, ``response``, ``multivariate``, ``method``,
        ``correction``, ``thresholds``, ``n_reference``, ``n_current``."""
        return {"columns": {name: c.to_json() for name, c in self.columns.items()}, "drifted": self.drifted,
                "response": self.response.value,
                "multivariate": self.multivariate.to_json() if self.multivariate else None, "method": self.method,
                "correction": self.correction, "thresholds": self.config.to_json(),
                "n_reference": self.n_reference, "n_current": self.n_current, "complete": self.complete,
                "untested": list(self.untested), "skipped": list(self.skipped)}

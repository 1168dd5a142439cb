"""Thresholds of the drift detectors and the graded response they map to.

The response to a drifted column is graded by its population stability index (PSI), the effect
size credit-risk teams have used for decades, with the rule of thumb's two cut points:

=========  ===============================  ===============================================
response   when                             what to do
=========  ===============================  ===============================================
none       not significant                  nothing
record     significant, excess PSI < 0.1    log it: "little change" by the rule of thumb
alert      significant, excess PSI >= 0.1   page someone: a moderate shift, investigate
freeze     significant, excess PSI >= 0.25  freeze the model and retrain it: a major shift
=========  ===============================  ===============================================

"Excess PSI" is the PSI minus what two samples of one distribution stay below with probability
``1 - alpha`` at these sizes, ``(1/n + 1/m) * chi2.isf(alpha, bins - 1)``
(:func:`~faultlib.detect.data.drift.stats.psi_noise`): the rule of thumb was written for portfolios of
thousands, where the correction is negligible (0.017 at 2,000 rows per sample), while at 100 rows
per sample chance alone reaches 0.34.

Sources of the defaults: the PSI cut points are the industry rule of thumb (PSI < 0.10 "little
change", 0.10-0.25 "moderate change", > 0.25 "significant change, action required") as stated and
analysed by B. Yurdakul and J. Naranjo, "Statistical properties of the population stability index",
*Journal of Risk Model Validation* (2020), and in Yurdakul's thesis of the same title (Western
Michigan University, 2018); practitioners usually trace it to N. Siddiqi, *Credit Risk Scorecards*
(Wiley, 2006). Yurdakul and Naranjo also give the null distribution this module uses:
``PSI / (1/n + 1/m)`` is approximately chi-squared with ``bins - 1`` degrees of freedom. The cut
points carry no error rate of their own, which is why a column must also be significant.
``alpha = 0.05`` is the conventional significance level; with the Benjamini-Hochberg correction
across columns it bounds the chance of *any* drift finding when
nothing drifted (see :mod:`faultlib.detect.data.drift.stats`). Ten bins are the deciles the PSI literature
uses. Significance and effect size are both required: at a million rows a test finds a shift of
no consequence, and at fifty rows the PSI of two samples of one distribution is ~0.2 by noise alone.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping

from faultlib.errors import DetectorError, InputError
from faultlib.findings import Severity

METHODS = ("psi", "ks", "chi2", "mmd", "all")


class Response(str, enum.Enum):
    """What to do about drift, ordered: ``Response.FREEZE > Response.ALERT``."""

    NONE = "none"
    RECORD = "record"
    ALERT = "alert"
    FREEZE = "freeze"

    @property
    def rank(self) -> int:
        return list(Response).index(self)

    @property
    def severity(self) -> Severity | None:
        """The severity of a finding with this response (``None`` for ``none``)."""
        return {Response.RECORD: Severity.INFO, Response.ALERT: Severity.WARNING,
                Response.FREEZE: Severity.ERROR}.get(self)

    def __gt__(self, other: "Response") -> bool:  # type: ignore[override]
        return self.rank > Response(other).rank

    def __ge__(self, other: "Response") -> bool:  # type: ignore[override]
        return self.rank >= Response(other).rank

    def __lt__(self, other: "Response") -> bool:  # type: ignore[override]
        return self.rank < Response(other).rank

    def __le__(self, other: "Response") -> bool:  # type: ignore[override]
        return self.rank <= Response(other).rank


@dataclass(frozen=True)
class DriftConfig:
    """Every threshold and size the drift detectors use; all have sourced defaults.

    Attributes:
        alpha: significance level after the Benjamini-Hochberg correction, default 0.05.
        alert_psi: PSI at or above which a significant column raises an alert, default 0.1
            (Siddiqi's "some change, investigate").
        freeze_psi: PSI at or above which a significant column means freeze-and-retrain,
            default 0.25 (Siddiqi's "significant shift, rebuild").
        bins: most reference-quantile bins of a numeric column (PSI, chi-squared, monitor),
            default 10 (deciles); fewer when a sample is small, so each bin expects >= 5 rows.
        permutations: permutations of the MMD test, default 500 (p-value resolution 1/501).
        mmd_features: random Fourier frequency pairs of the MMD test above ``mmd_exact_max`` rows,
            default 512 (1024 features): the power of the exact test in ``benchmarks/drift_mmd.py``.
        mmd_exact_max: largest pooled row count for which MMD uses the exact kernel matrix, default 2048.
        mmd_permutation_max: largest pooled row count for which MMD runs permutations, default 20,000;
            above it the random-feature statistic takes its asymptotic null, in bounded memory
            (:mod:`~faultlib.detect.data.drift.mmd`).
        mmd_max_rows: most rows per table the MMD test reads, default 100,000: above it, a uniform random
            sample (seeded by ``seed``) of that many rows; the per-column tests always read every row. At
            100,000 rows per table of 10 columns MMD rejects a 0.02 sd mean shift of one column in 9 of 10
            data sets and a correlation of 0.05 between two columns (marginals unchanged) in 5 of 10
            (``benchmarks/drift_scale.py --power 10``, 2026-12-03); its time and memory stay flat as tables grow.
        seed: seed of the MMD permutations and random features, default 0.
        budget_s: seconds the batch detector's tests may take, from the start of the analysis (reading the tables
            included, where the caller says when it began), default 300: the columns not reached by then are
            left untested and the report is incomplete (``complete: false``, an ``analysis_incomplete`` warning),
            never a silent hang. 2,000 rows x 10,000 numeric columns: about 25 s of CPU, reading included.
    """

    alpha: float = 0.05
    alert_psi: float = 0.1
    freeze_psi: float = 0.25
    bins: int = 10
    permutations: int = 500
    mmd_features: int = 512
    mmd_exact_max: int = 2048
    mmd_permutation_max: int = 20_000
    mmd_max_rows: int = 100_000
    seed: int = 0
    budget_s: float = 300.0

    def __post_init__(self) -> None:
        problems = []
        if not (isinstance(self.alpha, (int, float)) and 0 < self.alpha < 1):
            problems.append(f"alpha must be in (0, 1), got {self.alpha!r}")
        for name in ("alert_psi", "freeze_psi"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                    and value >= 0):
                problems.append(f"{name} must be a finite number >= 0, got {value!r}")
        if not (isinstance(self.budget_s, (int, float)) and not isinstance(self.budget_s, bool)
                and math.isfinite(self.budget_s) and self.budget_s > 0):
            problems.append(f"budget_s must be a finite number of seconds > 0, got {self.budget_s!r}")
        if not problems and self.alert_psi > self.freeze_psi:
            problems.append(f"alert_psi ({self.alert_psi}) must not exceed freeze_psi ({self.freeze_psi})")
        # upper bounds where the work or memory grows with the value (an N x P permutation matrix, N x D features):
        # 10^11 permutations was a 291 TiB allocation traceback; 100,000 resolve p-values to 1e-5
        for name, low, high in (("bins", 2, None), ("permutations", 19, 100_000), ("mmd_features", 1, 65_536),
                                ("mmd_exact_max", 0, None), ("mmd_permutation_max", 0, None), ("mmd_max_rows", 2, None),
                                ("seed", 0, None)):
            value = getattr(self, name)
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= low):
                problems.append(f"{name} must be an integer >= {low}, got {value!r}")
            elif high is not None and value > high:
                problems.append(f"{name} must be at most {high:,}, got {value:,}")
        if problems:
            raise DetectorError("; ".join(problems))

    def response(self, psi: float, drifted: bool) -> Response:
        """The graded response to one column from its (excess) PSI and its significance (module docstring)."""
        if not drifted:
            return Response.NONE
        if psi >= self.freeze_psi:
            return Response.FREEZE
        if psi >= self.alert_psi:
            return Response.ALERT
        return Response.RECORD

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def updated(self, values: Mapping[str, Any], *, path: Path | str | None = None, prefix: str = "") -> "DriftConfig":
        """A copy with ``values`` applied; unknown keys and bad values are refused.

        Args:
            values: ``{field: value}``, e.g. a case.yaml's ``repro.params.drift`` mapping.
            path: the file the values come from (for error messages).
            prefix: the dotted key of ``values`` in that file (for error messages).

        Raises:
            InputError: an unknown key (the message lists the known ones) or an invalid value,
                naming ``path`` and the key.
        """
        known = {f.name for f in fields(self)}
        where = f"{prefix}." if prefix else ""
        for key in values:
            if key not in known:
                raise InputError(f"unknown drift setting {key!r}; known: {', '.join(sorted(known))}",
                                 path=path, field=f"{where}{key}")
        try:
            return replace(self, **dict(values))
        except DetectorError as exc:
            raise InputError(str(exc), path=path, field=prefix or None) from None

"""Covariate shift between two tables: per-column tests that fit each column's type, the multivariate
MMD test, multiple-testing control across all of them, and the graded response.

Methods (``method=``):

- ``all`` (default): numeric columns by the Kolmogorov-Smirnov test, categorical columns by Pearson's
  chi-squared test on their frequencies, PSI on every column as the effect size, and MMD on the
  numeric columns jointly (it also catches a change in how columns move together);
- ``psi``: PSI on every column, tested by its chi-squared approximation (numeric: reference deciles;
  categorical: frequencies);
- ``ks``: KS on numeric columns; categorical columns fall back to chi-squared (each column's
  ``method`` says which test it got);
- ``chi2``: chi-squared on every column (numeric columns in reference-quantile bins);
- ``mmd``: only the multivariate MMD test on the numeric columns.

The per-column p-values of one comparison form one family, corrected by Benjamini-Hochberg
(:mod:`~faultlib.detect.data.drift.stats` says why BH). With ``all``, the MMD test is a second family and
the two share ``alpha`` by Bonferroni (every adjusted p-value doubled: ``benjamini_hochberg+bonferroni2``);
inside one BH family the permutation p-value's floor ``1/(P+1)`` could never clear ``alpha / k``
with many columns, so MMD gets its own half. A column (or MMD) is ``drifted`` when its adjusted
p-value is ``<= alpha``; either way the chance of any drift finding when nothing changed stays
``<= alpha``. A drifted column's response (record / alert / freeze) follows its PSI
(:mod:`~faultlib.detect.data.drift.config`); a significant MMD alone is an alert. Findings (``kind``):
``column_drift`` (severity info / warning / error for record / alert / freeze), ``multivariate_drift``
(warning), ``new_category`` (info: categories the reference never had), ``missing_share_drift``.

Missing values are data: each column's missing share (empty/None/NaN, +-inf counted apart) is a test
of its own (:func:`missing_share`) in the same BH family as the value tests, reported as the column's
``missing`` entry; a column is ``drifted`` when its values or its missing share drifted, and a column
that became all-missing is a freeze. The value tests run on the present values, MMD on the rows where
every numeric column is present.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from faultlib.detect.data.drift import columnwise, stats
from faultlib.detect.data.drift.config import METHODS, DriftConfig, Response
from faultlib.detect.data.drift.mmd import MMDResult, mmd_test
from faultlib.detect.data.drift.report import ColumnDrift, DriftReport, Multivariate
from faultlib.detect.data.drift.tables import CATEGORICAL, NUMERIC, ColumnPair, align_tables, row_key
from faultlib.errors import DetectorError
from faultlib.findings import Finding, Severity

if TYPE_CHECKING:
    import pandas

DETECTOR = "drift"
CORRECTIONS = {1: "benjamini_hochberg", 2: "benjamini_hochberg+bonferroni2"}
ACTIONS = {Response.RECORD: "record it (no action: below the alert PSI)",
           Response.ALERT: "alert: investigate the shift",
           Response.FREEZE: "freeze the model and retrain it on current data"}


def _numeric(pair: ColumnPair, method: str, config: DriftConfig) -> dict[str, Any]:
    ref, cur = pair.reference, pair.current
    edges = stats.quantile_edges(ref, stats.bins_for(len(ref), len(cur), config.bins))
    ref_counts, cur_counts = stats.bin_counts(ref, edges), stats.bin_counts(cur, edges)
    psi, psi_p = stats.psi(ref_counts, cur_counts)
    if method == "psi":
        test, statistic, p = "psi", psi, psi_p
    elif method == "chi2":
        statistic, p, _ = stats.chi2_homogeneity(ref_counts, cur_counts)
        test = "chi2"
    else:
        statistic, p = stats.ks(ref, cur)
        test = "ks"
    ref_std, cur_std = float(ref.std(ddof=1)), float(cur.std(ddof=1))
    details = {"bins": len(edges) + 1, "reference_mean": float(ref.mean()), "current_mean": float(cur.mean()),
               "reference_std": ref_std, "current_std": cur_std,
               "mean_z": stats.mean_z(float(ref.mean()), ref_std ** 2, len(ref), float(cur.mean()), cur_std ** 2,
                                      len(cur))}
    return {"method": test, "statistic": statistic, "p_value": p, "psi": psi,
            "psi_noise": stats.psi_noise(ref_counts, cur_counts, config.alpha), "kl": stats.kl(ref_counts, cur_counts),
            "details": details}


def _categorical(pair: ColumnPair, method: str, config: DriftConfig) -> dict[str, Any]:
    ref_cats, ref_counts = np.unique(pair.reference, return_counts=True)
    cur_cats, cur_counts = np.unique(pair.current, return_counts=True)
    cats = sorted(set(ref_cats) | set(cur_cats))
    ref_map, cur_map = dict(zip(ref_cats, ref_counts)), dict(zip(cur_cats, cur_counts))
    ref_all = np.array([ref_map.get(c, 0) for c in cats], dtype=np.int64)
    cur_all = np.array([cur_map.get(c, 0) for c in cats], dtype=np.int64)
    ref_cells, cur_cells = stats.pool_sparse(ref_all, cur_all)
    psi, psi_p = stats.psi(ref_cells, cur_cells)
    if method == "psi":
        test, statistic, p = "psi", psi, psi_p
    else:
        statistic, p, _ = stats.chi2_homogeneity(ref_all, cur_all)
        test = "chi2"
    n, m = len(pair.reference), len(pair.current)
    shares = sorted(((cats[i], ref_all[i] / n, cur_all[i] / m) for i in range(len(cats))),
                    key=lambda t: -abs(t[2] - t[1]))
    unseen = [c for c in cats if c not in ref_map]
    details = {"categories": len(ref_cats), "cells": len(ref_cells),
               "largest_changes": [{"category": c, "reference_share": float(r), "current_share": float(s)}
                                   for c, r, s in shares[:3]],
               "unseen_categories": unseen[:20], "unseen_share": float(sum(cur_map[c] for c in unseen) / m)}
    return {"method": test, "statistic": statistic, "p_value": p, "psi": psi,
            "psi_noise": stats.psi_noise(ref_cells, cur_cells, config.alpha), "kl": stats.kl(ref_cells, cur_cells),
            "details": details}


def _one_column(pair: ColumnPair, method: str, config: DriftConfig) -> dict[str, Any]:
    if len(pair.reference) < 2 or len(pair.current) < 2:
        return _no_values(pair)
    return (_numeric if pair.type == NUMERIC else _categorical)(pair, method, config)


def _no_values(pair: ColumnPair) -> dict[str, Any]:
    """The values' entry of a column with fewer than 2 values on a side: nothing to compare (its missing share
    says what happened)."""
    side = "reference" if len(pair.reference) < 2 else "current"
    return {"method": "none", "statistic": 0.0, "p_value": 1.0, "psi": 0.0, "psi_noise": 0.0, "kl": 0.0,
            "details": {"values_compared": False,
                        "reason": f"the {side} has {len(getattr(pair, side))} usable value(s) of {pair.rows(side)}"}}


def missing_share(pair: ColumnPair, config: DriftConfig) -> dict[str, Any]:
    """The missing share of a column in both tables and the test that it did not change.

    Missing means empty/None/NaN or +-inf (counted apart). The test is Fisher's exact test on the 2 x 2
    table (missing, present) x (reference, current) when an expected count is below 5 (Cochran), else
    Pearson's chi-squared test without continuity correction (scipy.stats); its effect size is the PSI of
    the two-cell distribution, graded like any column's. A column without a missing value on either side
    is not tested (``tested: false``, ``p_value`` 1): its p-value would be 1 by construction.
    """
    from scipy import stats as sps

    n, m = pair.rows("reference"), pair.rows("current")
    a, b = pair.missing("reference"), pair.missing("current")
    out: dict[str, Any] = {"reference_share": a / n, "current_share": b / m, "p_value": 1.0, "p_adjusted": 1.0,
                           "drifted": False, "psi": 0.0, "psi_noise": 0.0, "response": Response.NONE.value,
                           "tested": bool(a or b), "reference_rows": n, "current_rows": m,
                           "reference": dict(pair.reference_missing or {"null": a, "posinf": 0, "neginf": 0}),
                           "current": dict(pair.current_missing or {"null": b, "posinf": 0, "neginf": 0})}
    if not (a or b):
        return out
    table = np.array([[a, n - a], [b, m - b]], dtype=np.float64)
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    if (a + b == n + m) or expected.min() >= stats.MIN_EXPECTED:
        p = 1.0 if a + b == n + m else float(sps.chi2_contingency(table, correction=False)[1])
    else:
        p = float(sps.fisher_exact(table.astype(np.int64))[1])
    ref_cells, cur_cells = np.array([a, n - a]), np.array([b, m - b])
    out.update(p_value=min(1.0, max(p, 0.0)), psi=stats.psi(ref_cells, cur_cells)[0],
               psi_noise=stats.psi_noise(ref_cells, cur_cells, config.alpha))
    return out


def _complete_rows(pairs: list[ColumnPair], side: str, limit: int, rng: np.random.Generator) -> np.ndarray:
    """The numeric columns' values on the rows where every one is present, shape ``(rows, columns)``; at most
    ``limit`` rows, a uniform random sample of them (in file order) above it."""
    rows = pairs[0].rows(side)
    keep = np.ones(rows, dtype=bool)
    for pair in pairs:
        mask = getattr(pair, f"{side}_present")
        if mask is not None:
            keep &= mask
    chosen = np.nonzero(keep)[0]
    if chosen.size > limit:
        chosen = np.sort(rng.choice(chosen, limit, replace=False))
    out = np.empty((chosen.size, len(pairs)))
    for j, pair in enumerate(pairs):
        mask = getattr(pair, f"{side}_present")
        values = getattr(pair, side)
        if mask is None or mask.all():
            out[:, j] = values[chosen]
        else:   # values hold the present rows only: their position among them
            out[:, j] = values[np.cumsum(mask)[chosen] - 1]
    return out


def _mmd(pairs: list[ColumnPair], config: DriftConfig) -> tuple[MMDResult, list[str]] | None:
    numeric = [p for p in pairs if p.type == NUMERIC and len(p.reference) >= 2 and len(p.current) >= 2]
    if not numeric:
        return None
    rng = np.random.default_rng(config.seed)
    ref = _complete_rows(numeric, "reference", config.mmd_max_rows, rng)
    cur = _complete_rows(numeric, "current", config.mmd_max_rows, rng)
    if len(ref) < 2 or len(cur) < 2:
        return None
    mean, std = ref.mean(axis=0), ref.std(axis=0)
    std[std == 0] = 1.0
    for sample in (ref, cur):   # fresh arrays: standardised in place (no second copy of a large table)
        sample -= mean
        sample /= std
    result = mmd_test(ref, cur, permutations=config.permutations,
                      features=config.mmd_features, exact_max=config.mmd_exact_max, seed=config.seed,
                      permutation_max=config.mmd_permutation_max)
    return result, [p.name for p in numeric]


def compare(pairs: list[ColumnPair], *, method: str = "all", config: DriftConfig | None = None,
            started: float | None = None, progress: Callable[[int, int], None] | None = None) -> DriftReport:
    """Test aligned columns (see :func:`~faultlib.detect.data.drift.tables.align_tables`) for drift.

    Args:
        pairs: the columns, each with its reference and current values.
        method: ``all`` (default), ``psi``, ``ks``, ``chi2`` or ``mmd`` (module docstring).
        config: thresholds; default :class:`DriftConfig()`. Its ``budget_s`` bounds the tests from ``started``.
        started: when the analysis began (``time.monotonic()``, e.g. before the tables were read); default now.
        progress: called ``progress(columns_tested, columns)`` after each block or column (a status line).

    Returns:
        A :class:`DriftReport`; ``complete`` is False when the budget ran out (the columns not reached are in
        ``untested`` and a warning finding of kind ``analysis_incomplete`` names them; the multiple-testing family
        is then the columns tested).

    Raises:
        DetectorError: an unknown method, or no column to compare.
    """
    config = config or DriftConfig()
    if method not in METHODS:
        raise DetectorError(f"unknown drift method {method!r}: use one of {', '.join(METHODS)}")
    if not pairs:
        raise DetectorError("no column to compare")
    deadline = (time.monotonic() if started is None else started) + config.budget_s
    raw: dict[str, dict[str, Any]] = {}
    gaps: dict[str, dict[str, Any]] = {}
    untested: list[str] = []
    if method != "mmd":
        raw, untested = columnwise.test_columns(pairs, method, config, deadline, progress, _one_column)
        gaps = {pair.name: missing_share(pair, config) for pair in pairs if pair.name in raw}
    joint, mmd_skipped = None, False
    if method in ("all", "mmd"):
        joint_pairs = [p for p in pairs if p.type == NUMERIC]
        if method == "all" and len(joint_pairs) < 2:   # one numeric column: its own test already is the joint one
            pass
        elif time.monotonic() < deadline:
            joint = _mmd(pairs, config)
        else:
            mmd_skipped = True
    tested = [name for name, g in gaps.items() if g["tested"]]
    adjusted = stats.benjamini_hochberg([r["p_value"] for r in raw.values()] + [gaps[n]["p_value"] for n in tested])
    families = 2 if (joint and raw) else 1  # method all: columns (BH) and MMD, Bonferroni between the two
    adjusted = [min(1.0, families * p) for p in adjusted]
    for name, p_adj in zip(tested, adjusted[len(raw):]):
        gap = gaps[name]
        gap["p_adjusted"] = p_adj
        gap["drifted"] = p_adj <= config.alpha
        gone = gap["current_share"] == 1.0 and gap["reference_share"] < 1.0
        level = Response.FREEZE if gone and gap["drifted"] else config.response(gap["psi"] - gap["psi_noise"],
                                                                                 gap["drifted"])
        gap["response"] = level.value
    columns: dict[str, ColumnDrift] = {}
    types = {pair.name: pair.type for pair in pairs}
    for (name, r), p_adj in zip(raw.items(), adjusted):
        values_drifted = p_adj <= config.alpha
        gap = gaps[name]
        pair_type = types[name]
        response = max(config.response(r["psi"] - r["psi_noise"], values_drifted), Response(gap["response"]),
                       key=lambda level: level.rank)
        columns[name] = ColumnDrift(name=name, type=pair_type, method=r["method"], statistic=float(r["statistic"]),
                                    p_value=r["p_value"], p_adjusted=p_adj, psi=r["psi"], psi_noise=r["psi_noise"],
                                    kl=r["kl"], drifted=values_drifted or gap["drifted"], response=response,
                                    details=r["details"], missing=gap, values_drifted=values_drifted)
    multivariate = None
    if joint:
        p_adj = min(1.0, families * joint[0].p_value)
        multivariate = Multivariate(joint[0], joint[1], p_adj, p_adj <= config.alpha)
    n, m = len(pairs[0].reference), len(pairs[0].current)
    found = findings(columns, multivariate, config)
    if untested or mmd_skipped:
        found.append(columnwise.incomplete(DETECTOR, len(pairs), untested, mmd_skipped, config))
    return DriftReport(columns=columns, multivariate=multivariate, method=method, config=config, n_reference=n,
                       n_current=m, findings=found, correction=CORRECTIONS[families], untested=untested,
                       complete=not (untested or mmd_skipped))


def _missing_finding(col: ColumnDrift, gap: dict[str, Any], config: DriftConfig, detector: str) -> Finding:
    response = Response(gap["response"])
    ref, cur = gap["reference_share"], gap["current_share"]
    counts = ", ".join(f"{v} {k}" for k, v in gap["current"].items() if v) or "none"
    what = ("became all-missing" if cur == 1.0 else f"missing share {'rose' if cur > ref else 'fell'} from {ref:.1%} "
            f"to {cur:.1%}")
    return Finding(detector, response.severity or Severity.INFO, (
        f"column {col.name!r} {what} (current rows without a value: {counts}; p={gap['p_value']:.2g}, "
        f"BH-adjusted {gap['p_adjusted']:.2g} <= {config.alpha}): an upstream feed may have started sending nulls; "
        + ("the values' test had nothing to compare. " if col.method == "none" else "")
        + ACTIONS[response]), {"column_name": col.name}, {"missing": gap, "values_drifted": col.values_drifted},
        kind="missing_share_drift")


def findings(columns: dict[str, ColumnDrift], multivariate: Multivariate | None, config: DriftConfig, *,
             detector: str = DETECTOR) -> list[Finding]:
    """The findings of a comparison: one ``column_drift`` per drifted column (most shifted first), one
    ``multivariate_drift`` when MMD is significant, one ``new_category`` per column with unseen categories;
    ``missing_share_drift`` per column whose missing share changed; each with ``detector`` as its detector name."""
    out = []
    for col in sorted(columns.values(), key=lambda c: -c.psi):
        gap = col.missing or {}
        if gap.get("drifted"):
            out.append(_missing_finding(col, gap, config, detector))
        if col.values_drifted:
            out.append(Finding(detector, col.response.severity, (
                f"column {col.name!r} drifted ({col.method} p={col.p_value:.2g}, BH-adjusted {col.p_adjusted:.2g} "
                f"<= {config.alpha}); PSI {col.psi:.3f} (chance alone stays below {col.psi_noise:.3f}): "
                f"{ACTIONS[col.response]}"),
                {"column_name": col.name}, col.to_json(), kind="column_drift"))
    if multivariate is not None and multivariate.drifted:
        r = multivariate.result
        named = [c for c in multivariate.columns if columns.get(c) and columns[c].drifted]
        also = (f"; per-column tests also name {', '.join(named)}" if named
                else "; no single column's test is significant: the columns changed how they move together")
        out.append(Finding(detector, Severity.WARNING, (
            f"the joint distribution of {len(multivariate.columns)} numeric column(s) changed (MMD^2 "
            f"{r.statistic:.3g}, permutation p={r.p_value:.2g}, BH-adjusted {multivariate.p_adjusted:.2g}){also}"),
            {}, multivariate.to_json(), kind="multivariate_drift"))
    for col in columns.values():
        share = col.details.get("unseen_share", 0.0)
        if share > 0:
            unseen = col.details.get("unseen_categories", [])
            which = (f"{len(unseen)} categor{'y' if len(unseen) == 1 else 'ies'} the reference never had, e.g. "
                     f"{unseen[0]!r}" if unseen else "categories the reference never had (the streaming monitor "
                     "counts them together, without keeping their names)")
            out.append(Finding(detector, Severity.INFO, (
                f"column {col.name!r} has {which} ({share:.1%} of current rows): encoders fit on the reference will "
                "not know them"), {"column_name": col.name},
                {"unseen_categories": unseen, "unseen_share": share}, kind="new_category"))
    return out


def detect_drift(reference: "pandas.DataFrame", current: "pandas.DataFrame", *, method: str = "all",
                 columns: Sequence[str] | None = None, categorical: Sequence[str] = (),
                 config: DriftConfig | None = None, reference_source: str = "reference",
                 current_source: str = "current", started: float | None = None,
                 progress: Callable[[int, int], None] | None = None) -> DriftReport:
    """Compare two tables for covariate shift (the engine of ``faultlib check drift``).

    Args:
        reference: the reference sample (e.g. the validation data), one row per sample.
        current: the sample to compare (e.g. recent serving inputs); same columns.
        method: ``all`` (default), ``psi``, ``ks``, ``chi2`` or ``mmd`` (module docstring).
        columns: compare only these columns (default: all, which must match between the tables).
        categorical: columns to treat as categorical although numeric (codes).
        config: thresholds; default :class:`DriftConfig()`.
        reference_source: the reference's file or name, for error messages.
        current_source: the current table's file or name.
        started, progress: as :func:`compare` takes them (the time budget's start, a status line's callback).

    Returns:
        A :class:`DriftReport`; ``report.drifted`` names the drifted columns, ``report.response`` says
        what to do, ``report.findings`` are the findings.

    Raises:
        InputError: the tables do not match (missing values are data, not errors; see
            :func:`~faultlib.detect.data.drift.tables.align_tables`).
        DetectorError: an unknown method.

    Example::

        report = detect_drift(train_features, last_hour_features)
        if report.response >= Response.ALERT:
            page(report.drifted)
    """
    pairs = align_tables(reference, current, columns=columns, categorical=categorical,
                         reference_source=reference_source, current_source=current_source)
    keys = [] if columns else [p for p in pairs if p.name not in categorical and row_key(p, reference, current)]
    if keys and len(keys) < len(pairs):
        pairs = [p for p in pairs if p not in keys]
    else:
        keys = []
    report = compare(pairs, method=method, config=config, started=started, progress=progress)
    if keys:
        names = [p.name for p in keys]
        report.findings.append(Finding(DETECTOR, Severity.INFO, (
            f"column(s) {', '.join(map(repr, names))} hold a distinct integer in every row (named like an id, or "
            "consecutive integers): row keys, not features, so not tested (a new batch of ids would read as drift); "
            "name them with --columns to test them anyway"), {"column_name": names[0]}, {"columns": names}, kind="key_column_skipped"))
        report = replace(report, skipped=names)
    return report


__all__ = ["CATEGORICAL", "ColumnDrift", "DriftReport", "Multivariate", "NUMERIC", "compare", "detect_drift", "findings"]

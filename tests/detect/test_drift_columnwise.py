"""The block path of the per-column drift tests (:mod:`faultlib.detect.data.drift.columnwise`) gives what the
one-column path gives, column for column: statistic, p-value, PSI, its noise level, KL and the details; and the
time budget ends in an incomplete report that names what it did not test, never a hang."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from faultlib.detect.data.drift import DriftConfig
from faultlib.detect.data.drift import batch
from faultlib.detect.data.drift.columnwise import numeric_block
from faultlib.detect.data.drift.tables import align_tables


def _tables(rows_ref=300, rows_cur=240, seed=3):
    rng = np.random.default_rng(seed)
    ref = pd.DataFrame({"smooth": rng.normal(size=rows_ref), "shifted": rng.normal(size=rows_ref),
                        "rounded": np.round(rng.normal(size=rows_ref), 1), "steps": rng.integers(0, 4, rows_ref) * 1.0,
                        "wide": rng.exponential(5.0, rows_ref)})
    cur = pd.DataFrame({"smooth": rng.normal(size=rows_cur), "shifted": rng.normal(0.4, 1.0, rows_cur),
                        "rounded": np.round(rng.normal(size=rows_cur), 1), "steps": rng.integers(0, 5, rows_cur) * 1.0,
                        "wide": rng.exponential(6.0, rows_cur)})
    return ref, cur


@pytest.mark.parametrize("method", ["all", "ks", "psi", "chi2"])
@pytest.mark.parametrize("sizes", [(300, 240), (12_000, 11_000)], ids=["exact_ks", "asymptotic_ks"])
def test_the_block_path_gives_the_one_column_results(method, sizes):
    ref, cur = _tables(*sizes)
    pairs = align_tables(ref, cur)
    config = DriftConfig()
    block = numeric_block(pairs, method, config)
    assert "steps" not in block  # tied cut points: left to the one-column path, which merges them
    assert {"smooth", "shifted", "rounded", "wide"} <= set(block)
    for pair in pairs:
        if pair.name not in block:
            continue
        one = batch._numeric(pair, method, config)
        got = block[pair.name]
        assert got["method"] == one["method"]
        for key in ("statistic", "p_value", "psi", "psi_noise", "kl"):
            assert math.isclose(got[key], one[key], rel_tol=1e-9, abs_tol=1e-12), \
                f"{pair.name}.{key}: {got[key]} != {one[key]}"
        for key, value in one["details"].items():
            assert math.isclose(got["details"][key], value, rel_tol=1e-9, abs_tol=1e-12), f"{pair.name}.{key}"


def test_a_whole_report_is_the_same_either_way(monkeypatch):
    ref, cur = _tables()
    fast = batch.detect_drift(ref, cur).to_json()
    monkeypatch.setattr(batch.columnwise, "numeric_block", lambda pairs, method, config: {})
    slow = batch.detect_drift(ref, cur).to_json()
    assert fast["drifted"] == slow["drifted"] and "shifted" in fast["drifted"]
    for name, col in slow["columns"].items():
        assert math.isclose(fast["columns"][name]["p_adjusted"], col["p_adjusted"], rel_tol=1e-9), name
    assert fast["complete"] and fast["untested"] == []


def test_a_budget_that_runs_out_leaves_an_incomplete_report_naming_the_columns_not_tested():
    ref, cur = _tables()
    started = -1e9   # long ago: the budget has run out before the first column
    report = batch.detect_drift(ref, cur, config=DriftConfig(budget_s=1.0), started=started)
    assert not report.complete and report.untested == list(ref.columns) and report.columns == {}
    assert report.multivariate is None
    [finding] = [f for f in report.findings if f.kind == "analysis_incomplete"]
    assert "5 of 5 column(s) were not tested" in finding.message and "MMD" in finding.message
    assert "--budget" in finding.message and finding.severity.value == "warning"


def test_a_budget_that_runs_out_midway_keeps_what_it_tested(monkeypatch):
    ref, cur = _tables()
    ref["code"], cur["code"] = ["a", "b", "c"] * 100, ["a", "b", "d"] * 80   # categorical: one column at a time
    clock = iter(range(10_000))
    monkeypatch.setattr(batch.time, "monotonic", lambda: float(next(clock)))
    report = batch.detect_drift(ref, cur, config=DriftConfig(budget_s=0.5), started=0.0)
    assert not report.complete and report.columns and report.untested
    assert set(report.columns) | set(report.untested) == set(ref.columns) and report.untested == ["code"]
    assert report.to_json()["complete"] is False


def test_a_budget_is_a_positive_number_of_seconds():
    for bad in (0, -1.0, float("nan"), True):
        with pytest.raises(Exception, match="budget_s"):
            DriftConfig(budget_s=bad)


def test_the_random_feature_mmd_draws_the_same_bandwidth_rows_without_a_pooled_copy():
    """mmd_test's ``rff`` path no longer concatenates the two samples (320 MB at 2,000 x 10,000 a side); the
    median heuristic's rows are gathered from each sample by the same draw, so the test is the one it was."""
    from faultlib.detect.data.drift.mmd import median_bandwidth, mmd_test

    rng = np.random.default_rng(4)
    ref, cur = rng.normal(size=(1400, 6)), rng.normal(0.1, 1.0, size=(1300, 6))
    result = mmd_test(ref, cur, permutations=99, seed=9)
    assert result.evaluation == "rff"
    pooled = np.concatenate([ref, cur])
    assert result.bandwidth == median_bandwidth(pooled, np.random.default_rng(9))

"""The drift detectors on real samples: statistics against scipy, the batch detector, MMD, the
bounded-memory monitor, and the feature_shift shim."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from faultlib.detect.data.drift import (
    DriftConfig, DriftMonitor, Response, align_tables, compare, detect_drift, mmd_test, stats)
from faultlib.detect.data.drift.mmd import median_bandwidth, rbf_kernel
from faultlib.errors import DetectorError, InjectionError, InputError
from faultlib.findings import Severity

FAST = DriftConfig(permutations=99)


def table(rng, n, *, shift=0.0, cats="abc"):
    return pd.DataFrame({"x": rng.normal(shift, 1.0, n), "skew": rng.lognormal(0.0, 1.0, n),
                         "count": rng.poisson(2.0, n), "color": rng.choice(list(cats), n)})


# -- statistics ---------------------------------------------------------------------------------------------------

def test_quantile_edges_merge_ties_of_discrete_columns():
    values = np.random.default_rng(0).poisson(1.0, 500).astype(float)
    edges = stats.quantile_edges(values, 10)
    assert len(edges) == len(set(edges)) < 9
    counts = stats.bin_counts(values, edges)
    assert counts.sum() == 500 and len(counts) == len(edges) + 1
    assert list(stats.quantile_edges(np.full(10, 3.0), 10)) == [3.0]


def test_chi2_homogeneity_matches_scipy_and_pools_sparse_cells():
    from scipy.stats import chi2_contingency

    ref, cur = np.array([40, 30, 20, 10]), np.array([30, 30, 25, 15])
    statistic, p, dof = stats.chi2_homogeneity(ref, cur)
    expected = chi2_contingency(np.vstack([ref, cur]), correction=False)
    assert statistic == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue) and dof == 3
    pooled_ref, pooled_cur = stats.pool_sparse(np.array([50, 48, 1, 1]), np.array([49, 49, 1, 1]))
    assert list(pooled_ref) == [50, 48, 2] and list(pooled_cur) == [49, 49, 2]
    assert stats.chi2_homogeneity(np.array([10, 0]), np.array([10, 0])) == (0.0, 1.0, 0)


def test_psi_is_zero_for_identical_shares_and_grows_with_shift():
    assert stats.psi(np.array([10, 20, 30]), np.array([20, 40, 60]))[0] == pytest.approx(0.0, abs=1e-3)
    small, p_small = stats.psi(np.array([100, 100, 100, 100]), np.array([110, 100, 95, 95]))
    big, p_big = stats.psi(np.array([100, 100, 100, 100]), np.array([200, 100, 60, 40]))
    assert 0 < small < 0.1 < 0.25 < big and p_big < 1e-6 < p_small
    assert stats.kl(np.array([100, 100]), np.array([200, 10])) > 0
    noise = stats.psi_noise(np.full(10, 10), np.full(10, 10))        # 100 rows each: chance reaches ~0.34
    assert noise == pytest.approx(0.02 * 16.919, rel=1e-3)


def test_benjamini_hochberg_adjusted_values():
    adjusted = stats.benjamini_hochberg([0.01, 0.04, 0.03, 0.2])
    assert adjusted == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.2])
    assert stats.benjamini_hochberg([]) == []


# -- configuration --------------------------------------------------------------------------------------------------

def test_config_refuses_unknown_keys_and_inconsistent_thresholds():
    assert DriftConfig().updated({"alpha": 0.01}).alpha == 0.01
    with pytest.raises(InputError, match="unknown drift setting 'alhpa'") as info:
        DriftConfig().updated({"alhpa": 0.01}, path="case.yaml", prefix="repro.params.drift")
    assert info.value.field == "repro.params.drift.alhpa" and info.value.path == "case.yaml"
    with pytest.raises(DetectorError, match="must not exceed freeze_psi"):
        DriftConfig(alert_psi=0.5, freeze_psi=0.25)
    with pytest.raises(DetectorError, match="permutations must be an integer >= 19"):
        DriftConfig(permutations=5)
    config = DriftConfig()
    assert [config.response(v, True) for v in (0.05, 0.1, 0.3)] == [Response.RECORD, Response.ALERT, Response.FREEZE]
    assert config.response(5.0, False) is Response.NONE and Response.FREEZE > Response.ALERT


# -- MMD ---------------------------------------------------------------------------------------------------------------

def test_exact_mmd_statistic_is_the_textbook_v_statistic():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(60, 3)), rng.normal(0.3, 1.0, size=(40, 3))
    result = mmd_test(x, y, permutations=49, method="exact", seed=0)
    sigma = result.bandwidth
    expected = rbf_kernel(x, x, sigma).mean() + rbf_kernel(y, y, sigma).mean() - 2 * rbf_kernel(x, y, sigma).mean()
    assert result.statistic == pytest.approx(expected, rel=1e-9)
    assert sigma == pytest.approx(median_bandwidth(np.concatenate([x, y]), np.random.default_rng(0)))


@pytest.mark.parametrize("method", ["exact", "rff"])
def test_mmd_rejects_a_shift_and_not_a_resample(method):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(300, 4))
    same = mmd_test(x, rng.normal(size=(300, 4)), permutations=99, method=method, features=128)
    shifted = mmd_test(x, rng.normal(0.5, 1.0, size=(300, 4)), permutations=99, method=method, features=128)
    assert same.p_value > 0.05 and shifted.p_value == pytest.approx(1 / 100)
    assert shifted.evaluation == method and shifted.statistic > same.statistic >= 0


def test_mmd_refuses_bad_input():
    x = np.zeros((5, 2))
    with pytest.raises(DetectorError, match="same width"):
        mmd_test(x, np.zeros((5, 3)))
    with pytest.raises(DetectorError, match="at least 2 rows"):
        mmd_test(x, np.zeros((1, 2)))
    with pytest.raises(DetectorError, match=">= 19"):
        mmd_test(x, x, permutations=10)
    with pytest.raises(DetectorError, match="NaN"):
        mmd_test(x, np.full((5, 2), np.nan))


# -- batch detector -------------------------------------------------------------------------------------------------

def test_two_samples_of_one_distribution_raise_nothing():
    rng = np.random.default_rng(3)
    report = detect_drift(table(rng, 400), table(rng, 400), config=FAST)
    assert report.findings == [] and report.drifted == [] and report.response is Response.NONE
    assert {c.method for c in report.columns.values()} == {"ks", "chi2"}
    assert report.multivariate.columns == ["x", "skew", "count"] and not report.multivariate.drifted
    assert report.to_json()["correction"] == "benjamini_hochberg+bonferroni2"


def test_a_shifted_column_is_named_alone_with_a_graded_response():
    rng = np.random.default_rng(4)
    report = detect_drift(table(rng, 500), table(rng, 500, shift=0.8), config=FAST)
    assert report.drifted == ["x"] and report.response is Response.FREEZE
    column = report.columns["x"]
    assert column.p_adjusted <= 0.05 and column.psi > 0.25 and column.details["mean_z"] > 10
    kinds = [(f.kind, f.severity, f.location.get("column_name")) for f in report.findings]
    assert kinds[0] == ("column_drift", Severity.ERROR, "x") and ("multivariate_drift", Severity.WARNING, None) in kinds
    def one(n, shift):
        return pd.DataFrame({"x": rng.normal(shift, 1.0, n)})

    mild = detect_drift(one(3000, 0.0), one(3000, 0.4), config=FAST, method="ks")
    assert mild.drifted == ["x"] and mild.response is Response.ALERT           # PSI ~0.16, chance < 0.012
    assert 0.1 <= mild.columns["x"].psi - mild.columns["x"].psi_noise < 0.25
    tiny = detect_drift(one(20000, 0.0), one(20000, 0.06), config=FAST, method="ks")
    assert tiny.drifted == ["x"] and tiny.response is Response.RECORD           # significant but negligible
    assert [f.severity for f in tiny.findings] == [Severity.INFO]


def test_a_new_category_is_reported_and_drifts_its_column():
    rng = np.random.default_rng(5)
    report = detect_drift(table(rng, 400), table(rng, 400, cats="abcd"), config=FAST)
    assert report.drifted == ["color"] and report.columns["color"].method == "chi2"
    new = [f for f in report.findings if f.kind == "new_category"]
    assert len(new) == 1 and new[0].evidence["unseen_categories"] == ["d"] and new[0].severity is Severity.INFO


@pytest.mark.parametrize("method,numeric,categorical", [("psi", "psi", "psi"), ("ks", "ks", "chi2"),
                                                        ("chi2", "chi2", "chi2")])
def test_methods_choose_the_test_per_column_type(method, numeric, categorical):
    rng = np.random.default_rng(6)
    report = detect_drift(table(rng, 200), table(rng, 200), method=method, config=FAST)
    assert report.multivariate is None and report.columns["x"].method == numeric
    assert report.columns["color"].method == categorical


def test_mmd_catches_a_joint_shift_no_single_column_shows():
    rng = np.random.default_rng(7)
    a = rng.normal(size=(500, 2))
    z = rng.normal(size=500)
    b = np.column_stack([z, 0.95 * z + np.sqrt(1 - 0.95 ** 2) * rng.normal(size=500)])  # same marginals, correlated
    ref, cur = pd.DataFrame(a, columns=["u", "v"]), pd.DataFrame(b, columns=["u", "v"])
    report = detect_drift(ref, cur, config=FAST)
    assert report.drifted == [] and report.multivariate.drifted and report.response is Response.ALERT
    assert [f.kind for f in report.findings] == ["multivariate_drift"]
    assert "move together" in report.findings[0].message
    only = detect_drift(ref, cur, method="mmd", config=FAST)
    assert only.columns == {} and only.multivariate.p_adjusted == only.multivariate.result.p_value


def test_tables_that_do_not_match_name_the_file_column_and_line():
    rng = np.random.default_rng(8)
    ref, cur = table(rng, 20), table(rng, 20)
    with pytest.raises(InputError, match="has no column 'color'") as info:
        align_tables(ref, cur.drop(columns="color"), reference_source="ref.csv", current_source="cur.csv")
    assert info.value.path == "cur.csv" and info.value.field == "color"
    with pytest.raises(InputError, match="has column 'extra'"):
        align_tables(ref, cur.assign(extra=1.0), current_source="cur.csv")
    assert [p.name for p in align_tables(ref, cur.assign(extra=1.0), columns=["x", "color"])] == ["x", "color"]
    holed = cur.copy()
    holed.loc[5, "x"] = np.nan
    holed.loc[6, "x"] = -np.inf
    [x] = [p for p in align_tables(ref, holed, current_source="cur.csv") if p.name == "x"]
    assert len(x.current) == 18 and x.current_missing == {"null": 1, "posinf": 0, "neginf": 1}
    assert not x.current_present[5] and x.missing("current") == 2 and x.rows("current") == 20
    with pytest.raises(InputError, match="is categorical here but numeric"):
        align_tables(ref, cur.assign(x=["a"] * 20), current_source="cur.parquet")
    with pytest.raises(InputError, match="mixes numbers and text"):
        align_tables(ref, cur.assign(color=["a", 1] * 10), current_source="cur.json")
    coded = align_tables(ref.assign(count=ref["count"].astype(float)), cur, categorical=["count"])
    assert coded[2].type == "categorical" and set(coded[2].reference) <= {str(v) for v in range(20)}


def test_missing_share_test_and_mmd_on_complete_rows():
    rng = np.random.default_rng(11)
    ref, cur = table(rng, 400), table(rng, 400)
    cur.loc[cur.index[:120], "skew"] = np.nan                   # 30 % of one column goes missing
    report = detect_drift(ref, cur, config=FAST)
    gap = report.columns["skew"].missing
    assert gap["drifted"] and gap["current_share"] == pytest.approx(0.3) and gap["reference_share"] == 0.0
    assert not report.columns["skew"].values_drifted and report.columns["skew"].drifted
    assert report.multivariate.result.n_current == 280            # MMD on rows with every numeric column
    assert not report.columns["x"].missing["tested"] and report.columns["x"].missing["p_value"] == 1.0
    small = cur.copy()
    small.loc[small.index[:3], "x"] = np.nan                     # 3 of 400: Fisher's test, not significant
    small = detect_drift(ref, small.assign(skew=cur["skew"].fillna(1.0)), config=FAST)
    assert not small.columns["x"].drifted and small.columns["x"].missing["tested"]


def test_large_sample_ks_equals_scipy_asymptotic_and_mmd_streams_with_an_asymptotic_null():
    from scipy.stats import ks_2samp

    rng = np.random.default_rng(12)
    a, b = rng.poisson(2.0, 15_000).astype(float), rng.poisson(2.05, 12_000).astype(float)   # ties
    expected = ks_2samp(a, b, method="asymp")
    assert stats.ks(a, b) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-9)
    x, y = rng.normal(size=(15_000, 3)), rng.normal(size=(15_000, 3))
    same = mmd_test(x, y, permutation_max=20_000 - 1)
    assert same.evaluation == "rff_asymptotic" and same.permutations == 0 and same.p_value > 0.05
    y[:, 1] = 0.6 * y[:, 0] + 0.8 * y[:, 1]                        # same marginals, a new correlation
    moved = mmd_test(x, y, permutation_max=20_000 - 1)
    assert moved.p_value < 1e-3
    config = DriftConfig(mmd_max_rows=1_000, permutations=99)
    report = compare(align_tables(pd.DataFrame(x, columns=list("abc")), pd.DataFrame(y, columns=list("abc"))),
                     config=config)
    assert report.multivariate.result.n_reference == 1_000 and report.multivariate.drifted


# -- streaming monitor ------------------------------------------------------------------------------------------

def test_monitor_memory_does_not_grow_with_traffic():
    rng = np.random.default_rng(9)
    monitor = DriftMonitor(table(rng, 300), window=200, block=50, config=FAST)
    monitor.update(table(rng, 200))
    held = monitor.state_size
    for _ in range(20):
        monitor.update(table(rng, 97))
    assert monitor.state_size == held and monitor.rows_seen == 200 + 20 * 97
    assert 150 < monitor.window_rows <= 200


def test_monitor_is_silent_on_the_reference_distribution_and_names_a_shift():
    rng = np.random.default_rng(10)
    monitor = DriftMonitor(table(rng, 1000), window=400, block=100)
    monitor.update(table(rng, 400))
    quiet = monitor.check()
    assert quiet.findings == [] and quiet.response is Response.NONE
    monitor.update(table(rng, 400, shift=1.0, cats="abcd"))
    loud = monitor.check()
    assert loud.drifted[:2] == ["color", "x"] or set(loud.drifted) == {"x", "color"}
    assert loud.response is Response.FREEZE and {f.detector for f in loud.findings} == {"drift_monitor"}
    assert "new_category" in {f.kind for f in loud.findings}


def test_window_moments_follow_only_the_window():
    rng = np.random.default_rng(11)
    monitor = DriftMonitor(rng.normal(size=(200, 2)), columns=["a", "b"], window=100, block=10)
    monitor.update(rng.normal(5.0, 1.0, size=(300, 2)))
    last = rng.normal(-3.0, 2.0, size=(100, 2))
    monitor.update(last)
    mean, std = monitor.window_moments()["a"]
    assert mean == pytest.approx(last[:, 0].mean()) and std == pytest.approx(last[:, 0].std(ddof=1))


def test_monitor_misuse_is_refused_with_the_next_step():
    monitor = DriftMonitor(np.random.default_rng(12).normal(size=(50, 2)), columns=["a", "b"], window=40)
    with pytest.raises(DetectorError, match="update\\(\\) with more served rows before check"):
        monitor.check()
    with pytest.raises(DetectorError, match="expected \\(rows, 2\\)"):
        monitor.update(np.zeros((3, 3)))
    with pytest.raises(DetectorError, match="NaN or inf"):
        monitor.update(np.array([[np.nan, 1.0]]))
    with pytest.raises(DetectorError, match="one name per column"):
        DriftMonitor(np.zeros((5, 2)))


# -- the feature_shift shim ------------------------------------------------------------------------------------------

def test_feature_shift_rescales_the_named_inputs_inside_its_window_only():
    torch = pytest.importorskip("torch")
    from faultlib.inject import build

    class Target:
        model = torch.nn.Linear(3, 1)
        step = 0
        attempt = 1

    seen = []
    shim = build("feature_shift", {"columns": [0, 2], "scale": 2.0, "offset": 1.0, "start_step": 1, "steps": 1})
    shim.apply(Target)
    observer = Target.model.register_forward_pre_hook(lambda _m, args: seen.append(args[0].clone()))  # after: sees it
    x = torch.ones(4, 3)
    for step in (0, 1, 2):
        Target.step = step
        Target.model(x)
    shim.revert()
    observer.remove()
    assert torch.equal(seen[0], x) and torch.equal(seen[2], x)
    assert seen[1][:, 0].tolist() == [3.0] * 4 and seen[1][:, 1].tolist() == [1.0] * 4 and shim.hits == 1
    wide = build("feature_shift", {"columns": [5], "start_step": 0})
    wide.apply(Target)
    Target.step = 0
    with pytest.raises(InjectionError, match="has 3 features"):
        Target.model(x)
    wide.revert()
    with pytest.raises(InjectionError, match="columns"):
        build("feature_shift", {"columns": [], "start_step": 0})
